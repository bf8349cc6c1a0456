"""``python -m holovec``: the records-and-analogy demo (see :mod:`holovec.demo`; ``--help``)."""

from .demo import main

if __name__ == "__main__":
    raise SystemExit(main(prog="python -m holovec"))
