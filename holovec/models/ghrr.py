"""GHRR: generalized holographic reduced representations (Yeung, Zou and Imani 2024)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import kernels
from ..random import random_words
from ._checks import check_dim
from ._cosine import CosineSimilarity, unit_norm
from .base import VSAModel
from .registry import register_model


@register_model
class GHRR(CosineSimilarity, VSAModel):
    """Vectors of ``D`` random unitary ``m x m`` complex blocks, bound block by block.

    A vector has the flat shape ``(..., dim)`` like every other model's, with
    ``dim = D * m * m``; element ``j*m*m + r*m + c`` is row ``r``, column ``c`` of block
    ``j`` (so ``dim`` must be a multiple of ``m*m``). Option ``m`` (default 2); ``m=1``
    gives FHRR's vectors and binding.

    Each block is a Haar-random unitary, built in closed form from ``m*m`` random
    numbers as a product of ``m(m-1)/2`` complex Givens rotations and a global phase
    (the Euler-angle parametrisation of Zyczkowski and Kus 1994). Haar unitaries are
    exactly the paper's blocks ``Q_j diag(exp(i theta_j))`` with ``Q_j`` Haar-random.
    Only cos, sin, sqrt and pow touch the random numbers, so the same seed gives the
    same vectors on every backend to float rounding (no QR, whose output differs).

    Laws
    ----
    - bind is the blockwise matrix product ``bind(a, b)_j = a_j @ b_j``: associative,
      **not commutative** for ``m > 1`` (``is_commutative`` is False; ``m=1`` commutes).
    - ``unbind(c, b)_j = c_j @ b_j^H`` recovers the **left** operand given the right
      one: ``unbind(bind(a, b), b) == a`` up to float rounding, for any ``a`` and
      unitary ``b`` (exact inverse: ``inverse(b)`` is the blockwise conjugate transpose).
      Binding on the right with a unitary vector preserves similarity exactly.
    - similarity is the cosine ``Re <a, conj(b)> / (|a| |b|)``; for unitary vectors
      ``|a|^2 = D*m``, so it equals the paper's ``Re tr(sum_j a_j b_j^H) / (D*m)`` and
      ``similarity(a, a) == 1``.
    - bundle is the sum scaled to the norm ``sqrt(D*m)`` of a unitary vector (a
      normalised sum, like HRR and VTB; the scale changes no similarity). Bundles are
      not unitary; ``normalize`` projects each block onto the nearest unitary matrix
      (its polar factor; for ``m=1`` the phase, as FHRR).
    - permute rolls whole blocks, so permuted vectors stay unitary.

    Parameters
    ----------
    dim : int
        Number of elements per vector.
    backend : str or Backend, optional
        The backend: a name (``"numpy"``, ``"torch"``, ``"jax"``, ``"dask"``, ``"auto"``), a
        :class:`~holovec.backends.Backend`, or ``None`` for the default (see
        :meth:`holovec.VSA.create`).
    m : int, optional
        The size of the ``m x m`` unitary blocks.
    **kwargs : object
        ``seed``, ``device``, ``dtype`` and the other options of :class:`VSAModel`.

    Examples
    --------
    >>> from holovec import VSA
    >>> model = VSA.create("GHRR", dim=1024, m=2)    # 256 blocks of 2 x 2
    >>> a, b = model.random(seed=1), model.random(seed=2)
    >>> round(float(model.similarity(model.unbind(model.bind(a, b), b), a)), 4)
    1.0
    >>> abs(float(model.similarity(model.bind(a, b), model.bind(b, a)))) < 0.5
    True
    """

    _draws_exact = False  # cos and sin of the phases round differently by framework

    name = "GHRR"
    is_self_inverse = False
    #: for the default m=2 (and any m > 1); a model made with m=1 commutes
    is_commutative = False
    is_exact_inverse = True
    default_dtype = "complex64"
    allowed_dtypes = ("complex64", "complex128")
    option_names = ("m",)
    element_kind = "unitary-blocks"
    bundle_is_sum = True
    _draw_bytes_per_element = 80.0  # measured for m=2: the rotations' temporaries

    def __init__(self, dim: int, backend: Any = None, *, m: int = 2, **kwargs: Any) -> None:
        if isinstance(m, (bool, np.bool_)) or not isinstance(m, (int, np.integer)):
            raise TypeError(
                f"GHRR option m (the block size) must be a positive int, got {type(m).__name__} {m!r}"
            )
        if m < 1:
            raise ValueError(f"GHRR option m (the block size) must be a positive int, got {m}")
        m = int(m)
        dim = check_dim(dim)
        block = m * m
        if dim % block:
            below = dim - dim % block
            raise ValueError(
                f"GHRR with m={m} stores blocks of {m}x{m} = {block} numbers, so dim must be a "
                f"multiple of {block}; got {dim} (nearest: {below or block} or {below + block})"
            )
        self.m = m
        self.blocks = dim // block
        self.is_commutative = m == 1  # an instance attribute: it depends on the option
        super().__init__(dim, backend, **kwargs)

    def __repr__(self) -> str:
        return super().__repr__()[:-1] + f", m={self.m})"

    @property
    def atom_size(self) -> int:
        return self.m * self.m  # a whole block: mixes of unitary blocks stay unitary

    def _matrices(self, x: Any) -> Any:
        return self.xp.reshape(x, (*x.shape[:-1], self.blocks, self.m, self.m))

    def _flat(self, x: Any) -> Any:
        return self.xp.reshape(x, (*x.shape[:-3], self.dim))

    def _conj_t(self, x: Any) -> Any:
        return self.xp.matrix_transpose(self.xp.conj(x))

    # -- random unitary blocks ------------------------------------------------------------
    def _random(self, n_rows: int, seed: int, stream: int, purpose: int, row_start: int = 0) -> Any:
        xp, m, real = self.xp, self.m, self.real_dtype
        words = random_words(
            self.backend, seed, n_rows, self.dim, stream=stream, purpose=purpose, row_start=row_start
        )
        words = xp.reshape(words, (n_rows, self.blocks, m * m))
        # 24 random bits per number, exact in float32: (k + 1) / 2**24 is uniform on (0, 1]
        # (no log(0)), (k - 2**23) * 2pi / 2**24 uniform on [-pi, pi) (number 0 gives
        # FHRR's phases)
        k = xp.astype(words >> 8, real)
        angle = (k - 2.0**23) * (2 * math.pi / 2**24)
        phasor = kernels.complex(self.backend, xp.cos(angle), xp.sin(angle))
        # U = e^{i alpha} E(1) E(2) ... E(m-1) with E(s) = R(s-1, s) R(s-2, s) ... R(0, s)
        # (0-based), R(r, s) the complex Givens rotation of columns r and s:
        #   R[r, r] = cos(phi) e^{i psi}, R[r, s] = sin(phi) e^{i chi},
        #   R[s, r] = -sin(phi) e^{-i chi}, R[s, s] = cos(phi) e^{-i psi},
        # chi nonzero only in R(0, s), and cos(phi)**2 = xi ** (1 / (r + 1)) with xi uniform
        # (so sin(phi)**2 ~ Beta(1, r + 1): the last row of each E(s) is uniform on the
        # sphere, which makes U Haar by induction on s; the tests check Haar moments).
        # Numbers of a block: alpha, then per s: chi, then per r: psi and xi.
        plan, exponent, i = [], [1.0] * (m * m), 1
        for s in range(1, m):
            chi, i = i, i + 1
            for r in range(s - 1, -1, -1):
                plan.append((r, s, chi if r == 0 else None, i, i + 1))
                exponent[i + 1] = 1.0 / (r + 1)
                i += 2
        if m > 1:  # cos2 = xi ** (1 / (r + 1)), sin2 = 1 - cos2 without cancellation
            log_xi = xp.log((k + 1.0) * 2.0**-24)
            log_cos2 = log_xi * xp.asarray(exponent, dtype=real, device=self.device)
            cos_phi, sin_phi = xp.exp(0.5 * log_cos2), xp.sqrt(-xp.expm1(log_cos2))
        alpha = phasor[..., 0:1]
        eye = xp.eye(m, dtype=self.dtype, device=self.device)
        columns = [alpha * eye[c] for c in range(m)]  # column c of U, shape (n, D, m)
        for r, s, chi, psi, xi in plan:
            cos_, sin_ = cos_phi[..., xi : xi + 1], sin_phi[..., xi : xi + 1]
            e_rr = phasor[..., psi : psi + 1] * cos_
            e_ss = xp.conj(e_rr)
            e_rs = sin_ if chi is None else phasor[..., chi : chi + 1] * sin_
            e_sr = -(e_rs if chi is None else xp.conj(e_rs))
            col_r, col_s = columns[r], columns[s]
            columns[r] = col_r * e_rr + col_s * e_sr
            columns[s] = col_r * e_rs + col_s * e_ss
        return xp.astype(xp.reshape(xp.stack(columns, axis=-1), (n_rows, self.dim)), self.dtype)

    # -- the algebra ------------------------------------------------------------------------
    def _bind(self, a: Any, b: Any) -> Any:
        return self._flat(kernels.matmul(self.backend, self._matrices(a), self._matrices(b)))

    def _unbind(self, c: Any, b: Any) -> Any:
        return self._flat(kernels.matmul(self.backend, self._matrices(c), self._conj_t(self._matrices(b))))

    def _bundle(self, stacked: Any) -> Any:
        return unit_norm(self.backend, self.xp.sum(stacked, axis=0), math.sqrt(self.blocks * self.m))

    def _inverse(self, x: Any) -> Any:
        return self._flat(self._conj_t(self._matrices(x)))

    def _permute(self, x: Any, shift: int) -> Any:
        """Cyclic shift of the ``D`` blocks (each block kept whole, so still unitary)."""
        xp, block = self.xp, self.m * self.m
        blocks = xp.reshape(x, (*x.shape[:-1], self.blocks, block))
        return xp.reshape(xp.roll(blocks, shift, axis=-2), x.shape)

    def _identity(self) -> Any:
        xp = self.xp
        eye = xp.eye(self.m, dtype=self.dtype, device=self.device)
        return xp.reshape(xp.broadcast_to(eye, (self.blocks, self.m, self.m)), (self.dim,))

    def _normalize(self, x: Any) -> Any:
        """Each block replaced by its unitary polar factor ``W V^H`` (``A = W S V^H``);
        zero blocks by the model's tie-break block."""
        xp, m = self.xp, self.m
        a = self._matrices(x)
        if m == 1:
            magnitude = xp.abs(a)
            unitary = a / xp.where(magnitude > 0, magnitude, 1)
        elif m == 2:
            # closed form: with t = det(A) / |det(A)|, A + t adj(A)^H = (s1 + s2) W V^H
            p, q, r, s = a[..., 0, 0], a[..., 0, 1], a[..., 1, 0], a[..., 1, 1]
            det = p * s - q * r
            det_abs = xp.abs(det)
            t = xp.where(det_abs > 0, det / xp.where(det_abs > 0, det_abs, 1), 1)
            adj_h = xp.stack([xp.stack([s, -r], axis=-1), xp.stack([-q, p], axis=-1)], axis=-2)
            summed = a + t[..., None, None] * xp.conj(adj_h)
            norm = xp.sqrt(xp.sum(xp.real(summed * xp.conj(summed)), axis=(-2, -1)))
            unitary = summed * (math.sqrt(2) / xp.where(norm > 0, norm, 1))[..., None, None]
        else:
            with kernels.full_precision(self.backend):  # (svd may multiply inside)
                w, _, vh = xp.linalg.svd(a)
            unitary = kernels.matmul(self.backend, w, vh)
        frob = xp.sum(xp.real(a * xp.conj(a)), axis=(-2, -1))[..., None, None]
        tie = self._matrices(self._tiebreak)
        return self._flat(xp.where(frob > 0, unitary, tie))
