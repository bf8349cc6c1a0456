"""``python -m benchmarks [--backend numpy|torch|jax|all] [--models FHRR,MAP,BSC] ...``"""

from .cli import main

raise SystemExit(main())
