"""What every holovec estimator shares: its encoder, its parameters' rules, minibatches,
progress and the check that training stayed finite (private)."""

from __future__ import annotations

from abc import ABCMeta, abstractmethod
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from sklearn.base import BaseEstimator, clone

from .._params import POSITIVE_INT, Either, Flag, InstanceOf, Options
from ..backends import dtype_name, get_backend, resolve_backend_name
from ..encoders.base import Encoder
from ._data import (
    batch_rows,
    batches,
    count_rows,
    n_rows,
    padded_blocks,
    padded_index,
    padded_size,
)
from ._docs import document_methods
from ._seed import RANDOM_STATE, chosen_seed
from ._signature import DeclaredParameters
from ._space import Space
from .encoding import HDEncoder
from .persistence import ESTIMATORS, save

#: the encoder settings an estimator passes on to its default encoder (None: the encoder's
#: default); the seed is passed as ``random_state``
_SHARED = ("model", "dim", "backend", "device", "random_state")


class TrainingDivergedError(ValueError):
    """Training produced numbers beyond the range of the learning space's floats (an
    overflow, then NaN): the learning rate is too large for the data, or the targets are.
    A ``ValueError`` (the parameters or data were unfit); the message says what to change."""


@dataclass(frozen=True)
class Batch:
    """One minibatch: the samples ``rows`` of the data (an index array, or a slice of rows
    in order) and their encodings ``H`` on the model's backend.

    Where every new array shape compiles a program (``Backend.static_shapes``: JAX), a
    batch is padded to one of a few sizes: ``H`` has a row for each of ``index``, the row
    numbers ``rows`` followed by copies of the first, and ``weights`` is 1 for each sample
    and 0 for each row of padding (floats of the learning space), for the caller to mask
    the padding out of what it sums and to drop its rows from what it returns. Elsewhere
    ``index`` is ``rows`` and ``weights`` is ``None``. No sample's result depends on the
    padding: every operation on a batch is row by row, or masked.

    The unit rows are ``scale * H``: ``scale`` is 1.0 but where the caller of
    :meth:`HDEstimator._encoded` asks for ``scaled`` rows (see ``Space.scaled_features``).
    ``H`` is a ``Rows`` (rows of the kept encodings read block by block) where the caller
    asks for ``blocks`` and the space reads them so.
    """

    rows: np.ndarray | slice
    H: Any
    index: np.ndarray | slice
    weights: Any
    scale: float = 1.0

    @property
    def n(self) -> int:
        """The number of samples (rows of ``H`` past it are padding)."""
        return count_rows(self.rows)

    def take(self, values: np.ndarray) -> np.ndarray:
        """Host values (labels, targets) of the batch's rows, padded like ``H``."""
        return values[self.index]

    def trim(self, out: np.ndarray) -> np.ndarray:
        """The rows of host results ``out`` (one per row of ``H``) that belong to samples."""
        return out[: self.n]


