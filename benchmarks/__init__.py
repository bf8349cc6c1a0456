"""holovec's benchmarks: ``python -m benchmarks --help`` from the repository root.

Each row times one operation of one model three ways: through holovec, through a
hand-written vectorised baseline on the same backend and dtype, and through
torchhd where it imports. See ``benchmarks/README.md``.

Modules: ``cli`` (options, output), ``cases`` (the operations and the run),
``implementations`` (holovec, baseline and torchhd behind one interface),
``baselines`` (the hand-written code, one module per backend), ``torchhd_ops``,
``timing``, ``sizes``, ``machine`` (where the numbers come from), ``report`` (tables, JSON).
"""
