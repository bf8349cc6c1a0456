"""The iteration of a resonator network (package-internal; see
:mod:`holovec.retrieval.resonator` for the algorithm): one sweep over the factors, the
whole loop as one program where the backend compiles it, and the static configuration
that equal networks share."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .. import kernels
from ..backends.shapes import row_class
from ..models.base import VSAModel


@dataclass(frozen=True)
class Network:
    """What a resonator's iterations depend on besides its arrays: what its compiled loop
    closes over, so that equal networks share one program whatever resonator runs it."""

    model: VSAModel
    #: whether the model's vectors are bits superposed in their lifted +-1 view (BSC)
    lifted: bool
    #: whether the coefficients are integers / dim (+-1 codebooks, see Resonator.__init__)
    integer: bool
    #: per factor: the dtype that sums the integer coefficients exactly, or None
    wide: tuple[Any, ...]
    max_iter: int
    #: an estimate is unchanged when its similarity with its previous value is this or more
    same_at: float
    match_threshold: float

    @property
    def key(self) -> tuple:
        """What the compiled loop depends on, holding no model (its configuration's key):
        the key of its program (``Backend.program``), which closes over the network."""
        return (self.model.config_key, self.lifted, self.integer, self.wide, self.max_iter, self.same_at,
                self.match_threshold)  # fmt: skip


def bind_all(model: Any, vectors: Sequence[Any]) -> Any:
    out = vectors[0]
    for v in vectors[1:]:
        out = model.bind(out, v)
    return out


def _project(net: Network, coefficients: Any, view: Any, pinv: Any, wide: Any) -> Any:
    """``normalize(coefficients @ X_f)`` for ``X_f``'s ``view`` (see Resonator): back to a
    vector of the model."""
    model = net.model
    xp, backend = model.xp, model.backend
    dtype = view.dtype
    if pinv is not None:
        coefficients = kernels.matmul(backend, coefficients, pinv)
    if net.integer:
        coefficients = xp.round(coefficients * model.dim)  # the exact dot products
        if wide is not None:
            coefficients, view = xp.astype(coefficients, wide), xp.astype(view, wide)
    superposed = kernels.matmul(backend, xp.astype(coefficients, view.dtype), view)
    if superposed.dtype != dtype:  # back from float64: the signs are exact
        superposed = xp.astype(superposed, dtype)
    if net.lifted:  # the sign in the lifted view, back to the model (bits: -1 -> 1)
        return model.finish_sum(superposed)
    return model.normalize(superposed)


def sweep(
    net: Network, books: tuple, views: tuple, pinvs: tuple, s: Any, est: Sequence[Any]
) -> tuple[tuple, tuple, tuple, Any]:
    """One iteration over products ``s`` (rows): each factor's estimate updated in turn,
    from the newest estimates of the others. Returns the estimates, each factor's decoded
    item and its similarity, and whether each product converged (its estimates unchanged,
    or its decoded items bound together match it)."""
    model = net.model
    xp = model.xp
    est, idx, sims, stable = list(est), [], [], None
    for f in range(len(books)):
        others = bind_all(model, [est[g] for g in range(len(books)) if g != f])
        coeff = model.similarity_matrix(model.unbind(s, others), books[f])  # (n, n_f)
        # |a|: a bipolar product is also factored by two negated factors
        idx.append(xp.argmax(xp.abs(coeff), axis=-1))
        sims.append(xp.take_along_axis(coeff, idx[f][:, None], axis=-1)[:, 0])
        new = _project(net, coeff, views[f], pinvs[f], net.wide[f])
        same = model.similarity(new, est[f]) >= net.same_at
        stable = same if stable is None else stable & same
        est[f] = new
    decoded = [xp.take(books[f], idx[f], axis=0) for f in range(len(books))]
    match = model.similarity(bind_all(model, decoded), s) >= net.match_threshold
    return tuple(est), tuple(idx), tuple(sims), stable | match


def resonate(
    net: Network, books: tuple, views: tuple, pinvs: tuple, initial: tuple, s: Any, padding: Any
) -> tuple[Any, ...]:
    """The iteration over a batch of a fixed shape, as one loop (``kernels.while_loop``):
    products that converged stay in the batch, and what each one decoded is recorded at
    the iteration it converged in (at the last one for the others). ``padding`` marks rows
    of padding (done from the start). Returns the indices ``(n, F)``, similarities ``(n,
    F)``, iterations, convergence, reconstruction and the estimates ``(F, n, L)``."""
    model = net.model
    xp = model.xp
    first = sweep(net, books, views, pinvs, s, [xp.broadcast_to(x0, s.shape) for x0 in initial])
    est, idx, sims, converged = first
    iterations = xp.ones((s.shape[0],), dtype=xp.int32)
    # the loop's state: the iteration, the estimates, which products are done, and for each
    # product its iterations and what it decoded (at convergence, or at the last iteration)
    state = (xp.asarray(1, dtype=xp.int32), est, converged | padding, iterations, idx, sims, est)

    def running(state: tuple) -> Any:
        return (state[0] < net.max_iter) & ~xp.all(state[2])

    def iterate(state: tuple) -> tuple:
        it, est, done, iterations, old_idx, old_sims, old_est = state
        est, idx, sims, converged = sweep(net, books, views, pinvs, s, est)
        it, active = it + 1, ~done  # (the products running until now record this iteration)
        idx = tuple(xp.where(active, new, old) for new, old in zip(idx, old_idx, strict=True))
        sims = tuple(xp.where(active, new, old) for new, old in zip(sims, old_sims, strict=True))
        recorded = tuple(xp.where(active[:, None], new, old) for new, old in zip(est, old_est, strict=True))
        done, iterations = done | (active & converged), xp.where(active, it, iterations)
        return (it, est, done, iterations, idx, sims, recorded)

    _, _, done, iterations, idx, sims, est = kernels.while_loop(model.backend, running, iterate, state)
    decoded = [xp.take(books[f], idx[f], axis=0) for f in range(len(books))]
    reconstruction = model.similarity(bind_all(model, decoded), s)
    return xp.stack(idx, axis=-1), xp.stack(sims, axis=-1), iterations, done, reconstruction, xp.stack(est)


def padded_count(n: int) -> int:
    """The rows a batch of ``n`` products is padded to where every shape compiles: its
    shape class (:func:`holovec.backends.shapes.row_class`), so that a few programs serve
    every batch size."""
    return row_class(n)
