"""Checks of the sharded JAX search, run in a subprocess with several emulated CPU devices.

``python tests/_jax_sharded_worker.py`` sets ``XLA_FLAGS`` for 4 CPU devices (JAX in the
test process already has 1), runs every check of :data:`CHECKS` and prints one JSON line per
check: ``{"check": name, "ok": bool, "detail": str}``.

``python tests/_jax_sharded_worker.py multihost PORT PROCESS_ID`` is one of two processes of
a ``jax.distributed`` job on localhost (2 CPU devices each); it prints ``{"multihost": ...}``.

Importing this module imports neither jax nor holovec's backends (pytest imports it for
doctests and for the names of the checks).
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from collections.abc import Callable
from typing import Any

#: (model, dim): FHRR and HRR are continuous, MAP and BSC discrete with many exact ties
MODELS = [("FHRR", 64), ("HRR", 64), ("MAP", 16), ("BSC", 8)]
#: k below, equal to and above the rows per device (12) and above n (48)
KS = [1, 12, 20, 60]

CHECKS = [
    *(f"equal_numpy_{name}" for name, _ in MODELS),
    "query_shapes",
    "meshes",
    "no_score_matrix",
    "compiled_once",
    "bad_input",
    "non_finite",
    "replicated_codebook",
    "cleanup_on_devices",
]


def _setup() -> None:
    os.environ["XLA_FLAGS"] = (
        os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=4"
    ).strip()
    os.environ["JAX_PLATFORMS"] = "cpu"
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sys.path.insert(0, root)


def _data(name: str, dim: int, n_q: int = 10) -> tuple[Any, Any, Any]:
    """NumPy model, items (48 rows: 40 random, then 8 repeats, so that equal scores are
    exact), queries (random ones and copies of items)."""
    import numpy as np

    from holovec import VSA

    model = VSA.create(name, dim=dim, backend="numpy")
    items = model.random(40, seed=1)
    items = np.concatenate([items, items[3:7], items[3:7]])
    queries = np.concatenate([model.random(n_q - 3, seed=2), items[[3, 40, 47]]])
    return model, items, queries


def _compare(name: str, got: tuple[Any, Any], want: tuple[Any, Any], exact: bool) -> None:
    import numpy as np

    s, i = (np.asarray(a) for a in got)
    ws, wi = want
    assert s.shape == ws.shape and i.shape == wi.shape, (name, s.shape, ws.shape)
    if exact:
        assert np.array_equal(s, ws), (name, s, ws)
        assert np.array_equal(i, wi), (name, i, wi)
        return
    assert np.max(np.abs(s - ws), initial=0.0) <= 1e-6, name
    # indices agree except among scores within rounding of each other (near-ties)
    gaps = np.abs(ws[..., :, None] - ws[..., None, :])
    near = ((gaps <= 1e-6) & ~np.eye(ws.shape[-1], dtype=bool)).any(axis=-1)
    assert np.array_equal(np.where(near, -1, i), np.where(near, -1, wi)), (name, i, wi)


def check_equal_numpy(name: str, dim: int) -> str:
    import jax
    import numpy as np

    from holovec import VSA
    from holovec.retrieval import search, shard_rows

    np_model, items, queries = _data(name, dim)
    model = VSA.create(name, dim=dim, backend="jax")
    book = shard_rows(model.asarray(items))
    assert len(book.sharding.device_set) == 4
    one_device = model.asarray(items)
    q = model.asarray(queries)
    exact = name in ("MAP", "BSC")
    ties = 0
    for k in KS:
        want = search(np_model, queries, items, k)
        got = search(model, q, book, k)
        assert got[0].sharding == jax.sharding.SingleDeviceSharding(model.backend.device)
        _compare(f"{name} k={k}", got, want, exact)
        # the sharded search equals the search of the array on one device bit for bit
        _compare(f"{name} k={k} one device", got, search(model, q, one_device, k), exact=True)
        ws = want[0]
        ties += int(np.sum(ws[:, 1:] == ws[:, :-1]))
    assert ties > 20, f"too few exact ties to test their order: {ties}"
    return f"{len(KS)} values of k, {ties} exact ties"


def check_query_shapes() -> str:
    import numpy as np

    from holovec import VSA
    from holovec.retrieval import search, shard_rows

    np_model, items, queries = _data("MAP", 16, n_q=6)
    model = VSA.create("MAP", dim=16, backend="jax")
    book = shard_rows(model.asarray(items))
    cases = {
        "one vector": queries[0],
        "batch (2, 3)": queries.reshape(2, 3, -1),
        "no queries": queries[:0],
    }
    for what, qs in cases.items():
        got = search(model, model.asarray(qs), book, 7)
        want = search(np_model, qs, items, 7)
        _compare(what, got, want, exact=True)
        assert np.asarray(got[1]).dtype == np.int32, np.asarray(got[1]).dtype
    return ", ".join(cases)


def check_meshes() -> str:
    import jax
    import numpy as np
    from jax.sharding import Mesh, NamedSharding
    from jax.sharding import PartitionSpec as P

    from holovec import VSA
    from holovec.retrieval import search, shard_rows

    np_model, items, queries = _data("BSC", 8)
    model = VSA.create("BSC", dim=8, backend="jax")
    x, q = model.asarray(items), model.asarray(queries)
    grid = Mesh(np.array(jax.devices()).reshape(2, 2), ("a", "b"))
    books = {
        "rows over axis a of a 2x2 mesh, replicated over b": shard_rows(x, grid, axis_name="a"),
        "rows over both axes of a 2x2 mesh": jax.device_put(x, NamedSharding(grid, P(("a", "b"), None))),
        "explicit axis type (jax.make_mesh)": shard_rows(x, jax.make_mesh((4,), ("rows",)), "rows"),
        "two of four devices": shard_rows(x, Mesh(np.array(jax.devices()[:2]), ("rows",))),
    }
    for what, book in books.items():
        for k in (1, 13, 30):
            _compare(f"{what} k={k}", search(model, q, book, k), search(np_model, queries, items, k), True)
    return "; ".join(books)


def _compiled_text(program: Callable, *args: Any) -> str:
    return program.lower(*args).compile().as_text()


def check_no_score_matrix() -> str:
    import re

    import numpy as np

    from holovec import VSA
    from holovec.kernels import jax_sharded
    from holovec.retrieval import search, shard_rows
    from holovec.retrieval._refine import _first_candidates

    # 200 items, 50 per device: more than the candidates a device sends, so that the
    # gathered candidates (4 devices x kk) cannot have the score matrix's shape
    model = VSA.create("FHRR", dim=64, backend="jax")
    items = VSA.create("FHRR", dim=64).random(200, seed=1)
    queries = np.asarray(VSA.create("FHRR", dim=64).random(10, seed=2))
    book = shard_rows(model.asarray(items))
    q = model.asarray(queries)
    search(model, q, book, 5)
    program = next(reversed(jax_sharded._programs.values()))
    text = _compiled_text(program, jax_sharded.replicated(q, book.sharding.mesh), book)
    gathers = re.findall(r"= (\w+\[[\d,]*\])[^\n]*? all-gather\(", text)
    assert gathers, "no all-gather in the compiled program"
    # every device sends its 10 queries' candidates: the top 5 and the few more that the
    # canonical order checks (holovec.retrieval._refine)
    kk = _first_candidates(5, 200)
    assert all(g.endswith(f"[4,10,{kk}]") for g in gathers), gathers
    # no value of the score matrix's shape (10 queries x 200 items) anywhere
    assert not re.search(r"\[10,200\]", text), "a full score matrix (10, 200) in the compiled program"
    assert "[10,50]" in text, "the per-device scores (10, 50) were expected in the program"
    return f"all-gathers {sorted(set(gathers))}"


def check_compiled_once() -> str:
    from holovec import VSA
    from holovec.kernels import jax_sharded
    from holovec.retrieval import search, shard_rows

    _, items, queries = _data("MAP", 16)
    model = VSA.create("MAP", dim=16, backend="jax")
    book = shard_rows(model.asarray(items))
    q = model.asarray(queries)
    jax_sharded._programs.clear()
    search(model, q, book, 3)
    before = len(jax_sharded._programs)
    program = next(reversed(jax_sharded._programs.values()))
    misses = program._cache_size()
    for _ in range(3):
        search(model, q, book, 3)
    assert len(jax_sharded._programs) == before, "a new program for the same search"
    assert program._cache_size() == misses, "the program was compiled again"
    search(model, q, book, 4)  # another k: another program
    assert len(jax_sharded._programs) == before + 1
    return "one program per (shapes, k, mesh)"


def _raises(fn: Callable, words: tuple[str, ...]) -> str:
    try:
        fn()
    except ValueError as e:
        message = str(e)
        assert all(w in message for w in words), (message, words)
        return message
    raise AssertionError(f"no ValueError (expected one naming {words})")


def check_bad_input() -> str:
    import jax
    import numpy as np
    from jax.sharding import Mesh, NamedSharding
    from jax.sharding import PartitionSpec as P

    from holovec import VSA
    from holovec.retrieval import search, shard_rows

    model = VSA.create("MAP", dim=16, backend="jax")
    x = model.random(48, seed=1)
    mesh = Mesh(np.array(jax.devices()), ("rows",))
    by_columns = jax.device_put(x, NamedSharding(mesh, P(None, "rows")))
    messages = [
        _raises(lambda: search(model, x[0], by_columns, 1), ("vector axis", "shard_rows")),
        _raises(lambda: shard_rows(model.random(10, seed=1)), ("10 rows", "4 devices", "multiple of 4")),
        _raises(lambda: shard_rows(x, mesh, axis_name="cols"), ("no axis 'cols'",)),
        _raises(lambda: shard_rows(x[0]), ("(n, vector_length)",)),
    ]
    return " | ".join(m[:60] for m in messages)


def check_non_finite() -> str:
    import jax
    import numpy as np

    from holovec import VSA
    from holovec.retrieval import search, shard_rows

    model = VSA.create("HRR", dim=16, backend="jax")
    items = np.array(model.random(48, seed=1))
    items[30, 2] = np.nan
    bad_items = shard_rows(items)  # model.asarray would refuse it
    good = shard_rows(model.random(48, seed=1))
    q = np.array(model.random(3, seed=2))
    q[1, 0] = np.inf
    return " | ".join(
        [
            _raises(lambda: search(model, model.random(2, seed=2), bad_items, 2), ("items", "row 30", "NaN")),
            _raises(lambda: search(model, jax.device_put(q), good, 2), ("queries", "row 1", "infinity")),
        ]
    )


def _replicated_over_all(x: Any) -> Any:
    import jax
    import numpy as np
    from jax.sharding import Mesh, NamedSharding
    from jax.sharding import PartitionSpec as P

    return jax.device_put(x, NamedSharding(Mesh(np.array(jax.devices()), ("rows",)), P()))


def check_replicated_codebook() -> str:
    """A codebook (and queries) replicated over the 4 devices: searched as the copy on the
    model's device (XLA raised "incompatible devices" before)."""
    import jax

    from holovec import VSA
    from holovec.retrieval import ItemStore, search, shard_rows

    single = jax.sharding.SingleDeviceSharding(jax.devices()[0])
    for name, dim in (("MAP", 16), ("HRR", 64)):
        np_model, items, queries = _data(name, dim)
        model = VSA.create(name, dim=dim, backend="jax")
        book, q = _replicated_over_all(model.asarray(items)), model.asarray(queries)
        assert len(book.sharding.device_set) == 4 and book.sharding.is_fully_replicated
        exact = name == "MAP"
        for k in (1, 5):
            want = search(np_model, queries, items, k)
            got = search(model, q, book, k)
            assert got[0].sharding == single and got[1].sharding == single, got[0].sharding
            _compare(f"{name} search k={k}", got, want, exact)
            _compare(f"{name} store k={k}", ItemStore(model).fit(book).search(q, k), want, exact)
            # replicated queries, against a replicated and a sharded codebook
            _compare(
                f"{name} replicated queries k={k}",
                search(model, _replicated_over_all(q), book, k),
                want,
                exact,
            )
            sharded = shard_rows(model.asarray(items))
            _compare(f"{name} sharded k={k}", search(model, _replicated_over_all(q), sharded, k), want, exact)
    return "search, ItemStore, replicated queries: equal to NumPy, results on the model's device"


