"""The block-code factorizer of Hersche et al. (2024), "Factorizers for distributed sparse
block codes" (Neurosymbolic Artificial Intelligence; arXiv:2303.13957).

A resonator network for generalized sparse block codes (:class:`holovec.models.GSBC`).
Given ``s = bind(x_1, ..., x_F)`` with each ``x_f`` a row of its codebook ``X_f``, it keeps
one estimate per factor, the superposition of the whole codebook at first, and updates the
factors one after the other (each update uses the newest estimates of the others)::

    u_f = unbind(s, bind of the estimates of the other factors)   # block-wise correlation
    a_f = mean over blocks b of Re(u_fb . conj(X_fb)) / |u_fb|     # one product per factor
    a_f = a_f where a_f >= threshold, else 0                       # sparse activation
    a_f = 1 on `samples` random items, where no item passed       # conditional sampling
    x_f = finish_sum(a_f @ X_f)                                    # blocks of unit l1 norm

The three mechanisms of the paper are here: the sparse (threshold) activation, the
conditional random sampling, and a block-wise similarity. The similarity is the block-wise
cosine: each block of the unbound estimate is scaled to unit length before the product.
The paper scales by the block's largest magnitude (its l-infinity norm) instead; we
measured that rule to fail once a superposition fills the blocks (with 64 items in blocks of
64, every item scores 1 and the activation never samples), where the cosine keeps a
superposition of ``k`` equal items at ``1 / sqrt(k)``. Where no item passes the threshold,
the estimate is a superposition of ``samples`` items drawn at random, from holovec's
counter-based generator addressed by the factorizer's seed, the iteration and the factor,
so that every backend samples the same items. A product is decoded when the bound decoded
items reproduce it (the model's similarity at least ``detection``): exact for products of
codebook items, and immune to the saturated states that a threshold on the factors' own
scores mistakes for a solution.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import kernels
from .._params import POSITIVE_INT, Interval
from ..models.base import VSAModel
from ..random import check_seed, fold_in, random_words
from ._checks import check_finite
from ._network import bind_all
from .resonator import ResonatorResult

__all__ = ["BlockCodeFactorizer"]

_FRACTION = Interval(0, 1, words="a fraction of the blocks")


class BlockCodeFactorizer:
    """The block-code factorizer (BCF): factor bound products of generalized sparse block
    codes into items of given codebooks (the algorithm: :mod:`holovec.retrieval.block_factorizer`).

    Parameters
    ----------
    model : VSAModel
        A model of block codes (``element_kind == "block-code"``: GSBC).
    codebooks : sequence of arrays
        One codebook per factor, each ``(n_f, dim)`` of ``model``'s vectors (at least two).
    threshold : float, optional
        The sparse activation: a block-wise cosine below it counts as 0.
    samples : int, optional
        ``A``, the items activated at random where none passes ``threshold`` (at most the
        codebook's size).
    detection : float, optional
        A product is decoded when the bound decoded items have at least this similarity
        (the model's) with it.
    max_iter : int, optional
        Most sweeps over the factors.
    seed : int, optional
        The seed of the random sampling; ``None`` for the model's next spawned seed.

    Examples
    --------
    >>> from holovec import VSA
    >>> from holovec.retrieval import BlockCodeFactorizer
    >>> model = VSA.create("GSBC", dim=1024, values="binary")
    >>> books = [model.random(16, seed=s) for s in (1, 2, 3)]
    >>> s = model.bind(model.bind(books[0][3], books[1][5]), books[2][7])
    >>> BlockCodeFactorizer(model, books, seed=0).factor(s).indices.tolist()
    [[3, 5, 7]]
    """

    def __init__(
        self,
        model: Any,
        codebooks: Sequence[Any],
        *,
        threshold: float = 0.2,
        samples: int = 4,
        detection: float = 0.99,
        max_iter: int = 1000,
        seed: int | None = None,
    ) -> None:
        if not isinstance(model, VSAModel) or model.element_kind != "block-code":
            raise TypeError(
                "BlockCodeFactorizer needs a model of generalized sparse block codes (element_kind "
                f"'block-code': GSBC), got {getattr(model, 'name', type(model).__name__)!r}"
            )
        self.model, self.xp = model, model.xp
        self.threshold = _FRACTION.check("threshold", threshold)
        self.detection = _FRACTION.check("detection", detection)
        self.max_iter = POSITIVE_INT.check("max_iter", max_iter)
        samples = POSITIVE_INT.check("samples", samples)
        self.seed = model.spawn_seed() if seed is None else check_seed(seed)
        if isinstance(codebooks, model.backend.array_type) or not isinstance(codebooks, (list, tuple)):
            raise TypeError("codebooks must be a list or tuple of arrays, one (n_f, dim) codebook per factor")
        if len(codebooks) < 2:
            raise ValueError(f"a factorizer needs at least 2 codebooks (factors), got {len(codebooks)}")
        books = []
        for f, book in enumerate(codebooks):
            model.check(book, f"codebooks[{f}]")
            if book.ndim != 2 or book.shape[0] == 0:
                raise ValueError(
                    f"codebooks[{f}] must be a non-empty 2-d array (n_items, {model.dim}), "
                    f"got shape {tuple(book.shape)}"
                )
            if samples > book.shape[0]:
                raise ValueError(
                    f"samples={samples} is more than codebooks[{f}] holds ({book.shape[0]} items)"
                )
            books.append(check_finite(model, book, f"codebooks[{f}]"))
        self.samples = samples
        self.codebooks = books
        # the real operands of the similarity (re and im side by side for complex vectors)
        self._operands = [self._real(book) for book in books]
        self._initial = [model.bundle(book) for book in books]

    def _real(self, x: Any) -> Any:
        model = self.model
        if model.xp.isdtype(model.dtype, "complex floating"):
            return kernels.real_view(model.backend, x)
        return x

    def _scores(self, u: Any, f: int) -> Any:
        """The block-wise cosine of ``u`` with ``X_f``'s items, ``(n, n_f)``: the mean over
        blocks ``b`` of ``Re(u_b . conj(x_b)) / |u_b|`` (items have blocks of norm 1), one
        matrix product."""
        model, xp = self.model, self.xp
        blocks = xp.reshape(u, (*u.shape[:-1], model.segments, model.segment_length))
        norm = xp.sqrt(xp.sum(xp.real(blocks * xp.conj(blocks)), axis=-1, keepdims=True))
        scaled = blocks / xp.astype(xp.where(norm > 0, norm, 1), blocks.dtype)
        scaled = xp.reshape(scaled, u.shape)
        dots = kernels.matmul(model.backend, self._real(scaled), xp.matrix_transpose(self._operands[f]))
        return dots / model.segments

    def _sampled(self, n: int, n_items: int, iteration: int, f: int) -> Any:
        """``(n, n_items)``: 1 on ``samples`` items of each row drawn at random, else 0 (the
        items of the smallest random words: the same on every backend)."""
        xp, backend = self.xp, self.model.backend
        words = random_words(backend, fold_in(self.seed, iteration, f), n, n_items)
        keys = xp.astype(words >> 8, self.model.real_dtype)  # exact integers below 2**24
        _, chosen = kernels.top_k(backend, keys, self.samples)  # (equal keys: lowest index)
        items = xp.arange(n_items, dtype=chosen.dtype, device=self.model.device)
        hit = xp.any(chosen[:, :, None] == items[None, None, :], axis=1)
        return xp.astype(hit, self.model.real_dtype)

    def _reconstruction(self, indices: np.ndarray, s: Any) -> np.ndarray:
        """The model's similarity of the bound items ``indices`` (``(n, F)``) with ``s``."""
        model, xp, backend = self.model, self.xp, self.model.backend
        decoded = [
            xp.take(book, backend.asarray(indices[:, f]), axis=0) for f, book in enumerate(self.codebooks)
        ]
        similarity = backend.to_numpy(model.similarity(bind_all(model, decoded), s))
        return np.asarray(similarity, dtype=np.float64).reshape(s.shape[0])

    def factor(self, products: Any) -> ResonatorResult:
        """Factor one product (``(dim,)``) or a batch (``(n_products, dim)``).

        Parameters
        ----------
        products : array
            One product ``(dim,)`` or a batch ``(n_products, dim)`` of ``model``'s vectors.

        Returns
        -------
        ResonatorResult
            The decoded items (``indices``), their scores on the scale of the module's
            similarity (``similarities``), the sweeps used (``iterations``), whether each
            product was decoded (``converged``), the model's similarity of the bound decoded
            items with the product (``reconstruction``) and the final estimates.
        """
        model, xp, backend = self.model, self.xp, self.model.backend
        model.check(products, "products")
        if products.ndim not in (1, 2):
            raise ValueError(
                f"products must have shape (dim,) or (n_products, dim), got {tuple(products.shape)}"
            )
        s = check_finite(model, products if products.ndim == 2 else products[None, :], "products")
        n, F = s.shape[0], len(self.codebooks)
        est = [xp.broadcast_to(x0, s.shape) for x0 in self._initial]
        indices = np.zeros((n, F), dtype=np.int64)
        scores = np.zeros((n, F), dtype=np.float64)
        iterations = np.full(n, self.max_iter, dtype=np.int64)
        done = np.zeros(n, dtype=bool)
        for it in range(1, self.max_iter + 1):
            best_idx, best_score = [], []
            for f in range(F):
                others = bind_all(model, [est[g] for g in range(F) if g != f])
                a = self._scores(model.unbind(s, others), f)
                best = xp.argmax(a, axis=-1)
                best_idx.append(best)
                best_score.append(xp.take_along_axis(a, best[:, None], axis=-1)[:, 0])
                active = xp.where(a >= self.threshold, a, xp.zeros_like(a))
                none = xp.all(active == 0, axis=-1)[:, None]
                if bool(xp.any(none)):
                    active = xp.where(none, self._sampled(n, a.shape[-1], it, f), active)
                weights = xp.astype(active, self.codebooks[f].dtype)
                est[f] = model.finish_sum(kernels.matmul(backend, weights, self.codebooks[f]))
            idx = np.stack([backend.to_numpy(i) for i in best_idx], -1)
            sc = np.stack([backend.to_numpy(v) for v in best_score], -1)
            running = ~done
            indices[running], scores[running] = idx[running], sc[running]
            now = running & (self._reconstruction(indices, s) >= self.detection)
            iterations[now] = it
            done |= now
            if done.all():
                break
        recon = self._reconstruction(indices, s)
        return ResonatorResult(
            indices=indices,
            similarities=scores,
            iterations=iterations,
            converged=done,
            reconstruction=recon,
            estimates=xp.stack(est),
        )
