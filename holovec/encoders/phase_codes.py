"""Vectors from exponents: the engine of the phase-based encoders (FPE, residues).

A model with a phasor form (``model.has_phasor_form``: FHRR, HRR) writes a vector as
``model.from_phases(phases)``, and binding adds phases. A fractional power encoding of
exponents ``u`` (one per axis) has the phases ``u @ theta`` for random frequencies
``theta``: :class:`PhaseCodec` computes such vectors for many rows at once, in blocks of
rows whose phases stay in cache where the backend runs one kernel per core (NumPy).
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from .. import kernels
from ..backends import dtype_name
from ..models.base import VSAModel

#: phase elements per block of rows (1 MiB of float32: stays in cache)
BLOCK_ELEMENTS = 2**18


def check_phasor_model(model: VSAModel, encoder: str) -> None:
    """``TypeError`` unless ``model`` has a phasor form; ``ValueError`` if all its phases are fixed."""
    if not model.has_phasor_form:
        return  # Encoder.__init__ has refused it already
    if not (~model.fixed_phases()).any():
        raise ValueError(
            f"{encoder} needs at least one phase that is not fixed; a {model.name} model of dim "
            f"{model.dim} has none (use dim >= 3)"
        )


def phase_products(backend: Any, u: Any, theta: Any) -> Any:
    """Phases ``u @ theta`` of exponents ``u`` (n, k) and frequencies ``theta`` (k, n_freq)."""
    if u.shape[-1] == 1:  # one axis: an outer product, exact in every backend
        return u[:, :1] * theta[0]
    return kernels.matmul(backend, u, theta)


def _phase_vectors(model: VSAModel, u: Any, theta: Any) -> Any:
    return model.from_phases(phase_products(model.backend, u, theta))


class PhaseCodec:
    """Vectors of ``model`` (with a phasor form) as powers of a base: ``from_phases(u @ theta)``."""

    def __init__(self, model: VSAModel) -> None:
        self.model = model
        self.backend = model.backend
        self.xp = model.xp
        self.n_freq = model.phase_count
        self.real = model.phase_dtype
        self.np_real = np.dtype(dtype_name(self.real))
        self.fixed = model.fixed_phases()  # host mask of the phases that stay 0
        self.weights = model.phase_weights()  # how often each phase counts in a similarity
        self.n_fixed = int(self.fixed.sum())

    def __reduce__(self) -> tuple:
        # made again from its model: it holds the array namespace (a module), which pickle
        # cannot store, and nothing that the model does not determine
        return (PhaseCodec, (self.model,))

    def vectors(self, phases: Any) -> Any:
        """Vectors ``(..., vector_length)`` from phases ``(..., n_freq)`` of the model's float type."""
        return self.model.from_phases(phases)

    def spectrum(self, vectors: Any) -> Any:
        """The phasors ``exp(1j * phases)`` of vectors (for HRR: the non-negative half of the FFT)."""
        return self.model.to_phasors(vectors)

    def phases(self, u: Any, theta: Any) -> Any:
        """Phases ``u @ theta`` of exponents ``u`` (n, k) and frequencies ``theta`` (k, n_freq)."""
        return phase_products(self.backend, u, theta)

    def from_exponents(self, u: Any, theta: Any) -> Any:
        """``base ** u`` for rows of exponents ``u`` (n, k) in the model's float type: shape (n, dim)."""
        model = self.model
        fn = self.backend.program(
            partial(_phase_vectors, model), (model.config_key, "phase_vectors"), keep=model.kernel_cache
        )
        rows = max(1, BLOCK_ELEMENTS // self.n_freq)
        return kernels.map_row_blocks(
            self.backend, lambda block: fn(block, theta), u, rows, model.vector_length, model.dtype
        )
