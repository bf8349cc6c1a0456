"""LeHDC: binary class prototypes trained like a binary neural network (Duan et al., 2022).

The classifier is one linear layer whose weights are the signs of real latent weights:
a sample's logits are ``scale`` times the cosines of its encoding with the binary
prototypes, trained by softmax cross-entropy, the gradient reaching the latent weights
through a straight-through estimator (the sign's gradient taken as 1 where the latent
weight lies in [-1, 1], 0 beyond: hardtanh's), with weight decay, dropout of the encodings
and Adam, in seeded minibatches. The gradient is written by hand over the model's array
namespace: for one layer it is a few lines (``(softmax - one_hot)^T H``), exact, and the
same code runs on NumPy, PyTorch and JAX (compiled into one program per step there), with
no autodiff framework needed.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from .. import kernels
from .._params import NON_NEGATIVE, NON_NEGATIVE_INT, POSITIVE, Interval
from ..random import fold_in
from ._base import Batch
from ._docs import shared_parameters
from ._engine import Rule
from ._space import Space
from .centroid import PrototypeClassifier

__all__ = ["LeHDCClassifier"]

_BETAS = (0.9, 0.999)  #: Adam's decay rates of the moments (its paper's, and torch's defaults)
_EPS = 1e-8


def _signs(space: Space, W: Any) -> Any:
    """The binary prototypes: the signs of the latent weights (+1 at 0)."""
    xp = space.xp
    return xp.where(W >= 0, xp.ones_like(W), -xp.ones_like(W))


def _lehdc_step(
    space: Space,
    state: tuple[Any, Any, Any],
    H: Any,
    t: Any,
    weights: Any,
    anchor: Any,
    hyper: tuple[float, ...],
) -> tuple[Any, Any, Any]:
    """One Adam step of the latent weights ``W`` (moments ``M``, ``V``) on a batch: the
    cross-entropy of ``scale`` times the cosines with the signs of ``W``, its gradient
    through the straight-through estimator, plus weight decay towards ``anchor`` (zeros,
    or where a stream's earlier calls left the weights). ``hyper``: the learning rate,
    Adam's two bias corrections, the weight decay, the scale and the batch's count of
    samples."""
    xp, backend = space.xp, space.backend
    W, M, V = state
    lr, correct1, correct2, decay, scale, n = hyper
    width = W.shape[1]
    cos_scale = scale / float(np.sqrt(width))  # (H is unit rows, the signs have length sqrt(width))
    logits = cos_scale * kernels.matmul(backend, H, xp.permute_dims(_signs(space, W), (1, 0)))
    logits = logits - xp.max(logits, axis=1, keepdims=True)
    p = xp.exp(logits)
    p = p / xp.sum(p, axis=1, keepdims=True)
    # d(mean cross-entropy)/d(logits), rows of padding zero
    G = space.masked(p - space.one_hot(t, W.shape[0]), weights) * (1.0 / n)
    grad = cos_scale * kernels.matmul(backend, xp.permute_dims(G, (1, 0)), H)
    grad = xp.where(xp.abs(W) <= 1.0, grad, xp.zeros_like(grad)) + decay * (W - anchor)  # the STE, decay
    b1, b2 = _BETAS
    M = b1 * M + (1.0 - b1) * grad
    V = b2 * V + (1.0 - b2) * grad * grad
    W = W - lr * (M * correct1) / (xp.sqrt(V * correct2) + _EPS)
    return W, M, V


@shared_parameters
class LeHDCClassifier(PrototypeClassifier):
    """Binary class prototypes trained as a binary neural network (LeHDC, Duan et al., 2022,
    "LeHDC: learning-based hyperdimensional computing classifier", DAC; torchhd's ``LeHDC``).

    Each class has real latent weights (initialised from the class means of a first pass);
    the forward pass scores a sample by the cosines of its encoding with their signs, times
    ``scale``; training minimises the softmax cross-entropy by Adam for ``epochs`` passes in
    seeded shuffled minibatches, the gradient reaching the latent weights through a
    straight-through estimator (as if the sign were the identity on [-1, 1]), with weight
    decay and dropout of the encodings as in the paper. The fitted ``prototypes_`` are the
    signs alone (+-1 per element of the learning space): what a device stores and compares.

    The gradient is written by hand over the model's array namespace (exact for this one
    layer), so training runs the same on NumPy, PyTorch and JAX, with no autodiff.

    ``partial_fit`` trains on a stream as stochastic training does: each call runs
    ``epochs`` passes of Adam over its batch, going on from the latent weights, Adam's
    moments and step count of the calls before (kept, and saved with the estimator); a
    class seen for the first time starts from its mean in that batch, as in ``fit``. The
    weight decay of a call after the first pulls the latent weights towards where the
    calls before left them, not towards 0: many steps of decay towards 0 over one batch
    erased what only the earlier batches showed (see tests/test_learn_partial_fit.py).

    Parameters
    ----------
    {encoder_parameters}
    epochs : int, default 30
        Passes of Adam over the training set (``partial_fit``: over each batch), each in an
        order shuffled from ``random_state`` and the epoch (0: the signs of the class means).
    lr : float, default 0.003
        Adam's learning rate (the latent weights that matter lie in [-1, 1]).
    scale : float, default 30.0
        The logits are ``scale`` times the cosines (the softmax's inverse temperature).
    weight_decay : float, default 0.0003
        L2 penalty on the latent weights, added to their gradient.
    dropout : float, default 0.2
        Fraction, in [0, 1), of each training encoding's elements zeroed (and the rest
        scaled by ``1 / (1 - dropout)``) at each step, drawn from ``random_state``.
    binarize : bool, default False
        Predict by the model's own similarity with the prototypes as model vectors (MAP and
        BSC: a Hamming search for BSC); the prototypes are signs already, so the predictions
        are those of the cosines.
    batch_size : int, default 64
        Samples per step of Adam (the paper's minibatches are small).
    cache_size : float, default 512
        MiB for keeping the training set's encodings between epochs (0: encoded every epoch).
    verbose : bool, default False
        Show a progress bar over the epochs of training.
    {random_state}

    Attributes
    ----------
    classes_, encoder_, model_, n_features_in_ :
        As for :class:`CentroidClassifier`.
    prototypes_ : array of the model's backend, shape ``(n_classes, width)``
        The binary class prototypes, +-1 floats of the learning space.
    class_vectors_ : array of the model's backend or None
        The prototypes as model vectors, with ``binarize=True``.
    latent_weights_, adam_moments_, adam_variances_ : arrays of the model's backend
        The real weights whose signs are the prototypes, and Adam's two moment estimates,
        shape ``(n_classes, width)``: the state ``partial_fit`` goes on from.
    adam_steps_ : float
        The steps of Adam so far (its bias corrections depend on them).
    class_counts_ : ndarray of shape (n_classes,)
        The samples of each class seen so far.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from holovec.learn import LeHDCClassifier
    >>> X, y = load_digits(return_X_y=True)
    >>> LeHDCClassifier(dim=1000, epochs=5, random_state=0).fit(X, y).score(X, y) > 0.9
    True
    """

    _parameter_rules: ClassVar[dict[str, Any]] = {
        "epochs": NON_NEGATIVE_INT,
        "lr": POSITIVE,
        "scale": POSITIVE,
        "weight_decay": NON_NEGATIVE,
        "dropout": Interval(0, 1, closed="left"),
        "cache_size": NON_NEGATIVE,
    }

    _defaults: ClassVar[dict[str, Any]] = {
        "epochs": 30,
        "lr": 0.003,
        "scale": 30.0,
        "weight_decay": 0.0003,
        "dropout": 0.2,
        "batch_size": 64,
        "cache_size": 512,
    }

    def _train(self, X: Any, t: np.ndarray) -> None:
        self._train_state_from_scratch()
        self._stream(X, t)

    def _stream(self, X: Any, t: np.ndarray) -> None:
        """``fit`` from scratch, or ``partial_fit`` on one more batch: the latent weights of
        the classes seen for the first time set from their means in ``X``, then ``epochs``
        passes of Adam over ``X``, going on from the latent weights, the moments and the
        step count of the calls before (all kept: a stream saved and loaded goes on as if
        uninterrupted)."""
        space = self.space_
        first = getattr(self, "latent_weights_", None) is None or not self.adam_steps_
        if getattr(self, "latent_weights_", None) is None:  # the first call of a stream
            self._train_state_from_scratch()
        b1, b2 = _BETAS
        # (before the encodings are kept: the class means are bundled as fit bundles them)
        W, M, V = self.latent_weights_, self.adam_moments_, self.adam_variances_
        start = (*self._start_new_classes(X, t, (W, M, V)), int(self.adam_steps_))
        # the decay pulls towards 0 in a stream's first call (and in fit), and later towards
        # where the calls before left the weights: decay towards 0 over a later batch's many
        # steps erased what only the earlier batches showed
        anchor = space.zeros(len(self.classes_)) if first else start[0]

        def learn(state: tuple[Any, Any, Any, int], batch: Batch, epoch: int | None) -> tuple[Any, ...]:
            W, M, V, step = state
            step += 1
            hyper = (
                float(self.lr), 1.0 / (1.0 - b1**step), 1.0 / (1.0 - b2**step),
                float(self.weight_decay), float(self.scale), float(batch.n),
            )  # fmt: skip
            H = self._dropped(batch.H, epoch, step)
            W, M, V = space.run(
                _lehdc_step, (W, M, V), H, space.indices(batch.take(t)), batch.weights, anchor, hyper
            )
            return W, M, V, step

        def finish(state: tuple[Any, Any, Any, int]) -> None:
            W, M, V, step = state
            self._check_in_range(space.xp.sum(W * W), "the latent weights", f"lower lr (now {self.lr!r})")
            self.latent_weights_, self.adam_moments_, self.adam_variances_ = (
                space.computed(a) for a in (W, M, V)
            )
            self.adam_steps_ = float(step)
            self.prototypes_ = _signs(space, self.latent_weights_)

        self._train_epochs(X, Rule(lambda: start, learn, finish))

    def _train_state_from_scratch(self) -> None:
        """Latent weights and moments of zeros, no step and no samples yet."""
        C = len(self.classes_)
        self.latent_weights_, self.adam_moments_, self.adam_variances_ = (
            self.space_.zeros(C) for _ in range(3)
        )
        self.adam_steps_, self.class_counts_ = 0.0, np.zeros(C)

    def _start_new_classes(self, X: Any, t: np.ndarray, state: tuple[Any, Any, Any]) -> tuple[Any, Any, Any]:
        """The latent weights of each class that ``X`` holds for the first time set to its
        class mean there, as a unit row scaled to elements of about 1 (its moments 0); the
        class counts updated."""
        space = self.space_
        counts = np.bincount(t, minlength=len(self.classes_)).astype(np.float64)
        new = (self.class_counts_ == 0) & (counts > 0)
        self.class_counts_ = self.class_counts_ + counts
        if not new.any():
            return state
        means = space.unit_rows(self._bundled(X, t, space.zeros(len(counts)))) * float(np.sqrt(space.width))
        keep = space.backend.asarray((~new).astype(np.float64), dtype=space.dtype)[:, None]
        W, M, V = state
        return W * keep + means * (1.0 - keep), M * keep, V * keep

    def _dropped(self, H: Any, epoch: int, step: int) -> Any:
        """``H`` with the ``dropout`` fraction of its elements zeroed and the rest scaled up
        (a mask drawn on the host from the seed and the step: the same on every backend)."""
        if not self.dropout:
            return H
        seed = fold_in(self.encoder_.seed_, "lehdc-dropout", epoch, step) % 2**64
        keep = np.random.default_rng(seed).random(H.shape, dtype=np.float32) >= self.dropout
        mask = self.space_.backend.asarray(
            keep.astype(np.float32) / (1.0 - self.dropout), dtype=self.space_.dtype
        )
        return H * mask

    @classmethod
    def stream_shapes(cls, n_classes: int | None, width: int) -> dict[str, tuple[int, ...]]:
        rows = (n_classes, width)
        return {
            "latent_weights_": rows, "adam_moments_": rows, "adam_variances_": rows,
            "adam_steps_": (), "class_counts_": (n_classes,),
        }  # fmt: skip

    def restore_derived(self) -> None:
        self._check_binary()
        names = list(self.stream_shapes(2, 1))
        saved = [name for name in names if getattr(self, name, None) is not None]
        if saved and saved != names:
            raise ValueError(
                f"the training state {names} is saved all together, or none; the file has {saved}"
            )
        if saved:
            self._restore_training_state()
        super().restore_derived()

    def restore_readout(self) -> None:
        """After :func:`holovec.noise.perturb` replaced ``prototypes_`` (the read-out, which
        ``predict`` reads): they checked as binary, every element +1 or -1 (``ValueError``
        otherwise), and kept as they are, not taken again as the signs of
        ``latent_weights_``, so that the estimator predicts from exactly them. The training
        state (``latent_weights_``, the Adam moments, step count and class counts) is kept as
        it was: a later ``partial_fit`` continues from the latent weights and takes their
        signs anew, in place of the perturbed prototypes, as a device would be written again.
        (Such an estimator, saved, is not one that :func:`~holovec.learn.load` takes: its
        ``prototypes_`` are not the signs of ``latent_weights_``.)"""
        self._check_binary()
        super().restore_derived()

    def _check_binary(self) -> None:
        """``ValueError`` unless ``prototypes_`` are binary (every element +1 or -1)."""
        host = np.asarray(self.space_.backend.to_numpy(self.prototypes_))
        if not np.all(np.abs(host) == 1):
            raise ValueError(
                "LeHDCClassifier: the saved prototypes_ must be binary (every element +1 or -1), "
                "as a fit leaves them"
            )

    def _restore_training_state(self) -> None:
        """The saved latent weights, moments, step count and class counts checked as training
        leaves them (the prototypes their signs, the variances >= 0, counts whole) and placed
        on the backend, so that ``partial_fit`` goes on from them."""
        space = self.space_
        W, M, V = (
            np.asarray(getattr(self, n), np.float64)
            for n in ("latent_weights_", "adam_moments_", "adam_variances_")
        )
        counts, steps = np.asarray(self.class_counts_, np.float64), self.adam_steps_
        host = np.asarray(space.backend.to_numpy(self.prototypes_))
        if not np.array_equal(np.where(W >= 0, 1.0, -1.0), host):
            raise ValueError("LeHDCClassifier: the saved prototypes_ must be the signs of latent_weights_")
        if np.any(V < 0) or np.any(counts < 0) or np.any(counts != np.round(counts)):
            raise ValueError("adam_variances_ must be >= 0 and class_counts_ whole numbers >= 0")
        if steps < 0 or steps != round(steps):
            raise ValueError(f"adam_steps_ must be a whole number >= 0, got {steps!r}")
        for name, value in (("latent_weights_", W), ("adam_moments_", M), ("adam_variances_", V)):
            setattr(self, name, space.backend.asarray(value, dtype=space.dtype))
            self._check_saved_range(getattr(self, name), f"the saved {name}", power=2)
        self.class_counts_, self.adam_steps_ = counts, float(steps)
