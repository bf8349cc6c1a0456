"""Robustness to hardware errors: flipped elements in a trained classifier
=======================================================================

Hyperdimensional representations are spread over thousands of elements, none of which
matters much on its own. That makes them tolerant of the errors of cheap or approximate
hardware: bits flipped in memory, faulty cells, low-voltage operation. This tutorial
trains a classifier on scikit-learn's 8x8 handwritten digits, then flips a growing
fraction of the elements of its class prototypes with :func:`holovec.noise.perturb` (a
copy; the trained classifier is untouched) and measures what is left of its accuracy. It
then compares what a flip does to a similarity with the closed form of
:func:`holovec.noise.expected_similarity`.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

from holovec import VSA, noise, plot
from holovec.learn import CentroidClassifier
from holovec.retrieval import Codebook

X, y = load_digits(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
print(f"{len(X_train)} training and {len(X_test)} test images")

# %%
# A trained classifier, and the same one with flipped prototypes
# --------------------------------------------------------------
# The centroid classifier keeps one prototype per class (the sum of its training samples'
# hypervectors, here FHRR at 2,000 dimensions) and predicts the class whose prototype is
# most similar to the sample. ``noise.perturb(clf, "flip", p, seed=...)`` returns a copy
# whose prototypes have exactly a fraction ``p`` of their elements (of each prototype's
# real learning-space numbers) sign-flipped, as a stuck or upset memory cell would leave
# them; the same seed flips the same positions on every backend.
clf = CentroidClassifier(dim=2000, random_state=0).fit(X_train, y_train)
clean = clf.score(X_test, y_test)
levels = [0.0, 0.05, 0.1, 0.2, 0.3, 0.4]
accuracy = {p: noise.perturb(clf, "flip", p, seed=1).score(X_test, y_test) for p in levels}
print(f"clean classifier: test accuracy {clean:.3f}")
print("flipped fraction  accuracy")
for p in levels:
    print(f"{p:16.2f}  {accuracy[p]:8.3f}")

# %%
# Why the accuracy holds
# ----------------------
# A class score is a similarity, linear in the prototype. Flipping a random fraction ``p``
# of a prototype's elements keeps ``1 - p`` of its terms and negates ``p`` of them, so in
# expectation *every* score the prototype gives shrinks by the same factor ``1 - 2p``:
# the classes keep their order, and an argmax does not care about a common factor. What
# does change the predictions is the variance: which elements happen to be flipped adds a
# random term to each score, of the order of ``sqrt(p (1 - p) / D)`` times its size, and a sample
# whose two best classes were closer than that can swap. So the accuracy falls slowly
# with ``p`` and faster as the common factor approaches 0 (at ``p = 0.5`` a prototype is
# a random vector), and a larger ``D`` shrinks the variance.
# :func:`holovec.plot.robustness_curve` draws the same measurement.
ax = plot.robustness_curve(clf, X_test, y_test, noise="flip", levels=levels, seed=1)
ax.axhline(clean, color="gray", linestyle=":", label="clean")
ax.set_title("centroid classifier (FHRR, D=2000) on digits")
ax.legend()
plt.show()

# %%
# The closed form: a similarity scales by 1 - 2p
# ----------------------------------------------
# For a codebook of random vectors, the similarity of each vector with its flipped self
# is exactly ``1 - 2p`` on MAP (and on BSC): ``noise.expected_similarity`` gives the closed
# form, and ``robustness_curve`` draws it beside the measurement. The same factor is what
# a classifier's prototypes keep, in expectation, which the prototypes measured here show.
model = VSA.create("MAP", dim=2000)
book = Codebook.from_seed(model, [f"symbol {i}" for i in range(20)], seed=2)
ax = plot.robustness_curve(book, noise="flip", levels=levels, seed=1)
ax.set_title("MAP codebook, D=2000: similarity with the flipped self")
plt.show()

prototypes = np.asarray(clf.prototypes_)
print("flipped fraction  codebook  prototypes  expected (1 - 2p)")
similarity = {}
for p in levels:
    noisy_book = noise.perturb(book, "flip", p, seed=1)
    in_book = float(np.mean(model.to_numpy(model.similarity(book.vectors, noisy_book.vectors))))
    noisy = np.asarray(noise.perturb(clf, "flip", p, seed=1).prototypes_)
    cosine = np.sum(prototypes * noisy, axis=1) / (
        np.linalg.norm(prototypes, axis=1) * np.linalg.norm(noisy, axis=1)
    )
    similarity[p] = (in_book, float(np.mean(cosine)), noise.expected_similarity(model, "flip", p))
    print(f"{p:16.2f}  {similarity[p][0]:8.3f}  {similarity[p][1]:10.3f}  {similarity[p][2]:17.3f}")

# %%
# The codebook matches the closed form exactly; the prototypes, whose elements are sums of
# unequal sizes, match it on average (which elements are flipped decides how much of the
# prototype's length they carry). Hardware that flips a tenth of the stored elements thus
# leaves four fifths of every similarity, and almost all of the accuracy.
