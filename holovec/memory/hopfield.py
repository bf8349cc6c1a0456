"""The classical Hopfield network (Hopfield 1982) over a model's sum form, and its phasor
form for complex models (Noest 1988)."""

from __future__ import annotations

import math
from functools import partial
from os import PathLike
from typing import Any

import numpy as np

from .. import kernels
from .._params import FLAG, POSITIVE_INT
from ..capacity.hopfield import hopfield_capacity
from ..kernels.growth import RowBuffer
from ..models.base import VSAModel
from ._common import as_rows, check_model, count_field, itemsize, joined, row_blocks

__all__ = ["Hopfield"]

#: the load up to which the continuous phasor network keeps its patterns (measured: at dim
#: 1000 and 2000 its fixed points stay within similarity 0.9 of every pattern up to 0.03
#: dim, and lose most of them by 0.04 dim)
ALPHA_PHASOR = 0.03
_KIND = "memory.hopfield"
_STATE_KINDS = ("bipolar", "binary", "phasor")


def _supported(model: Any) -> bool:
    return bool(model.bundle_is_sum) and model.element_kind in _STATE_KINDS


class Hopfield:
    """An auto-associative memory: a Hopfield network whose stored patterns are attractors.

    Each element of the network's state is an element of a vector's sum form
    (``model.lift``): +-1 for MAP, MAP-I and BSC (the classical network of Hopfield 1982),
    a unit phasor for FHRR (the phasor network of Noest 1988: each element is projected
    to the unit circle). The weights are the Hebbian outer products
    ``W = sum_p p p^H`` with a zero diagonal; :meth:`recall` updates every element at once
    (synchronously), ``s <- sign(W s)`` (phasors: ``h / |h|``), until no cue changes.

    The weights are kept implicit, as the stored patterns: memory ``n_patterns x dim``,
    and ``2 n_patterns dim`` operations per cue and step. ``explicit=True`` keeps the
    ``dim x dim`` matrix instead (``dim^2`` memory and operations per cue and step): worth
    it only above ``dim / 2`` patterns, far beyond the capacity, or to read or edit the
    weights themselves (:meth:`weight_matrix` gives them in either mode).

    Capacity (:attr:`capacity`): random patterns stay (near) fixed points up to about
    ``0.138 dim`` of them (Amit, Gutfreund and Sompolinsky 1985, for the +-1 network),
    with about 0.1% of their elements wrong at ``0.1 dim`` and 1.6% just below
    ``0.138 dim``; beyond it the network forgets them all. The continuous phasor network
    holds fewer: its fixed points lie near the patterns (similarity about 0.96 at
    ``0.03 dim``), and it loses them above about ``0.03 dim`` (measured).

    Parameters
    ----------
    model : VSAModel
        A model whose bundle is a sum of +-1 or unit-phasor elements (MAP, MAP-I, BSC,
        FHRR); another model raises ``TypeError``.
    explicit : bool
        Keep the ``dim x dim`` weight matrix instead of the patterns.

    Examples
    --------
    >>> from holovec import VSA
    >>> from holovec.memory import Hopfield
    >>> model = VSA.create("MAP", dim=1000)
    >>> patterns = model.random(50, seed=1)
    >>> net = Hopfield(model)
    >>> net.store(patterns)
    >>> noisy = model.bind(patterns[3], model.asarray([-1.0] * 100 + [1.0] * 900))  # 10% flipped
    >>> bool((net.recall(noisy) == patterns[3]).all())
    True
    """

    def __init__(self, model: VSAModel, *, explicit: bool = False) -> None:
        check_model(
            model,
            "Hopfield",
            _supported,
            "a bundle that sums +-1 or unit-phasor elements "
            "(bundle_is_sum, element_kind bipolar, binary or phasor)",
        )
        self.model = model
        self.explicit = FLAG.check("explicit", explicit)
        self._complex = model.element_kind == "phasor"
        self._n = 0
        # (n, dim) lifted patterns (implicit), grown by doubling: a store costs its patterns
        self._pattern_rows = RowBuffer(model.backend)
        self._weights: Any = None  # (dim, dim) W transposed, zero diagonal (explicit)

    # -- the stored patterns ----------------------------------------------------------------
    @property
    def n_patterns(self) -> int:
        """The number of patterns stored."""
        return self._n

    def __len__(self) -> int:
        return self._n

    @property
    def _patterns(self) -> Any:
        """The lifted patterns ``(n, dim)`` (implicit weights), or ``None`` for none."""
        return self._pattern_rows.rows if len(self._pattern_rows) else None

    @property
    def patterns(self) -> Any:
        """The stored patterns ``(n_patterns, vector_length)`` as vectors of the model, in the
        order stored (``finish_sum`` of the network's states: a MAP-I bundle stored is its
        sign); ``TypeError`` for an ``explicit`` network, which keeps only the weights."""
        if self.explicit:
            raise TypeError("an explicit Hopfield network keeps its weights, not its patterns")
        self._check_stored()
        return self.model.finish_sum(self._patterns)

    @property
    def capacity(self) -> int:
        """About how many random patterns the network holds as fixed points with few
        errors: :func:`holovec.capacity.hopfield_capacity`, ``floor(0.1379 dim)``, for +-1
        states (Amit, Gutfreund and Sompolinsky 1985), ``floor(0.03 dim)`` for phasors
        (measured; see the class)."""
        if self._complex:
            return math.floor(ALPHA_PHASOR * self.model.dim)
        return hopfield_capacity(self.model.dim)

    def __repr__(self) -> str:
        mode = ", explicit=True" if self.explicit else ""
        return f"Hopfield({self.model!r}{mode}) holding {self._n} patterns"

    def clear(self) -> None:
        """Forget every stored pattern."""
        self._n, self._weights = 0, None
        self._pattern_rows.clear()

    def store(self, patterns: Any) -> None:
        """Add ``patterns`` (one vector or a batch ``(n, vector_length)`` of the model) to
        the memory; calling it again adds more. The network holds each as
        ``lift(model.normalize(pattern))`` (itself for +-1 and phasor vectors; MAP-I
        integer bundles become their signs).

        Parameters
        ----------
        patterns : array
            One vector of the model, or a batch ``(..., vector_length)``.
        """
        rows, _ = as_rows(self.model, patterns, "patterns")
        if rows.shape[0] == 0:
            raise ValueError("patterns is empty: give at least one pattern")
        self._add(self._state(rows))

    def _add(self, lifted: Any) -> None:
        xp = self.model.xp
        if self.explicit:
            conj = xp.conj(lifted) if self._complex else lifted
            w = kernels.matmul(self.model.backend, xp.matrix_transpose(conj), lifted)
            eye = xp.eye(self.model.dim, dtype=w.dtype, device=self.model.device) == 1
            w = xp.where(eye, xp.zeros_like(w), w)  # no self-coupling
            self._weights = w if self._weights is None else self._weights + w
        else:
            self._pattern_rows.append(lifted)
        self._n += lifted.shape[0]

    def _state(self, rows: Any) -> Any:
        """Vectors as states of the network (:func:`_state`)."""
        return _state(self.model, rows)

    def weight_matrix(self) -> Any:
        """The weights ``W`` ``(dim, dim)``: ``W[i, j] = sum_p p_i conj(p_j)``, zero on the
        diagonal (made from the patterns where they are implicit: ``dim^2`` memory)."""
        self._check_stored()
        if self.explicit:
            return self.model.xp.matrix_transpose(self._weights)
        xp = self.model.xp
        p = self._patterns
        w = kernels.matmul(self.model.backend, xp.matrix_transpose(p), xp.conj(p) if self._complex else p)
        eye = xp.eye(self.model.dim, dtype=w.dtype, device=self.model.device) == 1
        return xp.where(eye, xp.zeros_like(w), w)

    # -- dynamics ---------------------------------------------------------------------------
    def _store(self) -> Any:
        return self._weights if self.explicit else self._patterns

    def _field(self, s: Any) -> Any:
        """The local fields ``h = W s`` of states ``s`` ``(m, dim)``."""
        return _field(self.model, self._complex, self.explicit, s, self._store(), float(self._n))

    def _bytes_per_cue(self) -> int:
        size = itemsize(self.model.sum_dtype)
        return size * (4 * self.model.dim + (0 if self.explicit else 2 * self._n))

    def recall(self, cues: Any, iterations: int = 10) -> Any:
        """The states the network settles in from ``cues`` (one vector or a batch of the
        model), as vectors of the model (``model.finish_sum`` of the +-1 or phasor states:
        bits for BSC).

        At most ``iterations`` synchronous updates, fewer when no cue changes any more; an
        element whose field is 0 keeps its value. All cues at once, as matrix products, in
        chunks of cues that bound the temporary memory. Integer models compute exactly (the
        same answer on every backend while ``n_patterns * dim < 2**24`` in float32);
        phasors to float rounding.

        Parameters
        ----------
        cues : array
            One vector of the model, or a batch ``(n, vector_length)``.
        iterations : int, optional
            Number of update steps.
        """
        iterations = POSITIVE_INT.check("iterations", iterations)
        self._check_stored()
        rows, answer = as_rows(self.model, cues, "cues", pad=True)
        model = self.model
        # a chunk's whole settling: one program (compiled on JAX, once per shape class)
        settle = model.backend.program(
            partial(_settle, model, self._complex, self.explicit, iterations),
            (model.config_key, "holovec.memory.hopfield.settle", self._complex, self.explicit, iterations),
            keep=model.kernel_cache,
        )
        store, n = self._store(), float(self._n)
        parts = [settle(block, store, n) for block in row_blocks(rows, self._bytes_per_cue())]
        return joined(model, parts, answer)

    def energy(self, states: Any) -> Any:
        """Hopfield's energy ``E(s) = -1/2 sum_{i != j} W[i, j] conj(s_i) s_j`` of vectors of
        the model (taken as states like cues): lower for the stored patterns than for
        random vectors while the load is below the capacity. A 0-d array for one vector,
        else one value per vector (the model's real dtype).

        Parameters
        ----------
        states : array
            One vector of the model, or a batch ``(..., vector_length)``.
        """
        self._check_stored()
        rows, answer = as_rows(self.model, states, "states", pad=True)
        xp, parts = self.model.xp, []
        for block in row_blocks(rows, self._bytes_per_cue()):
            s = self._state(block)
            e = xp.real(kernels.vecdot(self.model.backend, s, self._field(s)))
            parts.append(xp.astype(e, self.model.real_dtype) * -0.5)
        return joined(self.model, parts, answer)

    def _check_stored(self) -> None:
        if self._n == 0:
            raise ValueError("the network is empty: call store(patterns) first")

    # -- storage ----------------------------------------------------------------------------
    def save(self, path: str | PathLike) -> None:
        """Write the network to ``path`` (a validated ``.npz`` archive, no pickle): the
        patterns as vectors of the model, or the weight matrix where it is explicit.

        Parameters
        ----------
        path : str | PathLike
            The file to write (``.npz``).
        """
        from .._format.state import save_state

        m = self.model
        empty = m.xp.zeros((0, m.vector_length), dtype=m.dtype, device=m.device)
        no_weights = m.xp.zeros((0, 0), dtype=m.sum_dtype, device=m.device)
        if self.explicit:
            arrays = {"patterns": empty, "weights": self._weights if self._n else no_weights}
        else:
            arrays = {"patterns": m.finish_sum(self._patterns) if self._n else empty, "weights": no_weights}
        save_state(path, _KIND, m, arrays, {"n_patterns": self._n, "explicit": self.explicit})

    @classmethod
    def load(
        cls, path: str | PathLike, model: VSAModel | None = None, *, backend: Any = None, device: Any = None
    ) -> Hopfield:
        """A network that :meth:`save` wrote (of ``model``, or of the model the file names
        made on ``backend`` and ``device``).

        Loading is bounded by the file: the dim is checked against the saved arrays before
        a model is made. An empty network saves arrays of no rows, which back no dim: its
        file may name a dim of at most ``holovec._format.MAX_UNBACKED_DIM`` (2**20)
        unless it is loaded into a ``model`` made beforehand.

        Parameters
        ----------
        path : str or path-like
            The ``.npz`` file.
        model : VSAModel or None
            The model the file must be of (same name, dim, dtype and options); None: the
            model is made from the file.
        backend : str or None
            Where a model made from the file computes (default: the backend it was saved
            from); only without ``model``.
        device : str or None
            Its device (default: the backend's best); only without ``model``.

        Returns
        -------
        Hopfield
            The network, its patterns or weights checked against the record.

        Raises
        ------
        ValueError
            For a damaged, edited or mismatched file, or one whose record names sizes that
            its arrays do not back.
        """
        from .._format.state import load_state

        found = load_state(path, _KIND, model, backend, device, arrays=("patterns", "weights"))
        n = count_field(found.fields, "n_patterns", found.where)
        explicit = found.fields.get("explicit")
        if not isinstance(explicit, bool):
            raise ValueError(
                f"{found.where}: bad explicit in the record: expected true or false, got {explicit!r}"
            )
        net = cls(found.model, explicit=explicit)
        try:
            _restore(net, found.arrays["patterns"], found.arrays["weights"], n)
        except (ValueError, TypeError) as e:
            raise ValueError(f"{found.where}: {e}") from None
        return net


