"""The model protocol: what a model declares about its algebra, for other packages.

Encoders, retrieval and learners serve every model, including one a user registers, by
asking the model what it can do, never by its name. A model states its capabilities as
class attributes (or properties, where they depend on an option) and offers the hooks
below; :class:`~holovec.models.VSAModel` inherits this class, so every model has them
with defaults, and a new model overrides only what differs.

Capabilities
------------
``element_kind``
    What one element of a vector is. Encoders pick their construction by it:

    - ``"bipolar"``: +1 or -1 (MAP; MAP-I vectors, whose bundles hold integers),
    - ``"bounded"``: a real number in [-1, 1] (MAP-C),
    - ``"binary"``: a bit 0 or 1 (BSC; stored packed where ``packed`` is True),
    - ``"phasor"``: a complex number of modulus 1 (FHRR),
    - ``"gaussian"``: a real number of variance ``1/dim`` (HRR, VTB),
    - ``"unitary-blocks"``: elements of unitary complex blocks (GHRR),
    - ``"sparse"``: a bit of a sparse code (BSDC, BSDC-SEG),
    - ``"modular"``: an integer level of a cyclic group (MCR, CGR),
    - ``"block-code"``: an element of a block of a generalized sparse block code (GSBC):
      random vectors have one nonzero element of modulus 1 per block, bundles any numbers.
``bundle_is_sum``
    The bundle is a function of a sum: ``bundle(items) == finish_sum(sum(lift(items)))``
    for every batch of items. Weighted bundles, ragged batches and bundles computed as
    matrix products go through :meth:`lift` and :meth:`finish_sum`.
``bind_is_elementwise``
    ``lift(bind(a, b)) == lift(a) * lift(b)`` elementwise, so images and n-grams factor
    into matrix products.
``packed``
    Vectors are stored several elements per array element (bit-packed BSC):
    :meth:`elements` and :meth:`from_elements` convert to and from one element per slot.
``atom_size``, ``atoms_exchangeable``
    Units of :meth:`atoms` that can be taken from different vectors to give a vector of
    the model (a GHRR block, a BSDC-SEG segment, one element otherwise), and whether that
    is possible at all (not for BSDC, whose vectors have a fixed number of ones).
``bind_commutes_with_permute``
    ``bind(permute(a, 1), b) == permute(bind(a, b), 1)``: the permutation passes through
    binding (HRR's circular convolution commutes with the cyclic shift), so a permutation
    cannot mark one operand of a bind (a directed edge's target, a tree path's depth).
``has_phasor_form``
    Vectors are ``from_phases(phases)`` for real phases (FHRR elementwise, HRR in the
    Fourier domain), and binding adds phases: fractional power encoders need this.

Hooks
-----
``check``, ``check_values``, ``draw``, ``get_config`` and ``config_differences`` are
defined on :class:`~holovec.models.VSAModel`; the conversion, search and Hamming hooks
are here (``search_index``, ``search_scores``, ``score_operand``, ``score_from_dots``).
Every hook takes arrays of the model's backend that have passed :meth:`check` (vectors)
and broadcasts over leading batch axes unless its docstring says otherwise.

``has_hamming_search``
    The model can be searched by Hamming distance on packed bits (BSC, packed or not; MAP
    and MAP-I where queries and items are +-1): :meth:`hamming_search_bits` gives the
    packed bits of a search index (or ``None`` where such a search would not give the
    model's own scores), :meth:`hamming_similarity` the scores of distances
    (:mod:`holovec.models._hamming`). Models without it return ``None`` from the first.
``has_packed_form``
    Vectors are stored packed (BSC with ``packed=True``), with two hooks:
    ``pack(bits)`` (unpacked elements ``(..., dim)`` as stored vectors, the values
    checked) and ``unpack(x)`` (stored vectors as elements ``(..., dim)``). Only models
    that declare it have them.

Dtypes
------
``real_dtype`` (and its name ``real_dtype_name``) is the real dtype in which the model's
numbers are summed and compared: float64 for double-precision models (float64,
complex128), else float32 (16-bit floats widen). :func:`real_dtype_name` gives it for a
dtype name.

Values
------
``check`` reads no values (it is cheap enough for every call, and works under ``jax.jit``);
``check_values`` reads them, and ``asarray`` calls it on everything it converts. What a
model's elements may be is ``allowed_values`` (words, for messages) and
``valid_elements`` (the test): by ``element_kind`` unless the model overrides them,
discrete alphabets exactly (``bipolar`` +-1, ``binary`` and ``sparse`` 0/1), ``bounded``
within [-1, 1], the continuous kinds finite.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from .. import kernels
from . import _hamming, _search
from ._memory import CHUNK_BYTES
from ._values import ALLOWED_BY_KIND, valid_by_kind

#: the values of ``element_kind``, with the models of this package that have each
ELEMENT_KINDS = {
    "bipolar": "+1 or -1 (MAP, MAP-I)",
    "bounded": "a real number in [-1, 1] (MAP-C)",
    "binary": "a bit 0 or 1 (BSC)",
    "phasor": "a complex number of modulus 1 (FHRR)",
    "gaussian": "a real number of variance 1/dim (HRR, VTB)",
    "unitary-blocks": "an element of a unitary complex block (GHRR)",
    "sparse": "a bit of a sparse code (BSDC, BSDC-SEG)",
    "modular": "an integer level 0 .. r-1 of the cyclic group of order r (MCR, CGR)",
    "block-code": "an element of a block of a generalized sparse block code: zero, or a real or complex "
    "number (GSBC)",
}


def real_dtype_name(dtype_name: str) -> str:
    """The real dtype in which vectors of ``dtype_name`` are summed and compared: float64
    for double precision (float64, complex128), else float32 (16-bit floats widen).

    Parameters
    ----------
    dtype_name : str
        The vectors' dtype name (``"float32"``, ``"complex64"``, ...).
    """
    return "float64" if dtype_name in ("float64", "complex128") else "float32"


class ModelProtocol:
    """Capabilities and conversion hooks that every model has (see the module docstring)."""

    # provided by VSAModel
    name: ClassVar[str]
    xp: Any
    backend: Any
    dim: int
    vector_length: int
    dtype: Any
    dtype_name: str
    #: the name of :attr:`real_dtype` (an attribute: the similarities read it on every call)
    real_dtype_name: str
    kernel_cache: dict
    _similarity_matrix: Any

    element_kind: ClassVar[str]
    bundle_is_sum: ClassVar[bool] = False
    bind_is_elementwise: ClassVar[bool] = False
    packed: ClassVar[bool] = False
    atoms_exchangeable: ClassVar[bool] = True
    has_phasor_form: ClassVar[bool] = False
    bind_commutes_with_permute: ClassVar[bool] = False
    has_hamming_search: ClassVar[bool] = False
    has_packed_form: ClassVar[bool] = False
    #: the named values of each option that takes one of a few, the default first
    #: (BSDC: ``{"binding": ("shift", "cdt"), ...}``): what the model accepts, and the
    #: variants that :func:`holovec.testing.model_variants` covers
    option_choices: ClassVar[dict[str, tuple[str, ...]]] = {}

    # -- dtypes and values ---------------------------------------------------------------
    @property
    def real_dtype(self) -> Any:
        """The real dtype in which the vectors are summed and compared (see the module)."""
        return self.backend.dtype(real_dtype_name(self.dtype_name))

    @property
    def allowed_values(self) -> str:
        """The values one element of this model's vectors holds, in words (for messages);
        :meth:`valid_elements` is the test. By ``element_kind`` unless a model overrides."""
        return ALLOWED_BY_KIND.get(self.element_kind, "finite numbers")

    def valid_elements(self, x: Any) -> Any | None:
        """A boolean array of ``x``'s shape, True where an element is a value of this model's
        vectors (``x`` of any numeric dtype, in this model's layout); None where there is
        nothing to test in ``x``'s dtype: every value of the model's own dtype is allowed,
        or (for another dtype) the test comes after the conversion. By ``element_kind``
        (see the module).

        Parameters
        ----------
        x : array
            An array in this model's layout (any numeric dtype).
        """
        return valid_by_kind(self, x)

    # -- elements -------------------------------------------------------------------------
    def elements(self, x: Any) -> Any:
        """Vectors ``(..., vector_length)`` as one element per slot, ``(..., dim)``: the
        vectors themselves unless the model stores them packed.

        Parameters
        ----------
        x : array
            Vectors of the model, ``(..., vector_length)``.
        """
        return x

    def from_elements(self, e: Any) -> Any:
        """The inverse of :meth:`elements`: ``(..., dim)`` elements as stored vectors.

        Parameters
        ----------
        e : array
            Elements ``(..., dim)``.
        """
        return e

    # -- atoms: units that two vectors can exchange -----------------------------------------
    @property
    def atom_size(self) -> int:
        """Elements that must stay together for a mix of two vectors to be a vector of the
        model (1 unless the model has blocks or segments)."""
        return 1

    def atoms(self, x: Any) -> Any:
        """Vectors as ``(..., n_atoms, atom_size)``: a form in which taking each atom from one
        of several vectors gives a vector of the model (graded level codes are made so).
        By default the elements, grouped by ``atom_size``. ``TypeError`` where
        ``atoms_exchangeable`` is False.

        Parameters
        ----------
        x : array
            Vectors of the model, ``(..., vector_length)``.
        """
        self._need("atoms_exchangeable", "exchange atoms between vectors (graded level codes)")
        e = self.elements(x)
        return self.xp.reshape(e, (*e.shape[:-1], e.shape[-1] // self.atom_size, self.atom_size))

    def from_atoms(self, a: Any) -> Any:
        """The inverse of :meth:`atoms`.

        Parameters
        ----------
        a : array
            Atoms ``(..., n_atoms, atom_size)``.
        """
        return self.from_elements(self.xp.reshape(a, (*a.shape[:-2], a.shape[-2] * a.shape[-1])))

    # -- sums -----------------------------------------------------------------------------
    @property
    def sum_dtype(self) -> Any:
        """The dtype of lifted vectors and their sums (16-bit floats widen to float32)."""
        self._need("bundle_is_sum", "keep a bundle as a sum")
        if self.dtype_name in ("float16", "bfloat16"):
            return self.backend.dtype("float32")
        return self.dtype

    def lift(self, x: Any) -> Any:
        """Vectors as the numbers whose sum is a bundle's accumulator (``sum_dtype``, one
        element per slot): ``bundle(items) == finish_sum(sum(lift(items)))``.

        Parameters
        ----------
        x : array
            Vectors of the model, ``(..., vector_length)``.
        """
        dtype = self.sum_dtype
        x = self.elements(x)
        return x if x.dtype == dtype else self.xp.astype(x, dtype)

    def finish_sum(self, sums: Any) -> Any:
        """The bundle whose lifted items add up to ``sums`` (``(..., dim)``, any real or,
        for complex models, complex dtype), with the model's own tie-break.

        Parameters
        ----------
        sums : array
            Sums of lifted items, ``(..., dim)``.
        """
        self._need("bundle_is_sum", "keep a bundle as a sum")
        if sums.dtype != self.dtype:
            sums = self.xp.astype(sums, self.dtype)
        return self._bundle(self.from_elements(sums)[None, ...])

    # -- phasors --------------------------------------------------------------------------
    @property
    def phase_count(self) -> int:
        """Number of phases per vector (FHRR: ``dim``; HRR: ``dim // 2 + 1`` frequencies)."""
        self._need("has_phasor_form", "be written as phases")
        self._phasor_hook_missing("phase_count")

    @property
    def phase_dtype(self) -> Any:
        """The real dtype of phases (float64 for double-precision models, else float32)."""
        self._need("has_phasor_form", "be written as phases")
        return self.real_dtype

    def fixed_phases(self) -> np.ndarray:
        """Host mask ``(phase_count,)`` of the phases that are always 0 (HRR: the zero and
        Nyquist frequencies, which a real vector's spectrum keeps real)."""
        return np.zeros(self.phase_count, dtype=bool)

    def phase_weights(self) -> np.ndarray:
        """Host weights ``(phase_count,)``: how often each phase counts in the similarity
        (HRR: twice for a frequency that has a negative twin, once for the fixed ones)."""
        return np.ones(self.phase_count)

    def from_phases(self, phases: Any) -> Any:
        """Vectors ``(..., vector_length)`` from phases ``(..., phase_count)`` of
        ``phase_dtype``; binding vectors adds their phases.

        Parameters
        ----------
        phases : array
            Phases ``(..., phase_count)`` of ``phase_dtype``.
        """
        self._need("has_phasor_form", "be written as phases")
        self._phasor_hook_missing("from_phases")

    def to_phasors(self, x: Any) -> Any:
        """The unit phasors ``exp(1j * phases)`` of vectors, ``(..., phase_count)`` (for
        vectors that are not pure phasors, the complex coefficients they have there).

        Parameters
        ----------
        x : array
            Vectors of the model, ``(..., vector_length)``.
        """
        self._need("has_phasor_form", "be written as phases")
        self._phasor_hook_missing("to_phasors")

    # -- search over a prepared index (what holovec.retrieval calls) -------------------------
    #: whether the search scores are exact (sums of integers or bits); models whose products
    #: round set it False: a search recomputes its candidates' scores in a fixed order from
    #: :meth:`score_operand` and :meth:`score_from_dots` (``holovec._fixed_order``)
    exact_scores: ClassVar[bool] = True
    #: temporary memory of one chunk of ``search_scores``; whether its chunks may run in
    #: parallel threads (kernels that use one core; matrix products use them all)
    _search_chunk_bytes: ClassVar[int] = CHUNK_BYTES
    _parallel_search: ClassVar[bool] = False

    def search_index(self, vectors: Any) -> tuple[Any, ...]:
        """Vectors ``(n, vector_length)`` (checked, 2-d) in the form a search compares them
        in: a tuple of arrays whose first axis is the ``n`` vectors (slice every member alike
        to take a chunk of items). By default the vectors themselves; a model whose
        similarity needs per-vector work (norms, bit packing) does it here, once per store
        or batch of queries, not per chunk.

        Parameters
        ----------
        vectors : array
            Vectors ``(n, vector_length)``.
        """
        return (vectors,)

    def search_scores(self, queries: tuple[Any, ...], items: tuple[Any, ...]) -> Any:
        """Similarities ``(n_q, n)`` of indexed queries against indexed items (both made by
        :meth:`search_index`): the values of :meth:`similarity_matrix`, in chunks of items
        that bound the temporary memory. Pass a slice of every member of ``items`` to score
        a chunk of them.

        Parameters
        ----------
        queries : tuple[object, ...]
            Indexed queries (made by :meth:`search_index`).
        items : tuple[object, ...]
            Indexed items (made by :meth:`search_index`), or a slice of every member.
        """
        n_queries, n_items = queries[0].shape[0], items[0].shape[0]
        per_item = self._search_temp_bytes_per_item(n_queries)
        chunk_size = n_items if per_item == 0 else max(1, self._search_chunk_bytes // per_item)
        if chunk_size >= n_items:
            return self._search_scores(queries, items)
        return kernels.map_item_chunks(
            self.backend,
            self._search_scores,
            queries,
            items,
            chunk_size,
            self._parallel_search,
            self.kernel_cache,
        )

    score_operand = _search.score_operand
    score_from_dots = _search.score_from_dots

    score_operand_width = property(_search.score_operand_width)

    def _search_scores(self, queries: tuple[Any, ...], items: tuple[Any, ...]) -> Any:
        """``similarity_matrix`` of indexed queries against one chunk of indexed items."""
        return self._similarity_matrix(queries[0], items[0])

    def _search_temp_bytes_per_item(self, n_queries: int) -> int:
        """Temporary bytes per indexed item that ``_search_scores`` needs besides its result."""
        return self._matrix_temp_bytes_per_item(n_queries)

    def _matrix_temp_bytes_per_item(self, n_queries: int) -> int:
        """Temporary bytes per item that ``_similarity_matrix`` needs (0: none, no chunking)."""
        return 0

    # -- Hamming search (see has_hamming_search) -------------------------------------------
    def hamming_search_bits(self, index: tuple[Any, ...]) -> Any | None:
        """The vectors of a search index (a tuple made by ``search_index``) bit-packed, uint8
        ``(n, 8 * ceil(dim / 64))`` with the padding bits clear, or ``None`` where a Hamming
        search would not give the model's own scores (a MAP query that is not +-1, a traced
        array, a backend without a fast popcount), and always for a model without
        ``has_hamming_search``.

        Parameters
        ----------
        index : tuple[object, ...]
            A search index (the tuple :meth:`search_index` makes).
        """
        return None

    def hamming_similarity(self, distances: Any) -> Any:
        """Similarities of Hamming distances (integers in ``0 .. dim``), equal bit for bit to
        the model's search scores of pairs at those distances.

        Parameters
        ----------
        distances : array
            Hamming distances, integers in ``0 .. dim``.
        """
        return _hamming.similarity(self, self._hamming_table, distances)

    def _hamming_table(self) -> Any:
        """Similarities of the distances ``0 .. dim`` (1-d), by the model's search formula
        (models with ``has_hamming_search`` define it)."""
        raise TypeError(f"{self.name} has no Hamming search (its has_hamming_search is False)")

    # -- helpers --------------------------------------------------------------------------
    def _phasor_hook_missing(self, hook: str) -> Any:
        # a declaration without its hooks is the model author's error: say which hook
        raise TypeError(
            f"{self.name} declares has_phasor_form but does not define {hook}; a model with a "
            "phasor form overrides phase_count, from_phases and to_phasors"
        )

    def _need(self, capability: str, what: str) -> None:
        if not getattr(self, capability):
            raise TypeError(f"{self.name} vectors cannot {what} (the model's {capability} is False)")
