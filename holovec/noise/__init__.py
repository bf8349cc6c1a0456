"""Noise: how vectors, codebooks, memories and learners hold up to errors.

Seeded, batched perturbations of the vectors of any model, on every backend:

=============================  ==========================================================
:func:`flip`                   exactly ``round(p n)`` of each vector's ``n`` units flipped:
                               bits (BSC, packed or not) or signs (MAP, HRR, FHRR; GHRR's
                               blocks)
:func:`stuck_at`               exactly ``round(p dim)`` elements stuck at a value
:func:`gaussian`               Gaussian noise relative to each vector's RMS element (HRR,
                               VTB)
:func:`phase_noise`            a random phase per element or block (FHRR, GHRR)
:func:`quantize`               ``b`` bits per element: uniform levels, or ``2**b`` phases
:func:`perturb`                the same noises on a codebook, a memory or a fitted
                               learner: a new object, the original untouched
:func:`expected_similarity`    what each noise leaves of the similarity, in closed form
=============================  ==========================================================

Which noise a model takes follows from what it declares (``element_kind``, its dtype,
``elements`` and ``atoms``), never from its name, so a model a user registers is served
alike; one that cannot take a noise (Gaussian noise on MAP's +-1 vectors) raises
``TypeError``, and a bad level ``ValueError`` or ``TypeError`` naming the parameter.

Reproducible: the positions and numbers come from holovec's counter-based generator
(:mod:`holovec.random`) at an address of their own (a purpose no other draw uses), so the
same seed flips the same positions on NumPy, PyTorch, JAX and Dask, and row ``i`` of a
batch does not depend on the batch. ``seed=None`` takes the model's next spawned seed (fresh, or
reproducible for a model created with a seed). Nothing is written into the input.

>>> from holovec import VSA, noise
>>> model = VSA.create("MAP", dim=2000)
>>> items = model.random(5, seed=1)
>>> s = model.bundle(items)
>>> before = float(model.similarity(s, items[0]))
>>> after = float(model.similarity(noise.flip(model, s, 0.2, seed=2), items[0]))
>>> abs(after - 0.6 * before) < 0.05   # the similarity scales by 1 - 2p
True
"""

from ._laws import expected_similarity
from ._objects import perturb
from ._vectors import flip, gaussian, phase_noise, quantize, stuck_at

__all__ = ["expected_similarity", "flip", "gaussian", "perturb", "phase_noise", "quantize", "stuck_at"]
