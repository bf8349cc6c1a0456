"""scikit-learn is an optional dependency: imported here, with a clear message when missing."""

from __future__ import annotations

try:
    import sklearn  # noqa: F401
except ImportError as e:  # pragma: no cover - the test set-up installs it
    raise ImportError(
        "holovec.learn needs scikit-learn (>= 1.6): install this repository with the learn extra, "
        "for example `pip install -e '.[learn]'`"
    ) from e
