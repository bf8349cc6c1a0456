"""Cleanup memories: noisy symbols back to the symbols they came from
===================================================================

Unbinding, bundling and approximate inverses leave noisy vectors; a *cleanup memory*
maps each one back to the stored symbol it is nearest to. This tutorial stores symbols
in the three memories of :mod:`holovec.memory` and compares what each holds:

- the classical :class:`~holovec.memory.Hopfield` network, whose patterns are fixed
  points up to about ``0.138 dim`` of them (Amit, Gutfreund and Sompolinsky 1985);
- the modern :class:`~holovec.memory.ModernHopfield` network (Ramsauer et al. 2021),
  attention over the stored patterns, which cleans up far more symbols than dimensions
  in one step;
- Kanerva's :class:`~holovec.memory.SparseDistributedMemory`, which spreads each
  pattern over many hard locations and converges to it over a few reads.

:mod:`holovec.capacity` predicts the classical network's errors; the figures below put
the prediction next to the measurement.
"""

import matplotlib.pyplot as plt
import numpy as np

from holovec import VSA, capacity
from holovec.memory import Hopfield, ModernHopfield, SparseDistributedMemory

model = VSA.create("MAP", dim=1000, seed=0)
rng = np.random.default_rng(0)


def noisy(vectors, fraction):
    """The vectors with ``fraction`` of their elements flipped (MAP: multiply by -1)."""
    flips = np.where(rng.random(tuple(vectors.shape)) < fraction, -1.0, 1.0).astype(np.float32)
    return vectors * flips


def exact(recalled, truth):
    """Fraction of the recalled vectors equal to the stored ones, element for element."""
    return float(np.mean(np.all(np.asarray(recalled) == np.asarray(truth), axis=1)))


# %%
# The modern Hopfield network: twice as many symbols as dimensions
# -----------------------------------------------------------------
# 2,000 random symbols at 1,000 dimensions, and 500 cues with 30% of their elements
# flipped. One update, ``softmax(beta * similarities)`` over the stored symbols, returns
# each cue's symbol exactly.
symbols = model.random(2000, seed=1)
cues = noisy(symbols[:500], 0.3)
modern = ModernHopfield(model)
modern.store(symbols)
print(
    f"modern Hopfield, {modern.n_patterns} symbols, beta = {modern.beta:.1f}: "
    f"{exact(modern.recall(cues), symbols[:500]):.0%} recalled exactly from 30% noise"
)

# %%
# ``beta`` is an inverse temperature. Large, the attention falls on one symbol; small, it
# spreads over several (a metastable average of similar symbols), and the answer is
# their blend rather than any one of them.
for beta in (10.0, 20.0, modern.beta, 100.0):
    memory = ModernHopfield(model, beta=beta)
    memory.store(symbols)
    top = np.sort(np.asarray(memory.weights(cues)), axis=1)[:, ::-1]
    spread = np.mean(np.argmax(np.cumsum(top, axis=1) >= 0.9, axis=1) + 1)
    print(
        f"beta {beta:4.1f}: largest weight {top[:, 0].mean():.3f}, {spread:5.0f} symbols hold 90% "
        f"of the weight, {exact(memory.recall(cues), symbols[:500]):4.0%} recalled exactly"
    )

# %%
# The classical network and its capacity
# ---------------------------------------
# The classical network keeps its Hebbian weights implicit (the stored patterns, not a
# ``dim x dim`` matrix). Store more and more symbols; start each recall at a stored
# symbol and count the elements wrong once the network settles. Amit, Gutfreund and
# Sompolinsky's equations (``capacity.hopfield_error``) predict few errors up to a
# load of 0.138, and no retrieval state beyond it: the network then settles into
# spurious states far from the symbols (at 1,000 dimensions the collapse is gradual).
loads = [0.05, 0.08, 0.1, 0.12, 0.13, 0.16, 0.2, 0.25]
measured, predicted = [], []
for load in loads:
    n = int(load * model.dim)
    net = Hopfield(model)
    net.store(symbols[:n])
    settled = np.asarray(net.recall(symbols[:n], iterations=30))
    measured.append(float(np.mean(settled != np.asarray(symbols[:n]))))
    predicted.append(capacity.hopfield_error(n, model.dim))
    expected = "no retrieval state" if predicted[-1] == 0.5 else f"predicted {predicted[-1]:.2%}"
    print(f"load {load:.2f} ({n:3d} symbols): {measured[-1]:6.2%} of elements wrong ({expected})")
alpha_c = capacity.hopfield_critical_load()
print(f"capacity of the network: {net.capacity} symbols ({alpha_c:.4f} x {model.dim})")

fig, ax = plt.subplots(figsize=(6, 3.5))
ax.plot(loads, measured, "o-", label="measured")
below = [load for load, p in zip(loads, predicted, strict=True) if p < 0.5]
ax.plot(below, predicted[: len(below)], "--", label="Amit, Gutfreund and Sompolinsky")
ax.axvline(capacity.hopfield_critical_load(), color="gray", lw=0.8)
ax.set_xlabel("symbols stored / dim")
ax.set_ylabel("elements wrong after recall")
ax.set_title("Classical Hopfield network, MAP, dim 1000")
ax.legend()
fig.tight_layout()

# %%
# A sparse distributed memory
# ---------------------------
# Kanerva's memory writes each symbol into the counters of the hard locations near it
# and reads by summing the counters near the cue. Written autoassociatively (each symbol
# at its own address), reading again from the result walks a cue to the symbol, as long
# as the cue starts within the memory's critical distance.
sdm = SparseDistributedMemory(model, n_locations=4000, seed=2)
stored = symbols[:100]
sdm.write(stored, stored)
for fraction in (0.1, 0.2, 0.3, 0.4):
    start = noisy(stored, fraction)
    once, settled = sdm.read(start), sdm.read(start, iterations=10)
    print(
        f"SDM, cues {fraction:.0%} noisy: {exact(once, stored):4.0%} exact after one read, "
        f"{exact(settled, stored):4.0%} after ten"
    )

# %%
# Choosing a dimension
# --------------------
# The same planner answers the question before any vector is drawn: what dimension does a
# bundle of 20 symbols out of 2,000 need to be read back at 99%, for each model?
for name in ("MAP", "BSC", "FHRR"):
    print(f"{name:4s}: dim {capacity.dimension(name, n_items=2000, k=20, accuracy=0.99)}")