def _field(model: Any, complex_: bool, explicit: bool, s: Any, store: Any, n: float) -> Any:
    """The local fields ``h = W s`` of states ``s`` ``(m, dim)``, from the weights (W
    transposed) or the patterns ``store``, ``n`` of them."""
    xp, matmul = model.xp, partial(kernels.matmul, model.backend)
    if explicit:
        return matmul(s, store)
    pt = xp.matrix_transpose(store)
    # overlaps <p, s> (complex: conj(conj(s) . p))
    overlaps = xp.conj(matmul(xp.conj(s), pt)) if complex_ else matmul(s, pt)
    # minus the self-coupling n |p_i|^2 s_i that the diagonal would add
    return matmul(overlaps, store) - n * s


def _state(model: Any, rows: Any) -> Any:
    """Vectors as states of the network: their sum form, projected onto it. Vectors of the
    model are states already (+-1, unit phasors); only others (MAP-I's integer bundles) pay
    for the model's projection, whose seeded tie-break reads every element."""
    xp = model.xp
    lifted = model.lift(rows)
    if lifted.shape[0] == 0:
        return lifted
    if not model.backend.is_traced(lifted) and not xp.isdtype(lifted.dtype, "complex floating"):
        # +-1 already: two reductions and a zero test (no temporary of the batch's size
        # beyond a bool mask; fresh memory is what costs here)
        if bool(xp.max(lifted) <= 1) and bool(xp.min(lifted) >= -1) and not bool(xp.any(lifted == 0)):
            return lifted
    return model.lift(model.normalize(rows))


