"""Integers in a residue number system, for every model with a phasor form."""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import partial
from typing import Any, ClassVar

import numpy as np

from .. import kernels
from .._deprecation import keyword_only_after
from .._params import FLAG, Interval, Rule
from ..models.base import VSAModel
from ..random import Purpose, random_words
from ._rules import Items
from ._values import (
    check_values,
    check_vectors,
    empty_vectors,
    host_backend,
    index_dtype,
    is_empty,
)
from .base import Encoder
from .fpe_decode import TABLE_BYTES
from .phase_codes import PhaseCodec, check_phasor_model

__all__ = ["ResidueEncoder"]


def _residue_vectors(codec: PhaseCodec, moduli: tuple[int, ...], x: Any, k: Any) -> Any:
    """Codes of whole numbers ``x`` (floats): phases ``2 pi sum_m (k_m * (x mod m) mod m) / m``."""
    xp = codec.xp
    batch = tuple(x.shape)
    xi = xp.astype(xp.reshape(xp.round(x), (-1,)), k.dtype)
    turns = None
    for i, m in enumerate(moduli):  # a fraction of a turn per modulus, exact in floats
        part = xp.astype(((xi % m)[:, None] * k[i]) % m, codec.real) / m
        turns = part if turns is None else turns + part
    phases = (turns - xp.floor(turns)) * (2 * math.pi)
    return xp.reshape(codec.vectors(phases), (*batch, codec.model.vector_length))


