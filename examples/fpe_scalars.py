"""Numbers as hypervectors: fractional power encoding
===================================================

A fractional power encoding (FPE; Plate 1994, Frady et al. 2021) maps a number ``x`` to
``z(x) = base ** (beta * x)``, where ``base`` is a random vector of unit phasors: element
``j`` of ``z(x)`` is ``exp(1j * beta * x * theta_j)``. Nearby numbers get similar vectors,
binding adds numbers, and the similarity of two encodings is a kernel of their distance,
chosen by the distribution of the random phases. This tutorial encodes and decodes
numbers with :class:`~holovec.encoders.FractionalPowerEncoder` on FHRR, plots the kernel
for a few bandwidths, and measures how well values are decoded from noisy bundles.
"""

import matplotlib.pyplot as plt
import numpy as np

from holovec import VSA
from holovec.encoders import FractionalPowerEncoder

model = VSA.create("FHRR", dim=1000, seed=0)
to_numpy = model.backend.to_numpy  # any array of the model's backend -> NumPy

# %%
# Encode, decode, add
# -------------------
# The encoder covers the range ``[0, 1]``; ``bandwidth`` is the number of kernel widths
# across it. ``encode`` takes one value or an array of them (one vectorised call), and
# ``decode`` finds the value whose encoding is most similar to each vector.
fpe = FractionalPowerEncoder(model, min_val=0.0, max_val=1.0, bandwidth=8.0, seed=1)
values = np.array([0.1, 0.25, 0.5, 0.9])
vectors = fpe.encode(values)
print("encoded:", vectors.shape, vectors.dtype)
print("decoded:", np.round(to_numpy(fpe.decode(vectors)), 6))

# binding adds exponents: bind(z(0.2), z(0.3)) is z(0.5)
total = model.bind(fpe.encode(0.2), fpe.encode(0.3))
print(f"decode(bind(z(0.2), z(0.3))) = {float(fpe.decode(total)):.6f}")

# %%
# The similarity kernel
# ---------------------
# The similarity of ``z(x)`` with ``z(0.5)`` over ``x`` is, in expectation, the
# characteristic function of the phase distribution: uniform phases (``kernel="sinc"``)
# give a sinc whose first zero is ``1 / bandwidth`` away, normal phases a Gaussian.
# ``fpe.kernel(distance)`` gives the expected curve; the dots are measured on 1,000
# dimensions (noise about ``1 / sqrt(2 * 1000) = 0.022``).
xs = np.linspace(0.0, 1.0, 201)
fig, ax = plt.subplots(figsize=(6.0, 3.2))
for kernel, bandwidth in [("sinc", 4.0), ("sinc", 16.0), ("gaussian", 8.0)]:
    enc = FractionalPowerEncoder(model, 0.0, 1.0, bandwidth=bandwidth, seed=2, kernel=kernel)
    measured = to_numpy(model.similarity(enc.encode(xs), enc.encode(0.5)))
    expected = enc.kernel(xs - 0.5)
    line = ax.plot(xs, expected, label=f"{kernel}, bandwidth {bandwidth:g}")[0]
    ax.plot(xs[::4], measured[::4], ".", color=line.get_color(), markersize=4)
    gap = np.abs(measured - expected).max()
    print(
        f"{kernel:8s} bandwidth {bandwidth:2.0f}: similarity at distance 0.1 = {measured[120]:6.3f} "
        f"(expected {expected[120]:6.3f}); largest gap over x: {gap:.3f}"
    )
ax.set_xlabel("x")
ax.set_ylabel("similarity with z(0.5)")
ax.legend(fontsize=8)
fig.tight_layout()

# %%
# Decoding noisy bundles
# ----------------------
# A value stored in a bundle with ``k`` unrelated vectors is still there, with less
# signal. We bundle each of 100 random values with ``k`` random vectors and decode. A
# narrow kernel (large bandwidth) decodes more precisely, but as the noise grows it
# sometimes lands in a side lobe of the kernel: a gross error, more than half a kernel
# width (``0.5 / bandwidth``) off. A wide kernel is less precise but never that wrong.
rng = np.random.default_rng(0)
x = rng.uniform(0.0, 1.0, 100)
noise = model.random(128 * len(x), seed=5).reshape(128, len(x), -1)  # (k, values, dim)
print("\nbandwidth  noise k  median |error|  max |error|  gross errors")
errors = {}
for bandwidth in (2.0, 8.0, 32.0):
    enc = FractionalPowerEncoder(model, 0.0, 1.0, bandwidth=bandwidth, seed=3)
    z = enc.encode(x)
    for k in (0, 8, 32, 128):
        noisy = z if k == 0 else model.bundle([z, *noise[:k]])
        error = np.abs(to_numpy(enc.decode(noisy)) - x)
        errors[bandwidth, k] = error
        gross = np.mean(error > 0.5 / bandwidth)
        print(f"{bandwidth:9.0f}  {k:7d}  {np.median(error):14.4f}  {error.max():11.4f}  {gross:12.0%}")