def _settle(
    model: Any, complex_: bool, explicit: bool, iterations: int, rows: Any, store: Any, n: float
) -> Any:
    """The states cues ``rows`` settle in: at most ``iterations`` synchronous updates
    (:func:`_step`), fewer once no cue moves (every cue is at a fixed point), as vectors of
    the model (``finish_sum``)."""
    xp = model.xp

    def moving(state: tuple[Any, Any, Any]) -> Any:
        i, _, changed = state
        return (i < iterations) & changed

    def update(state: tuple[Any, Any, Any]) -> tuple[Any, Any, Any]:
        i, s, _ = state
        s, changed = _step(model, complex_, explicit, s, store, n)
        return i + 1, s, changed

    first = (xp.asarray(0, device=model.device), _state(model, rows), xp.asarray(True, device=model.device))
    _, s, _ = kernels.while_loop(model.backend, moving, update, first)
    return model.finish_sum(s)


def _step(model: Any, complex_: bool, explicit: bool, s: Any, store: Any, n: float) -> tuple[Any, Any]:
    """One synchronous update of states ``s``: ``sign(h)`` (phasors ``h / |h|``), an element
    whose field is 0 keeping its value; and whether any element moved (a 0-d bool: for
    phasors, by more than sqrt(eps))."""
    xp = model.xp
    h = _field(model, complex_, explicit, s, store, n)
    if complex_:
        size = xp.abs(h)
        zero = size == 0
        new = xp.where(zero, s, h / xp.astype(xp.where(zero, xp.ones_like(size), size), h.dtype))
        eps = float(np.finfo(np.dtype(model.real_dtype_name)).eps)
        return new, xp.any(xp.abs(new - s) > math.sqrt(eps))
    new = xp.where(h == 0, s, xp.sign(h))
    return new, xp.any(new != s)


