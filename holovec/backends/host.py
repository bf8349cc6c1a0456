"""The host machine: its usable cores, one thread pool for the process, and the memory a
process may still allocate.

Shared by the backends whose kernels run on the host CPU (NumPy's, and torch's and JAX's on
the CPU): the pool runs NumPy's single-core kernels on every core (they release the GIL),
and :func:`host_available_memory` sizes allocations on the host
(``Backend.available_memory``).
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

__all__ = ["host_available_memory", "thread_pool", "usable_cores"]


def usable_cores() -> int:
    """The CPU cores this process may run on (its affinity mask where the system has one)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


def thread_pool() -> ThreadPoolExecutor:
    """One pool for the process, a thread per usable core (made on first use): every host
    kernel that splits its work over the cores shares it, so that they never start more
    threads than cores between them."""
    global _POOL
    with _POOL_LOCK:  # two threads' first calls must not make two pools
        if _POOL is None:
            _POOL = ThreadPoolExecutor(max_workers=usable_cores(), thread_name_prefix="holovec")
    return _POOL


def host_available_memory() -> int | None:
    """Bytes of host memory that this process can still allocate, or ``None`` (unknown).

    The least of: the memory the operating system reports available (on Linux
    ``MemAvailable`` in ``/proc/meminfo``, RAM that can be had without swapping, plus free
    swap; else the free physical pages, ``os.sysconf``); the headroom under the process's
    address-space limit (``RLIMIT_AS``, ``ulimit -v``: the limit less the address space in
    use); and the headroom under the memory limits of its control group and the groups
    above it (cgroup v2 ``memory.max`` less ``memory.current``, v1
    ``memory.limit_in_bytes`` less ``memory.usage_in_bytes``; the kernel reclaims the
    group's inactive file cache before it refuses, so that counts as free). A container
    or job limit is then honoured, not only the machine's free memory."""
    estimates = (_system_available(), _address_space_headroom(), _cgroup_headroom())
    known = [free for free in estimates if free is not None]
    return min(known) if known else None


def _system_available() -> int | None:
    """The memory the operating system reports available to any process (see above)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            fields = dict(line.split(":", 1) for line in f if ":" in line)
        kib = int(fields["MemAvailable"].split()[0]) + int(fields.get("SwapFree", "0 kB").split()[0])
        return kib * 1024
    except (OSError, KeyError, ValueError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, OSError, ValueError):
        return None


def _address_space_headroom() -> int | None:
    """``RLIMIT_AS`` less the address space the process maps now (``/proc/self/statm``);
    ``None`` without a limit (or on systems without ``resource``)."""
    try:
        import resource
    except ImportError:  # Windows
        return None
    limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    if limit == resource.RLIM_INFINITY or limit < 0:
        return None
    try:
        with open("/proc/self/statm", encoding="ascii") as f:
            in_use = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError, AttributeError):
        in_use = 0  # unknown: the limit itself bounds what can be had
    return max(0, limit - in_use)


#: where the kernel lists the control groups of this process, and where it mounts them
_PROC_CGROUP = "/proc/self/cgroup"
_CGROUP_MOUNT = "/sys/fs/cgroup"
#: per cgroup version: the file of the memory limit, of the memory in use, and the key of
#: ``memory.stat`` that counts reclaimable file cache
_CGROUP_FILES = {
    2: ("memory.max", "memory.current", "inactive_file"),
    1: ("memory.limit_in_bytes", "memory.usage_in_bytes", "total_inactive_file"),
}
#: a v1 limit this large means "no limit" (the kernel reports 2**63 rounded down to a page)
_NO_CGROUP_LIMIT = 2**60


def _cgroup_headroom() -> int | None:
    """The least headroom under the memory limits of this process's control group and its
    ancestors (cgroup v2, or v1's memory controller); ``None`` where no limit is set or
    cgroups cannot be read (not Linux)."""
    heads = [_headroom_in(version, folder) for version, folder in _cgroup_folders()]
    known = [head for head in heads if head is not None]
    return min(known) if known else None


def _cgroup_folders() -> list[tuple[int, str]]:
    """``(version, folder)`` of this process's memory cgroup and each ancestor up to the
    mount's root, from ``/proc/self/cgroup`` (a folder missing under the mount, as in a
    container without its own cgroup namespace, falls back to the mount's root)."""
    try:
        with open(_PROC_CGROUP, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError:
        return []
    folders = []
    for line in lines:
        hierarchy, _, rest = line.partition(":")
        controllers, _, path = rest.partition(":")
        if hierarchy == "0" and controllers == "":  # the v2 (unified) hierarchy
            mounts = [(2, _CGROUP_MOUNT), (2, os.path.join(_CGROUP_MOUNT, "unified"))]
        elif "memory" in controllers.split(","):
            mounts = [(1, os.path.join(_CGROUP_MOUNT, "memory"))]
        else:
            continue
        for version, mount in mounts:
            if os.path.isfile(os.path.join(mount, "cgroup.procs")):  # a cgroup file system is mounted
                folders += _ancestors(version, mount, path)
    return folders


def _ancestors(version: int, mount: str, path: str) -> list[tuple[int, str]]:
    """The folder of cgroup ``path`` under ``mount`` and its parents up to ``mount``."""
    folder = os.path.normpath(os.path.join(mount, path.lstrip("/")))
    if not os.path.isdir(folder) or not folder.startswith(mount):
        folder = mount
    chain = [(version, folder)]
    while folder != mount:
        folder = os.path.dirname(folder)
        chain.append((version, folder))
    return chain


def _headroom_in(version: int, folder: str) -> int | None:
    """The limit less the memory in use (less its reclaimable file cache) of one cgroup
    folder; ``None`` where it sets no limit or has no memory files."""
    limit_file, usage_file, cache_key = _CGROUP_FILES[version]
    try:
        with open(os.path.join(folder, limit_file), encoding="ascii") as f:
            text = f.read().strip()
        if text == "max":
            return None
        limit = int(text)
        with open(os.path.join(folder, usage_file), encoding="ascii") as f:
            usage = int(f.read().strip())
    except (OSError, ValueError):
        return None
    if limit >= _NO_CGROUP_LIMIT:
        return None
    return max(0, limit - usage + _reclaimable_cache(folder, cache_key))


def _reclaimable_cache(folder: str, key: str) -> int:
    """The group's inactive file cache (``memory.stat``), which the kernel reclaims before
    it refuses memory; 0 where it cannot be read."""
    try:
        with open(os.path.join(folder, "memory.stat"), encoding="ascii") as f:
            for line in f:
                name, _, value = line.partition(" ")
                if name == key:
                    return int(value)
    except (OSError, ValueError):
        pass
    return 0
