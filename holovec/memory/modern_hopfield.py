"""The modern (softmax) Hopfield network of Ramsauer et al. 2021: attention over stored
patterns, a soft cleanup memory for every model whose bundle is a sum."""

from __future__ import annotations

import math
from functools import partial
from os import PathLike
from typing import Any

from .. import kernels
from .._params import POSITIVE_INT, Interval
from ..kernels.growth import RowBuffer
from ..models.base import VSAModel
from ._common import as_rows, check_model, count_field, itemsize, joined, row_blocks, sums_bundles

__all__ = ["ModernHopfield"]

_KIND = "memory.modern_hopfield"


class ModernHopfield:
    """A modern Hopfield network (Ramsauer et al. 2021, "Hopfield networks is all you
    need"): one update ``xi <- X^T softmax(beta X xi)`` retrieves a stored pattern from a
    noisy cue, with a capacity exponential in the dimension.

    The attention is on holovec's similarity scale: ``weights(cues) = softmax(beta *
    model.similarity_matrix(cues, patterns))``, each row summing to 1, and :meth:`recall`
    returns the weighted bundle of the patterns, ``model.finish_sum(weights @
    lift(patterns))``: a vector of the model (signs for MAP, bits for BSC, phasors for
    FHRR), the soft cleanup of each cue.

    ``beta`` (the inverse temperature) trades a clean answer for a blend. The paper's
    ``beta = 1/sqrt(d)`` on dot products of +-1 vectors is ``beta = sqrt(dim)`` on the
    similarity scale (a similarity is a dot product over ``dim``), the default: at dim
    256 it retrieves each of 4000 patterns (15.6 per element) in one step from a cue with
    10% of its elements flipped. A large ``beta`` retrieves the one nearest pattern; a
    small one returns a metastable average of several similar patterns (the weights
    spread over them), and a very small one the mean of all.

    Parameters
    ----------
    model : VSAModel
        A model whose bundle is a sum (``bundle_is_sum``: MAP, MAP-C, MAP-I, BSC, FHRR,
        HRR, VTB, GHRR); another model raises ``TypeError``.
    beta : float, optional
        The inverse temperature on the similarity scale, positive; default ``sqrt(dim)``.

    Examples
    --------
    >>> from holovec import VSA
    >>> from holovec.memory import ModernHopfield
    >>> model = VSA.create("MAP", dim=256)
    >>> patterns = model.random(1000, seed=1)
    >>> memory = ModernHopfield(model)
    >>> memory.store(patterns)
    >>> noisy = model.bind(patterns[7], model.asarray([-1.0] * 25 + [1.0] * 231))  # 10% flipped
    >>> bool((memory.recall(noisy) == patterns[7]).all())
    True
    >>> float(memory.weights(noisy)[7]) > 0.99
    True
    """

    def __init__(self, model: VSAModel, beta: float | None = None) -> None:
        check_model(model, "ModernHopfield", sums_bundles, "a bundle that is a sum (bundle_is_sum)")
        self.model = model
        self.beta = (
            math.sqrt(model.dim)
            if beta is None
            else Interval(0, closed="neither", words="a positive inverse temperature").check("beta", beta)
        )
        # the patterns, grown by doubling: a store costs its patterns, not those held
        self._pattern_rows = RowBuffer(model.backend)
        self._lifted: Any = None  # lift(patterns), made when recall first needs it

    @property
    def n_patterns(self) -> int:
        """The number of patterns stored."""
        return len(self._pattern_rows)

    def __len__(self) -> int:
        return self.n_patterns

    @property
    def _patterns(self) -> Any:
        """The stored patterns ``(n, vector_length)``, or ``None`` for none."""
        return self._pattern_rows.rows if len(self._pattern_rows) else None

    @property
    def patterns(self) -> Any:
        """The stored patterns ``(n_patterns, vector_length)``, in the order stored."""
        self._check_stored()
        return self._patterns

    def __repr__(self) -> str:
        return f"ModernHopfield({self.model!r}, beta={self.beta:g}) holding {self.n_patterns} patterns"

    def clear(self) -> None:
        """Forget every stored pattern."""
        self._pattern_rows.clear()
        self._lifted = None

    def store(self, patterns: Any) -> None:
        """Add ``patterns`` (one vector or a batch ``(n, vector_length)`` of the model);
        calling it again adds more.

        Parameters
        ----------
        patterns : array
            One vector of the model, or a batch ``(..., vector_length)``.
        """
        rows, _ = as_rows(self.model, patterns, "patterns")
        if rows.shape[0] == 0:
            raise ValueError("patterns is empty: give at least one pattern")
        self._pattern_rows.append(rows)
        self._lifted = None

    def _check_stored(self) -> None:
        if self._patterns is None:
            raise ValueError("the memory is empty: call store(patterns) first")

    def _bytes_per_cue(self) -> int:
        m = self.model
        real, wide = itemsize(m.real_dtype), itemsize(m.sum_dtype)
        return self.n_patterns * (3 * real + wide) + 3 * m.dim * wide

    def _attention(self, x: Any) -> Any:
        """Softmax of ``beta`` times the similarities of cues ``x`` ``(m, vector_length)``,
        the largest subtracted before ``beta`` multiplies (no overflow whatever beta): the
        exponents are at most 0, 0 for the most similar patterns. ``beta`` is capped at a
        quarter of the largest finite number of the similarities' float type (a larger one
        would be infinite there, and ``0 * inf`` is NaN; the exponents, ``beta`` times
        differences of at most 2, stay finite), where every other pattern's weight is 0
        already: a large ``beta`` gives the hard max, its weight shared equally by the
        patterns tied at the top."""
        return _attention(self.model, self.beta, x, self._patterns)

    def weights(self, cues: Any) -> Any:
        """The attention of each cue over the stored patterns: ``(n_patterns,)`` for one
        cue, ``(n_cues, n_patterns)`` for a batch, each row summing to 1 (the model's real
        dtype).

        Parameters
        ----------
        cues : array
            One vector of the model, or a batch ``(n, vector_length)``.
        """
        self._check_stored()
        rows, answer = as_rows(self.model, cues, "cues", pad=True)
        parts = [self._attention(block) for block in row_blocks(rows, self._bytes_per_cue())]
        return joined(self.model, parts, answer)

    def recall(self, cues: Any, iterations: int = 1) -> Any:
        """The patterns retrieved from ``cues`` (one vector or a batch of the model), as
        vectors of the model: ``model.finish_sum(weights(cues) @ lift(patterns))``.

        ``iterations`` repeats the update from its own answer (the paper's one step is
        usually enough: a fixed point is reached after one update when the patterns are
        well separated). All cues at once, in chunks that bound the temporary memory.

        The attention goes through ``exp`` and a weighted sum in floating point, so an
        element whose weighted sum lies within rounding of 0 (rare: a blend of patterns
        that disagree there, at a small ``beta``) can come out differently on another
        backend or BLAS (measured: 1 element in 128,000 at dim 256, 3000 patterns, beta 2;
        none at the default beta).

        Parameters
        ----------
        cues : array
            One vector of the model, or a batch ``(n, vector_length)``.
        iterations : int, optional
            Number of update steps.
        """
        iterations = POSITIVE_INT.check("iterations", iterations)
        self._check_stored()
        rows, answer = as_rows(self.model, cues, "cues", pad=True)
        m = self.model
        if self._lifted is None:
            self._lifted = m.lift(self._patterns)
        # the updates of a chunk: one program (compiled on JAX, once per shape class)
        update = m.backend.program(
            partial(_recall, m, self.beta, iterations),
            (m.config_key, "holovec.memory.modern_hopfield.recall", self.beta, iterations),
            keep=m.kernel_cache,
        )
        blocks = row_blocks(rows, self._bytes_per_cue())
        parts = [update(block, self._patterns, self._lifted) for block in blocks]
        return joined(m, parts, answer)

    # -- storage ----------------------------------------------------------------------------
    def save(self, path: str | PathLike) -> None:
        """Write the memory (its patterns and beta) to ``path``, a validated ``.npz``
        archive (no pickle).

        Parameters
        ----------
        path : str | PathLike
            The file to write (``.npz``).
        """
        from .._format.state import save_state

        m = self.model
        patterns = self._patterns
        if patterns is None:
            patterns = m.xp.zeros((0, m.vector_length), dtype=m.dtype, device=m.device)
        save_state(path, _KIND, m, {"patterns": patterns}, {"beta": self.beta, "n_patterns": self.n_patterns})

    @classmethod
    def load(
        cls, path: str | PathLike, model: VSAModel | None = None, *, backend: Any = None, device: Any = None
    ) -> ModernHopfield:
        """A memory that :meth:`save` wrote (of ``model``, or of the model the file names
        made on ``backend`` and ``device``).

        Loading is bounded by the file: the dim is checked against the saved patterns
        before a model is made. An empty memory saves patterns of no rows, which back no
        dim: its file may name a dim of at most ``holovec._format.MAX_UNBACKED_DIM``
        (2**20) unless it is loaded into a ``model`` made beforehand.

        Parameters
        ----------
        path : str or path-like
            The ``.npz`` file.
        model : VSAModel or None
            The model the file must be of (same name, dim, dtype and options); None: the
            model is made from the file.
        backend : str or None
            Where a model made from the file computes (default: the backend it was saved
            from); only without ``model``.
        device : str or None
            Its device (default: the backend's best); only without ``model``.

        Returns
        -------
        ModernHopfield
            The memory, its patterns checked against the record.

        Raises
        ------
        ValueError
            For a damaged, edited or mismatched file, or one whose record names sizes that
            its arrays do not back.
        """
        from .._format.state import load_state

        found = load_state(path, _KIND, model, backend, device, arrays=("patterns",))
        n = count_field(found.fields, "n_patterns", found.where)
        beta = found.fields.get("beta")
        if (
            isinstance(beta, bool)
            or not isinstance(beta, (int, float))
            or not math.isfinite(beta)
            or beta <= 0
        ):
            raise ValueError(
                f"{found.where}: bad beta in the record: expected a positive number, got {beta!r}"
            )
        memory = cls(found.model, beta=float(beta))
        patterns = found.arrays["patterns"]
        if tuple(patterns.shape) != (n, found.model.vector_length):
            raise ValueError(
                f"{found.where}: expected patterns of shape ({n}, {found.model.vector_length}), "
                f"got {tuple(patterns.shape)}"
            )
        if n:
            try:
                memory.store(found.model.check_values(patterns, "patterns"))
            except (ValueError, TypeError) as e:
                raise ValueError(f"{found.where}: {e}") from None
        return memory


def _attention(model: Any, beta: float, x: Any, patterns: Any) -> Any:
    """Softmax of ``beta`` times the similarities of cues ``x`` with ``patterns`` (see
    :meth:`ModernHopfield._attention`)."""
    xp = model.xp
    s = model.similarity_matrix(x, patterns)
    beta = min(beta, float(xp.finfo(s.dtype).max) / 4)
    e = xp.exp((s - xp.max(s, axis=1, keepdims=True)) * beta)
    return e / xp.sum(e, axis=1, keepdims=True)


def _recall(model: Any, beta: float, iterations: int, x: Any, patterns: Any, lifted: Any) -> Any:
    """``iterations`` updates of cues ``x``: ``finish_sum(attention(x) @ lifted)``."""
    for _ in range(iterations):
        w = model.xp.astype(_attention(model, beta, x, patterns), lifted.dtype)
        x = model.finish_sum(kernels.matmul(model.backend, w, lifted))
    return x
