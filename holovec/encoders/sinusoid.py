"""Feature vectors by a nonlinear random projection (OnlineHD's encoder, torchhd's ``Sinusoid``).

``z = bandwidth * (x @ R)`` with the seeded standard normal ``(f, D)`` matrix ``R`` of
:class:`~holovec.encoders.VectorEncoder`, then ``cos(z + b) * sin(z)`` with seeded phase
offsets ``b`` uniform on ``[0, 2 pi)``, rounded to the model's elements the way
:class:`~holovec.encoders.VectorEncoder` rounds a projection (the sign for MAP and BSC,
unit RMS and the clip for MAP-C, unit length for HRR and VTB). Phasor models (FHRR) take
the phases ``z`` themselves: random Fourier features, whose similarity is the Gaussian
kernel of the inputs' distance.

Unlike the linear projection, the encoding is not scale-free: ``bandwidth`` sets how far
apart two inputs must be to look unrelated (about ``1 / bandwidth`` in input units). As
``cos(z + b) sin(z) = (sin(2z + b) - sin(b)) / 2``, every encoding shares the component
``-sin(b) / 2``: distant inputs keep a similarity of about 0.2-0.3 (MAP at
``bandwidth`` 0.5-2, measured) instead of 0; learners, which compare prototypes, are not
hurt by it.
Element ``j`` of an encoding depends only on column ``j`` of ``R`` and on ``b[j]``, so
:meth:`SinusoidEncoder.regenerate` can redraw chosen dimensions (NeuralHD).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._params import NON_NEGATIVE_INT, POSITIVE_INT
from ..random import Purpose, fold_in, random_uniform
from .vector import VectorEncoder

__all__ = ["SinusoidEncoder"]


class SinusoidEncoder(VectorEncoder):
    """Real feature vectors as hypervectors by ``cos(z + b) * sin(z)``, ``z = bandwidth * x @ R``.

    Parameters
    ----------
    model : VSAModel
        The model whose vectors the encoder makes (any model; phasor models take the phases
        directly).
    n_features : int
        Number of coordinates of an input point.
    bandwidth : float, optional
        Scale of the projection, ``z = bandwidth * x @ R``: larger is sharper.
    seed : int, optional
        Seed of the projection and offsets; ``None`` draws them from the model's generator.

    Examples
    --------
    >>> import numpy as np
    >>> from holovec import VSA
    >>> from holovec.encoders import SinusoidEncoder
    >>> model = VSA.create("MAP", dim=10000)
    >>> enc = SinusoidEncoder(model, n_features=2, bandwidth=0.5, seed=1)
    >>> h = enc.encode(np.array([[0.0, 1.0], [0.1, 1.0], [3.0, -2.0]]))
    >>> near, far = float(model.similarity(h[0], h[1])), float(model.similarity(h[0], h[2]))
    >>> near > 0.8, far < 0.5
    (True, True)
    """

    def __init__(
        self, model: Any, n_features: int, *, bandwidth: float = 1.0, seed: int | None = None
    ) -> None:
        super().__init__(model, n_features, bandwidth=bandwidth, seed=seed)
        self._offsets: Any = None
        #: how many times :meth:`regenerate` has redrawn dimensions (it seeds the next draw)
        self.regenerations = 0

    @property
    def offsets(self) -> Any:
        """The phase offsets ``b``, shape ``(dim,)``, uniform on ``[0, 2 pi)`` (drawn on first use)."""
        if self._offsets is None:
            self._offsets = self._draw_offsets(self.seed)
        return self._offsets

    def _draw_offsets(self, seed: int) -> Any:
        model = self.model
        row = random_uniform(
            model.backend, seed, 1, model.dim, self.real_dtype, 0.0, 2 * math.pi,
            purpose=Purpose.PROJECTION_OFFSETS,
        )  # fmt: skip
        return row[0]

    def project(self, x: Any) -> Any:
        """The real features before rounding: ``x @ R`` for phasor models (the encoder then
        takes ``bandwidth`` times it as phases), ``cos(z + b) * sin(z)`` for the others.

        Parameters
        ----------
        x : array_like
            One feature vector ``(n_features,)`` or a batch ``(n, n_features)``.
        """
        z = super().project(x)
        if self.model.element_kind == "phasor":
            return z
        xp = self.model.xp
        with np.errstate(over="ignore", invalid="ignore"):  # overflow is refused by encode, by row
            z = self.bandwidth * z
            features = xp.cos(z + self.offsets) * xp.sin(z)
        # cos and sin of an infinite projection are NaN: keep it infinite so encode names the rows
        return xp.where(xp.isfinite(z), features, z)

    def regenerate(self, dims: Any) -> None:
        """Redraw the projection columns and offsets of the dimensions ``dims`` (indices
        into ``range(dim)``; NeuralHD replaces the least useful dimensions this way).

        The new values are seeded by the encoder's seed and the number of earlier
        regenerations, so a run that regenerates the same dimensions in the same order
        gives the same encoder on every backend.

        Parameters
        ----------
        dims : array
            Indices into ``range(dim)`` of the dimensions to redraw.
        """
        model, xp = self.model, self.model.xp
        idx = np.unique(model.backend.to_numpy(model.backend.asarray(dims)).reshape(-1))
        if idx.size and (idx.dtype.kind not in "iu" or idx.min() < 0 or idx.max() >= model.dim):
            raise ValueError(f"dims must be integer indices in [0, {model.dim}), got {idx[:5].tolist()}")
        self.regenerations = POSITIVE_INT.check("regenerations", self.regenerations + 1)
        if idx.size == 0:
            return
        mask_host = np.zeros(model.dim, dtype=bool)
        mask_host[idx] = True
        mask = model.backend.asarray(mask_host)
        seed = fold_in(self.seed, "regenerate", self.regenerations)
        self._check_matrix_memory()
        fresh = self._draw_matrix(seed)  # in blocks, as the first draw (bounded peak)
        self._matrix = xp.where(mask[None, :], fresh, self.matrix)
        self._offsets = xp.where(mask, self._draw_offsets(seed), self.offsets)

    def set_state(self, matrix: Any, offsets: Any, regenerations: int) -> None:
        """Restore a projection and offsets saved from this encoder (after regenerations).

        Parameters
        ----------
        matrix : array
            The projection matrix, ``(n_features, dim)``.
        offsets : array
            The offsets ``b``, ``(dim,)``.
        regenerations : int
            How many regenerations the saved encoder had made.
        """
        model = self.model
        shape = (self.n_features, model.dim)
        if tuple(matrix.shape) != shape or tuple(offsets.shape) != (model.dim,):
            raise ValueError(
                f"a SinusoidEncoder state needs a matrix of shape {shape} and offsets of shape "
                f"({model.dim},), got {tuple(matrix.shape)} and {tuple(offsets.shape)}"
            )
        self._matrix = model.xp.astype(model.backend.asarray(matrix), self.real_dtype)
        self._offsets = model.xp.astype(model.backend.asarray(offsets), self.real_dtype)
        self.regenerations = NON_NEGATIVE_INT.check("regenerations", regenerations)
