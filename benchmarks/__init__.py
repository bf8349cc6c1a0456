"""holovec's benchmarks: ``python -m benchmarks --help`` from the repository root.

Each row times one operation of one model three ways: through holovec, through a
hand-written vectorised baseline on the same backend and dtype, and through
torchhd where it imports. See ``benchmarks/README.md``.

Every section (ops, encoders, retrieval) makes rows of one type (``rows.Row``), printed by
one renderer (``tables``, with each section's columns in ``sections``) and saved by one JSON
writer (``results``); ``compare`` sets two saved runs side by side.

Modules: ``cli`` (options, output), ``_args`` (the option types every command checks its
options with, before anything runs), ``cases`` (the operations and the run),
``implementations`` (holovec, baseline and torchhd behind one interface),
``baselines`` (the hand-written code, one module per backend), ``torchhd_ops``,
``encoders`` and ``retrieval`` (their sections), ``timing``, ``sizes``, ``machine`` (where
the numbers come from), ``rows``, ``columns``, ``tables``, ``sections``, ``results``,
``legacy`` (results of format 1), ``compare``, ``names``.
"""
