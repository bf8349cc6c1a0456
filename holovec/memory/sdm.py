"""Kanerva's sparse distributed memory (1988), for every model whose bundle is a sum.

Hard locations are random vectors of the model; each has a counter: the sum, in the
model's sum form (:meth:`~holovec.models.VSAModel.lift`), of the contents written at
addresses near it. A write adds the lifted contents to the counters of every location
within the radius of its address; a read adds the counters of the locations within the
radius of its address and turns the sum into a vector of the model
(:meth:`~holovec.models.VSAModel.finish_sum`: the sign of each counter for MAP, the
majority bit for BSC, the phase for FHRR). Both are matrix products of the 0/1
activation matrix with the contents or counters, in chunks of addresses.
"""

from __future__ import annotations

import copy
from os import PathLike
from typing import Any

import numpy as np

from .. import kernels
from .._format.state import load_state, save_state
from .._params import NON_NEGATIVE_INT, POSITIVE_INT, Interval
from ..models.base import VSAModel
from ..random import check_seed, fold_in
from . import _activation as act
from ._common import as_rows, check_model, joined, row_chunks, sums_bundles

_KIND = "memory.sdm"

#: pairs of random vectors whose distances give the default radius of models whose
#: distances are not binomial: at most this many, and about 1024 below the radius
_RADIUS_PAIRS, _RADIUS_BELOW = 2**20, 2**10
#: bytes of float64 operands one step of the default radius's products holds
_RADIUS_BLOCK_BYTES = 32 * 2**20


