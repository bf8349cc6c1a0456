"""Search of a JAX array sharded by rows over several devices, one program for all of them.

A codebook ``(n, vector_length)`` held as a ``jax.Array`` whose ``NamedSharding`` splits axis
0 over one or more mesh axes (and keeps axis 1 whole) is searched where its rows live:
inside ``jax.shard_map`` every device runs the caller's search of its own rows (a local
top-k, indices shifted by the device's first row, from ``jax.lax.axis_index``), then the
devices exchange only their ``k`` candidates per query (``jax.lax.all_gather``, ``devices x
n_queries x k`` values) and each keeps the ``k`` best of them with one stable top-k in device
order. The score matrix ``n_queries x n`` is never gathered: leaving the partitioning of a
top-k to GSPMD would gather it. As candidates come in order of index (devices in mesh
order, each device's list best first, equal scores lowest index first), the stable top-k
orders ties by the lowest global index: the result equals one search of the whole array,
however it is split.

The caller's search (``search_part``, the same code that searches an array on one device)
is traced once per program with ``jax.make_jaxpr`` on the shapes of one device's rows. Code
for one device may pin values to it (``xp.asarray(..., device=...)``), which inside
``shard_map`` would tie every device's program to that one device; those placements are
dropped from the trace, so each device computes where its rows are. The caller's checks of
values (NaN, infinity) cannot read traced arrays: they are made in the same program, one
flag per device, and turned into the caller's ``ValueError`` afterwards.

One compiled program per (caller's search, mesh, mesh axes, ``k``) and shapes, kept in a
small cache.

Multi-host
----------
The same program runs on several hosts (one process each, every process calling the same
search with the same queries, as JAX's multi-controller model has it)::

    import jax
    jax.distributed.initialize(coordinator_address="10.0.0.1:1234", num_processes=2,
                               process_id=0)  # 1 on the other host
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
    from holovec import VSA
    from holovec.retrieval import search

    model = VSA.create("MAP", dim=10000, backend="jax", device=jax.local_devices()[0])
    mesh = Mesh(np.array(jax.devices()), ("rows",))  # every device of every host
    sharding = NamedSharding(mesh, P("rows", None))
    # each host makes (or loads) only the rows of its own devices
    items = jax.make_array_from_callback((n, model.vector_length), sharding, rows_of)
    scores, indices = search(model, queries, items, k=10)   # on every host alike

``rows_of(index)`` returns the rows ``index[0]`` (a slice) of the codebook as a NumPy array,
e.g. read from a file, and is called for the devices of its own process only
(:func:`holovec.retrieval.shard_rows` does this for a codebook every process holds). On
CPUs set ``jax.config.update("jax_cpu_collectives_implementation", "gloo")`` before
``initialize``. The results are on each process's model device.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable
from functools import partial
from typing import Any

import jax
import jax.extend.core as jc
import jax.extend.core.primitives as _prims
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, SingleDeviceSharding
from jax.sharding import PartitionSpec as P

#: compiled programs kept (the least recently used goes first)
_CACHE_SIZE = 16
_programs: OrderedDict[tuple, Callable] = OrderedDict()
#: rows named in an error message at most
_SHOWN = 5


def row_axes(x: Any) -> tuple[str, ...] | None:
    """The mesh axes over which the rows of a 2-d array are split, or ``None`` where the
    array is in one place (one device, replicated on every device of its sharding, or a
    tracer). Raises ``ValueError`` where the vector axis is split (a search needs whole
    vectors on each device) or the sharding is not a ``NamedSharding``."""
    if isinstance(x, jax.core.Tracer):
        return None
    sharding = getattr(x, "sharding", None)
    if sharding is None or len(sharding.device_set) == 1 or sharding.is_fully_replicated:
        return None
    if not isinstance(sharding, NamedSharding):
        raise ValueError(
            f"items are split over {len(sharding.device_set)} devices by a {type(sharding).__name__}; "
            "a sharded search needs a NamedSharding that splits rows only, e.g. "
            "holovec.retrieval.shard_rows(items)"
        )
    spec = tuple(sharding.spec) + (None,) * (x.ndim - len(sharding.spec))
    if any(s is not None for s in spec[1:]):
        raise ValueError(
            f"items are sharded along the vector axis (PartitionSpec {sharding.spec}); a search "
            "needs whole vectors on each device: shard the rows only, PartitionSpec('rows', None), "
            "e.g. with holovec.retrieval.shard_rows(items)"
        )
    names = spec[0]
    if names is None:  # rows whole, vector axis whole: replicated (caught above) or unreduced
        return None
    return (names,) if isinstance(names, str) else tuple(names)


def _shard_map(body: Callable, **specs: Any) -> Callable:
    """``jax.shard_map`` without its replication checks (the body is plain code of one
    device, unaware of mesh axes); ``jax.experimental.shard_map`` before JAX had it."""
    if hasattr(jax, "shard_map"):
        return jax.shard_map(body, check_vma=False, **specs)
    from jax.experimental.shard_map import shard_map

    return shard_map(body, check_rep=False, **specs)


def _fingerprint(fn: Callable) -> Any:
    """A hashable key for a caller's search function: a new ``partial`` of the same function
    and arguments per call must find the program compiled before."""
    if isinstance(fn, partial):
        try:
            key = (fn.func, fn.args, tuple(sorted(fn.keywords.items())))
            hash(key)
            return key
        except TypeError:
            pass
    return fn


def _placement_free(jaxpr: jc.Jaxpr) -> jc.Jaxpr:
    """``jaxpr`` without its placements on one device (``device_put`` and sharding constraints
    to a single device, in nested programs too): each value stays where it is computed."""
    alias: dict[Any, Any] = {}

    def arg(v: Any) -> Any:
        return alias.get(v, v) if isinstance(v, jc.Var) else v

    eqns = []
    for eqn in jaxpr.eqns:
        invars = [arg(v) for v in eqn.invars]
        if _pins_one_device(eqn):
            alias.update(zip(eqn.outvars, invars, strict=True))
            continue
        params = {name: _params_free(value) for name, value in eqn.params.items()}
        eqns.append(eqn.replace(invars=invars, params=params))
    return jaxpr.replace(eqns=eqns, outvars=[arg(v) for v in jaxpr.outvars])


def _params_free(value: Any) -> Any:
    if isinstance(value, (jax.Device, SingleDeviceSharding)):  # e.g. convert_element_type's
        return None
    if isinstance(value, jc.ClosedJaxpr):
        return jc.ClosedJaxpr(_placement_free(value.jaxpr), value.consts)
    if isinstance(value, jc.Jaxpr):
        return _placement_free(value)
    if isinstance(value, tuple) and any(isinstance(v, (jc.Jaxpr, jc.ClosedJaxpr)) for v in value):
        return tuple(_params_free(v) for v in value)
    return value


def _pins_one_device(eqn: Any) -> bool:
    one = (jax.Device, SingleDeviceSharding)
    if eqn.primitive is _prims.device_put_p:
        return all(isinstance(d, one) for d in eqn.params["devices"])
    if eqn.primitive is _prims.sharding_constraint_p:
        return isinstance(eqn.params["sharding"], one)
    return False


def _device_free(search_part: Callable, queries: Any, part: Any, k: int) -> Callable:
    """``search_part(queries, part, k)`` (shapes and dtypes given by the ``ShapeDtypeStruct``s
    ``queries`` and ``part``) traced once, as a function that runs on whichever device
    holds its arguments.

    The caller's search is code for arrays on its own device: it may make constants there
    (``xp.asarray(..., device=...)``), which inside ``shard_map`` would pin every device's
    program to that one device. Those placements are dropped; constants the trace
    captured are handed over as host arrays, which each device copies."""
    closed = jax.make_jaxpr(lambda q, p: search_part(q, p, k))(queries, part)
    consts = [np.asarray(c) if isinstance(c, jax.Array) else c for c in closed.consts]
    return jc.jaxpr_as_fun(jc.ClosedJaxpr(_placement_free(closed.jaxpr), consts))


def _local_then_merge(
    local: Callable, names: tuple[str, ...], devices: int, k_out: int, check: bool
) -> Callable:
    """The body run on each device: its own top-k, then the merge of every device's."""

    def body(queries: Any, part: Any) -> tuple[Any, Any, Any]:
        s, i = local(queries, part)
        k_local = s.shape[-1]
        # the index dtype of a search of one array (int64 in 64-bit mode)
        i = i + jax.lax.axis_index(names).astype(i.dtype) * part.shape[0]
        # only k candidates per query leave a device: (devices, n_q, k_local)
        all_s = jax.lax.all_gather(s, names, axis=0)
        all_i = jax.lax.all_gather(i, names, axis=0)
        n_q = queries.shape[0]
        # device order, then each device's order: among equal scores, lowest index first
        all_s = jnp.moveaxis(all_s, 0, 1).reshape(n_q, devices * k_local)
        all_i = jnp.moveaxis(all_i, 0, 1).reshape(n_q, devices * k_local)
        best, pos = jax.lax.top_k(all_s, k_out)  # equal values: lower position first
        ok = jnp.ones((), jnp.int32)
        if check:  # the caller's finiteness checks read no traced values: made here
            ok = (jnp.all(jnp.isfinite(part)) & jnp.all(jnp.isfinite(queries))).astype(jnp.int32)
            ok = jax.lax.pmin(ok, names)
        return best, jnp.take_along_axis(all_i, pos, axis=-1), ok

    return body


