"""Mistake-driven retraining of class prototypes after a first pass (torchhd's AdaptHD and
OnlineHD): ``epochs`` passes over the data in a seeded shuffled order, each batch's
updates one matrix product (see holovec.learn.centroid).

The papers update one sample at a time; a batch scores all its samples against the
prototypes before it, so the sum of their updates overshoots where many mistakes push the
same way. The sum takes the step (a fraction 1, 1/2, ... of it, or none) that misclassifies
the fewest of the batch's samples (``best_step``): a batch of one sample steps as the
per-sample rule, and no batch loses samples of its own to its step.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from .._fixed_order import rounding_margin
from .._params import NON_NEGATIVE, NON_NEGATIVE_INT, POSITIVE
from ._base import Batch
from ._docs import shared_parameters
from ._engine import Rule
from ._leads import Leads, row_norms
from ._rows import MIN_BLOCK_ROWS
from ._space import Space
from ._steps import best_step, counts_of, mistakes, taking, unsure
from .centroid import PrototypeClassifier

__all__ = ["AdaptHDClassifier", "OnlineHDClassifier"]


# -- the retraining rules (as holovec.learn.centroid's ``_bundling``: one step over a batch,
# a pure function of arrays, compiled where the backend compiles)
def _adapthd(space: Space, P: Any, H: Any, t: Any, weights: Any, lr: float) -> tuple[Any, ...]:
    """AdaptHD: a misclassified sample added to its class and taken from the predicted one,
    the batch's sum of these taking its best step (``best_step``); also the number of
    mistakes, the scores, how many samples are unsure (``unsure``), the summed update and
    the mistakes at each of its fractions."""
    S, true, pred, wrong = mistakes(space, P, H, t, weights)
    updated, D, counts = best_step(space, P, S, H, lr * wrong * (true - pred), true, wrong, weights)
    return updated, space.xp.sum(wrong), S, unsure(space, S, true, weights), D, counts


def _adapthd_stream(space: Space, P: Any, H: Any, t: Any, weights: Any, lr: float) -> Any:
    return _adapthd(space, P, H, t, weights, lr)[0]


def _onlinehd_pass(space: Space, P: Any, H: Any, t: Any, weights: Any, lr: float) -> Any:
    """OnlineHD's single pass: every sample updates its class by ``lr (1 - cos)``, and a
    misclassified one the predicted class by ``-lr (1 - cos)``."""
    S, true, pred, wrong = mistakes(space, P, H, t, weights)
    coef = lr * (true * (1 - S) - wrong * pred * (1 - S))
    return space.add(P, space.masked(coef, weights), H)


def _onlinehd_retrain(space: Space, P: Any, H: Any, t: Any, weights: Any, lr: float) -> tuple[Any, ...]:
    """OnlineHD's retraining: the misclassified samples alone, their sum taking its best
    step (``best_step``); also what :func:`_adapthd` returns besides."""
    S, true, pred, wrong = mistakes(space, P, H, t, weights)
    coef = lr * wrong * (true - pred) * (1 - S)
    updated, D, counts = best_step(space, P, S, H, coef, true, wrong, weights)
    return updated, space.xp.sum(wrong), S, unsure(space, S, true, weights), D, counts


class _Retraining(PrototypeClassifier):
    """Mistake-driven retraining after a first pass: ``epochs`` passes over the data in a
    seeded shuffled order; ``lr`` scales each sample's update relative to the class means
    that the first pass gives (prototypes of length at most 1), and a batch's summed
    update takes the step along it that misclassifies the fewest of its samples (see
    ``best_step``)."""

    _defaults: ClassVar[dict[str, Any]] = {"epochs": 20, "lr": 0.035, "cache_size": 512}
    _parameter_rules: ClassVar[dict[str, Any]] = {
        "epochs": NON_NEGATIVE_INT,
        "lr": POSITIVE,
        "cache_size": NON_NEGATIVE,
    }

    def _train(self, X: Any, t: np.ndarray) -> None:
        with self._keeping_encodings(X):  # (encoded once for the first pass and the epochs)
            self._initial(X, t)
            self._retrain(X, t)

    def _stream(self, X: Any, t: np.ndarray) -> None:
        """``partial_fit``: the first pass's rule on the batch (the class means of the
        stream so far, or OnlineHD's single pass), then ``epochs`` retraining passes over it."""
        with self._keeping_encodings(X):
            self._stream_initial(X, t)
            self._retrain(X, t)

    def _retrain(self, X: Any, t: np.ndarray) -> None:
        """``epochs`` mistake-driven passes over ``X``.

        Only misclassified samples update, so where the backend computes eagerly on the
        CPU a pass scores only the samples whose class may no longer lead (see
        :class:`~._leads.Leads`), and those that a batch's step might make wrong (see
        :meth:`_retrain_batch`; on digits at D=10,000, AdaptHD scores 36-50% of what its 20
        passes would, OnlineHD 39-41%), and updates the prototypes as if it scored them all
        (measured on digits: the same prototypes as scoring them all, to float32 rounding;
        see tests/test_learn_retraining_batches.py). Elsewhere
        a pass in which no sample was unsure (see ``unsure``) updated nothing, and every
        later pass would find the same: they are skipped, until the encodings change
        (NeuralHD); a lazy backend (Dask) runs every pass (counting would compute its graph
        once per pass)."""

        # the state: (settled, leads, the pass's mistakes and unsure samples so far)
        def learn(state: tuple[Any, ...], batch: Batch, epoch: int | None) -> tuple[Any, ...]:
            settled, leads, mistakes, unsure = state
            counts = self._retrain_batch(batch, t, leads)
            if counts is not None:
                unsure = unsure + counts[1]
                if self.verbose:  # (a sum to dispatch per batch only where it is shown)
                    mistakes = mistakes + counts[0]
            return settled, leads, mistakes, unsure

        def end(state: tuple[Any, ...], epoch: int | None) -> tuple[tuple[Any, ...], dict[str, str] | None]:
            settled, leads, mistakes, unsure = state
            shown = {"train_accuracy": f"{1 - float(mistakes) / len(t):.4f}"} if self.verbose else None
            settled = settled or (not self.space_.backend.lazy and float(unsure) == 0)
            if self._after_epoch(epoch):
                self._refresh_encodings(X)
                settled = False
                if leads is not None:
                    leads.forget()
            return (settled, leads, 0, 0), shown

        start = lambda: (False, self._leads(len(t)), 0, 0)  # noqa: E731  (inside the kept encodings)
        rule = Rule(start, learn, lambda state: None, end, skip=lambda state: state[0])
        # (the rules pass the rows to Space.product and Space.add only: blocks serve)
        self._train_epochs(X, rule, blocks=True)

    def _retrain_batch(self, batch: Batch, t: np.ndarray, leads: Leads | None) -> tuple[Any, Any] | None:
        """One batch of a retraining pass (with ``leads``, its samples at risk alone): the
        numbers of mistakes and of unsure samples (see ``unsure``); None where no sample
        was at risk.

        The step's length is chosen by the batch's mistakes after it (see ``best_step``),
        so with ``leads`` the samples left out count too where the step might change them.
        The step chosen from the scored samples is the whole batch's where the bound of
        ``leads`` keeps every sample left out right after it (they add no mistake there,
        and none before it, so no other fraction can do better for the whole batch); the
        samples it cannot keep right are scored and counted along the update as well, and
        the step is chosen again, until the bound keeps the rest right."""
        if leads is None:
            self.prototypes_, wrong, _, unsure, _, _ = self._step(self._retrain_rule, batch, t)
            return wrong, unsure
        space = self.space_
        host = space.backend.to_numpy
        before = self.prototypes_
        old = np.asarray(host(before), np.float64)
        norms = row_norms(old)
        index = np.asarray(batch.index)
        chosen = self._at_risk(batch, leads.at_risk(index, t, norms))
        if chosen is None:
            return None
        part, scored = chosen
        updated, wrong, S, unsure, D, counts = self._step(self._retrain_rule, part, t)
        rows, scores = [index[scored]], [host(S)]
        left = np.setdiff1d(np.arange(len(index)), scored)
        while True:
            new = np.asarray(host(updated), np.float64)
            step = row_norms(new - old)
            doubtful = left[leads.at_risk(index[left], t, row_norms(new), moving=step)] if len(left) else left
            if not len(doubtful):
                break
            extra, positions = self._at_risk(batch, doubtful)
            counted = np.isin(positions, doubtful)  # (the rows that fill the block weigh 0)
            more, S_more = space.run(
                counts_of, before, D, extra.H, space.indices(extra.take(t)),
                space.backend.asarray(counted, dtype=space.dtype),
            )  # fmt: skip
            counts = counts + more
            updated = space.run(taking, before, D, counts)
            left = np.setdiff1d(left, doubtful)
            rows.append(index[positions[counted]])
            scores.append(host(S_more)[counted])
        self.prototypes_ = updated
        leads.record(np.concatenate(rows), np.concatenate(scores), norms, step)
        return wrong, unsure

    def _leads(self, n: int) -> Leads | None:
        """What the passes keep of the samples' scores (see :class:`~._leads.Leads`), where
        a batch's rows are kept encodings read block by block (eager CPU backends), and the
        scores take less memory than those encodings (classes at most a sixth of the width)."""
        space = self.space_
        C = len(self.classes_)
        if not (space.reads_blocks and self.__dict__.get("_kept") is not None and 6 * C <= space.width):
            return None
        return Leads(n, C, rounding_margin(space.width, space.dtype_name == "float64"))

    @staticmethod
    def _at_risk(batch: Batch, risky: np.ndarray) -> tuple[Batch, np.ndarray] | None:
        """The batch's samples at positions ``risky`` (None: none), with others up to the
        rows of a block (``MIN_BLOCK_ROWS``), so that the matrix library rounds each row as
        in a whole batch's product; and their positions in the batch."""
        index = np.asarray(batch.index)
        if len(risky) == len(index):
            return batch, np.arange(len(index))
        if not len(risky):
            return None
        fill = min(len(index), MIN_BLOCK_ROWS) - len(risky)
        if fill > 0:
            risky = np.union1d(risky, np.setdiff1d(np.arange(len(index)), risky)[:fill])
        rows = index[risky]
        return Batch(rows, batch.H.subset(risky), rows, None), risky

    def _initial(self, X: Any, t: np.ndarray) -> None:
        """The first pass: class means (bundles of unit-length samples over their count,
        so prototypes have length at most 1, the scale ``lr`` refers to). The class sums
        and counts are kept for ``partial_fit``."""
        self.class_sums_ = self._bundled(X, t, self.space_.zeros(len(self.classes_)))
        self.class_counts_ = np.bincount(t, minlength=len(self.classes_)).astype(np.float64)
        self.prototypes_ = self.class_sums_ * self._inverse_counts(self.class_counts_)

    def _stream_initial(self, X: Any, t: np.ndarray) -> None:
        """The batch's samples added to the class sums, and the prototypes moved by the
        change of the class means: prototypes stay the means of the stream so far plus
        what retraining added."""
        sums = getattr(self, "class_sums_", None)
        counts = getattr(self, "class_counts_", None)
        if sums is None or counts is None:  # the first call (or a file of an older holovec)
            sums, counts = self.space_.zeros(len(self.classes_)), np.zeros(len(self.classes_))
        new_sums = self._bundled(X, t, sums)
        new_counts = counts + np.bincount(t, minlength=len(self.classes_))
        change = new_sums * self._inverse_counts(new_counts) - sums * self._inverse_counts(counts)
        self.prototypes_ = self.prototypes_ + change
        self.class_sums_, self.class_counts_ = new_sums, new_counts

    def _inverse_counts(self, counts: np.ndarray) -> Any:
        """``1 / counts`` (1 for an empty class) as a column on the backend."""
        inv = 1.0 / np.maximum(counts, 1.0)
        return self.space_.backend.asarray(inv, dtype=self.space_.dtype)[:, None]

    @classmethod
    def stream_shapes(cls, n_classes: int | None, width: int) -> dict[str, tuple[int, ...]]:
        return {"class_sums_": (n_classes, width), "class_counts_": (n_classes,)}

    def restore_derived(self) -> None:
        super().restore_derived()
        sums, counts = getattr(self, "class_sums_", None), getattr(self, "class_counts_", None)
        if (sums is None) != (counts is None):
            raise ValueError("class_sums_ and class_counts_ are saved together, or neither")
        if sums is not None:
            if np.any(counts < 0) or np.any(counts != np.round(counts)):
                raise ValueError("class_counts_ must be counts of samples (whole numbers >= 0)")
            # a sum of unit rows is no longer than their count (the sums from a file, or a
            # fit's on the backend: noise.perturb restores a fitted copy)
            backend = self.space_.backend
            host = backend.to_numpy(sums) if backend.is_array(sums) else sums
            if np.any(
                np.sqrt(np.sum(np.square(host, dtype=np.float64), axis=1)) > counts * (1 + 1e-4) + 1e-6
            ):
                raise ValueError(
                    "class_sums_ must be sums of class_counts_ unit encodings (longer than the count)"
                )
            self.class_counts_ = np.asarray(counts, dtype=np.float64)
            self.class_sums_ = self.space_.backend.asarray(sums, dtype=self.space_.dtype)
            self._check_saved_range(self.class_sums_, "the class sums", power=2)

    def _after_epoch(self, epoch: int) -> bool:
        """A hook after each retraining epoch: whether it changed the encoder (NeuralHD
        regenerates dimensions)."""
        return False


