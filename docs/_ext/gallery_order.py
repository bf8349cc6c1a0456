"""The order of the tutorials in the gallery: the quick start first, then by topic."""

TUTORIALS = (
    "quickstart.py",
    "fpe_scalars.py",
    "sequence_memory.py",
    "cleanup_memory.py",
    "structures.py",
    "ngram_text_classification.py",
    "digits_classification.py",
    "robustness_to_hardware_errors.py",
    "time_series_classification.py",
    "language_identification.py",
    "resonator_scene.py",
    "switching_backends.py",
)


def tutorial_order(filename: str) -> tuple[int, str]:
    """Sort key: listed tutorials in their order, any others after them by name."""
    return (TUTORIALS.index(filename) if filename in TUTORIALS else len(TUTORIALS), filename)