def _program(
    search_part: Callable, queries: Any, items: Any, mesh: Mesh, names: tuple[str, ...], k: int, check: bool
) -> Callable:
    """The compiled search (cached): ``(queries (n_q, d), items (n, d)) -> (scores, indices,
    finite)``, queries replicated, items split by rows, results replicated."""
    shapes = (tuple(queries.shape), queries.dtype, tuple(items.shape), items.dtype)
    key = (_fingerprint(search_part), shapes, mesh, names, k, check)
    program = _programs.pop(key, None)
    if program is not None:  # now the most recently used
        _programs[key] = program
        return program
    devices = math.prod(mesh.shape[a] for a in names)
    n, d = items.shape
    local = _device_free(
        search_part,
        jax.ShapeDtypeStruct(queries.shape, queries.dtype),
        jax.ShapeDtypeStruct((n // devices, d), items.dtype),
        k,
    )
    body = _local_then_merge(local, names, devices, min(k, n), check)
    mapped = _shard_map(body, mesh=mesh, in_specs=(P(), P(names, None)), out_specs=(P(), P(), P()))
    program = jax.jit(mapped)
    _programs[key] = program
    if len(_programs) > _CACHE_SIZE:
        _programs.popitem(last=False)
    return program


def replicated(x: Any, mesh: Mesh) -> Any:
    """``x`` on every device of ``mesh`` (every process gives its own copy of the same
    values, as in any multi-controller JAX program)."""
    sharding = NamedSharding(mesh, P())
    if x.sharding == sharding:
        return x
    if jax.process_count() == 1:
        return jax.device_put(x, sharding)
    local = [jax.device_put(x, d) for d in sharding.addressable_devices]
    return jax.make_array_from_single_device_arrays(x.shape, sharding, local)


def _on(x: Any, device: Any) -> Any:
    """A replicated result as a plain array on ``device`` (its copy there, no transfer)."""
    for shard in x.addressable_shards:
        if shard.device == device:
            return shard.data
    return jax.device_put(x.addressable_data(0), device)


def in_one_place(x: Any, device: Any) -> Any:
    """``x`` (on several devices) as one array on ``device``: its copy there where ``x`` is
    replicated (no transfer), else gathered there (a split array of several processes is
    first replicated on every device, in one program, as :func:`gather_rows` does)."""
    sharding = x.sharding
    if not sharding.is_fully_replicated:
        if sharding.is_fully_addressable:
            return jax.device_put(x, device)
        everywhere = NamedSharding(sharding.mesh, P())
        x = jax.jit(lambda a: a, out_shardings=everywhere)(x)
    return _on(x, device)


def gather_rows(x: Any, rows: np.ndarray, device: Any) -> Any:
    """Rows ``rows`` (host ints, the same on every process) of an array sharded over a mesh,
    as a plain array on ``device``: gathered to every device in one program."""
    mesh = x.sharding.mesh
    everywhere = NamedSharding(mesh, P())
    index = replicated(jnp.asarray(rows), mesh)
    taken = jax.jit(lambda a, i: jnp.take(a, i, axis=0), out_shardings=everywhere)(x, index)
    return _on(taken, device)


def _bad_rows(x: Any, mesh: Mesh) -> list[int]:
    """Indices of the rows of ``x`` (2-d) that hold NaN or infinity (an error path)."""
    everywhere = NamedSharding(mesh, P())
    finite = jax.jit(lambda a: jnp.all(jnp.isfinite(a), axis=-1), out_shardings=everywhere)(x)
    return [int(i) for i in np.flatnonzero(~np.asarray(finite))[: _SHOWN + 1]]


def _finite_error(name: str, rows: list[int]) -> ValueError:
    names = ", ".join(str(i) for i in rows[:_SHOWN]) + (", ..." if len(rows) > _SHOWN else "")
    where = f"row {names} holds" if len(rows) == 1 else f"rows {names} hold"
    return ValueError(
        f"{name}: {where} NaN or infinity; vectors to store or search must be finite "
        "(a non-finite vector has no similarity with anything)"
    )


def sharded_search(
    search_part: Callable, queries: Any, items: Any, k: int, device: Any
) -> tuple[Any, Any] | None:
    """The ``k`` best items of each query, ``(scores, indices)`` of shape ``(..., min(k, n))``
    on ``device``, for items split by rows over several devices; ``None`` where ``items``
    is in one place (see :func:`row_axes`).

    ``search_part(queries (n_q, d), part (rows, d), k) -> (scores, indices)`` searches one
    device's rows (indices within them); it is traced once per program, so it must read no
    values (non-finite floats are checked here, in the same program).

    Examples
    --------
    >>> import jax, jax.numpy as jnp
    >>> def search_part(q, part, k):
    ...     return jax.lax.top_k(q @ part.T, k)
    >>> items = jnp.eye(4, dtype=jnp.float32)  # one device: nothing to do here
    >>> sharded_search(search_part, items[:1], items, 1, jax.devices()[0]) is None
    True
    """
    names = row_axes(items)
    if names is None:
        return None
    mesh = items.sharding.mesh
    n, d = (int(s) for s in items.shape)
    batch = tuple(queries.shape[:-1])
    q = jnp.reshape(queries, (-1, d))
    k_out = min(int(k), n)
    inexact = jnp.issubdtype(items.dtype, jnp.inexact)
    program = _program(search_part, q, items, mesh, names, int(k), bool(inexact))
    best, idx, ok = program(replicated(q, mesh), items)
    if inexact and not int(_on(ok, device)):
        # an error path: the caller's own checks name the rows, shard by shard (items
        # first, as a search of one array checks them), with each shard's first row
        for shard in sorted(items.addressable_shards, key=lambda sh: sh.index[0].start or 0):
            search_part(q, jax.device_put(shard.data, device), k, shard.index[0].start or 0)
        raise _finite_error("queries", _bad_rows(replicated(q, mesh), mesh))
    best, idx = _on(best, device), _on(idx, device)
    return jnp.reshape(best, (*batch, k_out)), jnp.reshape(idx, (*batch, k_out))


def shard_rows(x: Any, mesh: Any, axis_name: str) -> Any:
    """``x`` split by rows over the devices of ``mesh`` axis ``axis_name`` (see
    :func:`holovec.retrieval.shard_rows`, which checks and documents it)."""
    if not isinstance(axis_name, str):
        raise TypeError(f"axis_name must be the name (a str) of a mesh axis, got {axis_name!r}")
    if mesh is None:
        mesh = Mesh(np.array(jax.devices()), (axis_name,))
    elif not isinstance(mesh, Mesh):
        raise TypeError(f"mesh must be a jax.sharding.Mesh, got {type(mesh).__name__}")
    if axis_name not in mesh.axis_names:
        raise ValueError(f"mesh has no axis {axis_name!r}; its axes are {tuple(mesh.axis_names)}")
    shape = tuple(getattr(x, "shape", np.shape(x)))
    if len(shape) != 2:
        raise ValueError(f"x must be a codebook of shape (n, vector_length), got shape {shape}")
    size = int(mesh.shape[axis_name])
    if shape[0] % size:
        raise ValueError(
            f"cannot split {shape[0]} rows evenly over the {size} devices of mesh axis "
            f"{axis_name!r} (JAX shards are equal, and padding rows would be searched as items): "
            f"give a multiple of {size} rows, or a mesh of a number of devices that divides {shape[0]}"
        )
    sharding = NamedSharding(mesh, P(axis_name, None))
    if sharding.is_fully_addressable:
        return jax.device_put(x, sharding)
    # several processes (jax.distributed): each one places the rows of its own devices
    host = np.asarray(x)
    return jax.make_array_from_callback(shape, sharding, lambda index: host[index])