@shared_parameters
class AdaptHDClassifier(_Retraining):
    """Perceptron-style retraining (AdaptHD, Imani et al., 2019; torchhd's ``AdaptHD``).

    After the one-pass centroid, each misclassified sample is added to its true class
    and subtracted from the predicted one, times ``lr``, for ``epochs`` passes. A batch's
    samples are scored at once, and the sum of their updates takes the step along it (a
    fraction 1, 1/2, ..., 2**-15 of it, or none) that misclassifies the fewest of the
    batch's samples, so that many mistakes pushing the same way do not overshoot: the
    result hardly depends on ``batch_size``, ``batch_size=1`` is the paper's per-sample
    rule, and a batch of the whole training set never loses training accuracy.
    ``partial_fit`` learns a stream batch by batch as ``fit`` learns the data set: the
    prototypes move to the class means of every sample so far (kept as ``class_sums_`` and
    ``class_counts_``), then ``epochs`` retraining passes go over the batch (on digits,
    five calls score within 0.01 of ``fit``; see the learning guide).

    Parameters
    ----------
    {encoder_parameters}
    epochs : int, default 20
        Retraining passes over the training set after the first pass (0: the first pass
        alone), each in an order shuffled from ``random_state`` and the epoch.
    lr : float, default 0.035
        The weight of each sample's update (a misclassified sample added to its true class
        and subtracted from the predicted one), relative to the class means of the first
        pass (prototypes of length at most 1); a batch's step is at most the sum of its
        samples' updates.
    {retraining_parameters}

    Attributes
    ----------
    {retraining_attributes}

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from holovec.learn import AdaptHDClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> AdaptHDClassifier(dim=2000, epochs=5, random_state=0).fit(X, y).score(X, y) > 0.9
    True
    """

    _retrain_rule = staticmethod(_adapthd)
    _stream_rule = staticmethod(_adapthd_stream)
    _stream_is_bundling = False  # mistake-driven: each batch reads the prototypes