def check_cleanup_on_devices() -> str:
    """cleanup (hard and soft) against a codebook sharded by rows or replicated equals
    cleanup against the same codebook on one device."""
    import jax
    import numpy as np

    from holovec import VSA
    from holovec.retrieval import cleanup, shard_rows

    single = jax.sharding.SingleDeviceSharding(jax.devices()[0])
    for name, dim in (("MAP", 16), ("HRR", 64), ("FHRR", 64)):
        _, items, queries = _data(name, dim)
        model = VSA.create(name, dim=dim, backend="jax")
        one = model.asarray(items)
        noisy = model.asarray(queries)
        books = {"sharded": shard_rows(one), "replicated": _replicated_over_all(one)}
        for soft in (False, True):
            want = np.asarray(cleanup(model, noisy, one, soft=soft))
            for what, book in books.items():
                got = cleanup(model, noisy, book, soft=soft)
                assert got.sharding == single, (name, what, soft, got.sharding)
                if soft:  # sums over devices: rounding may differ
                    assert np.allclose(np.asarray(got), want, atol=1e-5), (name, what)
                else:
                    assert np.array_equal(np.asarray(got), want), (name, what)
    return "MAP, HRR, FHRR: hard and soft, sharded and replicated"


def run_checks() -> None:
    _setup()
    runs: dict[str, Callable[[], str]] = {
        **{f"equal_numpy_{n}": (lambda n=n, d=d: check_equal_numpy(n, d)) for n, d in MODELS},
        "query_shapes": check_query_shapes,
        "meshes": check_meshes,
        "no_score_matrix": check_no_score_matrix,
        "compiled_once": check_compiled_once,
        "bad_input": check_bad_input,
        "non_finite": check_non_finite,
        "replicated_codebook": check_replicated_codebook,
        "cleanup_on_devices": check_cleanup_on_devices,
    }
    assert list(runs) == CHECKS
    for name, fn in runs.items():
        try:
            detail, ok = fn(), True
        except Exception:
            detail, ok = traceback.format_exc(), False
        print(json.dumps({"check": name, "ok": ok, "detail": detail}), flush=True)


