"""Hypothesis settings of the fuzz suites.

CI runs a few derandomised examples per property (seconds); set ``HOLOVEC_FUZZ=long``
for a long local run (many random examples, new each run)::

    HOLOVEC_FUZZ=long python -m pytest tests/fuzz -n 0
"""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import HealthCheck, Phase, settings

import holovec

_COMMON = {
    "deadline": None,
    "suppress_health_check": [HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
}
LONG = os.environ.get("HOLOVEC_FUZZ") == "long"
FUZZ = settings(derandomize=not LONG, max_examples=2000 if LONG else 25, **_COMMON)
#: for a property marked ``xfail`` (failures known and reported): no shrinking, which would
#: spend minutes of every run minimising a failure already known
KNOWN_FAILURES = settings(FUZZ, phases=[Phase.explicit, Phase.reuse, Phase.generate])


def is_clear_error(err: BaseException, checkers: tuple[Path, ...] = ()) -> bool:
    """A ``TypeError`` or ``ValueError`` (or holovec's own subclass of one) raised by holovec
    itself (or by the input checks in ``checkers``, folders of source): not a framework's
    own subclass, nor one raised deep inside NumPy."""
    if not isinstance(err, (TypeError, ValueError)):
        return False
    if type(err) not in (TypeError, ValueError) and not type(err).__module__.startswith("holovec"):
        return False  # a framework's own subclass
    tb = err.__traceback__
    last, through_checker = None, False
    while tb is not None:
        last = tb
        where = Path(tb.tb_frame.f_code.co_filename).resolve()
        # scikit-learn's checks let the conversion's own error through by design
        # (check_array of a frame of strings: pandas' "could not convert string to float")
        through_checker = through_checker or any(where.is_relative_to(folder) for folder in checkers)
        tb = tb.tb_next
    if last is None:
        return False
    source = Path(last.tb_frame.f_code.co_filename).resolve()
    return through_checker or any(source.is_relative_to(folder) for folder in (_PACKAGE, *checkers))


_PACKAGE = Path(holovec.__file__).resolve().parent


def outcome(call, checkers: tuple[Path, ...] = ()):
    """``(True, result)`` or ``(False, error)``; any error that is not a clear holovec
    ``TypeError``/``ValueError`` (or one of ``checkers``, see :func:`is_clear_error`) fails
    the test."""
    try:
        return True, call()
    except Exception as err:
        if not is_clear_error(err, checkers):
            raise AssertionError(f"a raw {type(err).__name__} escaped: {err!r}") from err
        return False, err


def sklearn_checks() -> tuple[Path, ...]:
    """scikit-learn's input checks (``sklearn.utils``: ``validate_data``,
    ``check_classification_targets``, ...), whose messages holovec.learn keeps by design
    (scikit-learn's conventions): for :func:`outcome`'s ``checkers``."""
    import sklearn.utils

    return (Path(sklearn.utils.__file__).resolve().parent,)
