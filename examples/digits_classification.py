"""Handwritten digits: hyperdimensional classifiers with scikit-learn
===================================================================

:mod:`holovec.learn` wraps the classic hyperdimensional learners as scikit-learn
estimators. This tutorial trains them on scikit-learn's 8x8 handwritten digits (1,797
images, 64 pixel features, 10 classes; shipped with scikit-learn, nothing is
downloaded): the one-pass centroid classifier, the retraining rules of AdaptHD and
OnlineHD epoch by epoch, the closed-form ridge read-out, binarised prototypes on MAP,
and how accuracy depends on the dimension.

Every sample is standardised and encoded by a seeded nonlinear random projection
(:class:`~holovec.learn.HDEncoder`, random Fourier features on FHRR); a classifier then
keeps one vector per class (or a ridge read-out) and predicts by cosine similarity.
"""

import matplotlib.pyplot as plt
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

from holovec import plot
from holovec.learn import (
    AdaptHDClassifier,
    CentroidClassifier,
    HDEncoder,
    OnlineHDClassifier,
    RidgeHDClassifier,
)

X, y = load_digits(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, stratify=y, random_state=0)
print(f"{len(X_train)} training and {len(X_test)} test images of {X.shape[1]} pixels")

# %%
# One pass: the centroid classifier
# ---------------------------------
# Each class prototype is the bundle (sum) of its training samples' hypervectors, built
# in one pass. This is the baseline of the field, and what runs on a stream or on tiny
# hardware (``partial_fit`` adds more samples later).
centroid = CentroidClassifier(dim=2000, random_state=0).fit(X_train, y_train)
accuracy = {"centroid": centroid.score(X_test, y_test)}
print(f"centroid, one pass: test accuracy {accuracy['centroid']:.3f}")

# %%
# Retraining, epoch by epoch
# --------------------------
# AdaptHD and OnlineHD start from a first pass and then retrain on their mistakes: a
# misclassified sample is added to its class and subtracted from the predicted one
# (OnlineHD weights the update by how dissimilar the sample is). The epochs visit the
# samples in an order shuffled from the seed, so ``epochs=k`` replays the first ``k``
# epochs of a longer run: fitting with ``k = 0, 1, 2, ...`` draws the learning curve
# (epoch 0 is the first pass alone). :func:`holovec.plot.learning_curve` does just that:
# it fits a clone of the learner with each number of epochs and draws the test accuracies.
#
# The encoding does not change between the fits, so it is computed once here:
# :class:`~holovec.learn.HDEncoder` returns the hypervectors, and the classifiers take
# them with ``encoder="precomputed"`` (their ``model`` and ``dim`` must match the
# vectors').
encoder = HDEncoder(dim=2000, random_state=0).fit(X_train)
H_train, H_test = encoder.transform(X_train), encoder.transform(X_test)
print("encoded:", H_train.shape, H_train.dtype)

epochs = [0, 1, 2, 3, 4, 6, 8]
curves = {}
fig, ax = plt.subplots(figsize=(6.0, 3.2))
for name, learner in [("AdaptHD", AdaptHDClassifier), ("OnlineHD", OnlineHDClassifier)]:
    estimator = learner(dim=2000, encoder="precomputed", random_state=0)
    plot.learning_curve(estimator, H_train, y_train, H_test, y_test, epochs=epochs, label=name, ax=ax)
    curves[name] = [float(a) for a in ax.lines[-1].get_ydata()]  # the test accuracies drawn
print("epochs    " + "".join(f"{k:6d}" for k in epochs))
for name, curve in curves.items():
    print(f"{name:9s} " + "".join(f"{a:6.3f}" for a in curve))

ax.axhline(accuracy["centroid"], color="grey", linestyle=":", label="centroid (one pass)")
ax.set_xlabel("retraining epochs")
ax.set_ylabel("test accuracy")
ax.set_title("Digits, D = 2,000")
ax.legend()
fig.tight_layout()

# %%
# With their default learning rates, AdaptHD gains most in its first few epochs (its
# first retraining epoch, starting from the class means, may overshoot before it settles)
# and OnlineHD, whose updates shrink as samples become well classified, needs more of
# them.
#
# The ridge read-out
# ------------------
# :class:`~holovec.learn.RidgeHDClassifier` solves a regularised least-squares read-out of
# the encodings in closed form (torchhd's ``IntRVFL``): no epochs, and usually the best
# accuracy on small and medium data sets.
ridge = RidgeHDClassifier(dim=2000, encoder="precomputed", random_state=0).fit(H_train, y_train)
accuracy["ridge"] = ridge.score(H_test, y_test)
print(f"ridge read-out: test accuracy {accuracy['ridge']:.3f}")

# %%
# Binarised prototypes
# --------------------
# On MAP (and BSC), ``binarize=True`` rounds the prototypes to the model's own bipolar
# vectors after training and predicts by the model's similarity (Hamming distance on
# BSC's packed bits): what fits small hardware, at a cost in accuracy.
for binarize in (False, True):
    clf = AdaptHDClassifier("MAP", dim=2000, epochs=5, binarize=binarize, random_state=0).fit(
        X_train, y_train
    )
    accuracy[f"MAP, binarize={binarize}"] = clf.score(X_test, y_test)
    print(
        f"AdaptHD on MAP, binarize={binarize!s:5s}: test accuracy {accuracy[f'MAP, binarize={binarize}']:.3f}"
    )

# %%
# Accuracy against the dimension
# ------------------------------
# Larger hypervectors cost memory and time in proportion; what do they buy? One encoding
# per dimension, shared by three learners.
dims = [500, 1000, 2000, 5000]
by_dim = {"centroid": {}, "AdaptHD, 5 epochs": {}, "ridge": {}}
for dim in dims:
    enc = HDEncoder(dim=dim, random_state=0).fit(X_train)
    H_train, H_test = enc.transform(X_train), enc.transform(X_test)
    learners = {
        "centroid": CentroidClassifier(dim=dim, encoder="precomputed"),
        "AdaptHD, 5 epochs": AdaptHDClassifier(dim=dim, encoder="precomputed", epochs=5, random_state=0),
        "ridge": RidgeHDClassifier(dim=dim, encoder="precomputed"),
    }
    for name, clf in learners.items():
        by_dim[name][dim] = clf.fit(H_train, y_train).score(H_test, y_test)
print(f"{'dim':19s}" + "".join(f"{d:7d}" for d in dims))
for name, scores in by_dim.items():
    print(f"{name:19s}" + "".join(f"{scores[d]:7.3f}" for d in dims))

fig, ax = plt.subplots(figsize=(6.0, 3.2))
for name, scores in by_dim.items():
    ax.plot(dims, [scores[d] for d in dims], "o-", label=name)
ax.set_xscale("log")
ax.minorticks_off()
ax.set_xticks(dims, [str(d) for d in dims])
ax.set_xlabel("dimension D")
ax.set_ylabel("test accuracy")
ax.legend()
fig.tight_layout()

# %%
# The retraining rules and the ridge read-out gain little from more dimensions here: a
# few thousand are enough for 64 features. The centroid classifier stays six to eight points
# behind whatever the dimension: bundling the samples of a class averages away what
# separates similar digits, which retraining puts back. ``GridSearchCV`` over ``dim``
# (or ``lr``, ``epochs``, ``alpha``) tunes these like any scikit-learn parameter.
