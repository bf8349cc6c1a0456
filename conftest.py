"""Collection rules for the whole repository (tests, the package's doctests, the docs' pages).

holovec.learn needs scikit-learn, an optional dependency: where it is missing (tox's
per-backend environments install only the test extra), the learn package's doctests and
the page about it are not collected, as the learn tests skip themselves. So with the
backends' modules of a framework that is not installed (their names carry the framework's).
"""

import importlib.util

collect_ignore_glob = []
if importlib.util.find_spec("sklearn") is None:
    collect_ignore_glob += [
        "holovec/learn/*",
        "docs/user-guide/learning-from-data.rst",
        "holovec/datasets/_offline.py",
    ]
# holovec.plot's examples draw (the plot extra) and one fits a learner (the learn extra)
if importlib.util.find_spec("matplotlib") is None or importlib.util.find_spec("sklearn") is None:
    collect_ignore_glob += ["holovec/plot.py", "docs/api/plot.rst"]
# backend="dask" (the dask extra): its modules import dask, so their doctests need it
if importlib.util.find_spec("dask") is None:
    collect_ignore_glob += [
        "holovec/backends/*dask*",  # dask_backend.py, _dask_*.py, kernels/dask_*.py
        "docs/user-guide/scaling-out.rst",
    ]
# backend="torch" / "jax" (their extras): the modules that import the framework
for _framework in ("torch", "jax"):
    if importlib.util.find_spec(_framework) is None:
        collect_ignore_glob += [f"holovec/backends/*{_framework}*"]
