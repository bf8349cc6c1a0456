"""The examples stay runnable and keep answering correctly."""

import runpy
import sys
from pathlib import Path

import numpy as np
import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.mark.parametrize("model", ["FHRR", "MAP", "BSC"])
def test_quickstart_answers(model, backend, capsys, monkeypatch):
    monkeypatch.setattr(
        sys, "argv", ["quickstart.py", "--model", model, "--backend", backend, "--dim", "4000"]
    )
    runpy.run_path(str(EXAMPLES / "quickstart.py"), run_name="__main__")
    out = capsys.readouterr().out
    assert "capital  -> Washington" in out
    assert "currency -> Dollar" in out
    assert "What is the dollar of Mexico?  -> Peso" in out


def pyplot():
    """matplotlib's pyplot drawing off screen: the tutorials draw figures. matplotlib comes
    with the docs extra (CI's requirements-test.txt installs it); without it the tutorials'
    tests skip."""
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")  # no window, whatever MPLBACKEND says; before pyplot is imported
    import matplotlib.pyplot as plt

    return plt


def run_example(name: str, capsys, monkeypatch) -> tuple[dict, str]:
    """Run ``examples/<name>.py`` as the gallery does (``__main__``, no arguments, on the
    default NumPy backend whatever ``HOLOVEC_BACKEND`` says): its global names and what
    it printed."""
    plt = pyplot()
    monkeypatch.setattr(sys, "argv", [f"{name}.py"])
    monkeypatch.delenv("HOLOVEC_BACKEND", raising=False)
    try:
        namespace = runpy.run_path(str(EXAMPLES / f"{name}.py"), run_name="__main__")
    finally:
        plt.close("all")
    return namespace, capsys.readouterr().out


def test_every_example_is_tested():
    tested = {"quickstart", *EXPECTATIONS}
    assert {p.stem for p in EXAMPLES.glob("*.py")} == tested


def check_fpe_scalars(ns: dict, out: str) -> None:
    assert "decoded: [0.1  0.25 0.5  0.9 ]" in out
    assert "decode(bind(z(0.2), z(0.3))) = 0.500000" in out
    errors = ns["errors"]
    for bandwidth in (2.0, 8.0, 32.0):
        assert errors[bandwidth, 0].max() < 1e-4  # exact without noise
    # sharper kernels decode more precisely ...
    assert np.median(errors[32.0, 32]) < np.median(errors[8.0, 32]) < np.median(errors[2.0, 32])
    assert np.median(errors[8.0, 32]) < 0.01
    # ... but under heavy noise only they make gross (wrong-lobe) errors
    assert np.mean(errors[2.0, 128] > 0.5 / 2.0) == 0
    assert np.mean(errors[32.0, 128] > 0.5 / 32.0) > 0


def check_sequence_memory(ns: dict, out: str) -> None:
    assert "position 3: 'e'" in out
    assert "permute: hypervector" in out
    assert "bind   : hypervector" in out
    acc = ns["accuracy"]
    assert acc["MAP"][20] >= 0.99 and acc["FHRR"][40] >= 0.99
    assert acc["MAP"][320] < 0.5 and acc["FHRR"][320] < 0.8  # recall falls with length
    assert all(acc["FHRR"][n] >= acc["MAP"][n] for n in acc["MAP"])
    # the Gaussian approximation matches the measurement (FHRR, the last model run)
    assert np.allclose(ns["measured"], ns["expected"], atol=0.05)


def check_ngram_text_classification(ns: dict, out: str) -> None:
    assert ns["accuracy"] >= 0.9
    assert np.trace(ns["confusion"]) == round(ns["accuracy"] * len(ns["sentences"]))
    assert "-> English" in out and "-> German" in out


def check_resonator_scene(ns: dict, out: str) -> None:
    assert "decoded: ['star', 'red', 'x=3', 'y=7']" in out
    assert ns["accuracy"] >= 0.95
    assert ns["scene_accuracy"] >= 0.9
    assert " 8         4,096     100%" in out


