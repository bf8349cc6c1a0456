"""The noises on the vectors of a model: the public functions (see the package)."""

from __future__ import annotations

from typing import Any

from ._apply import perturb_array

__all__ = ["flip", "gaussian", "phase_noise", "quantize", "stuck_at"]


def flip(model: Any, x: Any, p: float, *, seed: int | None = None) -> Any:
    """``x`` with exactly ``round(p * n)`` of the ``n`` units of each vector flipped: bits
    (``element_kind`` ``"binary"`` or ``"sparse"``: BSC, packed or not, BSDC) change
    0 <-> 1, and the other kinds' units change sign (MAP, MAP-C, HRR, VTB, FHRR; GHRR
    negates whole blocks, its atoms, so that they stay unitary).

    The positions are the seeded generator's (the same on every backend, each vector's
    from its row of the draw). Bipolar and binary vectors keep similarity exactly
    ``1 - 2 round(p n) / n`` with the original; see :func:`expected_similarity`.

    Parameters
    ----------
    model : VSAModel
        The model of the vectors.
    x : array
        Vectors of the model, ``(..., vector_length)``.
    p : float
        The fraction of units to flip, in [0, 1].
    seed : int, optional
        The seed of the positions; ``None`` for the model's next spawned seed (fresh, or
        reproducible for a seeded model).

    Returns
    -------
    array
        A new array of ``x``'s shape and dtype; ``x`` is not changed.

    Examples
    --------
    >>> from holovec import VSA, noise
    >>> model = VSA.create("MAP", dim=1000)
    >>> a = model.random(seed=1)
    >>> b = noise.flip(model, a, 0.1, seed=7)
    >>> round(float(model.similarity(a, b)), 6)  # 1 - 2 * 100 / 1000
    0.8
    """
    return perturb_array(model, x, "flip", p, seed=seed, names=("x", "p"))


def stuck_at(model: Any, x: Any, p: float, value: Any, *, seed: int | None = None) -> Any:
    """``x`` with exactly ``round(p * dim)`` elements of each vector stuck at ``value`` (a
    memory cell that holds one value whatever is written).

    ``value`` must be a value of the model's elements (``model.allowed_values``: +-1 for
    MAP, 0 or 1 for BSC, any finite number for HRR, a complex number for FHRR); the
    positions are the seeded generator's, as for :func:`flip`.

    Parameters
    ----------
    model : VSAModel
        The model of the vectors.
    x : array
        Vectors of the model, ``(..., vector_length)``.
    p : float
        The fraction of elements stuck, in [0, 1].
    value : float or complex
        The value the stuck elements hold.
    seed : int, optional
        The seed of the positions; ``None`` for the model's next spawned seed.

    Returns
    -------
    array
        A new array of ``x``'s shape and dtype; ``x`` is not changed.

    Examples
    --------
    >>> from holovec import VSA, noise
    >>> model = VSA.create("BSC", dim=1000)
    >>> a = model.random(seed=1)
    >>> b = noise.stuck_at(model, a, 0.5, 0, seed=3)
    >>> int((b == 0).sum()) >= 500
    True
    """
    return perturb_array(model, x, "stuck_at", p, seed=seed, value=value, names=("x", "p"))


def gaussian(model: Any, x: Any, sigma: float, *, seed: int | None = None) -> Any:
    """``x`` plus Gaussian noise of ``sigma`` times each vector's RMS element: the same
    noise-to-signal ratio at any scale, the cosine with the original about
    ``1 / sqrt(1 + sigma**2)``.

    For real models whose elements may take any value (``element_kind`` ``"gaussian"``:
    HRR, VTB); others raise ``TypeError`` (their vectors would leave the model: use
    :func:`flip` or :func:`quantize` for MAP and BSC, :func:`phase_noise` for FHRR). The
    numbers are the seeded generator's normals, equal across backends to float rounding.

    Parameters
    ----------
    model : VSAModel
        The model of the vectors.
    x : array
        Vectors of the model, ``(..., vector_length)``.
    sigma : float
        The noise's standard deviation relative to the RMS element, at least 0.
    seed : int, optional
        The seed of the noise; ``None`` for the model's next spawned seed.

    Returns
    -------
    array
        A new array of ``x``'s shape and dtype; ``x`` is not changed.

    Examples
    --------
    >>> from holovec import VSA, noise
    >>> model = VSA.create("HRR", dim=2000)
    >>> a = model.random(seed=1)
    >>> 0.85 < float(model.similarity(a, noise.gaussian(model, a, 0.5, seed=2))) < 0.94
    True
    """
    return perturb_array(model, x, "gaussian", sigma, seed=seed, names=("x", "sigma"))


def phase_noise(model: Any, x: Any, sigma: float, *, seed: int | None = None) -> Any:
    """``x`` with each unit turned by a random phase of standard deviation ``sigma``
    (radians): ``u * exp(1j * theta)``, ``theta ~ N(0, sigma**2)``, one angle per element
    (FHRR) or per block (GHRR, which stays unitary). The similarity with the original is
    about ``exp(-sigma**2 / 2)``.

    For complex models; real ones raise ``TypeError`` (use :func:`gaussian`).

    Parameters
    ----------
    model : VSAModel
        The model of the vectors.
    x : array
        Vectors of the model, ``(..., vector_length)``.
    sigma : float
        The phase noise's standard deviation in radians, at least 0.
    seed : int, optional
        The seed of the noise; ``None`` for the model's next spawned seed.

    Returns
    -------
    array
        A new array of ``x``'s shape and dtype; ``x`` is not changed.

    Examples
    --------
    >>> from holovec import VSA, noise
    >>> model = VSA.create("FHRR", dim=2000)
    >>> a = model.random(seed=1)
    >>> 0.85 < float(model.similarity(a, noise.phase_noise(model, a, 0.5, seed=2))) < 0.91
    True
    """
    return perturb_array(model, x, "phase", sigma, seed=seed, names=("x", "sigma"))


def quantize(model: Any, x: Any, bits: int) -> Any:
    """``x`` quantised to ``bits`` bits per element: real elements on ``2**bits`` uniform
    levels from ``-m`` to ``m``, ``m`` each vector's largest modulus (so nothing is
    clipped, and both ends are levels), rounded to the nearest; phasors (FHRR) on
    ``2**bits`` phases, ``0, 2 pi / 2**bits, ...``, their moduli kept. Bits, signs and
    bipolar vectors are one bit already and stay as they are (MAP-I's integer bundles
    go on the levels, rounded to integers). GHRR's unitary blocks raise ``TypeError``.

    Deterministic: no seed. Random phasors keep similarity about ``sinc(1 / 2**bits)``
    (:func:`expected_similarity`).

    Parameters
    ----------
    model : VSAModel
        The model of the vectors.
    x : array
        Vectors of the model, ``(..., vector_length)``.
    bits : int
        Bits per element, 1 to 32.

    Returns
    -------
    array
        A new array of ``x``'s shape and dtype; ``x`` is not changed.

    Examples
    --------
    >>> from holovec import VSA, noise
    >>> model = VSA.create("FHRR", dim=2000)
    >>> a = model.random(seed=1)
    >>> b = noise.quantize(model, a, 1)  # phases 0 or pi: the signs of the real parts
    >>> abs(float(model.similarity(a, b)) - noise.expected_similarity(model, "quantize", 1)) < 0.03
    True
    """
    return perturb_array(model, x, "quantize", bits, names=("x", "bits"))
