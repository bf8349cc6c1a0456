"""QuantHD: class prototypes quantised to a few bits, retrained with the quantised model in
the loop (Imani et al., 2019; torchhd's ``QuantHD``)."""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from .._params import Interval
from ._base import Batch
from ._docs import shared_parameters
from ._engine import Rule
from ._rows import MIN_BLOCK_ROWS
from ._space import Space
from ._steps import chunks, counted, predicted, step_fractions, taking
from .retraining import AdaptHDClassifier

__all__ = ["QuantHDClassifier"]


def _levels(bits: int) -> int:
    """The positive levels of a ``bits``-bit quantiser: 0 for binary (signs), else
    ``2**(bits - 1) - 1`` on each side of 0 (ternary for 2 bits)."""
    return 0 if bits == 1 else 2 ** (bits - 1) - 1


def _quantised(space: Space, P: Any, levels: int) -> Any:
    """Prototypes ``P`` quantised row by row: their signs (+1 at 0) for ``levels`` 0, else
    integers in ``[-levels, levels]``: ``P`` over a step of ``1.2 / sqrt(levels)`` times the
    row's root mean square, rounded and clipped (for ternary a threshold of 0.6 RMS, near
    the best ternary quantiser of a Gaussian, 0.61; for more bits a range of about
    ``1.2 sqrt(levels)`` RMS)."""
    xp = space.xp
    if levels == 0:
        return xp.where(P >= 0, xp.ones_like(P), -xp.ones_like(P))
    rms = xp.sqrt(xp.mean(P * P, axis=1, keepdims=True))
    step = rms * (1.2 / math.sqrt(levels))
    q = xp.round(P / xp.where(step > 0, step, xp.ones_like(step)))
    return xp.clip(q, -float(levels), float(levels))


#: QuantHD tries every second fraction of AdaptHD's (see _quanthd_step)
_EVERY = 2