def _restore(net: Hopfield, patterns: Any, weights: Any, n: int) -> None:
    """Fill ``net`` from a file's arrays, checked against the record's ``n``."""
    m, xp = net.model, net.model.xp
    dim = m.dim
    if not net.explicit:
        if tuple(patterns.shape) != (n, m.vector_length) or tuple(weights.shape) != (0, 0):
            raise ValueError(
                f"expected patterns of shape ({n}, {m.vector_length}) and no weights, got "
                f"{tuple(patterns.shape)} and {tuple(weights.shape)}"
            )
        if n:
            net.store(m.check_values(patterns, "patterns"))
        return
    want = (dim, dim) if n else (0, 0)
    if tuple(patterns.shape) != (0, m.vector_length) or tuple(weights.shape) != want:
        raise ValueError(f"expected no patterns and weights of shape {want}, got {tuple(weights.shape)}")
    if n == 0:
        return
    if weights.dtype != m.sum_dtype:
        raise ValueError(f"the weights are {weights.dtype}, expected the model's sum dtype")
    host = m.backend.to_numpy(weights)
    # W = sum_p p p^H: Hermitian, zero diagonal, each element at most n in modulus (and an
    # integer of n's parity for +-1 patterns)
    ok = (
        np.all(np.isfinite(host))
        and np.all(np.diagonal(host) == 0)
        and np.all(np.abs(host) <= n * (1 + 1e-5))
    )
    ok = ok and np.allclose(host, np.conj(host.T), rtol=0, atol=1e-4 * n)
    if not net._complex:
        ok = ok and np.all((host == np.round(host)) & ((host - n) % 2 == 0) | np.eye(dim, dtype=bool))
    if not ok:
        raise ValueError("the weights are not the Hebbian weights of +-1 or phasor patterns")
    net._weights, net._n = xp.asarray(weights), n
