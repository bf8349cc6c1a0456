"""Codebooks split by rows over several JAX devices.

:func:`shard_rows` puts a codebook on every device of a mesh, an equal block of rows on
each; :func:`holovec.retrieval.search` then searches each block on its own device and
merges only the ``k`` best candidates of each (see :mod:`holovec.kernels.jax_sharded`,
which also describes the use on several hosts with ``jax.distributed``). The results
equal those of one search of the whole codebook, ties included (equal scores: lowest
index first).

jax is imported by the first call, not by ``import holovec``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["shard_rows"]


def shard_rows(x: Any, mesh: Any = None, axis_name: str = "rows") -> Any:
    """``x`` (a codebook ``(n, vector_length)``) split by rows over the devices of ``mesh``:
    a ``jax.Array`` with a ``NamedSharding`` ``PartitionSpec(axis_name, None)``.

    Parameters
    ----------
    x : jax.Array or numpy.ndarray
        The codebook, e.g. ``model.random(n, seed=s)`` of a model on the ``"jax"`` backend.
    mesh : jax.sharding.Mesh, optional
        Where the rows go: every device of the mesh axis ``axis_name`` holds ``n / size``
        consecutive rows (replicated over the mesh's other axes, if any). Default: a
        one-axis mesh of every device of ``jax.devices()`` (its first device is the
        default device of a model, which the mesh must include).
    axis_name : str
        The mesh axis that splits the rows.

    Returns
    -------
    jax.Array
        The same values, row ``i`` on device ``i // (n / size)`` of the axis.

    Raises
    ------
    ValueError
        ``x`` is not 2-d, ``mesh`` has no axis ``axis_name``, or ``n`` is not a multiple of
        the number of devices along it. JAX holds equal shards only, and rows added to
        make them equal would be searched like any other item (and could be returned), so
        no padding is made: give a multiple of the device count, or a mesh of fewer
        devices (e.g. ``Mesh(jax.devices()[:m], ("rows",))`` with ``m`` dividing ``n``).

    Notes
    -----
    Several hosts: start every process with ``jax.distributed.initialize(coordinator_address=
    "host0:1234", num_processes=P, process_id=p)`` (on CPUs, first
    ``jax.config.update("jax_cpu_collectives_implementation", "gloo")``), create the model on a
    device of the process (``device=jax.local_devices()[0]``), and call the same search with the
    same queries in every process; each gets the whole result on its own device. Given a whole
    codebook, ``shard_rows`` has each process place only the rows of its own devices; to make
    only those rows on each host, build the array with
    ``jax.make_array_from_callback((n, model.vector_length), NamedSharding(mesh, PartitionSpec("rows",
    None)), rows_of)``, where ``rows_of(index)`` returns rows ``index[0]`` as a NumPy array (row
    ``i`` of ``model.random(n, seed=s)`` does not depend on ``n``).

    Examples
    --------
    >>> from holovec import VSA
    >>> from holovec.retrieval import search, shard_rows
    >>> model = VSA.create("MAP", dim=1000, backend="jax")
    >>> book = shard_rows(model.random(8, seed=1))  # on every device JAX has
    >>> scores, indices = search(model, book[3], book, k=1)
    >>> int(indices[0]), float(scores[0])
    (3, 1.0)
    """
    from .. import kernels
    from ..backends import get_backend

    return kernels.shard_rows(get_backend("jax"), x, mesh, axis_name)
