"""What each noise does to a similarity, in closed form, where there is one."""

from __future__ import annotations

import math
import numbers
from typing import Any

from ._apply import BIT_KINDS, LEVEL_RULES, NOISES, SIGN_KINDS
from ._draws import count

__all__ = ["expected_similarity"]


def expected_similarity(model: Any, noise: str, level: Any, *, value: Any = None) -> float:
    """The similarity a random vector of ``model`` keeps with itself after ``noise`` of
    ``level`` (the mean over the noise's randomness; exact where it says so):

    ==============  ====================================================================
    ``"flip"``      ``1 - 2 k / n``, ``k = round(p n)`` of the ``n`` units flipped: exact
                    for bipolar, binary and phasor vectors, the mean for the others.
                    Whatever is read by a similarity that is linear in the vector (a
                    bundle, a prototype, a memory's read-out) keeps this *fraction* of its
                    similarity to each item: the similarity scales by ``1 - 2 k / n``.
    ``"stuck_at"``  ``1 - q`` (``q = round(p dim) / dim``) for bits, signs and phasors
                    (a stuck element agrees by chance); ``(1 - q) / sqrt(1 - q + q dim
                    value**2)`` for Gaussian elements (HRR, VTB: variance ``1 / dim``).
    ``"gaussian"``  ``1 / sqrt(1 + sigma**2)`` (the noise is ``sigma`` RMS elements).
    ``"phase"``     ``exp(-sigma**2 / 2)``, the mean of ``cos(theta)``.
    ``"quantize"``  1 for bits and +-1 vectors (one bit already); ``sin(pi / L) / (pi / L)``
                    for phasors (``L = 2**bits`` phases, the rounding error uniform);
                    ``sqrt(2 / pi)`` for Gaussian elements at one bit (their signs).
    ==============  ====================================================================

    Other combinations have no closed form here: ``ValueError``; a noise that the model's
    vectors cannot take raises ``TypeError``, as the noise itself does.

    Parameters
    ----------
    model : VSAModel
        The model of the vectors.
    noise : str
        ``"flip"``, ``"stuck_at"``, ``"gaussian"``, ``"phase"`` or ``"quantize"``.
    level : float or int
        As for the noise: a fraction, a standard deviation or the bits.
    value : float or complex, optional
        The value of stuck elements (stuck_at only).

    Returns
    -------
    float
        The expected similarity, in [-1, 1].

    Examples
    --------
    >>> from holovec import VSA, noise
    >>> model = VSA.create("BSC", dim=2000)
    >>> noise.expected_similarity(model, "flip", 0.1)
    0.8
    >>> round(noise.expected_similarity(VSA.create("FHRR", dim=2000), "quantize", 1), 4)  # 2 / pi
    0.6366
    """
    noise = NOISES.check("noise", noise)
    level = LEVEL_RULES[noise].check("level", level)
    kind, dim = model.element_kind, model.dim
    is_complex = model.xp.isdtype(model.dtype, "complex floating")
    if noise != "stuck_at" and value is not None:
        raise TypeError(f"value= goes with stuck_at only, not with {noise}")
    if noise == "flip":
        if kind not in BIT_KINDS + SIGN_KINDS:
            raise TypeError(f"flip cannot perturb {model.name} vectors (element_kind {kind!r})")
        if kind == "sparse":  # a sparse code's similarity counts its ones, not agreements
            raise ValueError(f"no closed form of flip for {model.name} (element_kind 'sparse')")
        n = dim // model.atom_size if kind in SIGN_KINDS and model.atoms_exchangeable else dim
        return 1.0 - 2.0 * count(level, n) / n
    if noise == "stuck_at":
        return _stuck(model, kind, count(level, dim) / dim, value)
    if noise == "gaussian":
        if kind != "gaussian":
            raise TypeError(f"gaussian cannot perturb {model.name} vectors (element_kind {kind!r})")
        return 1.0 / math.sqrt(1.0 + level**2)
    if noise == "phase":
        if not is_complex:
            raise TypeError(f"phase cannot perturb {model.name} vectors: they are not complex")
        return math.exp(-(level**2) / 2)
    if kind in ("binary", "sparse", "bipolar"):
        return 1.0
    if kind == "phasor":
        half_step = math.pi / 2**level
        return math.sin(half_step) / half_step
    if kind == "gaussian" and level == 1:
        return math.sqrt(2 / math.pi)
    raise ValueError(f"no closed form of quantize at {level} bits for {model.name} (element_kind {kind!r})")


def _stuck(model: Any, kind: str, q: float, value: Any) -> float:
    if value is None:
        raise TypeError("stuck_at needs value=: the number the stuck elements hold")
    if isinstance(value, bool) or not isinstance(value, numbers.Complex):
        raise TypeError(f"value must be a number, got {type(value).__name__} {value!r}")
    if kind in ("binary", "bipolar", "phasor"):
        return 1.0 - q
    if kind == "gaussian" and isinstance(value, numbers.Real):
        # the stuck part adds q dim value**2 to the squared length, whose rest is 1 - q
        return (1.0 - q) / math.sqrt(1.0 - q + q * model.dim * float(value) ** 2)
    raise ValueError(
        f"no closed form of stuck_at for {model.name} (element_kind {kind!r}) at value {value!r}"
    )
