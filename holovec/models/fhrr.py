"""FHRR: Fourier holographic reduced representations (Plate 2003)."""

from __future__ import annotations

from typing import Any

from ..random import random_phases
from .base import VSAModel
from .registry import register_model


@register_model
class FHRR(VSAModel):
    """Unit phasors ``exp(i*theta)`` with uniform phases.

    Laws: bind is the elementwise product (commutative), ``unbind(bind(a, b), b) == a``
    up to float rounding (exact inverse: the complex conjugate), bundle is the sum
    renormalised to unit magnitude, similarity is ``Re(<a, conj(b)>) / dim``.

    Examples
    --------
    >>> from holovec import VSA
    >>> model = VSA.create("FHRR", dim=1000)
    >>> a, b = model.random(seed=1), model.random(seed=2)
    >>> round(float(model.similarity(model.unbind(model.bind(a, b), b), a)), 4)
    1.0
    """

    name = "FHRR"
    is_self_inverse = False
    is_commutative = True
    is_exact_inverse = True
    default_dtype = "complex64"
    allowed_dtypes = ("complex64", "complex128")
    element_kind = "phasor"
    bundle_is_sum = True
    bind_is_elementwise = True
    has_phasor_form = True

    @property
    def real_dtype(self) -> Any:
        return self.backend.dtype("float64" if self.dtype_name == "complex128" else "float32")

    # -- the phasor form: one phase per element -------------------------------------------
    @property
    def phase_count(self) -> int:
        return self.dim

    def from_phases(self, phases: Any) -> Any:
        return self.backend.unit_phasor(phases)

    def to_phasors(self, x: Any) -> Any:
        return x

    def _random(self, n_rows: int, seed: int, stream: int, purpose: int) -> Any:
        phases = random_phases(
            self.backend, seed, n_rows, self.dim, self.real_dtype, stream=stream, purpose=purpose
        )
        return self.backend.unit_phasor(phases)

    def _bind(self, a: Any, b: Any) -> Any:
        return a * b

    def _unbind(self, c: Any, b: Any) -> Any:
        return c * self.xp.conj(b)

    def _bundle(self, stacked: Any) -> Any:
        return self._unit(self.xp.sum(stacked, axis=0))

    def _unit(self, x: Any) -> Any:
        """Each element divided by its magnitude; zeros (a tie) take the tie-break phasor."""
        xp = self.xp
        magnitude = xp.abs(x)
        nonzero = magnitude > 0
        return xp.where(nonzero, x / xp.where(nonzero, magnitude, 1), self._tiebreak)

    def _inverse(self, x: Any) -> Any:
        return self.xp.conj(x)

    def _identity(self) -> Any:
        return self.xp.ones(self.dim, dtype=self.dtype, device=self.device)

    def _normalize(self, x: Any) -> Any:
        return self._unit(x)

    def _similarity(self, a: Any, b: Any) -> Any:
        return self.xp.real(self.backend.vecdot(b, a)) / self.dim

    def _similarity_matrix(self, queries: Any, items: Any) -> Any:
        # Re(q . conj(b)) = q_re . b_re + q_im . b_im: one real product of twice the width
        q, b = self.backend.real_view(queries), self.backend.real_view(items)
        return self._items_product(q, b) / self.dim
