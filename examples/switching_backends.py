"""One code, three backends: NumPy, PyTorch and JAX
=================================================

holovec computes on NumPy, PyTorch or JAX; the backend is one argument of
:meth:`VSA.create <holovec.VSA.create>`, and vectors are the framework's own arrays.
Random vectors come from one counter-based generator, so the same seed gives the same
vectors everywhere. This tutorial runs the same code on every installed backend, checks
that the seeded vectors agree, moves arrays between frameworks, and times one batched
operation on each.
"""

import time

import numpy as np

import holovec
from holovec import VSA

backends = holovec.available_backends()
print("installed backends:", backends)

# %%
# The same code on every backend
# ------------------------------
# Only the ``backend`` argument changes. Each model draws its vectors on its own
# framework (and device: a GPU where PyTorch or JAX finds one); the results are that
# framework's arrays.
for name in backends:
    model = VSA.create("FHRR", dim=2000, backend=name)
    a, b = model.random(seed=1), model.random(seed=2)
    recovered = model.unbind(model.bind(a, b), b)
    sim = float(model.similarity(recovered, a))
    kind = f"{type(a).__module__.split('.')[0]}.{type(a).__name__}"
    print(f"{name:6s} {kind:17s} on {model.device!s:6s} similarity(unbind(bind(a, b), b), a) = {sim:.4f}")

# %%
# Same seed, same vectors
# -----------------------
# ``model.to_numpy`` brings vectors to the host. Discrete models (MAP, BSC) agree bit
# for bit; FHRR's phases agree bit for bit too, and its values (cos and sin of the
# phases, computed by each framework) to float rounding.
reference = {
    model_name: VSA.create(model_name, dim=2000, backend="numpy").random(100, seed=7)
    for model_name in ("MAP", "BSC", "FHRR")
}
others = [name for name in backends if name != "numpy"]
if not others:
    print("only NumPy is installed: nothing to compare")
for name in others:
    for model_name, ref in reference.items():
        model = VSA.create(model_name, dim=2000, backend=name)
        vectors = model.to_numpy(model.random(100, seed=7))
        if np.issubdtype(vectors.dtype, np.complexfloating):
            print(
                f"{name:6s} {model_name:4s} largest difference from NumPy: {np.abs(vectors - ref).max():.1e}"
            )
        else:
            print(f"{name:6s} {model_name:4s} identical to NumPy: {np.array_equal(vectors, ref)}")

# %%
# Moving arrays between backends
# ------------------------------
# ``model.asarray`` takes an array of any framework (or a list) and returns it on the
# model's backend, device and dtype; values are not changed. A codebook made on NumPy
# can be searched on another backend, and brought back unchanged.
numpy_model = VSA.create("MAP", dim=2000, backend="numpy")
codebook = numpy_model.random(50, seed=3)
query = numpy_model.bundle([codebook[4], codebook[9], codebook[21]])
for name in backends:
    model = VSA.create("MAP", dim=2000, backend=name)
    moved_book, moved_query = model.asarray(codebook), model.asarray(query)
    sims = model.backend.to_numpy(model.similarity_matrix(moved_query, moved_book))
    top = sorted(np.argsort(sims)[-3:].tolist())
    back = np.array_equal(numpy_model.asarray(moved_book), codebook)  # and back to NumPy
    kind = type(moved_book).__name__
    print(f"{name:6s} {kind:10s} top 3 items of the bundle: {top}; round trip exact: {back}")

# %%
# A batched operation on each backend
# -----------------------------------
# The similarity of 100 queries with 5,000 items (MAP, 2,000 dimensions): one matrix
# product. Each backend runs it once to warm up (JAX compiles it), then the best of five
# runs is printed. Each timed run ends with the result computed, as a user gets it: GPU
# work is waited for (``synchronize``), and Dask's lazy result is computed
# (``.compute()``: building its graph alone takes a few milliseconds and computes
# nothing). Dask's vectors are persisted first (computed once and kept in memory, as the
# other backends hold theirs), so that each run computes the product, not the random
# vectors again. These are times on the machine that built this page, with whatever else
# it was doing, not a benchmark (``python -m benchmarks`` is).


def computed(x):
    """``x`` as an array in memory: a Dask array is computed here (NumPy, PyTorch and JAX
    return theirs computed, or queued on the device)."""
    return x.compute() if hasattr(x, "compute") else x


for name in backends:
    model = VSA.create("MAP", dim=2000, backend=name)
    items, queries = model.random(5000, seed=8), model.random(100, seed=9)
    if hasattr(items, "persist"):  # Dask
        items, queries = items.persist(), queries.persist()
    computed(model.similarity_matrix(queries, items))
    model.backend.synchronize()
    times = []
    for _ in range(5):
        start = time.perf_counter()
        result = computed(model.similarity_matrix(queries, items))
        model.backend.synchronize()
        times.append(time.perf_counter() - start)
    kind = f"{type(result).__module__.split('.')[0]}.{type(result).__name__}"
    print(
        f"{name:6s} on {model.device!s:6s} {min(times) * 1e3:6.2f} ms for a {tuple(result.shape)} "
        f"similarity matrix ({kind})"
    )
