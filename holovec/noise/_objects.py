"""Noise on the objects that hold vectors: codebooks, associative memories and fitted
learners, each copied with its stored arrays perturbed (see :func:`perturb`)."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

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
    - a fitted estimator of :mod:`holovec.learn`: its read-out, the arrays that a deployed
      estimator reads to predict, as its hook ``readout_shapes`` names them (by default
      every array of its fitted state with a ``width`` axis: class prototypes, read-outs,
      cluster centres; QuantHD's quantised prototypes; SparseHD's sparse prototypes, not
      their mask), as real numbers of its learning space, each perturbed along its
      ``width`` axis; an array stored only where a mask is 1 (the hook ``readout_masks``)
      has the noise on those positions alone (the fraction of ``flip`` and ``stuck_at`` is
      of them), the other positions and the mask kept. The estimator then predicts from
      exactly the perturbed read-out: its hook ``restore_readout`` checks it and makes
      again only what derives from it (binarised prototypes), never the read-out itself
      from a training state. The state that ``partial_fit`` goes on from is kept as it was
      (a later ``partial_fit`` goes on from it, and makes the read-out anew).

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
    if callable(getattr(type(obj), "readout_shapes", None)) and callable(
        getattr(obj, "restore_readout", None)
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
    cls = type(estimator)
    name = cls.__name__
    model = getattr(estimator, "model_", None)
    if model is None:
        raise ValueError(f"this {name} is not fitted yet: call fit before perturb")
    classes = getattr(estimator, "classes_", None)
    # the learning space's width: dim, twice that for complex models (real, then imaginary parts)
    width = model.dim * (2 if model.xp.isdtype(model.dtype, "complex floating") else 1)
    shapes = cls.readout_shapes(None if classes is None else len(classes), width)
    masks = getattr(cls, "readout_masks", {})
    seeds = _Seeds(model, kwargs["noise"], kwargs["seed"])
    # the model is shared (it is immutable); every array and encoder is the copy's own
    out = copy.deepcopy(estimator, {id(model): model})
    xp = model.xp
    for attribute, shape in shapes.items():
        if width not in shape:  # a number (an intercept)
            continue
        array = getattr(estimator, attribute)
        axis = len(shape) - 1 - shape[::-1].index(width)
        turned = axis != array.ndim - 1  # a read-out (width, n_classes): its columns
        rows = xp.matrix_transpose(array) if turned else array
        if attribute in masks:
            mask = getattr(estimator, masks[attribute])
            kept = xp.matrix_transpose(mask) if turned else mask
            noisy = _kept_noisy(model, rows, kept, attribute, seeds, **kwargs)
        else:
            noisy = _noisy(model, rows, attribute, seeds, vectors=False, **kwargs)
        setattr(out, attribute, xp.matrix_transpose(noisy) if turned else noisy)
    try:
        out.restore_readout()
    except ValueError as e:
        raise ValueError(
            f"{kwargs['noise']} leaves this {name}'s fitted state outside what its fit allows: {e}"
        ) from None
    return out


def _kept_noisy(model: Any, rows: Any, mask: Any, name: str, seeds: _Seeds, **kwargs: Any) -> Any:
    """``rows`` ``(n_rows, width)`` with the noise on the positions where ``mask`` (0s and 1s,
    the same count of 1s in each row) is 1, as rows of those positions alone (in order), and
    every other position as it was."""
    xp, backend = model.xp, model.backend
    keep = np.asarray(backend.to_numpy(mask)) != 0
    n_rows, width = keep.shape
    counts = keep.sum(axis=1)
    if n_rows and np.any(counts != counts[0]):
        raise ValueError(
            f"perturb needs the same count of kept positions in each row of {name}'s mask, got "
            f"{sorted(set(counts.tolist()))}"
        )
    kept = np.flatnonzero(keep)  # (row by row, in order)
    flat = xp.reshape(rows, (-1,))
    index = backend.asarray(kept.astype(np.int32))
    values = xp.reshape(xp.take(flat, index, axis=0), (n_rows, kept.size // max(n_rows, 1)))
    noisy = _noisy(model, values, name, seeds, vectors=False, **kwargs)
    # every position from the noisy kept values, or from the rows themselves
    where = np.arange(kept.size, kept.size + n_rows * width, dtype=np.int32)
    where[kept] = np.arange(kept.size, dtype=np.int32)
    joined = xp.concat([xp.reshape(noisy, (-1,)), flat], axis=0)
    return xp.reshape(xp.take(joined, backend.asarray(where), axis=0), (n_rows, width))