def _default_radius(model: VSAModel, n_locations: int, seed: int) -> float:
    """The default radius (see :class:`SparseDistributedMemory`): where a random address
    activates about ``1 / sqrt(n_locations)`` of the locations.

    Binary and bipolar models: the exact binomial. The others: the midpoint of the two
    distances around that quantile among random pairs ``(a_i, b_j)`` of vectors drawn by the
    model's NumPy twin from ``seed`` (so the same vectors on every backend, where each
    backend's own draws of a continuous model differ in the last bits), their
    similarities the model's score (``score_from_dots``) of float64 dot products, and the
    midpoint rounded to float32, which a float64 sum's summation order does not reach:
    the radius depends on the model, ``n_locations`` and ``seed`` alone.

    Parameters
    ----------
    model : VSAModel
        The memory's model.
    n_locations : int
        Number of hard locations.
    seed : int
        Seed of the pairs' draws.

    Returns
    -------
    float
        The radius, a distance in ``[0, dim]``.
    """
    dim = model.dim
    probability = act.default_probability(n_locations)
    if model.element_kind in act.BINOMIAL_KINDS:
        return float(act.binomial_radius(dim, probability))
    if n_locations < 2:
        return float(dim)  # one location: every address activates it
    try:
        host = model.with_backend("numpy")
    except TypeError:  # a dtype that NumPy lacks (bfloat16): the model's own similarities
        locations = model.random(n_locations, seed=fold_in(seed, "sdm.locations"))
        return act.default_radius(model, locations, probability)
    pairs = min(_RADIUS_PAIRS, int(np.ceil(_RADIUS_BELOW / probability)))
    side = int(np.ceil(np.sqrt(pairs)))  # side x side pairs: rows a_i against columns b_j
    block = max(1, min(side, _RADIUS_BLOCK_BYTES // (8 * host.score_operand_width)))

    def operands(name: str, start: int) -> tuple[np.ndarray, np.ndarray]:
        rows = host.random(min(block, side - start), seed=fold_in(seed, "sdm.radius", name, start))
        x = np.asarray(host.score_operand(rows), dtype=np.float64)
        return x, kernels.vecdot(host.backend, x, x)

    distances = []
    for i in range(0, side, block):
        a, squares_a = operands("a", i)
        for j in range(0, side, block):
            b, squares_b = operands("b", j)
            dots = kernels.matmul(host.backend, a, b.T)
            sims = np.asarray(host.score_from_dots(dots, squares_a[:, None], squares_b[None, :]))
            distances.append((dim * (1.0 - sims.astype(np.float64)) / 2).ravel())
    d = np.sort(np.concatenate(distances))
    k = min(max(1, round(probability * d.size)), d.size - 1)
    return float(np.float32((d[k - 1] + d[k]) / 2))


class SparseDistributedMemory:
    """Kanerva's sparse distributed memory over the vectors of ``model``.

    Parameters
    ----------
    model : VSAModel
        A model whose bundle is a sum (``bundle_is_sum``: MAP, MAP-I, MAP-C, BSC, FHRR,
        HRR, VTB, GHRR); others raise ``TypeError``.
    n_locations : int
        Number of hard locations ``M``.
    radius : float, optional
        Activation radius: a location is active for an address at a distance
        ``dim * (1 - similarity) / 2`` of at most ``radius`` (the Hamming distance for
        BSC and +-1 MAP vectors), in ``[0, dim]``. Default: the radius at which a random
        address activates a fraction ``p = 1 / sqrt(M)`` of the locations, Kanerva's
        design point (dim 1000, ``M = 10**6``, radius 451, ``p ~ 1/1000``), within a factor
        2 of the best capacity of his signal-to-noise analysis for any number of stored
        items above ``sqrt(M) / 2``. Binary and bipolar models take it from the exact
        binomial ``P[Binomial(dim, 1/2) <= r]``, the others from the distances of random
        pairs of the model's vectors, drawn and measured on the host (the model's NumPy
        twin, float64 similarities, the radius rounded to float32), so that the default is
        the same, bit for bit, on every backend and device.
    seed : int, optional
        Seed of the locations: ``model.random(M, seed=fold_in(seed, "sdm.locations"))``,
        row ``i`` independent of ``M`` (and of the user's own ``model.random(seed=seed)``
        draws). None: ``model.spawn_seed()`` (fresh, or reproducible for a seeded model).

    Notes
    -----
    A read at an address that activates no location finds counters of zero (Kanerva) and
    returns ``finish_sum`` of zeros, the model's bundle of nothing: its tie-break vector for
    MAP, BSC and FHRR (random, unrelated to every stored item), the zero vector for the
    normalising models (HRR, VTB, GHRR, MAP-C, MAP-I). Either has similarity about 0 to
    every stored item; :meth:`activations` tells such addresses apart.

    Examples
    --------
    >>> from holovec import VSA
    >>> from holovec.memory import SparseDistributedMemory
    >>> model = VSA.create("BSC", dim=256)
    >>> memory = SparseDistributedMemory(model, 1000, seed=0)
    >>> items = model.random(20, seed=1)
    >>> memory.write(items, items)                      # autoassociative
    >>> noisy = items.copy()
    >>> noisy[:, :15] ^= 1                               # 15 of 256 bits wrong
    >>> recalled = memory.read(noisy, iterations=3)
    >>> bool((model.similarity(recalled, items) > 0.9).all())
    True
    """

    def __init__(
        self, model: VSAModel, n_locations: int, radius: float | None = None, *, seed: int | None = None
    ):
        check_model(
            model,
            "SparseDistributedMemory",
            sums_bundles,
            "a bundle that is a sum (counters add lifted vectors)",
        )
        self._model = model
        self._n = POSITIVE_INT.check("n_locations", n_locations)
        self._seed = model.spawn_seed() if seed is None else check_seed(seed)
        self._locations = model.random(self._n, seed=fold_in(self._seed, "sdm.locations"))
        if radius is None:
            self._radius = _default_radius(model, self._n, fold_in(self._seed, "sdm.radius"))
        else:
            self._radius = self._check_radius(radius)
        self._floor = act.similarity_floor(model.dim, self._radius)
        self._bytes_per_address = act.address_bytes(model, self._n)
        self.clear()

    def _check_radius(self, radius: Any) -> float:
        r = Interval(0, self._model.dim, words="a distance (at most dim)").check("radius", radius)
        return r

    # -- state ---------------------------------------------------------------------------
    @property
    def model(self) -> VSAModel:
        return self._model

    @property
    def n_locations(self) -> int:
        """Number of hard locations."""
        return self._n

    @property
    def radius(self) -> float:
        """Activation radius, a distance ``dim * (1 - similarity) / 2``."""
        return self._radius

    @property
    def seed(self) -> int:
        """Seed of the hard locations."""
        return self._seed

    @property
    def locations(self) -> Any:
        """The hard locations' addresses, ``(n_locations, vector_length)``."""
        return self._locations

    @property
    def counters(self) -> Any:
        """The counters, ``(n_locations, dim)`` in ``model.sum_dtype``: the sum of the lifted
        contents written at each location."""
        return self._counters

    def with_counters(self, counters: Any) -> SparseDistributedMemory:
        """A new memory of the same model, locations, radius and ``n_written``, holding
        ``counters`` instead of these (perturbed ones, say: :func:`holovec.noise.perturb`);
        this memory is left as it is.

        Parameters
        ----------
        counters : array
            Finite counters ``(n_locations, dim)`` of the model's backend and
            ``model.sum_dtype`` (not necessarily integers).

        Returns
        -------
        SparseDistributedMemory
            The new memory.
        """
        m = self._model
        if not isinstance(counters, m.backend.array_type):
            raise TypeError(
                f"counters must be an array of the {m.backend.name} backend, got {type(counters).__name__}"
            )
        shape = (self._n, m.dim)
        if tuple(counters.shape) != shape:
            raise ValueError(f"counters must be of shape {shape}, got {tuple(counters.shape)}")
        if counters.dtype != m.sum_dtype:
            raise ValueError(f"counters must be of the model's sum dtype {m.sum_dtype}, got {counters.dtype}")
        if not bool(m.xp.all(m.xp.isfinite(counters))):
            raise ValueError("counters hold NaN or infinity: give finite counters")
        out = copy.copy(self)  # (the locations are shared: nothing writes into them)
        out._counters = counters
        return out

    @property
    def n_written(self) -> int:
        """Number of (address, content) pairs written since creation or :meth:`clear`."""
        return self._n_written

    @property
    def activation_probability(self) -> float:
        """Probability that a random address activates a given location: the exact
        binomial tail for binary and bipolar models, else measured among the locations."""
        model = self._model
        if model.element_kind in act.BINOMIAL_KINDS:
            return act.binomial_tail(model.dim, self._radius)
        if self._n < 2:
            return 1.0
        rows = min(self._n, max(1, 2**20 // (self._n - 1)))
        sims = model.backend.to_numpy(model.similarity_matrix(self._locations[:rows], self._locations))
        active = sims >= self._floor
        return float((active.sum() - rows) / (active.size - rows))  # without each location itself

    def clear(self) -> None:
        """Set every counter to zero."""
        m = self._model
        self._counters = m.xp.zeros((self._n, m.dim), dtype=m.sum_dtype, device=m.device)
        self._n_written = 0

    def __repr__(self) -> str:
        return (
            f"SparseDistributedMemory({self._model!r}, n_locations={self._n}, radius={self._radius:g}, "
            f"n_written={self._n_written})"
        )

    # -- write and read ------------------------------------------------------------------
    def activations(self, addresses: Any) -> Any:
        """Boolean mask ``(n, n_locations)`` (``(n_locations,)`` for one address) of the
        locations each address activates; ``sum`` over the last axis counts them.

        Parameters
        ----------
        addresses : array
            One address (a vector of the model) or a batch ``(n, vector_length)``.
        """
        a, answer = as_rows(self._model, addresses, "addresses", pad=True)
        parts = [act.active(self._model, a[s], self._locations, self._floor) for s in self._chunks(a)]
        return joined(self._model, parts, answer)

    def write(self, addresses: Any, contents: Any) -> None:
        """Add each of ``contents`` to the counters of the locations its address activates.

        ``addresses`` and ``contents``: one vector each, or batches ``(n, vector_length)`` of
        the same ``n`` (the contents are the addresses for an autoassociative memory). One
        matrix product per chunk of addresses: ``counters += A^T lift(contents)``.

        Parameters
        ----------
        addresses : array
            One address (a vector of the model) or a batch ``(n, vector_length)``.
        contents : array
            The vectors to store, one per address.
        """
        a, one_a = as_rows(self._model, addresses, "addresses")
        c, one_c = as_rows(self._model, contents, "contents")
        if a.shape != c.shape or one_a != one_c:
            raise ValueError(
                f"addresses and contents must have the same shape (one content per address), "
                f"got {tuple(addresses.shape)} and {tuple(contents.shape)}"
            )
        m, xp = self._model, self._model.xp
        counters = self._counters
        # every update reads and writes all the counters: one per group of ``dim`` addresses,
        # whose 0/1 activations take the counters' own size (the similarities still in chunks)
        for start in range(0, a.shape[0], m.dim):
            g = slice(start, min(start + m.dim, a.shape[0]))
            masks = [act.active(m, a[g][s], self._locations, self._floor) for s in self._chunks(a[g])]
            mask = masks[0] if len(masks) == 1 else xp.concat(masks, axis=0)
            counters = counters + act.weighted_sum(m, mask, m.lift(c[g]), transpose=True)
        self._counters = counters
        self._n_written += a.shape[0]

    def read(self, addresses: Any, iterations: int = 1) -> Any:
        """The vectors stored at ``addresses``: ``finish_sum`` of the sum of the counters of
        the locations each address activates (see the class notes for an address that
        activates none). With ``iterations > 1`` each result is read again as the next
        address: an autoassociative memory converges to a stored item from a cue within
        the critical distance. One vector or a batch ``(n, vector_length)``; the same shape
        back.

        Parameters
        ----------
        addresses : array
            One address (a vector of the model) or a batch ``(n, vector_length)``.
        iterations : int, optional
            Number of reads; each result after the first is read again as the next address.
        """
        x, answer = as_rows(self._model, addresses, "addresses", pad=True)
        times = POSITIVE_INT.check("iterations", iterations)
        for _ in range(times):
            x = self._read_once(x)
        return answer.of(x)

    def _read_once(self, a: Any) -> Any:
        m = self._model
        parts = []
        for s in self._chunks(a):
            mask = act.active(m, a[s], self._locations, self._floor)
            parts.append(m.finish_sum(act.weighted_sum(m, mask, self._counters, transpose=False)))
        return joined(m, parts, None)

    def _chunks(self, a: Any) -> list[slice]:
        return list(row_chunks(a.shape[0], self._bytes_per_address))

    # -- files ---------------------------------------------------------------------------
    def save(self, path: str | PathLike) -> None:
        """Write the memory to ``path`` (``.npz``, no pickle): the model, the counters and
        the fields that rebuild the locations (their seed and number) and the radius.

        Parameters
        ----------
        path : str | PathLike
            The file to write (``.npz``).
        """
        fields = {
            "n_locations": self._n,
            "radius": self._radius,
            "seed": str(self._seed),
            "n_written": self._n_written,
        }
        save_state(path, _KIND, self._model, {"counters": self._counters}, fields)

    @classmethod
    def load(
        cls, path: str | PathLike, model: VSAModel | None = None, *, backend: Any = None, device: Any = None
    ) -> SparseDistributedMemory:
        """Read a memory saved by :meth:`save`. With ``model`` the file must be of that
        model; without, the model is made from the file (on ``backend``, default the saved
        one, and ``device``). The locations are drawn again from the saved seed.

        Loading is bounded by the file: the dim is checked against the saved counters
        before a model is made, and their shape against the number of locations before
        any location is drawn.

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
        SparseDistributedMemory
            The memory, its counters checked against the record.

        Raises
        ------
        ValueError
            For a damaged, edited or mismatched file, or one whose record names sizes that
            its counters do not back.
        """
        found = load_state(path, _KIND, model, backend, device, arrays=("counters",))
        try:
            return cls._from_state(found.model, found.fields, found.arrays["counters"])
        except (TypeError, ValueError) as e:
            raise ValueError(f"{found.where}: not a valid sparse distributed memory: {e}") from None

    @classmethod
    def _from_state(cls, model: VSAModel, fields: dict, counters: Any) -> SparseDistributedMemory:
        if set(fields) != {"n_locations", "radius", "seed", "n_written"}:
            raise ValueError(f"the fields are {sorted(fields)}")
        seed = fields["seed"]
        if not isinstance(seed, str) or not seed.isdigit():
            raise ValueError(f"seed must be a decimal string, got {seed!r}")
        n = POSITIVE_INT.check("n_locations", fields["n_locations"])
        shape = (n, model.dim)
        if tuple(counters.shape) != shape:  # before drawing n locations
            raise ValueError(f"counters must be {shape}, got {tuple(counters.shape)}")
        memory = cls(model, n, fields["radius"], seed=int(seed))
        n_written = NON_NEGATIVE_INT.check("n_written", fields["n_written"])
        if counters.dtype != model.sum_dtype:
            raise ValueError(f"counters must be of the model's sum dtype, got {counters.dtype}")
        host = model.backend.to_numpy(counters)
        if not np.all(np.isfinite(host)):
            raise ValueError("the counters hold values that are not finite")
        if model.element_kind in act.BINOMIAL_KINDS and np.any(host != np.round(host)):
            raise ValueError("the counters of a binary or bipolar model must hold integers")
        # a counter sums at most n_written lifted contents of modulus 1 (+-1 or phasors)
        if model.element_kind in (*act.BINOMIAL_KINDS, "phasor") and np.any(
            np.abs(host) > n_written * (1 + 1e-5)
        ):
            raise ValueError(f"the counters exceed the {n_written} contents written (n_written)")
        memory._counters, memory._n_written = counters, n_written
        return memory