def run_multihost(port: int, process_id: int) -> None:
    """One of two processes: a codebook over 4 devices of 2 processes, searched by both."""
    os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"
    os.environ["JAX_PLATFORMS"] = "cpu"
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import jax

    jax.config.update("jax_cpu_collectives_implementation", "gloo")
    jax.distributed.initialize(
        coordinator_address=f"localhost:{port}", num_processes=2, process_id=process_id
    )
    from holovec import VSA
    from holovec.retrieval import search, shard_rows

    assert jax.process_count() == 2 and len(jax.devices()) == 4 and len(jax.local_devices()) == 2
    results = {}
    for name, dim in (("MAP", 16), ("FHRR", 64)):
        np_model, items, queries = _data(name, dim)
        model = VSA.create(name, dim=dim, backend="jax", device=jax.local_devices()[0])
        book = shard_rows(items)  # every device of both processes, each placing its own rows
        assert not book.is_fully_addressable
        for k in (1, 5, 20):
            got = search(model, model.asarray(queries), book, k)
            _compare(f"{name} k={k}", got, search(np_model, queries, items, k), name == "MAP")
        results[name] = "equal"
    print(json.dumps({"multihost": process_id, "results": results}), flush=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["multihost"]:
        run_multihost(int(sys.argv[2]), int(sys.argv[3]))
    else:
        run_checks()
