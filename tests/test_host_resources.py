"""The host's resources as the backends see them (holovec.backends.host): usable cores, one
thread pool for every host kernel, and the memory a process may still allocate within the
operating system's, the address space's and the control groups' limits."""

import os
import subprocess
import sys
import textwrap

import pytest

from holovec.backends import host


def test_one_thread_pool_per_process_a_thread_per_usable_core():
    pool = host.thread_pool()
    assert pool is host.thread_pool()  # shared by NumPy's chunks and the packed search
    assert pool._max_workers == host.usable_cores() >= 1
    assert list(pool.map(lambda c: c * c, range(5))) == [0, 1, 4, 9, 16]


def test_the_packed_search_uses_the_shared_pool(monkeypatch):
    np = pytest.importorskip("numpy")
    from holovec.kernels import packed_search

    used = []
    real = host.thread_pool()

    class Spy:
        def map(self, fn, parts):
            used.append(True)
            return real.map(fn, parts)

    monkeypatch.setattr(packed_search, "thread_pool", lambda: Spy())
    monkeypatch.setattr(packed_search, "usable_cores", lambda: 2)
    monkeypatch.setattr(packed_search, "accelerator", "numpy")
    rng = np.random.default_rng(0)
    q = rng.integers(0, 256, (3, 16), dtype=np.uint8)
    items = rng.integers(0, 256, (4000, 16), dtype=np.uint8)
    d, i = packed_search.hamming_top_k(q, items, 5)
    full = np.bitwise_count(q[:, None, :] ^ items[None]).sum(-1)
    expected = np.argsort(full, axis=1, kind="stable")[:, :5]
    assert used
    np.testing.assert_array_equal(i, expected)
    np.testing.assert_array_equal(d, np.take_along_axis(full, expected, 1))


def test_available_memory_honours_the_address_space_limit():
    """In a process whose address space is limited (``ulimit -v``), the memory available is
    the headroom under the limit, and a projection beyond it is an AllocationError (a raw
    MemoryError from NumPy before)."""
    pytest.importorskip("resource")
    if not os.path.exists("/proc/self/statm"):
        pytest.skip("needs /proc (Linux)")
    script = textwrap.dedent(
        """
        import os, resource
        from holovec import VSA
        from holovec.backends.host import host_available_memory
        from holovec.encoders import VectorEncoder
        from holovec.models import AllocationError
        model = VSA.create("MAP", 10_000, seed=0)
        in_use = int(open("/proc/self/statm").read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        resource.setrlimit(resource.RLIMIT_AS, (in_use + 2**29, resource.RLIM_INFINITY))
        available = host_available_memory()
        assert available <= 2**29, available
        try:
            VectorEncoder(model, 20_000, seed=1).matrix
        except AllocationError as e:
            print("refused:", e)
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "refused:" in done.stdout and "GiB available" in done.stdout


def _write(path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_available_memory_honours_cgroup_v2_limits(tmp_path, monkeypatch):
    mount = tmp_path / "cgroup"
    _write(mount / "cgroup.procs", "")
    _write(mount / "job" / "memory.max", "4294967296\n")  # the job: 4 GiB, 1 GiB in use
    _write(mount / "job" / "memory.current", "1073741824\n")
    _write(mount / "job" / "step" / "memory.max", "max\n")  # the process's own group: no limit
    _write(mount / "job" / "step" / "memory.current", "536870912\n")
    _write(mount / "job" / "memory.stat", "anon 1\ninactive_file 268435456\n")
    _write(tmp_path / "proc_cgroup", "0::/job/step\n")
    monkeypatch.setattr(host, "_PROC_CGROUP", str(tmp_path / "proc_cgroup"))
    monkeypatch.setattr(host, "_CGROUP_MOUNT", str(mount))
    assert host._cgroup_headroom() == 3 * 2**30 + 2**28  # the cache is reclaimable
    assert host.host_available_memory() <= 3 * 2**30 + 2**28


def test_available_memory_honours_cgroup_v1_limits(tmp_path, monkeypatch):
    memory = tmp_path / "cgroup" / "memory"
    _write(memory / "cgroup.procs", "")
    _write(memory / "memory.limit_in_bytes", "9223372036854771712\n")  # the root: no limit
    _write(memory / "memory.usage_in_bytes", "1\n")
    _write(memory / "box" / "memory.limit_in_bytes", "2147483648\n")
    _write(memory / "box" / "memory.usage_in_bytes", "1610612736\n")
    _write(tmp_path / "proc_cgroup", "4:memory:/box\n1:cpu:/elsewhere\n")
    monkeypatch.setattr(host, "_PROC_CGROUP", str(tmp_path / "proc_cgroup"))
    monkeypatch.setattr(host, "_CGROUP_MOUNT", str(tmp_path / "cgroup"))
    assert host._cgroup_headroom() == 2**29
    assert host.host_available_memory() <= 2**29


def test_available_memory_without_cgroup_limits(tmp_path, monkeypatch):
    monkeypatch.setattr(host, "_PROC_CGROUP", str(tmp_path / "missing"))
    assert host._cgroup_headroom() is None
    assert host.host_available_memory() is None or host.host_available_memory() > 0


def test_the_numpy_backend_reports_the_hosts_memory(monkeypatch):
    from holovec.backends import get_backend

    monkeypatch.setattr("holovec.backends.base.host_available_memory", lambda: 12345)
    assert get_backend("numpy").available_memory() == 12345
