"""holovec's benchmarks: ``python -m benchmarks --help`` from the repository root.

Each row times one operation of one model several ways: through holovec, through a
hand-written vectorised baseline on the same backend and dtype, and through the best peer
installed (torchhd, faiss, numba, ``torch.compile``). See ``benchmarks/README.md``.

Every section (``sections``: ops, encoders, retrieval, learn and the study sections) makes
rows of one type (``rows.Row``), timed by one function (``timing.measure``), printed by one
renderer (``tables``) and saved by one JSON writer (``results``); ``compare`` sets two
saved runs side by side.

Modules: ``cli`` (options, the run), ``_args`` (the option types, checked before anything
runs), ``sections`` (every section), ``cases`` (the ops rows), ``implementations``
(holovec, baseline and torchhd behind one interface), ``baselines`` (the hand-written code,
one module per backend), ``torchhd_ops``, ``encoders``, ``retrieval``, ``learn``, and one
module per study section (``canonical_order``, ``search_engines``, ``jax_eager``,
``compiled``, ``jax_sharded``, ``dask_scaling``), ``device_table`` and
``device_baselines`` (``--device``), ``timing``, ``sizes``, ``machine`` (where the numbers
come from), ``rows``, ``columns``, ``tables``, ``results``, ``compare``.
"""