@shared_parameters
class OnlineHDClassifier(_Retraining):
    """Similarity-weighted updates (OnlineHD, Hernández-Cano et al., 2021; torchhd's ``OnlineHD``).

    A sample updates its true class by ``lr * (1 - cos_true)`` and, when misclassified,
    the predicted class by ``-lr * (1 - cos_predicted)``: what is already known adds
    little. The first pass applies this to every sample (OnlineHD's single pass; a
    sample is misclassified where another class scores above its own, so the first batch,
    against prototypes of 0, adds each sample to its class); the ``epochs`` retraining
    passes update misclassified samples only, each batch's sum taking the step that
    misclassifies the fewest of its samples (as :class:`AdaptHDClassifier`'s). ``partial_fit`` runs
    both on each batch of a stream: the single pass goes on over the stream, then
    ``epochs`` retraining passes over the batch.

    Parameters
    ----------
    {encoder_parameters}
    epochs : int, default 20
        Retraining passes over the training set after the first pass (0: the first pass
        alone), each in an order shuffled from ``random_state`` and the epoch.
    lr : float, default 0.1
        The weight of each update, scaled by ``1 - cos`` of the sample with the class it
        updates (so what a prototype already knows adds little).
    {retraining_parameters}

    Attributes
    ----------
    {retraining_attributes}

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from holovec.learn import OnlineHDClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> OnlineHDClassifier(dim=2000, epochs=5, random_state=0).fit(X, y).score(X, y) > 0.9
    True
    """

    _defaults: ClassVar[dict[str, Any]] = {
        "lr": 0.1,
    }

    def _initial(self, X: Any, t: np.ndarray) -> None:
        # the single pass is OnlineHD's own (similarity-weighted), not bundling; it goes on
        # over a stream from the prototypes alone
        self._first_pass(X, t)

    _stream_initial = _initial

    @classmethod
    def stream_shapes(cls, n_classes: int | None, width: int) -> dict[str, tuple[int, ...]]:
        return {}

    _first_pass_rule = _stream_rule = staticmethod(_onlinehd_pass)
    _retrain_rule = staticmethod(_onlinehd_retrain)
    _first_pass_is_bundling = _stream_is_bundling = False  # similarity-weighted
