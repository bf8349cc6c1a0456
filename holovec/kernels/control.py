"""Control flow that a compiler can keep in one program: a branch on a 0-d predicate, a
loop of a fixed count, and a loop until a condition (Python's own where ops run eagerly,
JAX's ``lax`` primitives where they compile)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._dispatch import kernel


@kernel
def cond(backend: Any, pred: Any, shortcut: Callable[[], Any], general: Callable[[], Any]) -> Any:
    """``shortcut()`` where the 0-d boolean ``pred`` holds, else ``general()``: for a
    ``general`` that is always right and a ``shortcut`` that gives the same where ``pred``
    holds, only faster. ``pred`` is read where it can be; where it cannot (a trace, a lazy
    graph) this generic version takes ``general``, and JAX branches inside its compiled
    program (``jax.lax.cond``: one branch runs).

    Parameters
    ----------
    backend : Backend
        The predicate's backend.
    pred : array
        A 0-d boolean.
    shortcut : callable
        The fast branch, right where ``pred`` holds.
    general : callable
        The branch that is always right.

    Returns
    -------
    Any
        The branch's result.
    """
    if backend.lazy or backend.is_traced(pred):
        return general()
    return shortcut() if bool(pred) else general()


@kernel
def repeat(backend: Any, fn: Callable, state: Any, times: int) -> Any:
    """``fn`` applied ``times`` times to ``state`` (a Python loop; JAX compiles one).

    Parameters
    ----------
    backend : Backend
        The state's backend.
    fn : callable
        ``fn(state) -> state``.
    state : Any
        The first state (a pytree of arrays on JAX).
    times : int
        How many times.

    Returns
    -------
    Any
        The last state.
    """
    for _ in range(times):
        state = fn(state)
    return state


@kernel
def while_loop(backend: Any, cond: Callable[[Any], Any], body: Callable[[Any], Any], state: Any) -> Any:
    """``body`` applied to ``state`` while ``cond(state)`` (a 0-d boolean) holds: a Python loop
    that reads ``cond`` each time; JAX compiles one loop (``jax.lax.while_loop``: ``state``
    is a pytree of arrays whose shapes and dtypes ``body`` keeps), so that an iteration until
    convergence is one program, with no read back per iteration.

    Parameters
    ----------
    backend : Backend
        The state's backend.
    cond : callable
        ``cond(state) -> 0-d bool``.
    body : callable
        ``body(state) -> state``.
    state : Any
        The first state.

    Returns
    -------
    Any
        The last state.
    """
    while bool(cond(state)):
        state = body(state)
    return state


@cond.register("jax")
def _jax_cond(backend: Any, pred: Any, shortcut: Callable[[], Any], general: Callable[[], Any]) -> Any:
    if backend.is_traced(pred):
        import jax

        return jax.lax.cond(pred, shortcut, general)
    return cond.generic(backend, pred, shortcut, general)


@repeat.register("jax")
def _jax_repeat(backend: Any, fn: Callable, state: Any, times: int) -> Any:
    import jax

    return jax.lax.fori_loop(0, times, lambda _, s: fn(s), state)


@while_loop.register("jax")
def _jax_while_loop(backend: Any, cond: Callable[[Any], Any], body: Callable[[Any], Any], state: Any) -> Any:
    import jax

    return jax.lax.while_loop(cond, body, state)
