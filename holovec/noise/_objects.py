"""Noise on the objects that hold vectors: codebooks, associative memories and fitted
learners, each copied with its stored arrays perturbed (see :func:`perturb`)."""

from __future__ import annotations

import copy
from typing import Any

from ..memory import Hopfield, ModernHopfield, SparseDistributedMemory
from ..random import fold_in
from ..retrieval import Codebook
from ._apply import LEVEL_RULES, NOISES, perturb_array
from ._draws import noise_seed

__all__ = ["perturb"]


def perturb(obj: Any, noise: str, level: Any, *, seed: int | None = None, value: Any = None) -> Any:
    """A new object like ``obj`` whose stored vectors or numbers carry ``noise``; ``obj`` is
    not changed.

    - :class:`~holovec.retrieval.Codebook`: its vectors (a new codebook of the same labels
      and model; it has no seed, since its vectors are no longer the seeded symbols),
    - :class:`~holovec.memory.ModernHopfield`: its patterns (a new memory of the same
      ``beta`` storing the noisy patterns),
    - :class:`~holovec.memory.Hopfield` and :class:`~holovec.memory.SparseDistributedMemory`:
      their patterns and counters, where they give them (a ``patterns`` property, and a
      ``with_counters(counters)`` method that makes a memory of the same locations holding
      other counters); ``TypeError`` where they do not,
    - a fitted estimator of :mod:`holovec.learn`: the arrays of its fitted state (its
      ``fitted_shapes``: class prototypes, read-outs, cluster centres), as real numbers of
      its learning space, each perturbed along its ``width`` axis; what derives from them
      (binarised prototypes) is made again (``restore_derived``). The state that
      ``partial_fit`` goes on from is kept as it was.

    Vectors of the model get the noise of the vector functions (:func:`flip`, ...); sums
    (an SDM's counters, prototypes) are plain numbers: ``flip`` changes signs, ``gaussian``
    needs real numbers, ``phase`` complex ones, ``quantize`` puts real and imaginary parts
    on uniform levels. The array named ``name`` (``"vectors"``, ``"patterns"``,
    ``"counters"``, an estimator's attribute) is perturbed with the seed
    ``holovec.random.fold_in(seed, name)``.

    Parameters
    ----------
    obj : object
        A codebook, a memory or a fitted estimator.
    noise : str
        ``"flip"``, ``"stuck_at"``, ``"gaussian"``, ``"phase"`` or ``"quantize"``.
    level : float or int
        The fraction of positions (flip, stuck_at), the standard deviation (gaussian: relative
        to the RMS element; phase: radians) or the bits (quantize).
    seed : int, optional
        The seed; ``None`` for the model's next spawned seed.
    value : float or complex, optional
        The value of stuck elements (stuck_at only).

    Returns
    -------
    object
        The perturbed copy.

    Examples
    --------
    >>> from holovec import VSA, noise
    >>> from holovec.retrieval import Codebook
    >>> model = VSA.create("BSC", dim=1000)
    >>> book = Codebook.from_seed(model, ["a", "b"], seed=1)
    >>> noisy = noise.perturb(book, "flip", 0.25, seed=2)
    >>> noisy.labels, round(float(model.similarity(book["a"], noisy["a"])), 6)
    (['a', 'b'], 0.5)
    """
    noise = NOISES.check("noise", noise)
    level = LEVEL_RULES[noise].check("level", level)  # before anything is copied
    kwargs = {"noise": noise, "level": level, "seed": seed, "value": value}
    if isinstance(obj, Codebook):
        return _codebook(obj, **kwargs)
    if isinstance(obj, ModernHopfield):
        return _modern_hopfield(obj, **kwargs)
    if isinstance(obj, Hopfield):
        return _hopfield(obj, **kwargs)
    if isinstance(obj, SparseDistributedMemory):
        return _sdm(obj, **kwargs)
    if callable(getattr(type(obj), "fitted_shapes", None)) and callable(
        getattr(obj, "restore_derived", None)
    ):
        return _estimator(obj, **kwargs)
    raise TypeError(
        "perturb takes a Codebook, a memory (Hopfield, ModernHopfield, SparseDistributedMemory) or a "
        f"fitted estimator of holovec.learn, got {type(obj).__name__}"
    )


