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

from .._params import NON_NEGATIVE, NON_NEGATIVE_INT, POSITIVE, Interval
from ..random import fold_in
from ._docs import shared_parameters
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
    space: Space, state: tuple[Any, Any, Any], H: Any, t: Any, weights: Any, hyper: tuple[float, ...]
) -> tuple[Any, Any, Any]:
    """One Adam step of the latent weights ``W`` (moments ``M``, ``V``) on a batch: the
    cross-entropy of ``scale`` times the cosines with the signs of ``W``, its gradient
    through the straight-through estimator, plus weight decay. ``hyper``: the learning
    rate, Adam's two bias corrections, the weight decay, the scale and the batch's count
    of samples."""
    xp, backend = space.xp, space.backend
    W, M, V = state
    lr, correct1, correct2, decay, scale, n = hyper
    width = W.shape[1]
    cos_scale = scale / float(np.sqrt(width))  # (H is unit rows, the signs have length sqrt(width))
    logits = cos_scale * backend.matmul(H, xp.permute_dims(_signs(space, W), (1, 0)))
    logits = logits - xp.max(logits, axis=1, keepdims=True)
    p = xp.exp(logits)
    p = p / xp.sum(p, axis=1, keepdims=True)
    # d(mean cross-entropy)/d(logits), rows of padding zero
    G = space.masked(p - space.one_hot(t, W.shape[0]), weights) * (1.0 / n)
    grad = cos_scale * backend.matmul(xp.permute_dims(G, (1, 0)), H)
    grad = xp.where(xp.abs(W) <= 1.0, grad, xp.zeros_like(grad)) + decay * W  # the STE, weight decay
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

    Parameters
    ----------
    {encoder_parameters}
    epochs : int, default 30
        Passes of Adam over the training set, each in an order shuffled from ``seed`` and
        the epoch (0: the signs of the class means).
    lr : float, default 0.003
        Adam's learning rate (the latent weights that matter lie in [-1, 1]).
    scale : float, default 30.0
        The logits are ``scale`` times the cosines (the softmax's inverse temperature).
    weight_decay : float, default 0.0003
        L2 penalty on the latent weights, added to their gradient.
    dropout : float, default 0.2
        Fraction, in [0, 1), of each training encoding's elements zeroed (and the rest
        scaled by ``1 / (1 - dropout)``) at each step, drawn from ``seed``.
    binarize : bool, default False
        Predict by the model's own similarity with the prototypes as model vectors (MAP and
        BSC: a Hamming search for BSC); the prototypes are signs already, so the predictions
        are those of the cosines.
    batch_size : int, default 64
        Samples per step of Adam (the paper's minibatches are small).
    cache_size : float, default 512
        MiB for keeping the training set's encodings between epochs (0: encoded every epoch).
    backend, device, seed :
        Passed to the default encoder (``seed=None``: fresh randomness, in
        ``encoder_.seed_``); the seed also orders the passes and draws the dropout.
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

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from holovec.learn import LeHDCClassifier
    >>> X, y = load_digits(return_X_y=True)
    >>> LeHDCClassifier(dim=1000, epochs=5, seed=0).fit(X, y).score(X, y) > 0.9
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

    _streams = False  # trained over a data set, epoch by epoch

    def __init__(
        self,
        model: str | None = None,
        dim: int | None = None,
        *,
        encoder: Any = None,
        epochs: int = 30,
        lr: float = 0.003,
        scale: float = 30.0,
        weight_decay: float = 0.0003,
        dropout: float = 0.2,
        binarize: bool = False,
        batch_size: int = 64,
        cache_size: float = 512,
        backend: Any = None,
        device: Any = None,
        seed: int | None = None,
        verbose: bool = False,
        random_state: int | None = None,
    ) -> None:
        self.model = model
        self.dim = dim
        self.encoder = encoder
        self.epochs = epochs
        self.lr = lr
        self.scale = scale
        self.weight_decay = weight_decay
        self.dropout = dropout
        self.binarize = binarize
        self.batch_size = batch_size
        self.cache_size = cache_size
        self.backend = backend
        self.device = device
        self.seed = seed
        self.verbose = verbose
        self.random_state = random_state

    def _train(self, X: Any, t: np.ndarray) -> None:
        space = self.space_
        xp = space.xp
        self._first_pass(X, t)
        # the latent weights: the class means as unit rows scaled to elements of about 1
        W = space.unit_rows(self.prototypes_) * float(np.sqrt(space.width))
        M, V = xp.zeros_like(W), xp.zeros_like(W)
        step, b1, b2 = 0, *_BETAS
        with self._keeping_encodings(X):
            for epoch in self._progress(self.epochs, type(self).__name__):
                for batch in self._encoded(X, epoch=epoch, training=True):
                    step += 1
                    hyper = (
                        float(self.lr), 1.0 / (1.0 - b1**step), 1.0 / (1.0 - b2**step),
                        float(self.weight_decay), float(self.scale), float(batch.n),
                    )  # fmt: skip
                    H = self._dropped(batch.H, epoch, step)
                    W, M, V = space.run(
                        _lehdc_step, (W, M, V), H, space.indices(batch.take(t)), batch.weights, hyper
                    )
        self._check_in_range(xp.sum(W * W), "the latent weights", f"lower lr (now {self.lr!r})")
        self.prototypes_ = _signs(space, W)

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

    def restore_derived(self) -> None:
        host = np.asarray(self.space_.backend.to_numpy(self.prototypes_))
        if not np.all(np.abs(host) == 1):
            raise ValueError(
                "LeHDCClassifier: the saved prototypes_ must be binary (every element +1 or -1), "
                "as a fit leaves them"
            )
        super().restore_derived()
