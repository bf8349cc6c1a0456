"""The capacity planner: what dimension a task needs, and what a dimension allows.

Bundles (:mod:`.bundles`): :func:`accuracy` of finding one of ``k`` bundled items again
among ``n_items`` (``query="member"``), or a value stored under a key among ``n_items``
candidates (``query="lookup"``); :func:`dimension`, its inverse in ``dim``; and
:func:`max_items`, its inverse in ``k``. They follow Frady, Kleyko and Sommer (2018, "A
theory of sequence indexing and working memory in recurrent neural networks", Neural
Computation): with Gaussian scores, an item of mean ``mu1`` and spread ``sigma1`` beats
``n`` distractors of mean ``mu0`` and spread ``sigma0`` with probability
``integral phi(h) Phi((mu1 - mu0 + sigma1 h) / sigma0)^n dh``.

Why measured statistics. The four numbers differ by model and query (a sign bundle's
item score is the central binomial coefficient, about ``sqrt(2 / (pi k))``; FHRR's
normalised phasors and HRR's approximate unbinding have others), and a model that a user
registers has its own. So the planner measures them, once per model class, options, ``k``
and query, by running the model's public operations on a NumPy twin at a calibration
dimension with fixed seeds (:mod:`.statistics`), and caches them: the answers are the same
on every machine and backend, a first call at a new ``k`` takes a fraction of a second and
later ones microseconds. Dense codes' scores are means of ``dim`` independent terms, so
the measured means hold at every dimension and the spreads scale as ``1 / sqrt(dim)``;
sparse codes (BSDC, BSDC-SEG) do not scale so (their density follows ``dim`` and their
distractor overlaps are small counts with non-Gaussian tails): a ``TypeError``. The
integral is a fixed quadrature in NumPy (:mod:`.gaussian`).

Memories (:mod:`.hopfield`): :func:`hopfield_capacity` and :func:`hopfield_error`, from the
zero-temperature equations of Amit, Gutfreund and Sompolinsky (1985, 1987). The capacities
of the modern Hopfield network and of sparse distributed memory are documented with their
classes in :mod:`holovec.memory`.

Examples
--------
>>> from holovec import capacity
>>> capacity.dimension("MAP", n_items=1000, k=15)
730
>>> capacity.hopfield_capacity(1000)
137
"""

from .bundles import accuracy, bundle_statistics, dimension, max_items
from .hopfield import hopfield_capacity, hopfield_critical_load, hopfield_error
from .statistics import BundleStatistics, supported_models

__all__ = [
    "BundleStatistics",
    "accuracy",
    "bundle_statistics",
    "dimension",
    "hopfield_capacity",
    "hopfield_critical_load",
    "hopfield_error",
    "max_items",
    "supported_models",
]