class _Seeds:
    """The seed of each named array: ``fold_in(seed, name)``, the seed drawn once."""

    def __init__(self, model: Any, noise: str, seed: Any) -> None:
        # quantize draws nothing: no seed spawned from the model
        self.base = None if noise == "quantize" else noise_seed(model, seed)

    def of(self, name: str) -> int | None:
        return None if self.base is None else fold_in(self.base, name)


def _noisy(model: Any, x: Any, name: str, seeds: _Seeds, *, vectors: bool = True, **kwargs: Any) -> Any:
    return perturb_array(
        model,
        x,
        kwargs["noise"],
        kwargs["level"],
        seed=seeds.of(name),
        value=kwargs["value"],
        vectors=vectors,
        names=(name, "level"),
    )


def _codebook(book: Codebook, **kwargs: Any) -> Codebook:
    model = book.model
    if model is None:
        raise ValueError(
            "perturb needs the codebook's model, and this one was made from a dict without one: "
            "create it as Codebook(model, items)"
        )
    vectors = _noisy(model, book.vectors, "vectors", _Seeds(model, kwargs["noise"], kwargs["seed"]), **kwargs)
    return Codebook(model, book.labels, vectors)


def _modern_hopfield(memory: ModernHopfield, **kwargs: Any) -> ModernHopfield:
    model = memory.model
    out = ModernHopfield(model, beta=memory.beta)
    seeds = _Seeds(model, kwargs["noise"], kwargs["seed"])
    if memory.n_patterns:
        out.store(_noisy(model, memory.patterns, "patterns", seeds, **kwargs))
    return out


def _hopfield(net: Hopfield, **kwargs: Any) -> Hopfield:
    model = net.model
    if net.explicit:
        raise TypeError(
            "perturb of a Hopfield network needs its stored patterns, and an explicit network "
            "keeps only its weights; perturb the patterns before storing them (holovec.noise.flip, "
            "...) instead"
        )
    out = Hopfield(model)
    seeds = _Seeds(model, kwargs["noise"], kwargs["seed"])
    if net.n_patterns:
        out.store(_noisy(model, net.patterns, "patterns", seeds, **kwargs))
    return out


def _sdm(memory: SparseDistributedMemory, **kwargs: Any) -> SparseDistributedMemory:
    model = memory.model
    seeds = _Seeds(model, kwargs["noise"], kwargs["seed"])
    return memory.with_counters(_noisy(model, memory.counters, "counters", seeds, vectors=False, **kwargs))


def _estimator(estimator: Any, **kwargs: Any) -> Any:
    name = type(estimator).__name__
    model = getattr(estimator, "model_", None)
    if model is None:
        raise ValueError(f"this {name} is not fitted yet: call fit before perturb")
    classes = getattr(estimator, "classes_", None)
    # the learning space's width: dim, twice that for complex models (real, then imaginary parts)
    width = model.dim * (2 if model.xp.isdtype(model.dtype, "complex floating") else 1)
    shapes = type(estimator).fitted_shapes(None if classes is None else len(classes), width)
    seeds = _Seeds(model, kwargs["noise"], kwargs["seed"])
    # the model is shared (it is immutable); every array and encoder is the copy's own
    out = copy.deepcopy(estimator, {id(model): model})
    for attribute, shape in shapes.items():
        if width not in shape:  # a number (an intercept)
            continue
        array = getattr(estimator, attribute)
        axis = len(shape) - 1 - shape[::-1].index(width)
        turned = axis != array.ndim - 1  # a read-out (width, n_classes): its columns
        rows = model.xp.matrix_transpose(array) if turned else array
        noisy = _noisy(model, rows, attribute, seeds, vectors=False, **kwargs)
        setattr(out, attribute, model.xp.matrix_transpose(noisy) if turned else noisy)
    try:
        out.restore_derived()
    except ValueError as e:
        raise ValueError(
            f"{kwargs['noise']} leaves this {name}'s fitted state outside what its fit allows: {e}"
        ) from None
    return out