@document_methods
class HDEstimator(DeclaredParameters, BaseEstimator, metaclass=ABCMeta):
    """Base of the estimators: builds the encoder (``encoder_``) and the model (``model_``)
    from the parameters, and iterates over encoded minibatches.

    ``encoder`` may be ``None`` (an :class:`HDEncoder` made from ``model``, ``dim``,
    ``backend``, ``device`` and ``random_state``), ``"precomputed"`` (``X`` holds the
    model's vectors), an :class:`HDEncoder` (cloned; the shared settings left at ``None``
    are the encoder's, and the estimator's ``random_state`` is the encoder's where given),
    or any holovec encoder (its model is used; ``random_state`` orders the passes).

    The parameters are declared once, in ``_defaults`` (merged along the bases; see
    :mod:`._signature`, which writes ``__init__`` from them), and each is checked once per
    ``fit`` (:func:`holovec._params.fit_context`) against its rule in ``_parameter_rules``
    (merged the same way; see ``holovec._params``): a wrong type is a ``TypeError``, a
    wrong value a ``ValueError``. Every public subclass is registered by name in
    :data:`~.persistence.ESTIMATORS`, where :func:`~holovec.learn.load` finds it.
    """

    _positional: ClassVar[tuple[str, ...]] = ("model", "dim")
    _defaults: ClassVar[dict[str, Any]] = {
        "model": None,
        "dim": None,
        "encoder": None,
        "batch_size": 1024,
        "backend": None,
        "device": None,
        "verbose": False,
        "random_state": None,
        "seed": None,
    }

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        document_methods(cls)
        if not cls.__name__.startswith("_") and vars(cls).get("_registered", True):
            ESTIMATORS[cls.__name__] = cls

    # class defaults (not documented as attributes: they are parameters): estimators
    # pickled before the parameters existed read them
    random_state = None
    seed = None

    _parameter_rules: ClassVar[dict[str, Any]] = {
        "encoder": Either(
            Options(None, "precomputed"),
            InstanceOf(HDEncoder, Encoder, what="an HDEncoder or a holovec encoder"),
        ),
        "batch_size": POSITIVE_INT,
        "verbose": Flag(),
        "random_state": RANDOM_STATE,
        "seed": RANDOM_STATE,
    }

    def _make_encoder(self) -> HDEncoder:
        enc = self.encoder
        mine = {k: getattr(self, k) for k in _SHARED} | {"random_state": chosen_seed(self)}
        if enc is None or (isinstance(enc, str) and enc == "precomputed"):
            settings = {k: v for k, v in mine.items() if v is not None}
            if enc is not None:
                settings["encoding"] = "precomputed"
            return HDEncoder(**settings)
        if isinstance(enc, Encoder):
            self._check_holovec_encoder(enc, mine)
            return HDEncoder(encoder=enc, random_state=mine["random_state"])
        if isinstance(enc, HDEncoder):
            enc = clone(enc)
            given = enc.get_params(deep=False)
            # (the seed is not compared: the estimator's, where given, is the encoder's, so
            # that scikit-learn's tools, which set both, never contradict themselves)
            self._check_agree({k: given[k] for k in _SHARED[:-1]}, mine, "encoder")
            if isinstance(given.get("encoder"), Encoder):  # (TimeSeriesEncoder has none)
                self._check_holovec_encoder(given["encoder"], mine)
            settings = {k: v for k, v in mine.items() if v is not None}
            if "random_state" in settings:  # (the encoder's deprecated alias then unused)
                settings["seed"] = None
            enc.set_params(**settings)
            return enc
        raise TypeError(
            f"encoder must be None, 'precomputed', an HDEncoder or a holovec encoder, got {enc!r}"
        )

    def _check_holovec_encoder(self, enc: Encoder, mine: dict[str, Any]) -> None:
        """``ValueError`` where this estimator's settings ``mine`` contradict a holovec
        encoder's model: its model, dim, backend and device are the encoder's to decide
        (``backend="auto"`` leaves the choice to it), its vectors its own seed's."""
        model = enc.model
        self._check_agree({"model": model.name, "dim": model.dim}, mine, "the encoder's model")
        here, asked = model.backend, self.backend
        if isinstance(asked, str) and asked.lower() == "auto":
            asked = None
        if asked is not None:
            name = resolve_backend_name(asked) if isinstance(asked, str) else asked.name
            if name != here.name:
                raise ValueError(
                    f"{type(self).__name__}: backend={self.backend!r} disagrees with the encoder's "
                    f"{model.name} model, which computes on {here.name!r}; leave backend=None to use "
                    f"the encoder's, or build the encoder's model on {name!r}"
                )
        if self.device is not None and get_backend(here.name, self.device) != here:
            raise ValueError(
                f"{type(self).__name__}: device={self.device!r} disagrees with the encoder's "
                f"{model.name} model, on device {here.device_name!r}; leave device=None to use "
                "the encoder's, or build the encoder's model on that device"
            )

    def _check_agree(self, given: dict, mine: dict, whose: str) -> None:
        for key, value in mine.items():
            if value is not None and key in given and given[key] is not None and given[key] != value:
                if key == "model" and str(value).upper() == str(given[key]).upper():
                    continue
                raise ValueError(
                    f"{type(self).__name__}: {key}={value!r} disagrees with {whose} ({key}={given[key]!r}); "
                    f"leave {key}=None to use the encoder's"
                )

    def _fit_encoder(self, X: Any) -> Any:
        """Fit the encoder on ``X``; ``X`` as checked."""
        self.encoder_ = self._make_encoder()
        X = self.encoder_.fit_checked(X)
        self.model_ = self.encoder_.model_
        self.space_ = Space(self.model_)
        if hasattr(self.encoder_, "n_features_in_"):
            self.n_features_in_ = self.encoder_.n_features_in_
        return X

    def _check_input(self, X: Any) -> Any:
        """``X`` checked against the fitted encoder (shape, features, finiteness)."""
        X = self.encoder_.check_input(X)
        if hasattr(self.encoder_, "n_features_in_"):
            self.n_features_in_ = self.encoder_.n_features_in_
        return X

    def _encoded(
        self,
        X: Any,
        *,
        epoch: int | None = None,
        order_free: bool = False,
        training: bool = False,
        vectors: bool = False,
        scaled: bool = False,
        blocks: bool = False,
    ) -> Iterator[Batch]:
        """The minibatches of checked ``X`` with their encodings as unit real rows on the
        model's backend (the model's own vectors with ``vectors``). With ``epoch``, in an
        order shuffled from the seed and the epoch. Inside :meth:`_keeping_encodings` the
        rows come from the kept encodings (``X`` is then the training set they were made
        from); there, with ``blocks``, a shuffled batch's rows are a ``Rows`` where the
        space reads them block by block (for rules that pass them to ``Space.product`` and
        ``Space.add`` only). ``scaled``: encodings newly made may come unscaled, with the
        batch's ``scale`` (see :class:`Batch`), for callers that scale the results.
        ``order_free``: the caller's result does not depend on the batches (row-wise
        scores, sums), so a partitioned backend may take all rows at once.

        On a backend that compiles a program per array shape (``Backend.static_shapes``:
        JAX) every batch is padded (see :class:`Batch`) so that a few shapes serve every
        data set: with ``training``, all batches of the pass to one size (that of a full
        batch, or a power of two for a data set smaller than one), so that fitting another
        data set of the same width compiles nothing new; else each batch to a power of two
        (prediction, streams: at most twice the rows of the batch)."""
        n = n_rows(X)
        seed = None if epoch is None else self.encoder_.seed_
        kept = None if vectors else getattr(self, "_kept", None)
        space = self.space_
        size = batch_rows(self.model_, self.batch_size, n) if order_free else self.batch_size
        padding = self._pads_batches
        weights: dict[tuple[int, int], Any] = {}  # the masks, made once per shape in a pass
        for rows in batches(n, size, seed=seed, epoch=epoch or 0):
            index, mask = rows, None
            if padding:
                count = count_rows(rows)
                padded = padded_size(n if training else count, size)
                index = padded_index(rows, padded)
                mask = weights.get((padded, count))
                if mask is None:
                    mask = weights[padded, count] = space.backend.asarray(
                        np.arange(padded) < count, dtype=space.dtype
                    )
            scale = 1.0
            if kept is not None:
                H = space.rows(kept, index) if blocks else space.take(kept, index)
            else:
                H = self.encoder_.encode_checked(space.take(X, index))
                if scaled:
                    H, scale = space.scaled_features(H)
                elif not vectors:
                    H = space.features(H)
            yield Batch(rows, H, index, mask, scale)

    def _on_host(self, outputs: Iterable[tuple[Batch, Any]]) -> np.ndarray:
        """Results of batches (``(batch, out)``, ``out`` with a row per row of ``batch.H``)
        joined in a float64 host array, without the rows of padding: joined where they are
        and read once (a lazy backend computes one graph), or read batch by batch where
        batches are padded (a join of a new number of rows would compile a program)."""
        backend = self.space_.backend
        if self._pads_batches:
            parts = [batch.trim(np.asarray(backend.to_numpy(out), np.float64)) for batch, out in outputs]
            return parts[0] if len(parts) == 1 else np.concatenate(parts, axis=0)
        arrays = [out for _, out in outputs]
        joined = arrays[0] if len(arrays) == 1 else self.space_.xp.concat(arrays, axis=0)
        return np.asarray(backend.to_numpy(joined), dtype=np.float64)

    @property
    def _pads_batches(self) -> bool:
        """Whether minibatches are padded to a few shapes: where every new shape compiles
        anew (``Backend.static_shapes``: JAX; see :meth:`_encoded`)."""
        return bool(self.space_.backend.static_shapes)

    def _padded_rows(self, n: int) -> int:
        """The rows an array of all ``n`` samples' encodings has: ``n``, or on a backend that
        pads batches the training batches of ``n`` (see :meth:`_encoded`) in a count of
        blocks rounded up by :func:`~._data.padded_blocks` (so that data sets of similar
        sizes share the programs that read it)."""
        if not self._pads_batches:
            return n
        size = padded_size(n, self.batch_size)
        return padded_blocks(-(-n // size)) * size

    @contextmanager
    def _keeping_encodings(self, X: Any) -> Iterator[None]:
        """While training for several epochs: the training set's encodings are kept on the
        backend when they fit in ``cache_size`` MiB (encoded once instead of every epoch);
        memory stays bounded by ``cache_size`` plus a batch either way. Inside another such
        context (of the same training set) the encodings kept there serve."""
        if "_kept" in self.__dict__:
            yield
            return
        space = self.space_
        needed = self._padded_rows(n_rows(X)) * space.width * np.dtype(dtype_name(space.dtype)).itemsize
        try:
            self._kept = None  # (encoding the kept ones reads none)
            if needed <= self.cache_size * 2**20:
                self._kept = self._encode_all(X)
            yield
        finally:
            self.__dict__.pop("_kept", None)

    def _refresh_encodings(self, X: Any) -> None:
        """Encode the kept training set again (after the encoder changed)."""
        if getattr(self, "_kept", None) is not None:
            self._kept = None
            self._kept = self._encode_all(X)

    def _encode_all(self, X: Any, *, zero_padding: bool = False) -> Any:
        """Every row's encoding, concrete (computed once on a lazy backend), in order: the
        training batches of :meth:`_encoded` joined, ``(_padded_rows(n), width)`` (rows
        past ``n`` are padding: zeros with ``zero_padding``, else anything)."""
        space = self.space_
        parts = []
        for batch in self._encoded(X, training=True):
            parts.append(space.masked(batch.H, batch.weights) if zero_padding else batch.H)
        missing = self._padded_rows(n_rows(X)) // parts[0].shape[0] - len(parts)
        if missing > 0:  # (where batches are padded) whole blocks of padding
            parts.extend([space.xp.zeros_like(parts[0])] * missing)
        return space.computed(space.joined(parts))

    def _beyond_range(self, total: Any) -> float | None:
        """``total`` (a sum over the fitted state that bounds it and the scores made from
        it) where it is not a number within the range of the learning space's floats, else
        ``None`` (one number read back per check)."""
        value = float(total)
        return None if value <= float(np.finfo(self.space_.dtype_name).max) else value  # (NaN too)

    def _check_in_range(self, total: Any, what: str, advice: str) -> None:
        """``TrainingDivergedError`` unless ``total`` is within range (see :meth:`_beyond_range`)."""
        value = self._beyond_range(total)
        if value is not None:
            raise TrainingDivergedError(
                f"{type(self).__name__}: training diverged: {what} left the range of "
                f"{self.space_.dtype_name} numbers (a sum over them came to {value:.3g}); {advice}"
            )

    def _check_saved_range(self, state: Any, what: str, *, power: int = 1) -> None:
        """After loading: ``ValueError`` unless the sum of ``|state| ** power`` (the bound
        training checks) is within range as a fit leaves it (see :meth:`_beyond_range`), so
        that every score made from a file stays finite. Summed in float64 on the host, where
        the values of a learning space's floats cannot overflow on the way."""
        host = np.abs(np.asarray(self.space_.backend.to_numpy(state), dtype=np.float64))
        value = self._beyond_range(np.sum(host**power))
        if value is not None:
            raise ValueError(
                f"{type(self).__name__}: {what} lie beyond the range of {self.space_.dtype_name} "
                f"numbers (a sum over them comes to {value:.3g}), which no fit leaves"
            )

    # -- the hooks of holovec.learn.load (see holovec.learn.persistence) --------------------
    @classmethod
    @abstractmethod
    def fitted_shapes(cls, n_classes: int | None, width: int) -> dict[str, tuple[int, ...]]:
        """The fitted state a saved estimator of this class holds, for checking a file
        before its arrays are read: each attribute's shape (an array of the learning
        space's floats; ``()``: a number), given the classes (``None`` for a regressor)
        and the learning space's width."""

    @classmethod
    def fitted_rows(cls, params: dict[str, Any], n_classes: int | None) -> int | None:
        """The rows of the fitted state of a saved estimator with parameters ``params``:
        ``n_classes``, its classes (``None`` for a regressor), by default."""
        return n_classes

    @classmethod
    def stream_shapes(cls, n_classes: int | None, width: int) -> dict[str, tuple[int, ...]]:
        """The state ``partial_fit`` goes on from, beyond :meth:`fitted_shapes` (saved where
        the estimator has it, as float64; ``()``: a number): none by default."""
        return {}

    @abstractmethod
    def restore_derived(self) -> None:
        """After :func:`~holovec.learn.load` set the saved state: that state checked as a
        fit leaves it (``ValueError`` otherwise), and what derives from it made again."""

    # -- the hooks of holovec.noise.perturb: the read-out, what a deployed estimator reads --
    #: The read-out arrays (see :meth:`readout_shapes`) that a deployed estimator stores only
    #: where a mask is 1, ``{read-out attribute: mask attribute}``: the mask, a fitted array
    #: of 0s and 1s of the read-out's shape (the same count of 1s along each row or column
    #: that is perturbed), is structure, not stored values, so that
    #: :func:`holovec.noise.perturb` changes the kept positions alone (a fraction of them)
    #: and leaves the others, and the mask, as they are. None by default.
    readout_masks: ClassVar[dict[str, str]] = {}

    @classmethod
    def readout_shapes(cls, n_classes: int | None, width: int) -> dict[str, tuple[int, ...]]:
        """The read-out: the arrays of the fitted state that a deployed estimator reads to
        predict, those that errors of the memory holding them hit (what
        :func:`holovec.noise.perturb` perturbs), each attribute's shape (real numbers of the
        learning space with a ``width`` axis, perturbed along it). By default every array of
        :meth:`fitted_shapes` with a ``width`` axis; a class whose fitted state holds
        structure (a mask) or whose prediction reads other arrays names its own.

        Parameters
        ----------
        n_classes : int or None
            The rows of the fitted state: the classes (the clusters of HDKMeans), ``None`` for
            a regressor.
        width : int
            The learning space's width (``dim``; twice that for complex models).

        Returns
        -------
        dict of str to tuple of int
            Each read-out attribute's shape.
        """
        return {name: shape for name, shape in cls.fitted_shapes(n_classes, width).items() if width in shape}

    def restore_readout(self) -> None:
        """After the read-out arrays (:meth:`readout_shapes`) were replaced, by
        :func:`holovec.noise.perturb`: they checked as values that a deployed estimator may
        hold (``ValueError`` otherwise), and what derives from them made again, so that the
        estimator predicts from exactly them. By default :meth:`restore_derived`; a class whose
        read-out derives from a training state (QuantHD's quantised prototypes) checks the
        read-out alone and keeps that state as it was, for ``partial_fit`` to go on from."""
        self.restore_derived()

    def save(self, path: Any) -> None:
        """Write the fitted estimator to ``path`` (``.npz`` + JSON, no pickle; read it back
        with :func:`holovec.learn.load`)."""
        save(self, path)

    def _progress(self, total: int, desc: str) -> Any:
        """A tqdm bar over epochs when ``verbose``, else a plain range."""
        if not self.verbose:
            return range(total)
        from tqdm.auto import trange

        return trange(total, desc=desc)