def check_switching_backends(ns: dict, out: str) -> None:
    assert "identical to NumPy: False" not in out
    for name in ns["backends"]:
        assert f"{name:6s}" in out
    assert out.count("top 3 items of the bundle: [4, 9, 21]; round trip exact: True") == len(ns["backends"])
    assert out.count("similarity(unbind(bind(a, b), b), a) = 1.0000") == len(ns["backends"])
    for line in out.splitlines():
        if "largest difference from NumPy" in line:
            assert float(line.rsplit(" ", 1)[1]) < 1e-6
    # the timed results are computed arrays: Dask's lazy graph was timed once (its build
    # alone, a few ms, printed as the time of a matrix it had not computed)
    timed = [line for line in out.splitlines() if "similarity matrix (" in line]
    assert len(timed) == len(ns["backends"])
    for line in timed:
        assert "(100, 5000) similarity matrix" in line
        assert "(dask." not in line, line
        if line.startswith("dask"):
            assert line.endswith("(numpy.ndarray)"), line


def check_digits_classification(ns: dict, out: str) -> None:
    assert "1347 training and 450 test images of 64 pixels" in out
    acc, curves, by_dim = ns["accuracy"], ns["curves"], ns["by_dim"]
    assert 0.85 <= acc["centroid"] < 0.93
    # retraining beats the one pass after a few epochs and mostly keeps improving
    for curve in curves.values():
        assert curve[-1] >= acc["centroid"] + 0.03
        assert curve[-1] >= curve[1]
    assert curves["AdaptHD"][-1] >= 0.95
    assert acc["ridge"] >= 0.97  # the closed-form read-out is the most accurate
    assert acc["MAP, binarize=True"] < acc["MAP, binarize=False"]  # binarising costs accuracy
    assert acc["MAP, binarize=True"] >= 0.85
    for dim in ns["dims"]:
        assert by_dim["ridge"][dim] >= by_dim["AdaptHD, 5 epochs"][dim] > by_dim["centroid"][dim]
    assert by_dim["centroid"][500] >= 0.85 and by_dim["ridge"][5000] >= 0.98


def check_language_identification(ns: dict, out: str) -> None:
    assert "22 training and 22 test sentences in 4 languages" in out
    assert ns["accuracy"] >= 0.95
    assert np.trace(ns["confusion"]) == round(ns["accuracy"] * len(ns["X_test"]))
    assert "same predictions: True" in out  # partial_fit on a stream = fit
    by_length = ns["by_length"]
    centroid = [by_length[n]["centroid"] for n in sorted(by_length)]
    assert centroid == sorted(centroid)  # longer snippets are easier
    assert 0.4 <= centroid[0] < 0.7 and centroid[-1] >= 0.9


def check_cleanup_memory(ns: dict, out: str) -> None:
    assert "2000 symbols, beta = 31.6: 100% recalled exactly from 30% noise" in out
    assert "beta 10.0: largest weight" in out and "   0% recalled exactly" in out  # a blend of many
    measured, predicted, loads = ns["measured"], ns["predicted"], ns["loads"]
    for load, m, p in zip(loads, measured, predicted, strict=True):
        if load <= 0.13:  # below the critical load: the AGS error rate, within finite-size noise
            assert abs(m - p) < 0.003, (load, m, p)
    assert measured[-1] > 0.1 and predicted[-1] == 0.5  # beyond it: no retrieval state
    assert "SDM, cues 10% noisy:" in out
    assert "FHRR: dim" in out


def check_structures(ns: dict, out: str) -> None:
    assert "next state after 2 on '1': 2" in out
    assert "run of '1001' (9): (0, [0, 1, 2, 1, 0])" in out
    assert "500 numbers of up to 12 digits: 100.0% classified right" in out
    assert "the leaf at 'rrrr': mat" in out and "rrrl  -> the" in out
    # the planner predicts the hash table's measured accuracy as it fills
    for measured, predicted in zip(ns["measured"], ns["predicted"], strict=True):
        assert abs(measured - predicted) < 0.06, (measured, predicted)
    assert ns["measured"][0] >= 0.99 and ns["measured"][-1] < 0.2


