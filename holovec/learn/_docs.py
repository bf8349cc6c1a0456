"""Parameter descriptions that several estimators share: written once here, put into each
estimator's docstring where it says ``{encoder_parameters}`` (private)."""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T", bound=type)

#: the default encoder's parameters, the same for every estimator that encodes its input
ENCODER_PARAMETERS = """\
    model, dim : str and int, or None
        The model and dimension of the default encoder (``None``: ``"FHRR"`` and 10000, or
        those of ``encoder``).
    encoder : None, "precomputed", HDEncoder or a holovec encoder
        How samples become hypervectors (see :class:`HDEncoder`).
"""


def shared_parameters(cls: T) -> T:
    """Class decorator: the shared parameter descriptions in place of their marker line."""
    cls.__doc__ = cls.__doc__.replace("    {encoder_parameters}\n", ENCODER_PARAMETERS)
    return cls
