"""pytest runs the ``>>>`` examples of the pages as doctests; not the build's files."""

collect_ignore_glob = ["_build/*", "examples/*", "api/generated/*", "_ext/*", "_inventories/*", "conf.py"]