def check_time_series_classification(ns: dict, out: str) -> None:
    assert "GunPoint, MiniROCKET's features: (4, 1, 150) -> (4, 9996) complex64" in out
    assert "GunPoint, the values: (4, 1, 150) -> (4, 4000)" in out
    accuracy = ns["accuracy"]
    for name in ns["SETS"]:
        reference = accuracy[name, "MiniROCKET (aeon)"]
        # the goal, and what the tutorial says: the defaults within 0.02 of MiniROCKET
        assert accuracy[name, "TimeSeriesEncoder + ridge"] >= reference - 0.02 - 1e-9, (name, accuracy)
    assert accuracy["BasicMotions", "values + centroid"] >= 0.95
    # HDC-MiniROCKET's published GunPoint figures: 0.993 at scale 0 (MiniROCKET), 1.000 at 3-7
    assert accuracy["GunPoint", "HDC-MiniROCKET s=0"] >= 0.99
    assert accuracy["GunPoint", "HDC-MiniROCKET s=4"] >= accuracy["GunPoint", "HDC-MiniROCKET s=0"]
    similarity = ns["similarity"]  # the last bandwidth's shift curve starts at 1 and falls
    assert similarity[0] > 0.999 and similarity[-1] < 0.5


def check_robustness_to_hardware_errors(ns: dict, out: str) -> None:
    assert "1257 training and 540 test images" in out
    assert "flipped fraction  accuracy" in out and "expected (1 - 2p)" in out
    clean, accuracy, similarity = ns["clean"], ns["accuracy"], ns["similarity"]
    assert 0.85 <= clean < 0.95
    assert accuracy[0.0] == clean  # nothing flipped: the classifier's own predictions
    assert abs(accuracy[0.1] - clean) <= 0.05  # what the tutorial says: a tenth flipped costs little
    assert accuracy[0.4] < clean - 0.05  # ... and the accuracy does fall as p nears 1/2
    for p, (in_book, prototypes, expected) in similarity.items():
        assert abs(expected - (1 - 2 * p)) < 1e-12
        assert abs(in_book - expected) < 1e-6  # exactly 1 - 2p for a MAP codebook
        assert abs(prototypes - expected) < 0.02  # on average for the prototypes


def check_block_code_factorization(ns: dict, out: str) -> None:
    assert "1024 elements in 16 blocks of 64: 16 active" in out
    assert "unbind(bind(a, b), b) == a: True" in out
    accuracy = ns["accuracy"]
    # what the tutorial says: the factorizer decodes every product, the resonator few
    assert accuracy["block-code factorizer"] == 1.0
    assert accuracy["resonator network"] < 0.6
    assert ns["factorizer"].iterations.mean() < 100


EXPECTATIONS = {
    "block_code_factorization": check_block_code_factorization,
    "cleanup_memory": check_cleanup_memory,
    "digits_classification": check_digits_classification,
    "fpe_scalars": check_fpe_scalars,
    "language_identification": check_language_identification,
    "sequence_memory": check_sequence_memory,
    "structures": check_structures,
    "ngram_text_classification": check_ngram_text_classification,
    "resonator_scene": check_resonator_scene,
    "robustness_to_hardware_errors": check_robustness_to_hardware_errors,
    "switching_backends": check_switching_backends,
    "time_series_classification": check_time_series_classification,
}

#: the tutorials of holovec.learn, which need scikit-learn
NEEDS_SKLEARN = {
    "digits_classification",
    "language_identification",
    "robustness_to_hardware_errors",
    "time_series_classification",
}
#: the tutorials that load aeon's data sets (the [timeseries] extra)
NEEDS_AEON = {"time_series_classification"}


@pytest.mark.parametrize("name", sorted(EXPECTATIONS))
def test_example_results(name, capsys, monkeypatch):
    if name in NEEDS_SKLEARN:
        pytest.importorskip("sklearn")  # holovec.learn needs the [learn] extra
    if name in NEEDS_AEON:
        pytest.importorskip("aeon")
    namespace, out = run_example(name, capsys, monkeypatch)
    EXPECTATIONS[name](namespace, out)
