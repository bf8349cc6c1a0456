"""Images: each pixel's value (a graded level vector) bound to its position code, bundled.

Pixel ``p = (y, x)`` has the position code ``P_p = bind(Y_y, X_x)`` (independent random
row and column codes: every position distinct, neighbours unrelated) and value level
``v_p``; the image is ``bundle_p bind(L[v_p], P_p)``.

Computing it. The level vectors are graded by construction (see
:class:`holovec.encoders.levels.LevelCodes`): element ``j`` of level ``l`` is end
``A``'s where ``l < s_j`` and end ``B``'s otherwise, for a fixed switch level ``s_j``.
For the models whose bundle is a sum and bind elementwise (MAP, MAP-C, MAP-I, FHRR,
BSC, in lifted form) the sum over pixels is therefore::

    S[:, j] = A_j * T[:, j] + B_j * (sum_p P[p, j] - T[:, j]),
    T[:, j] = sum_p [v_p < s_j] P[p, j]

and ``T`` restricted to the elements with ``s_j = l`` is ``mask_l @ P[:, those]`` with
``mask_l = (v < l)`` of shape ``(images, pixels)``: one matrix product per level over a
disjoint slice of the columns. All together ``O(images * pixels * D)`` multiply-adds
in BLAS, the cost of a single ``(images, pixels) @ (pixels, D)`` product whatever the
number of levels, plus ``O(images * pixels * levels)`` comparisons, instead of gathering
``images * pixels`` level vectors. Then the model's own bundle normalisation (MAP: sign
with its tie-break), so the result equals the per-pixel bundle (bit for bit for MAP and
BSC). Other sum models (HRR, VTB, GHRR) gather and bind in blocks of images and add;
BSDC and BSDC-SEG bundle the bound pixels of each block of images in one call.
"""

from __future__ import annotations

import warnings
from typing import Any, ClassVar

import numpy as np

from .. import kernels
from .._deprecation import SINCE
from .._params import FINITE, FLAG, POSITIVE_INT, Rule
from ..models.base import VSAModel
from ..random import Purpose, fold_in
from ._common import Sums, block_rows, level_step, quantize, take_rows
from ._rules import LEVELS, Pair, range_alias
from ._values import check_values, empty_vectors
from .base import Encoder
from .levels import LevelCodes

__all__ = ["ImageEncoder"]


