"""JAX programs that call back into Python finish before the interpreter does.

On the CPU, holovec's compiled draws take their random words from NumPy's Philox through a
host callback (the JAX version of :func:`holovec.kernels.draws.philox_words_of`). JAX
dispatches programs asynchronously, so
such a program may still be queued when a script ends. If its callback starts while the
interpreter finalises, the XLA thread running it cannot take the GIL, CPython unwinds it,
and the unwinding releases a GIL it never held: "Fatal Python error: PyGILState_Release",
exit status 134, after every result was printed. JAX's own exit handler waits for the
runtime token of the last program with callbacks only; on the CPU that token can be ready
before earlier programs ran (measured with jax 0.10.2: a draw queued behind a bundle was
not ready after the wait), so it does not prevent this.

So holovec keeps a one-element marker of each draw it dispatches (computed from the draw's
output, hence ready only once the draw's program ran) and, at exit, before JAX's handlers
(``atexit`` runs the last registered first; this module imports jax before it registers),
waits for those markers and for every array still alive, which covers the user's own
compiled programs that draw. Markers of finished draws are dropped at each new draw, so
the list stays short and holds no draw's memory.
"""

from __future__ import annotations

import atexit
import threading
from typing import Any

import jax
import jax.numpy as jnp

_markers: list[Any] = []
_lock = threading.Lock()


@jax.jit
def _marker(x: Any) -> Any:
    """One element of ``x`` (none if ``x`` is empty): ready once ``x`` is."""
    return jnp.ravel(x)[:1]


def finish_before_exit(result: Any) -> Any:
    """``result``, whose program (dispatched, maybe still queued) is waited for at exit."""
    leaves = [leaf for leaf in jax.tree_util.tree_leaves(result) if isinstance(leaf, jax.Array)]
    if not leaves or isinstance(leaves[0], jax.core.Tracer):
        return result
    marker = _marker(leaves[0])
    with _lock:
        _markers[:] = [m for m in _markers if not m.is_ready()]
        _markers.append(marker)
    return result


def _wait_for_programs() -> None:
    with _lock:
        pending = list(_markers)
        _markers.clear()
    for array in [*pending, *jax.live_arrays()]:
        try:
            array.block_until_ready()
        except Exception:  # a failed or deleted program has nothing left to run
            pass


atexit.register(_wait_for_programs)
