"""AssocStore: a hetero-associative key -> value memory in one (or two) vectors."""

from __future__ import annotations

from typing import Any

from ..models.base import VSAModel
from ._checks import claim_codebook
from .codebook import Codebook
from .store import ItemStore

__all__ = ["AssocStore"]


class AssocStore:
    """Key -> value pairs stored as the bundle of ``bind(value, key)``.

    ``query(key)`` unbinds the key and cleans up against the values; ``query_value``
    unbinds a value and cleans up against the keys. Models whose binding does not
    commute keep a second bundle, of ``bind(key, value)``, for the reverse direction.

    Parameters
    ----------
    model : VSAModel
        The model of the keys and values.

    Examples
    --------
    >>> from holovec import VSA
    >>> from holovec.retrieval import AssocStore, Codebook
    >>> model = VSA.create("FHRR", dim=2000)
    >>> keys = Codebook.from_seed(model, ["fr", "de", "it"], seed=1)
    >>> values = Codebook.from_seed(model, ["paris", "berlin", "rome"], seed=2)
    >>> store = AssocStore(model).fit(keys, values)
    >>> store.query("de")[0][0]
    'berlin'
    """

    def __init__(self, model: VSAModel) -> None:
        if not isinstance(model, VSAModel):
            raise TypeError(f"model must be a VSA model, got {type(model).__name__}")
        self.model = model
        self.memory: Any = None
        self._reverse: Any = None

    def fit(self, keys: Codebook, values: Codebook) -> AssocStore:
        """Store the pairs ``(keys row i, values row i)``.

        Parameters
        ----------
        keys : Codebook
            The keys' codebook.
        values : Codebook
            The values' codebook, row ``i`` stored with key ``i``.
        """
        for name, book in (("keys", keys), ("values", values)):
            if not isinstance(book, Codebook):
                raise TypeError(f"{name} must be a Codebook, got {type(book).__name__}")
            claim_codebook(self.model, book, f"the {name} codebook", "this store's model")
            if len(book) == 0:
                raise ValueError(f"{name} is empty")
        if len(keys) != len(values):
            raise ValueError(f"{len(keys)} keys but {len(values)} values; give one value per key")
        m = self.model
        self.keys, self.values = keys, values
        self.memory = m.bundle(m.bind(values.vectors, keys.vectors))
        self._reverse = None if m.is_commutative else m.bundle(m.bind(keys.vectors, values.vectors))
        self._value_store = ItemStore(m).fit(values)
        self._key_store = ItemStore(m).fit(keys)
        return self

    def _vector(self, x: Any, book: Codebook) -> Any:
        if isinstance(x, self.model.backend.array_type):
            return x
        return book[x]

    def _check_fitted(self) -> None:
        if self.memory is None:
            raise ValueError("the store is empty: call fit(keys, values) first")

    def recall(self, key: Any) -> Any:
        """The noisy value vector(s) bound to ``key`` (a label of the keys, or vectors).

        Parameters
        ----------
        key : object
            A label of the keys, or key vectors.
        """
        self._check_fitted()
        k = self._vector(key, self.keys)
        return self.model.unbind(self.memory, k)

    def query(self, key: Any, k: int = 1, threshold: float | None = None) -> list:
        """The values of ``key`` (a key label, a key vector or a batch of them):
        ``[(value label, similarity), ...]`` per key, best first.

        Parameters
        ----------
        key : object
            A key label, a key vector or a batch of them.
        k : int, optional
            Number of results per query.
        threshold : float, optional
            Similarity a result must reach; ``None`` keeps every result.
        """
        noisy = self.recall(key)
        return self._value_store.query(noisy, k, threshold)

    def query_value(self, value: Any, k: int = 1, threshold: float | None = None) -> list:
        """The keys stored with ``value`` (a value label, vector or batch).

        Parameters
        ----------
        value : object
            A value label, a value vector or a batch of them.
        k : int, optional
            Number of results per query.
        threshold : float, optional
            Similarity a result must reach; ``None`` keeps every result.
        """
        self._check_fitted()
        v = self._vector(value, self.values)
        memory = self.memory if self._reverse is None else self._reverse
        return self._key_store.query(self.model.unbind(memory, v), k, threshold)
