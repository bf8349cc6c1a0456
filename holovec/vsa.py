"""``VSA.create``: the one entry point from a model name to a model object."""

from __future__ import annotations

from typing import Any

from .backends import Backend
from .models import VSAModel, build_model, model_class, model_names


class VSA:
    """Factory of VSA models.

    Examples
    --------
    >>> from holovec import VSA
    >>> model = VSA.create("MAP", dim=1000, seed=7)
    >>> model.random(3).shape
    (3, 1000)
    >>> "FHRR" in VSA.available_models()
    True
    """

    @staticmethod
    def create(
        model: str,
        dim: int,
        backend: str | Backend | None = None,
        *,
        seed: int | None = None,
        device: Any = None,
        dtype: Any = None,
        **options: Any,
    ) -> VSAModel:
        """Create a model by name (case-insensitive).

        Parameters
        ----------
        model : str
            A name from :meth:`available_models`, e.g. ``"FHRR"``, ``"MAP"``, ``"BSC"``.
        dim : int
            Number of elements per vector (a positive int).
        backend : str | Backend, optional
            ``"numpy"``, ``"torch"`` (or ``"pytorch"``), ``"jax"``, ``"dask"`` (lazy
            row-chunked arrays on a Dask cluster; the ``dask`` extra), ``"auto"`` (the
            fastest installed for the device found; never Dask), a Backend, or ``None``
            for the ``HOLOVEC_BACKEND`` environment variable, else ``"numpy"``.
        seed : int, optional
            Makes every later unseeded draw of the model reproducible.
        device : object, optional
            ``None`` for the framework's best device (a GPU when present), or e.g.
            ``"cpu"``, ``"cuda:0"``. A device that is not there (``"cpu:3"``, a GPU
            index beyond those present) raises ``ValueError``; vectors on another device
            than the model's are refused by every operation (``ValueError`` naming both).
        dtype : str or dtype, optional
            The vectors' dtype, where the model allows a choice (e.g. complex128 for FHRR).
        **options : object
            Model-specific options.

        Notes
        -----
        The cheap checks come first (name, ``dim``, options, backend, device, dtype); a
        model whose creation needs more memory than the device has available raises
        :class:`~holovec.models.AllocationError` (a ``MemoryError`` and a ``ValueError``)
        at once, with the bytes needed, instead of allocating until it fails.
        """
        # the registered class, or the variant an option selects (BSC's packed=True)
        return build_model(model_class(model), dim, backend, seed=seed, device=device, dtype=dtype, **options)

    @staticmethod
    def available_models() -> list[str]:
        """Names of all registered models."""
        return model_names()
