"""Records and analogies: what is the dollar of Mexico?
====================================================

Encode records as hypervectors, then ask them questions.

Each country is a record {name, capital, currency}: every field's role vector is
bound to its filler vector, and the bound pairs are bundled into one vector.
Unbinding a role from a record gives a noisy filler, which a search of the
filler codebook cleans up. Binding the two records maps one onto the other,
so it answers analogies: "what is the dollar of Mexico?" (Kanerva 2010).

Run it from the command line, on any model and backend::

    python examples/quickstart.py [--model FHRR|MAP|BSC] [--backend numpy|torch|jax] [--dim 10000]
"""

from __future__ import annotations

import argparse

from holovec import VSA


def main(model_name: str = "FHRR", backend: str = "numpy", dim: int = 10_000) -> None:
    model = VSA.create(model_name, dim=dim, backend=backend, seed=2026)
    print(f"model: {model}")

    roles = ["name", "capital", "currency"]
    fillers = ["USA", "Washington", "Dollar", "Mexico", "Mexico City", "Peso"]
    role_vectors = dict(zip(roles, model.random(len(roles), seed=1), strict=True))
    filler_codebook = model.random(len(fillers), seed=2)  # one row per filler
    filler = dict(zip(fillers, filler_codebook, strict=True))

    def record(**fields: str):
        return model.bundle([model.bind(role_vectors[r], filler[f]) for r, f in fields.items()])

    usa = record(name="USA", capital="Washington", currency="Dollar")
    mexico = record(name="Mexico", capital="Mexico City", currency="Peso")

    def cleanup(noisy) -> tuple[str, float]:
        sims = model.backend.to_numpy(model.similarity_matrix(noisy, filler_codebook))
        best = int(sims.argmax())
        return fillers[best], float(sims[best])

    print("\nWhat is in the USA record?")
    for role in roles:
        label, sim = cleanup(model.unbind(usa, role_vectors[role]))
        print(f"  {role:8s} -> {label:12s} (similarity {sim:.3f})")

    # inverse(usa) * mexico maps each USA filler to the Mexican filler of its role
    mapping = model.bind(model.inverse(usa), mexico)
    label, sim = cleanup(model.bind(mapping, filler["Dollar"]))
    print(f"\nWhat is the dollar of Mexico?  -> {label} (similarity {sim:.3f})")


# %%
# Run the demo: ``--model``, ``--backend`` and ``--dim`` choose the model, the backend
# and the dimension (defaults: FHRR, NumPy, 10,000).

if __name__ == "__main__":
    # the docstring's title (sphinx-gallery runs the script without its docstring)
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--model", default="FHRR", help="FHRR, MAP or BSC")
    parser.add_argument("--backend", default="numpy", help="numpy, torch or jax")
    parser.add_argument("--dim", type=int, default=10_000)
    args = parser.parse_args()
    main(args.model, args.backend, args.dim)
