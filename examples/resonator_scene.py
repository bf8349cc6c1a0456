"""Factoring a scene with a resonator network
===========================================

An object in a scene has a shape, a colour and a position; binding one vector of each
gives one vector for the object. Going back, from the bound product to its factors, is
a search over every combination: here 12 shapes x 12 colours x 16 columns x 16 rows,
36,864 of them. A resonator network (Frady, Kent, Olshausen and Sommer 2020) finds the
factors without enumerating the combinations: it keeps a guess for each factor,
unbinds the other guesses from the product, and cleans the result up against that
factor's codebook, over and over, until the guesses agree. :class:`~holovec.retrieval.Resonator`
runs it for many products at once.
"""

import numpy as np

from holovec import VSA
from holovec.retrieval import Codebook, Resonator

model = VSA.create("MAP", dim=2000, seed=0)
shapes = Codebook.from_seed(
    model, "circle square triangle star heart cross ring arrow moon drop leaf key".split(), seed=1
)
colours = Codebook.from_seed(
    model, "red green blue yellow cyan magenta black white grey orange purple brown".split(), seed=2
)
columns = Codebook.from_seed(model, [f"x={i}" for i in range(16)], seed=3)
rows = Codebook.from_seed(model, [f"y={i}" for i in range(16)], seed=4)
factors = [shapes, colours, columns, rows]
resonator = Resonator(model, [book.vectors for book in factors], max_iter=200)


def bind_all(vectors):
    out = vectors[0]
    for v in vectors[1:]:
        out = model.bind(out, v)
    return out


# %%
# One object
# ----------
# A red star at column 3, row 7 is the binding of four vectors. It is similar to none of
# them, yet the resonator recovers all four.
star = bind_all([shapes["star"], colours["red"], columns["x=3"], rows["y=7"]])
print(f"similarity of the object with 'star': {float(model.similarity(star, shapes['star'])):.3f}")
result = resonator.factor(star)
names = [book.labels[i] for book, i in zip(factors, result.indices[0], strict=True)]
print(f"decoded: {names} in {result.iterations[0]} iterations (converged: {result.converged[0]})")

# %%
# Many objects at once
# --------------------
# ``factor`` takes a batch ``(n, dim)``: every step of the network is a matrix product
# over the whole batch, and products that have converged leave it.
rng = np.random.default_rng(1)
truth = np.stack([rng.integers(0, len(book), 200) for book in factors], axis=-1)  # (200, 4)
objects = bind_all([book.vectors[truth[:, f]] for f, book in enumerate(factors)])
result = resonator.factor(objects)
accuracy = float(np.mean((result.indices == truth).all(axis=1)))
print(
    f"{len(truth)} objects: {accuracy:.1%} fully correct, iterations median "
    f"{np.median(result.iterations):.0f} (max {result.iterations.max()}), "
    f"converged {result.converged.mean():.1%}"
)

# %%
# How large a search space?
# -------------------------
# The resonator's capacity is limited by the dimension: with more items per factor, the
# cross-talk between the wrong guesses grows, it needs more iterations, and beyond a
# point it stops finding the answer. Four factors, 100 random products each:
print("\nitems/factor  combinations  correct  median iterations")
for n_items in (8, 16, 24, 32, 48):
    books = [model.random(n_items, seed=10 + f) for f in range(4)]
    truth_n = rng.integers(0, n_items, (100, 4))
    products = bind_all([books[f][truth_n[:, f]] for f in range(4)])
    res = Resonator(model, books, max_iter=200).factor(products)
    correct = np.mean((res.indices == truth_n).all(axis=1))
    print(f"{n_items:12d}  {n_items**4:12,d}  {correct:7.0%}  {np.median(res.iterations):17.0f}")

# %%
# A scene of three objects: explain away
# --------------------------------------
# A scene is the sum of its objects' vectors (the plain sum, not ``model.bundle``, whose
# sign would make the subtraction below inexact). The resonator settles on one of the
# objects; subtracting that object's vector from the scene leaves the others, and the
# next run finds the next one. Each step runs over all scenes at once.
n_scenes, n_objects = 50, 3
scene_truth = np.stack([rng.integers(0, len(book), (n_scenes, n_objects)) for book in factors], axis=-1)
scenes = bind_all([book.vectors[scene_truth[..., f]] for f, book in enumerate(factors)]).sum(axis=1)
residual = scenes
found = []
for _ in range(n_objects):
    result = resonator.factor(residual)
    found.append(result.indices)
    residual = residual - bind_all([book.vectors[result.indices[:, f]] for f, book in enumerate(factors)])
found = np.stack(found, axis=1)  # (scenes, objects, factors)


def describe(indices):
    return ", ".join(
        " ".join(book.labels[i] for book, i in zip(factors, obj, strict=True)) for obj in indices
    )


print(f"\nscene 0 holds:  {describe(scene_truth[0])}")
print(f"decoded:        {describe(found[0])}")
same = [{tuple(o) for o in found[s]} == {tuple(o) for o in scene_truth[s]} for s in range(n_scenes)]
scene_accuracy = float(np.mean(same))
print(f"{n_scenes} scenes of {n_objects} objects: {scene_accuracy:.0%} decoded exactly")
