"""Learning from data: hyperdimensional classifiers and regressors as scikit-learn estimators.

Every estimator follows scikit-learn's conventions (``fit``/``predict``/``score``,
``partial_fit`` for streams, parameters set in ``__init__``, so ``clone``, pipelines, grid
search and pickling work), encodes its input with an :class:`HDEncoder` (or any holovec
encoder), and runs on the model's backend and device in minibatches. Needs scikit-learn
(``pip install -e '.[learn]'``), imported only with this package.

=========================  =====================================================  ==================
holovec                    what it learns                                         torchhd
=========================  =====================================================  ==================
``CentroidClassifier``     class prototypes bundled in one pass                   ``Centroid``/``Vanilla``
``AdaptHDClassifier``      centroid, then perceptron-style retraining             ``AdaptHD``
``OnlineHDClassifier``     similarity-weighted single pass, then retraining       ``OnlineHD``
``NeuralHDClassifier``     AdaptHD + regeneration of the least useful dimensions  ``NeuralHD``
``RidgeHDClassifier``      ridge read-out of the encodings (closed form)          ``IntRVFL``
``LeHDCClassifier``        binary prototypes trained as a binary neural network   ``LeHDC``
``QuantHDClassifier``      prototypes of a few bits, retrained quantised          ``QuantHD``
``DistHDClassifier``       AdaptHD + regeneration of the dimensions that mislead  ``DistHD``
``CompHDClassifier``       prototypes folded into dim / s dimensions              ``CompHD``
``SparseHDClassifier``     sparse prototypes, retrained with the mask kept        ``SparseHD``
``RidgeHDRegressor``       ridge regression on the encodings
``RegHDRegressor``         one model vector trained by least-mean-squares         (RegHD)
``HDKMeans``               clusters: spherical k-means of the encodings
``ConformalClassifier``    prediction sets with guaranteed coverage, any model
``HDEncoder``              features (or texts, images...) to hypervectors         ``embeddings``
``TimeSeriesEncoder``      time series to hypervectors (values, times, channels)
=========================  =====================================================  ==================
"""

from . import _sklearn  # noqa: F401  (a clear ImportError without scikit-learn)
from ._base import TrainingDivergedError
from .calibration import expected_calibration_error, softmax
from .comphd import CompHDClassifier
from .conformal import ConformalClassifier
from .disthd import DistHDClassifier
from .encoding import HDEncoder
from .kmeans import HDKMeans
from .lehdc import LeHDCClassifier
from .persistence import load
from .prototypes import AdaptHDClassifier, CentroidClassifier, NeuralHDClassifier, OnlineHDClassifier
from .quanthd import QuantHDClassifier
from .reghd import RegHDRegressor
from .ridge import RidgeHDClassifier, RidgeHDRegressor
from .sparsehd import SparseHDClassifier
from .timeseries import TimeSeriesEncoder

__all__ = [
    "AdaptHDClassifier",
    "CentroidClassifier",
    "CompHDClassifier",
    "ConformalClassifier",
    "DistHDClassifier",
    "HDEncoder",
    "HDKMeans",
    "LeHDCClassifier",
    "NeuralHDClassifier",
    "OnlineHDClassifier",
    "QuantHDClassifier",
    "RegHDRegressor",
    "RidgeHDClassifier",
    "RidgeHDRegressor",
    "SparseHDClassifier",
    "TimeSeriesEncoder",
    "TrainingDivergedError",
    "expected_calibration_error",
    "load",
    "softmax",
]
