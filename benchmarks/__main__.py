"""``python -m benchmarks [--sections ...] [--backend numpy|torch|jax|all] ...``"""

if __name__ == "__main__":
    from .cli import main

    raise SystemExit(main())
