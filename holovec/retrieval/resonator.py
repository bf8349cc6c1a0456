"""Resonator networks: factor bound products into items of known codebooks.

Frady, Kent, Olshausen and Sommer (2020), "Resonator networks, 1: an efficient solution
for factoring high-dimensional, distributed representations of data structures",
Neural Computation 32(12).

Given ``s = bind(x_1, bind(x_2, ... x_F))`` with each ``x_f`` a row of its own codebook
``X_f`` (shape ``(n_f, dim)``), the network keeps one estimate per factor and updates the
factors one after the other (each update uses the newest estimates of the others)::

    u_f   = unbind(s, bind of the estimates of the other factors)
    a_f   = similarity_matrix(u_f, X_f)              # (n_products, n_f)
    a_f   = a_f @ pinv(X_f X_f^T)                    # only with ols=True
    x_f  <- normalize(a_f @ X_f)                     # weighted superposition

``normalize`` is the model's own (the sign for MAP, unit phasors for FHRR), which is
the nonlinearity of the paper. BSC works in the bipolar view (bit 0 -> +1, bit 1 -> -1).
All products are factored at once: every step is a matrix product over the whole batch.
Where every array shape compiles a program (``Backend.static_shapes``: JAX), the batch is
padded to a power of two and the whole iteration is one compiled loop (``kernels.while_loop``)
shared by every resonator of the same configuration, so that factoring compiles nothing per
iteration, per product or per batch of the same size class; elsewhere converged products
leave the batch.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from .. import kernels
from .._params import FLAG, POSITIVE_INT, Interval
from ..backends import DTYPE_KINDS, dtype_name
from ..models.base import VSAModel
from ._checks import check_finite
from ._network import Network, bind_all, padded_count, resonate, sweep

__all__ = ["Resonator", "ResonatorResult"]


@dataclass(frozen=True)
class ResonatorResult:
    """What :meth:`Resonator.factor` found, per product (NumPy arrays on the host).

    Parameters
    ----------
    indices, similarities, iterations, converged, reconstruction, estimates : array
        The fields, in this order (see Attributes).

    Attributes
    ----------
    indices : ndarray of int64, shape (n_products, n_factors)
        Row of each factor's codebook that the network decoded.
    similarities : ndarray of float, shape (n_products, n_factors)
        Similarity of each unbound factor estimate with the decoded item (model scale).
    iterations : ndarray of int64, shape (n_products,)
        Iterations (sweeps over all factors) used until convergence, else ``max_iter``.
    converged : ndarray of bool, shape (n_products,)
        Whether the product converged: the decoded items bound together reproduce it
        (similarity >= ``match_threshold``) or the estimates reached a fixed point. A
        fixed point can be a wrong one (past capacity, or for models whose unbinding is
        approximate, as HRR's): ``reconstruction`` says whether the answer explains the
        product.
    reconstruction : ndarray of float, shape (n_products,)
        Similarity of the bound decoded items with the product.
    estimates : array of the model's backend, shape (n_factors, n_products, dim)
        The final factor estimates.
    """

    indices: np.ndarray
    similarities: np.ndarray
    iterations: np.ndarray
    converged: np.ndarray
    reconstruction: np.ndarray
    estimates: Any


class Resonator:
    """Resonator network that factors bound products of items of given codebooks.

    Parameters
    ----------
    model : VSAModel
        The model whose ``bind`` made the products. It needs an inverse (``unbind``), a
        commutative bind, and vectors that are real or complex floats, or BSC bits
        (unpacked): MAP, MAP-C, MAP-I, BSC, FHRR, HRR, GHRR with ``m=1``. Non-commutative
        models (VTB, GHRR with ``m > 1``) raise ``TypeError``.
    codebooks : sequence of arrays
        One codebook per factor, each of shape ``(n_f, dim)`` made by ``model``.
    max_iter : int
        Most sweeps over the factors.
    ols : bool
        Use the OLS-projected weights ``pinv(X X^T) X`` instead of ``X`` (decorrelates
        the items of a codebook; helps for correlated codebooks).
    tol : float
        An estimate counts as unchanged when its similarity with its previous value
        is at least ``1 - tol``; a product converges when all its estimates are unchanged.
    match_threshold : float
        A product also converges as soon as the bound decoded items have similarity at
        least this with it (a complete and exact factorization).

    Examples
    --------
    >>> from holovec import VSA
    >>> from holovec.retrieval import Resonator
    >>> model = VSA.create("MAP", dim=1500)
    >>> books = [model.random(20, seed=s) for s in (1, 2, 3)]
    >>> s = model.bind(model.bind(books[0][3], books[1][5]), books[2][7])
    >>> Resonator(model, books).factor(s).indices.tolist()
    [[3, 5, 7]]
    """

    def __init__(
        self,
        model: Any,
        codebooks: Sequence[Any],
        *,
        max_iter: int = 200,
        ols: bool = False,
        tol: float = 1e-5,
        match_threshold: float = 0.999,
    ) -> None:
        if not isinstance(model, VSAModel):
            raise TypeError(
                f"model must be a VSA model (from VSA.create), got {type(model).__module__}."
                f"{type(model).__name__}"
            )
        self.model = model
        self.xp = model.xp
        kind = DTYPE_KINDS.get(dtype_name(model.dtype), "other")
        # models whose vectors are not numbers to superpose (bits) are searched through
        # their sums form: lifted to +-1, projected back by the model's own finish
        self._lifted = kind not in ("float", "complex")
        if self._lifted and not model.bundle_is_sum:
            raise TypeError(
                f"Resonator needs a model with real or complex float vectors, or one whose bundle is "
                f"a sum (model.bundle_is_sum); {model.name} vectors are {model.dtype_name} and its "
                "bundle is not a sum"
            )
        if not model.is_commutative:
            raise TypeError(
                f"Resonator needs a commutative bind (it unbinds the other factors in any order); "
                f"{model!r} does not commute"
            )
        max_iter = POSITIVE_INT.check("max_iter", max_iter)
        FLAG.check("ols", ols)
        tol = Interval(0, 1, closed="left").check("tol", tol)
        match_threshold = Interval(-1, 1, words="a similarity").check("match_threshold", match_threshold)
        if isinstance(codebooks, model.backend.array_type) or not isinstance(codebooks, (list, tuple)):
            raise TypeError("codebooks must be a list or tuple of arrays, one (n_f, dim) codebook per factor")
        if len(codebooks) < 2:
            raise ValueError(f"a resonator needs at least 2 codebooks (factors), got {len(codebooks)}")
        books = []
        for f, book in enumerate(codebooks):
            model.check(book, f"codebooks[{f}]")
            if book.ndim != 2:
                raise ValueError(
                    f"codebooks[{f}] must be 2-d (n_items, {model.vector_length}), "
                    f"got shape {tuple(book.shape)}"
                )
            if book.shape[0] == 0:
                raise ValueError(f"codebooks[{f}] is empty; every factor needs at least one item")
            books.append(check_finite(model, book, f"codebooks[{f}]"))
        self.codebooks = books
        self.max_iter = int(max_iter)
        self.ols = ols
        self.tol = float(tol)
        self.match_threshold = float(match_threshold)
        # what the superposition multiplies: the codebook itself, or its bipolar view (BSC)
        self._views = [self._view(b) for b in books]
        # +-1 codebooks (MAP, BSC): the coefficients are integers / dim, and the projection is
        # summed exactly in integers, so that ties are exact zeros broken by the model's
        # seeded tie-break, not rounding noise that depends on how BLAS splits the batch
        self._integer = not ols and all(self._is_bipolar(v) for v in self._views)
        # a float32 sum of integers is exact while it stays below 2**24; past that, float64
        # where the backend has it (JAX without x64 mode stays in float32)
        self._wide = [self._exact_sum_dtype(v) if self._integer else None for v in self._views]
        # OLS: coefficients a @ pinv(G), G the codebook's Gram matrix on the model's scale
        with kernels.full_precision(self.model.backend):  # (pinv multiplies inside)
            self._pinv = [self.xp.linalg.pinv(self._gram(b)) for b in books] if ols else [None] * len(books)
        self._init = [self._initial(b) for b in books]
        self._network = Network(
            model, self._lifted, self._integer, tuple(self._wide), self.max_iter,
            1 - self.tol, self.match_threshold,
        )  # fmt: skip

    # -- helpers -------------------------------------------------------------------------
    def _view(self, book: Any) -> Any:
        if self._lifted:
            return self.model.lift(book)
        return book

    def _is_bipolar(self, view: Any) -> bool:
        xp = self.xp
        if DTYPE_KINDS.get(dtype_name(view.dtype)) != "float":
            return False
        return bool(self.model.backend.to_numpy(xp.all(xp.abs(view) == 1)))

    def _exact_sum_dtype(self, view: Any) -> Any:
        if view.shape[0] * self.model.dim < 2**24 or dtype_name(view.dtype) == "float64":
            return None
        try:
            return self.model.backend.dtype("float64")
        except (TypeError, ValueError):
            return None

    def _gram(self, book: Any) -> Any:
        return self.model.similarity_matrix(book, book)

    def _initial(self, book: Any) -> Any:
        """The normalised superposition of the whole codebook (all items equally likely)."""
        return self.model.bundle(book)

    # -- the network ---------------------------------------------------------------------
    def factor(self, products: Any) -> ResonatorResult:
        """Factor one product (shape ``(dim,)``) or a batch (``(n_products, dim)``); a batch
        of none (``(0, dim)``) gives a result of none.

        Parameters
        ----------
        products : array
            One product ``(dim,)`` or a batch ``(n_products, dim)``.
        """
        n = int(products.shape[0]) if getattr(products, "ndim", 0) == 2 else 1
        width = max(int(book.shape[0]) for book in self.codebooks) * self.model.vector_length
        # many small products, one per factor and iteration: on one BLAS thread where more
        # would only spin between them (kernels.small_products)
        with kernels.small_products(self.model.backend, 2.0 * n * width):
            return self._factor(products)

    def _factor(self, products: Any) -> ResonatorResult:
        model, xp = self.model, self.xp
        model.check(products, "products")
        if products.ndim > 2:
            raise ValueError(
                f"products must have shape (dim,) or (n_products, dim), got {tuple(products.shape)}"
            )
        s = products if products.ndim == 2 else products[None, :]
        n = s.shape[0]
        F = len(self.codebooks)
        backend = model.backend
        if n == 0:
            return ResonatorResult(
                indices=np.zeros((0, F), dtype=np.int64),
                similarities=np.zeros((0, F), dtype=np.float64),
                iterations=np.zeros(0, dtype=np.int64),
                converged=np.zeros(0, dtype=bool),
                reconstruction=np.zeros(0, dtype=np.float64),
                estimates=xp.zeros((F, 0, model.vector_length), dtype=model.dtype, device=model.device),
            )
        if backend.static_shapes:
            return self._factor_padded(products, s)
        check_finite(model, products, "products")
        net, arrays = self._network, (tuple(self.codebooks), tuple(self._views), tuple(self._pinv))
        est: Sequence[Any] = [xp.broadcast_to(x0, s.shape) for x0 in self._init]
        idx: Sequence[Any] = []
        sims: Sequence[Any] = []
        done = np.zeros(n, dtype=bool)
        iterations = np.full(n, self.max_iter, dtype=np.int64)
        final_idx = np.zeros((n, F), dtype=np.int64)
        final_sim = np.zeros((n, F), dtype=np.float64)
        # the products still running: converged ones leave the batch (their rows of the
        # estimates are kept in `finished` and put back in order at the end)
        active = np.arange(n)
        s_act = s
        finished: list[tuple[np.ndarray, Any]] = []

        def record(rows: np.ndarray) -> None:
            final_idx[active[rows]] = np.stack([backend.to_numpy(i) for i in idx], -1)[rows]
            final_sim[active[rows]] = np.stack([backend.to_numpy(v) for v in sims], -1)[rows]

        for it in range(1, self.max_iter + 1):
            est, idx, sims, converged = sweep(net, *arrays, s_act, est)
            now = np.asarray(backend.to_numpy(converged), dtype=bool).reshape(-1)
            if not now.any():
                continue
            record(now)
            iterations[active[now]] = it
            done[active[now]] = True
            rows = backend.asarray(np.nonzero(now)[0])
            finished.append((active[now], xp.stack([xp.take(e, rows, axis=0) for e in est])))
            if done.all():
                break
            keep = backend.asarray(np.nonzero(~now)[0])
            s_act = xp.take(s_act, keep, axis=0)
            est = [xp.take(e, keep, axis=0) for e in est]
            idx = [xp.take(i, keep, axis=0) for i in idx]
            sims = [xp.take(v, keep, axis=0) for v in sims]
            active = active[~now]
        left = ~done[active]
        if left.any():
            record(left)
            rows = backend.asarray(np.nonzero(left)[0])
            finished.append((active[left], xp.stack([xp.take(e, rows, axis=0) for e in est])))
        order = np.concatenate([pos for pos, _ in finished])
        estimates = xp.concat([e for _, e in finished], axis=1)
        if not np.array_equal(order, np.arange(n)):
            estimates = xp.take(estimates, backend.asarray(np.argsort(order)), axis=1)
        decoded = [xp.take(self.codebooks[f], backend.asarray(final_idx[:, f]), axis=0) for f in range(F)]
        recon = backend.to_numpy(model.similarity(bind_all(model, decoded), s))
        return ResonatorResult(
            indices=final_idx,
            similarities=final_sim,
            iterations=iterations,
            converged=done,
            reconstruction=np.asarray(recon, dtype=np.float64).reshape(n),
            estimates=estimates,
        )

    def _factor_padded(self, products: Any, s: Any) -> ResonatorResult:
        """The batch ``s`` (checked ``products`` as rows) factored in one compiled loop over a
        batch padded to a power of two (see :func:`holovec.retrieval._network.resonate`): a
        program per size class of batches and configuration, compiled once for every
        resonator and every product; only the cuts of the padded batch and of the estimates
        are made per size."""
        model, backend = self.model, self.model.backend
        n = s.shape[0]
        size = padded_count(n)
        # padded with copies of the first product, whose results are dropped
        rows = np.concatenate([np.arange(n), np.zeros(size - n, dtype=np.int64)])
        padded = s if size == n else kernels.take_rows(backend, s, rows)
        try:  # checked in the padded shape (a program per size class)
            check_finite(model, padded, "products")
        except ValueError:  # the message names the rows of the products themselves
            check_finite(model, products, "products")
            raise
        # one program per network (closed over: a static argument would be kept by JAX's
        # caches, and the model with it), kept by the model
        net = self._network
        program = backend.program(
            partial(resonate, net), ("holovec.retrieval.resonate", net.key), keep=model.kernel_cache
        )
        arrays = (tuple(self.codebooks), tuple(self._views), tuple(self._pinv), tuple(self._init))
        out = program(*arrays, padded, backend.asarray(np.arange(size) >= n))
        indices, sims, iterations, converged, recon = (backend.to_numpy(a)[:n] for a in out[:5])
        return ResonatorResult(
            indices=np.asarray(indices, dtype=np.int64),
            similarities=np.asarray(sims, dtype=np.float64),
            iterations=np.asarray(iterations, dtype=np.int64),
            converged=np.asarray(converged, dtype=bool),
            reconstruction=np.asarray(recon, dtype=np.float64),
            estimates=out[5] if size == n else out[5][:, :n],
        )