class ImageEncoder(Encoder):
    """Grey-scale images of a fixed ``shape`` as vectors; batches ``(n, H, W)`` at once.

    Parameters
    ----------
    model : VSAModel
        Any holovec model (fast matrix-product path: MAP, MAP-C, MAP-I, FHRR, BSC).
    shape : tuple[int, int], optional
        ``(height, width)`` of the images.
    levels : int, optional
        Number of quantised pixel values (graded: neighbouring levels similar, the
        darkest and brightest unrelated).
    min_val, max_val : float, optional
        The range of the pixel values (default 0 to 255); values are quantised to
        ``round((v - min_val) / (max_val - min_val) * (levels - 1))``. Values outside
        raise ``ValueError`` unless ``clip=True``; NaN and infinity always raise.
        (``value_range=(low, high)`` is a deprecated alias of both.)
    clip : bool, optional
        Whether values outside the range are clipped to it (else ``ValueError``).
    seed : int, optional
        Seed of the level and position vectors; ``None`` draws them from the model's
        generator.

    Examples
    --------
    >>> import numpy as np
    >>> from holovec import VSA
    >>> from holovec.encoders import ImageEncoder
    >>> model = VSA.create("MAP", dim=10000)
    >>> enc = ImageEncoder(model, shape=(28, 28), seed=1)
    >>> images = np.random.default_rng(0).integers(0, 256, (4, 28, 28))
    >>> enc.encode(images).shape
    (4, 10000)
    """

    _parameter_rules: ClassVar[dict[str, Rule]] = {
        "shape": Pair(POSITIVE_INT, "(height, width)"),
        "levels": LEVELS,
        "min_val": FINITE,
        "max_val": FINITE,
        "clip": FLAG,
    }

    @range_alias(lambda value_range: _split_value_range(value_range))
    def __init__(
        self,
        model: VSAModel,
        shape: tuple[int, int] = (28, 28),
        levels: int = 256,
        *,
        min_val: float = 0.0,
        max_val: float = 255.0,
        clip: bool = False,
        seed: int | None = None,
    ) -> None:
        super().__init__(
            model, seed=seed, shape=shape, levels=levels, min_val=min_val, max_val=max_val, clip=clip
        )
        self.shape = (int(shape[0]), int(shape[1]))
        self.levels = int(levels)
        self.min_val, self.max_val = float(min_val), float(max_val)
        if not self.min_val < self.max_val:
            raise ValueError(f"min_val must be below max_val, got min_val={min_val!r}, max_val={max_val!r}")
        level_step(self.min_val, self.max_val, self.levels)  # the levels are floats apart
        self.clip = clip
        height, width = self.shape
        self.row_codes = model.draw(height, self.seed, Purpose.PIXEL_POSITIONS, 1)  # Y_y
        self.column_codes = model.draw(width, self.seed, Purpose.PIXEL_POSITIONS, 0)  # X_x
        self.level_codes = LevelCodes(model, self.levels, fold_in(self.seed, "levels"))
        self._sums = Sums.of(model)
        self._positions: Any = None
        self._plan: Any = None

    @property
    def value_range(self) -> tuple[float, float]:
        """Deprecated: ``(min_val, max_val)``."""
        warnings.warn(
            f"ImageEncoder.value_range is deprecated since {SINCE}; use ImageEncoder.min_val and .max_val",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.min_val, self.max_val

    @property
    def n_pixels(self) -> int:
        return self.shape[0] * self.shape[1]

    @property
    def position_codes(self) -> Any:
        """``(H*W, vector_length)``: row ``y*W + x`` is ``bind(Y_y, X_x)``."""
        if self._positions is None:
            model = self.model
            grid = model.bind(self.row_codes[:, None, :], self.column_codes[None, :, :])
            self._positions = model.xp.reshape(grid, (self.n_pixels, grid.shape[-1]))
        return self._positions

    @property
    def level_vectors(self) -> Any:
        """``(levels, vector_length)``: the graded value codes."""
        return self.level_codes.vectors()

    def quantize(self, images: Any) -> np.ndarray:
        """Checked images as level indices (host ints, same shape).

        Parameters
        ----------
        images : array_like
            One image ``(H, W)`` or a batch ``(n, H, W)``.
        """
        values = check_values(
            self.model.backend,
            images,
            low=self.min_val,
            high=self.max_val,
            clip=self.clip,
            name="images",
        )
        if values.ndim not in (2, 3) or tuple(values.shape[-2:]) != self.shape:
            height, width = self.shape
            raise ValueError(
                f"images must have shape {self.shape} or (n, {height}, {width}), got {tuple(values.shape)}"
            )
        return quantize(self.model, values, self.min_val, self.max_val, self.levels)

    def encode(self, images: Any) -> Any:
        """One image ``(H, W)`` -> one vector; a batch ``(n, H, W)`` -> ``(n, vector_length)``.

        Parameters
        ----------
        images : array_like
            One image ``(H, W)`` or a batch ``(n, H, W)``.
        """
        q = self.quantize(images)
        single = q.ndim == 2
        return self._encode_quantized(q.reshape(-1, self.n_pixels), single)

    def _encode_quantized(self, q: np.ndarray, single: bool) -> Any:
        """Level indices ``(n, pixels)`` -> vectors; the empty batch -> ``(0, vector_length)``."""
        if q.shape[0] == 0:
            return empty_vectors(self.model, (0,))
        if self._sums is not None and self._sums.elementwise:
            out = self._encode_products(q)
        else:
            out = self._encode_gathered(q)
        return out[0] if single else out

    def encode_levels(self, levels: Any) -> Any:
        """Like :meth:`encode` for images already given as level indices ``0..levels-1``.

        Parameters
        ----------
        levels : array_like
            Level indices ``0 .. levels - 1`` of one image ``(H, W)`` or a batch ``(n, H,
            W)``.
        """
        q = np.asarray(levels)
        if q.dtype.kind not in "iu" or q.ndim not in (2, 3) or q.shape[-2:] != self.shape:
            raise ValueError(f"levels must be integer arrays of shape {self.shape} or (n, *shape)")
        if q.size and (q.min() < 0 or q.max() >= self.levels):
            raise ValueError(f"level indices must lie in [0, {self.levels - 1}]")
        single = q.ndim == 2
        return self._encode_quantized(q.reshape(-1, self.n_pixels).astype(np.int64), single)

    # -- the matrix-product path ----------------------------------------------------------
    def _prepare(self) -> dict[str, Any]:
        if self._plan is not None:
            return self._plan
        sums, model, xp = self._sums, self.model, self.model.xp
        codes = self.level_codes
        switch = codes.element_switch  # per element of the lifted width
        order = np.argsort(switch, kind="stable")
        inverse = np.empty_like(order)
        inverse[order] = np.arange(len(order))
        # switch == levels: elements that never switch (negated codes change half of them)
        bounds = np.searchsorted(switch[order], np.arange(1, self.levels + 2))
        lifted = sums.lift(self.position_codes)  # (pixels, width)
        ordered = xp.take(lifted, model.backend.asarray(order.astype(np.int32)), axis=1)
        groups = []
        for level in range(1, self.levels + 1):
            first, last = int(bounds[level - 1]), int(bounds[level])
            if first < last:
                block = ordered[:, first:last]
                groups.append(
                    (level, kernels.real_view(model.backend, block) if sums.complex else block, last - first)
                )
        ends = sums.lift(codes.ends)
        self._plan = {
            "groups": groups,
            "inverse": model.backend.asarray(inverse.astype(np.int32)),
            "total": xp.sum(lifted, axis=0),
            "a": ends[0],
            "b": ends[1],
        }
        return self._plan

    def _encode_products(self, q: np.ndarray) -> Any:
        sums, model, xp = self._sums, self.model, self.model.xp
        plan = self._prepare()
        real = sums.real_dtype
        step = block_rows(sums.width * 4)
        outputs = []
        for first in range(0, q.shape[0], step):
            levels = model.backend.asarray(q[first : first + step].astype(np.int32))
            parts = []
            for level, block, _ in plan["groups"]:
                parts.append(kernels.matmul(model.backend, xp.astype(levels < level, real), block))
            if sums.complex:
                t_sorted = xp.concat([kernels.complex_view(model.backend, p) for p in parts], axis=1)
            else:
                t_sorted = xp.concat(parts, axis=1)
            t = xp.take(t_sorted, plan["inverse"], axis=1)
            outputs.append(sums.finish(plan["a"] * t + plan["b"] * (plan["total"] - t)))
        return outputs[0] if len(outputs) == 1 else xp.concat(outputs, axis=0)

    # -- the gather path --------------------------------------------------------------------
    def _encode_gathered(self, q: np.ndarray) -> Any:
        model, xp, sums = self.model, self.model.xp, self._sums
        table, positions = self.level_vectors, self.position_codes
        step = block_rows(self.n_pixels * model.vector_length * 2)
        outputs = []
        for first in range(0, q.shape[0], step):
            bound = model.bind(take_rows(model, table, q[first : first + step]), positions)  # (n, pixels, L)
            if sums is not None:
                outputs.append(sums.finish(xp.sum(sums.lift(bound), axis=1)))
            else:
                outputs.append(model.bundle(xp.permute_dims(bound, (1, 0, 2))))
        return outputs[0] if len(outputs) == 1 else xp.concat(outputs, axis=0)

    def encode_reference(self, image: Any) -> Any:
        """The plain definition, for checks: ``model.bundle(bind(L[v_p], P_p) for all p)``
        of one image (one bundle call over its pixels).

        Parameters
        ----------
        image : array_like
            One image ``(H, W)``.
        """
        q = self.quantize(image)
        if q.ndim != 2:
            raise ValueError("encode_reference takes one image")
        model = self.model
        bound = model.bind(take_rows(model, self.level_vectors, q.reshape(-1)), self.position_codes)
        return model.bundle(bound)


def _split_value_range(value_range: Any) -> tuple[float, float]:
    """The deprecated ``value_range=(low, high)`` as ``min_val, max_val`` (numbers)."""
    try:
        low, high = value_range
    except (TypeError, ValueError):
        raise TypeError(f"value_range must be a pair (low, high), got {value_range!r}") from None
    return FINITE.check("value_range[0]", low), FINITE.check("value_range[1]", high)
