"""Prototype classifiers: one vector per class, predictions by cosine (torchhd's Centroid,
AdaptHD, OnlineHD and NeuralHD).

The classes live in modules by idea, and are all importable from here:
``holovec.learn.centroid`` (the shared machinery and the one-pass centroid),
``holovec.learn.retraining`` (AdaptHD and OnlineHD's mistake-driven epochs) and
``holovec.learn.neuralhd`` (retraining with dimension regeneration).
"""

from __future__ import annotations

from .centroid import CentroidClassifier, PrototypeClassifier
from .neuralhd import NeuralHDClassifier
from .retraining import AdaptHDClassifier, OnlineHDClassifier

__all__ = [
    "AdaptHDClassifier",
    "CentroidClassifier",
    "NeuralHDClassifier",
    "OnlineHDClassifier",
    "PrototypeClassifier",
]
