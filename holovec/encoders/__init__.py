"""Encoders: scalars, sequences, records, graphs, images and vectors as hypervectors."""

from .base import Encoder, check_values
from .fpe import FractionalPowerEncoder, PeriodicAngleEncoder, VectorFPE
from .image import ImageEncoder
from .residue import ResidueEncoder
from .scalar import LevelEncoder, ThermometerEncoder
from .sequence import NGramEncoder, PositionBindingEncoder, TrajectoryEncoder
from .sinusoid import SinusoidEncoder
from .structure import GraphEncoder, RecordEncoder
from .symbols import SymbolCodebook, SymbolTable
from .vector import RandomProjectionEncoder, VectorEncoder

__all__ = [
    "Encoder",
    "FractionalPowerEncoder",
    "GraphEncoder",
    "ImageEncoder",
    "LevelEncoder",
    "NGramEncoder",
    "PeriodicAngleEncoder",
    "PositionBindingEncoder",
    "RandomProjectionEncoder",
    "RecordEncoder",
    "ResidueEncoder",
    "SinusoidEncoder",
    "SymbolCodebook",
    "SymbolTable",
    "ThermometerEncoder",
    "TrajectoryEncoder",
    "VectorEncoder",
    "VectorFPE",
    "check_values",
]