def _quanthd_step(space: Space, P: Any, H: Any, t: Any, weights: Any, lr: float, levels: int) -> Any:
    """One batch of QuantHD's retraining.

    A misclassified sample (scored against the quantised prototypes) is added to its
    class and taken from the predicted one, in the real prototypes, times ``lr``; the
    batch's sum of these takes the step that misclassifies the fewest of the batch's
    samples by the quantised prototypes after it (as AdaptHD's, see
    :func:`~holovec.learn.retraining._best_step`), among every second fraction of
    AdaptHD's: quantising is not linear, so each fraction's scores take a product of their
    own (one product per run of fractions that fits in the batch's memory). With one
    sample per batch this is the paper's per-sample rule, but where a shorter step than
    the full one would classify the sample right.

    Parameters
    ----------
    space : Space
        The learning space.
    P : array, shape ``(classes, width)``
        The real prototypes.
    H : array, shape ``(rows, width)``
        The batch's unit rows.
    t : array, shape ``(rows,)``
        Their class indices.
    weights : array of shape ``(rows,)`` or None
        1 per sample and 0 per row of padding (None: no padding; see ``Batch``).
    lr : float
        The weight of each sample's update.
    levels : int
        The quantiser's positive levels (see :func:`_levels`).

    Returns
    -------
    array, shape ``(classes, width)``
        The real prototypes after the batch.
    """
    xp = space.xp
    C, W = P.shape
    S = space.cosines(H, _quantised(space, P, levels))
    true = space.one_hot(t, C)
    pred, wrong = predicted(space, S, true, weights)
    D = space.add(xp.zeros_like(P), lr * wrong * (true - pred), H)
    fractions = step_fractions(space, _EVERY)[:-1]  # (those above 0)
    counts = []
    # (runs of fractions whose prototypes and scores take no more memory than the batch)
    for start, stop in chunks(fractions.shape[0], min(max(H.shape[0], MIN_BLOCK_ROWS), W) // C):
        a = fractions[start:stop]
        moved = xp.reshape(P[None, :, :] + a[:, None, None] * D[None, :, :], (a.shape[0] * C, W))
        scores = space.cosines(H, _quantised(space, moved, levels))  # (rows, fractions x classes)
        scores = xp.permute_dims(xp.reshape(scores, (-1, a.shape[0], C)), (1, 0, 2))
        counts.append(counted(space, scores, true, weights))
    return taking(space, P, D, xp.concat([*counts, xp.sum(wrong, axis=0)], axis=0), _EVERY)


def _with_levels(levels: int) -> tuple[Any, Any]:
    """The step and the quantiser with ``levels`` fixed (a Python int that chooses code: a
    compiled program holds one quantiser), made once per level count so that compiled
    programs are shared between estimators."""
    if levels not in _BY_LEVELS:
        _BY_LEVELS[levels] = (
            lambda space, P, H, t, w, lr: _quanthd_step(space, P, H, t, w, lr, levels),
            lambda space, P: _quantised(space, P, levels),
        )
    return _BY_LEVELS[levels]


_BY_LEVELS: dict[int, tuple[Any, Any]] = {}


def _check_quantised(Q: np.ndarray, P: np.ndarray, levels: int) -> None:
    """``ValueError`` unless saved prototypes ``Q`` are the quantised real prototypes ``P``
    (checked on the host in float64: an element may differ only where it lies within
    rounding of a step of the quantiser, as another backend may round it)."""
    rms = np.sqrt(np.mean(P * P, axis=1, keepdims=True))
    step = np.where(rms > 0, rms * (1.2 / math.sqrt(levels) if levels else 1.0), 1.0)
    x = P / step
    if levels == 0:
        q, edge = np.where(x >= 0, 1.0, -1.0), np.abs(x)
    else:
        q, edge = np.clip(np.round(x), -levels, levels), np.abs(np.abs(x - np.floor(x)) - 0.5)
    if np.any((q != Q) & (edge > 1e-4)):
        raise ValueError(
            "QuantHDClassifier: the saved prototypes_ must be the quantised real_prototypes_, "
            "as training leaves them"
        )


@shared_parameters
class QuantHDClassifier(AdaptHDClassifier):
    """Class prototypes of ``bits`` bits per element, retrained with the quantised model in
    the loop (QuantHD, Imani et al., 2019, "QuantHD: a quantization framework for
    hyperdimensional computing", TCAD; torchhd's ``QuantHD``).

    After the one-pass class means, ``epochs`` passes of AdaptHD's rule update real
    prototypes, but score each sample against their quantised copy, so that retraining
    corrects the mistakes that quantisation makes; a batch's summed update takes the step
    that the quantised prototypes after it misclassify the fewest of the batch's samples
    with (every second of AdaptHD's fractions). The fitted ``prototypes_`` are the
    quantised ones: signs for ``bits=1`` (a binary model: Hamming distance on MAP or BSC
    with ``binarize=True``), -1/0/+1 for ``bits=2`` (ternary), integers in
    ``[-(2**(bits-1) - 1), 2**(bits-1) - 1]`` beyond (a uniform step of about
    ``1.2 / sqrt(levels)`` times each prototype's root mean square). A prototype takes
    ``bits * width`` bits instead of 32 per element.

    ``partial_fit`` learns a stream as :class:`AdaptHDClassifier` does, on the real
    prototypes (kept as ``real_prototypes_``, with the class sums and counts, and saved
    with the estimator), quantised again after each call. On digits, five calls score
    within 0.03 of ``fit`` (see tests/test_learn_partial_fit.py).

    Parameters
    ----------
    {encoder_parameters}
    bits : int, default 1
        Bits per element of the prototypes, 1 to 16 (1: binary, 2: ternary).
    epochs : int, default 20
        Retraining passes after the first pass, each in an order shuffled from ``random_state``.
    lr : float, default 0.035
        The weight of each update, as for :class:`AdaptHDClassifier`.
    {retraining_parameters}

    Attributes
    ----------
    classes_, class_vectors_, encoder_, model_, n_features_in_ :
        As for :class:`CentroidClassifier`.
    prototypes_ : array of the model's backend, shape ``(n_classes, width)``
        The quantised prototypes: integers of ``bits`` bits, as floats of the learning space.
    real_prototypes_, class_sums_, class_counts_ :
        The real prototypes that retraining updates, and the class sums and counts of every
        sample so far: the state ``partial_fit`` goes on from (a device needs only
        ``prototypes_``).

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from holovec.learn import QuantHDClassifier
    >>> X, y = load_digits(return_X_y=True)
    >>> QuantHDClassifier(dim=1000, bits=1, epochs=15, random_state=0).fit(X, y).score(X, y) > 0.9
    True
    """

    _defaults: ClassVar[dict[str, Any]] = {
        "bits": 1,
    }

    _parameter_rules: ClassVar[dict[str, Any]] = {"bits": Interval(1, 16, integral=True)}

    def _train(self, X: Any, t: np.ndarray) -> None:
        self._initial(X, t)
        self._retrain_quantised(X, t)

    def _stream(self, X: Any, t: np.ndarray) -> None:
        """``partial_fit``: AdaptHD's stream (the real prototypes moved by the change of the
        class means, then ``epochs`` passes over the batch) on the real prototypes kept from
        the calls before, quantised again after it."""
        real = getattr(self, "real_prototypes_", None)
        if real is not None:  # (else the first call: partial_fit's prototypes of zeros)
            self.prototypes_ = real
        self._stream_initial(X, t)
        self._retrain_quantised(X, t)

    def _retrain_quantised(self, X: Any, t: np.ndarray) -> None:
        """``epochs`` passes of the rule over ``X`` from the real ``prototypes_``, which are
        kept as ``real_prototypes_``; ``prototypes_`` become their quantised copy."""
        space, levels = self.space_, _levels(self.bits)
        step, quantiser = _with_levels(levels)
        lr = float(self.lr)

        def learn(P: Any, batch: Batch, epoch: int | None) -> Any:
            return space.run(step, P, batch.H, space.indices(batch.take(t)), batch.weights, lr)

        def finish(P: Any) -> None:
            self._check_in_range(space.xp.sum(P * P), "the class prototypes", f"lower lr (now {self.lr!r})")
            self.real_prototypes_ = space.computed(P)
            self.prototypes_ = space.run(quantiser, self.real_prototypes_)

        self._train_epochs(X, Rule(lambda: self.prototypes_, learn, finish))

    @classmethod
    def stream_shapes(cls, n_classes: int | None, width: int) -> dict[str, tuple[int, ...]]:
        return super().stream_shapes(n_classes, width) | {"real_prototypes_": (n_classes, width)}

    def restore_derived(self) -> None:
        host = self._checked_levels()
        levels = _levels(self.bits)
        real = getattr(self, "real_prototypes_", None)
        if real is not None:
            if getattr(self, "class_sums_", None) is None:
                raise ValueError("real_prototypes_ and class_sums_ are saved together, or neither")
            space = self.space_
            self.real_prototypes_ = space.backend.asarray(real, dtype=space.dtype)
            self._check_saved_range(self.real_prototypes_, "the real prototypes", power=2)
            _check_quantised(host, np.asarray(real, np.float64), levels)
        elif getattr(self, "class_sums_", None) is not None:
            raise ValueError("real_prototypes_ and class_sums_ are saved together, or neither")
        super().restore_derived()

    def restore_readout(self) -> None:
        """After :func:`holovec.noise.perturb` replaced ``prototypes_`` (the read-out, which
        ``predict`` reads): they checked as integers of ``bits`` bits (``ValueError``
        otherwise) and kept as they are, not quantised again from ``real_prototypes_``, so
        that the estimator predicts from exactly them (and binarised where asked for). The
        state ``partial_fit`` goes on from (``real_prototypes_``, the class sums and counts)
        is kept as it was: a later ``partial_fit`` retrains the real prototypes and quantises
        them anew, in place of the perturbed ones, as a device would be written again.
        (Such an estimator, saved, is not one that :func:`~holovec.learn.load` takes: its
        ``prototypes_`` are not the quantised ``real_prototypes_``.)"""
        self._checked_levels()
        super().restore_derived()

    def _checked_levels(self) -> np.ndarray:
        """``prototypes_`` on the host, ``ValueError`` unless they are integers of ``bits``
        bits."""
        host = np.asarray(self.space_.backend.to_numpy(self.prototypes_))
        levels = _levels(self.bits)
        ok = (
            np.all(np.abs(host) == 1)
            if levels == 0
            else np.all((host == np.round(host)) & (np.abs(host) <= levels))
        )
        if not ok:
            raise ValueError(
                f"QuantHDClassifier: the saved prototypes_ must be integers of {self.bits} bits "
                f"({'+-1' if levels == 0 else f'-{levels} to {levels}'}), as a fit leaves them"
            )
        return host
