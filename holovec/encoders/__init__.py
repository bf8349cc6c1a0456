"""Encoders: scalars, sequences, records, graphs, images and vectors as hypervectors."""

from .base import Encoder, check_values

__all__ = ["Encoder", "check_values"]