class ResidueEncoder(Encoder):
    """Integers in a residue number system (Kymn, Kleyko, Frady et al. 2023, "Computing with
    residue numbers in high-dimensional representation"), for FHRR and HRR.

    One random base per modulus ``m``, whose phases are multiples ``2 pi k / m`` (``k``
    uniform on ``0 .. m - 1``: the m-th roots of unity, so ``base_m ** m`` is the identity);
    ``encode(x)`` is the binding over the moduli of ``base_m ** (x mod m)``. With pairwise
    coprime moduli of product ``M`` the code of ``x`` depends on ``x mod M`` only, distinct
    residues are orthogonal in expectation (on FHRR exactly 0 in expectation, not just
    small; on HRR the fixed zero and Nyquist frequencies add ``1/dim`` or ``2/dim``, as
    :meth:`kernel` accounts for), and binding adds:
    ``bind(encode(x), encode(y)) == encode((x + y) % M)`` up to float rounding. Valid
    inputs are the integers ``0 .. M - 1``.

    ``decode`` has two methods. ``"moduli"`` finds each residue by a search over its ``m``
    candidates and combines them by the Chinese remainder theorem (work ``sum(moduli)``, not
    ``prod(moduli)``): raising a vector elementwise to the power ``M / m`` turns every other
    modulus's phases into whole turns and leaves a code of ``x mod m`` alone, so each
    residue is found directly; then ``sweeps`` passes of coordinate ascent (per modulus:
    unbind the other moduli's estimates and take the best of the ``m`` candidates) polish
    the joint answer. It is exact for encodings and their bindings, but the power
    multiplies phase noise by ``M / m``, so it does not decode noisy vectors (bundles).
    ``"exhaustive"`` compares with all ``M`` codes (one ``similarity_matrix`` against a
    table kept after the first call): the most similar code, robust to noise. The default
    ``"auto"`` is exhaustive while that table takes at most 128 MiB.

    Parameters
    ----------
    model : VSAModel
        An FHRR or HRR model (``TypeError`` otherwise).
    moduli : Sequence[int], optional
        The moduli, pairwise coprime; their product is the range of the integers.
    seed : int, optional
        Seed of the encoder's random vectors; ``None`` draws them from the model's
        generator.
    clip : bool, optional
        Whether integers outside ``[0, modulus)`` wrap modulo it (else ``ValueError``).

    Examples
    --------
    >>> from holovec import VSA
    >>> from holovec.encoders import ResidueEncoder
    >>> model = VSA.create("FHRR", dim=1000)
    >>> rns = ResidueEncoder(model, moduli=(3, 5, 7), seed=2)
    >>> rns.modulus
    105
    >>> a, b = rns.encode(40), rns.encode(80)
    >>> int(rns.decode(model.bind(a, b)))   # (40 + 80) % 105
    15
    """

    requires = "a phasor form (model.has_phasor_form)"

    @classmethod
    def supports(cls, model: Any) -> bool:
        return model.has_phasor_form

    _parameter_rules: ClassVar[dict[str, Rule]] = {
        "moduli": Items(Interval(2, integral=True), "a non-empty sequence of ints >= 2"),
        "clip": FLAG,
    }

    @keyword_only_after(2)
    def __init__(
        self,
        model: VSAModel,
        moduli: Sequence[int] = (3, 5, 7),
        *,
        seed: int | None = None,
        clip: bool = False,
    ) -> None:
        super().__init__(model, seed=seed, moduli=moduli, clip=clip)
        check_phasor_model(model, "ResidueEncoder")
        self.clip = clip
        moduli = tuple(int(m) for m in moduli)
        for i, a in enumerate(moduli):
            for b in moduli[i + 1 :]:
                if math.gcd(a, b) != 1:
                    raise ValueError(
                        f"moduli must be pairwise coprime; {a} and {b} share the factor {math.gcd(a, b)}"
                    )
        self.moduli = moduli
        self.modulus = math.prod(moduli)
        exact = 2**53 if kernels.supports_dtype(self.backend, "float64") else 2**24
        limit = min(2**31 - 1, exact)
        if self.modulus > limit:
            raise ValueError(
                f"the product of the moduli must be at most {limit} here (integers must be exact in "
                f"the backend's floats and int32), got {self.modulus}"
            )
        self._int = index_dtype(self.backend)
        if self._int == self.backend.dtype("int32") and max(moduli) > 46340:
            raise ValueError(
                f"this backend computes in int32, so every modulus must be at most 46340; got {max(moduli)}"
            )
        self._codec = codec = PhaseCodec(model)
        fixed = codec.fixed
        k = []
        for i, m in enumerate(moduli):
            words = random_words(
                host_backend(), self.seed, 1, codec.n_freq, stream=i, purpose=Purpose.RESIDUE_PHASES
            )[0]
            k.append(np.where(fixed, 0, words.astype(np.int64) % m))
        self.k_host = np.stack(k)  # (n_moduli, n_freq): base_m's phases are 2 pi k / m
        self._multipliers = self.backend.asarray(self.k_host, dtype=self._int)
        self._codebooks: list[Any] | None = None
        self._weights: Any = None
        self._table: Any = None

    def encode(self, values: Any, *, clip: bool | None = None) -> Any:
        """One integer or an array of integers in ``[0, modulus)`` -> vectors ``(..., dim)``.

        Parameters
        ----------
        values : array_like
            One integer or an array of integers in ``[0, modulus)``.
        clip : bool, optional
            Whether integers outside the range wrap modulo it; ``None`` for the encoder's
            ``clip``.
        """
        xp = self.xp
        clip = self.clip if clip is None else clip
        x = self._rows_of_vectors(check_values(self.backend, values, low=0, high=self.modulus - 1, clip=clip))
        if clip:  # also under tracing, where check_values cannot clip
            x = xp.clip(x, 0, self.modulus - 1)
        if not self.backend.is_traced(x) and not bool(xp.all(x == xp.floor(x))):
            raise ValueError("ResidueEncoder encodes integers; got values with a fractional part")
        if is_empty(tuple(x.shape)):  # no FFT of zero rows (torch's MKL refuses it)
            return empty_vectors(self.model, tuple(x.shape))
        fn = self.backend.program(
            partial(_residue_vectors, self._codec, self.moduli),
            (self.model.config_key, "residue", self.moduli),
            keep=self.model.kernel_cache,
        )
        return fn(x, self._multipliers)

    def _codebook(self, index: int) -> Any:
        """Spectra ``exp(2 pi i k r / m)`` of the ``m`` powers of one modulus's base, (m, n_freq)."""
        if self._codebooks is None:
            xp, codec = self.xp, self._codec
            books = []
            for i, m in enumerate(self.moduli):
                r = xp.arange(m, dtype=self._int, device=self.backend.device)
                phase = xp.astype((r[:, None] * self._multipliers[i]) % m, codec.real) * (2 * math.pi / m)
                books.append(kernels.unit_phasor(self.backend, phase))
            self._codebooks = books
        return self._codebooks[index]

    def _scores(self, spectrum: Any, index: int) -> Any:
        """How well each power of modulus ``index``'s base matches each row of ``spectrum``:
        the similarity up to a positive factor per row, ``Re sum_f w_f s_f conj(c_f)``
        (HRR counts each frequency but the fixed ones twice, as the full spectrum does)."""
        xp, book = self.xp, self._codebook(index)
        re, im = xp.real(spectrum), xp.imag(spectrum)
        if self._weights is not None:
            re, im = re * self._weights, im * self._weights
        t, product = xp.matrix_transpose, partial(kernels.matmul, self.backend)
        return product(re, t(xp.real(book))) + product(im, t(xp.imag(book)))

    def _unit(self, spectrum: Any) -> Any:
        """Every coefficient divided by its magnitude (zeros become 1)."""
        xp = self.xp
        magnitude = xp.abs(spectrum)
        nonzero = magnitude > 0
        return xp.where(nonzero, spectrum / xp.where(nonzero, magnitude, 1), 1)

    #: sweeps of coordinate ascent after the per-modulus search
    sweeps = 2

    def _sweep(self, spectrum: Any, states: list[Any], choice: list[Any]) -> None:
        """One pass of coordinate ascent over the moduli: each residue re-chosen as the best
        of its ``m`` candidates given the others (unbound from the query)."""
        xp = self.xp
        for i in range(len(self.moduli)):
            rest = None
            for j, state in enumerate(states):
                if j != i:
                    rest = state if rest is None else rest * state
            choice[i] = xp.astype(xp.argmax(self._scores(spectrum * xp.conj(rest), i), axis=-1), self._int)
            states[i] = xp.take(self._codebook(i), choice[i], axis=0)

    def _decode_moduli(self, q: Any) -> Any:
        """Per-modulus search, then the Chinese remainder theorem (a pure array function)."""
        xp, codec = self.xp, self._codec
        spectrum = codec.spectrum(q)
        # each modulus alone: the power M / m turns every other modulus's phases into whole
        # turns, and residue r into r * (M / m) mod m
        angle = xp.astype(
            xp.atan2(xp.imag(spectrum), xp.real(spectrum)), kernels.default_float_dtype(self.backend)
        )
        choice = []
        for i, m in enumerate(self.moduli):
            p = self.modulus // m
            powered = angle * p
            powered = powered - xp.floor(powered / (2 * math.pi)) * (2 * math.pi)
            scores = self._scores(kernels.unit_phasor(self.backend, xp.astype(powered, codec.real)), i)
            found = xp.astype(xp.argmax(scores, axis=-1), self._int)
            choice.append((found * pow(p, -1, m)) % m)
        # coordinate ascent: each residue the best given the others (exact encodings are
        # fixed points; it repairs residues that rounding or light noise made wrong)
        if len(self.moduli) > 1:
            states = [xp.take(self._codebook(i), c, axis=0) for i, c in enumerate(choice)]
            for _ in range(self.sweeps):
                self._sweep(spectrum, states, choice)
        return self._crt(choice)

    def _decode_exhaustive(self, q: Any, table: Any) -> Any:
        """The most similar of all ``modulus`` codes (one similarity_matrix)."""
        xp = self.xp
        return xp.astype(xp.argmax(self.model.similarity_matrix(q, table), axis=-1), self._int)

    def decode(self, vectors: Any, *, method: str = "auto") -> Any:
        """The integer in ``[0, modulus)`` encoded by each vector: a 0-d integer array for one
        vector, else shape ``(...)``.

        ``method``: ``"exhaustive"`` searches all ``modulus`` codes for the most similar one
        (robust to noise; the table of codes is kept); ``"moduli"`` searches each modulus's
        ``m`` candidates and combines the residues by the Chinese remainder theorem (work
        ``sum(moduli)`` instead of ``prod(moduli)``; exact for encodings and their bindings,
        not for noisy vectors); ``"auto"`` (default) is exhaustive while the table of all
        codes takes at most 128 MiB, else moduli.

        Parameters
        ----------
        vectors : array
            One vector of the model, or a batch ``(..., vector_length)``.
        method : str, optional
            ``"moduli"`` (per modulus, then the Chinese remainder theorem), ``"exhaustive"``
            (all codes) or ``"auto"``.
        """
        model, xp = self.model, self.xp
        if method not in ("auto", "exhaustive", "moduli"):
            raise ValueError(f"method must be 'auto', 'exhaustive' or 'moduli', got {method!r}")
        vectors = check_vectors(model, vectors, "vectors")
        batch = tuple(vectors.shape[:-1])
        if is_empty(batch):
            return xp.zeros(batch, dtype=self._int, device=self.backend.device)
        q = xp.reshape(vectors, (-1, model.vector_length))
        if method == "auto":
            nbytes = self.modulus * model.vector_length * np.dtype(model.dtype_name).itemsize
            method = "exhaustive" if nbytes <= TABLE_BYTES else "moduli"
        if method == "exhaustive":
            if self._table is None:
                values = xp.arange(
                    self.modulus, dtype=kernels.default_float_dtype(self.backend), device=self.backend.device
                )
                self._table = self.encode(values)
            return xp.reshape(self._program("_decode_exhaustive")(q, self._table), batch)
        # made eagerly, so that a compiled decode sees them as constants
        for i in range(len(self.moduli)):
            self._codebook(i)
        if self._weights is None and (self._codec.weights != 1).any():
            self._weights = self.backend.asarray(self._codec.weights, dtype=self._codec.real)
        return xp.reshape(self._program("_decode_moduli")(q), batch)

    def _crt(self, residues: list[Any]) -> Any:
        """The integers with these residues (Garner's mixed-radix form: no product exceeds
        the moduli squared, so int32 suffices)."""
        digits: list[Any] = []
        for i, m in enumerate(self.moduli):
            v = residues[i]
            for j in range(i):
                v = ((v - digits[j]) * pow(self.moduli[j], -1, m)) % m
            digits.append(v)
        value = digits[-1]
        for j in range(len(digits) - 2, -1, -1):
            value = value * self.moduli[j] + digits[j]
        return value
