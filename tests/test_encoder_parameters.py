"""Encoder parameters: one table of rules per class, one spelling per parameter.

Every encoder declares its constructor's parameters in ``_parameter_rules`` and the
encoder base checks them in one place: ``TypeError`` for a wrong type, ``ValueError`` for
a bad value, both naming the parameter. The older spellings (``value_range``, ``dims``,
``n_dimensions``, ``mode``, ``scalar``, a positional ``seed``) still work, with a
``DeprecationWarning`` that names the new one.
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest

from holovec import VSA
from holovec import encoders as E
from holovec._params import parameter_rules
from holovec.encoders import (
    FractionalPowerEncoder,
    GraphEncoder,
    ImageEncoder,
    LevelEncoder,
    NGramEncoder,
    PeriodicAngleEncoder,
    PositionBindingEncoder,
    RecordEncoder,
    ResidueEncoder,
    SymbolTable,
    ThermometerEncoder,
    TrajectoryEncoder,
    VectorEncoder,
    VectorFPE,
)
from holovec.encoders.sequence import NGramEncoder as SequenceNGram
from holovec.encoders.sequence import PositionBindingEncoder as SequencePositions
from holovec.encoders.sequence import TrajectoryEncoder as SequenceTrajectory

DIM = 256


@pytest.fixture(scope="module")
def fhrr():
    return VSA.create("FHRR", dim=DIM, backend="numpy")


@pytest.fixture(scope="module")
def map_model():
    return VSA.create("MAP", dim=DIM, backend="numpy")


def _same(model, a, b) -> bool:
    return bool(np.allclose(model.backend.to_numpy(a), model.backend.to_numpy(b)))


# -- the rules -------------------------------------------------------------------------------

ENCODERS = [
    cls
    for cls in (getattr(E, name) for name in E.__all__)
    if inspect.isclass(cls) and issubclass(cls, E.Encoder) and cls is not E.Encoder
]


@pytest.mark.parametrize("cls", ENCODERS, ids=lambda c: c.__name__)
def test_every_rule_names_a_parameter_of_the_constructor(cls):
    signature = inspect.signature(cls.__init__)
    rules = parameter_rules(cls)
    assert rules, f"{cls.__name__} declares no parameter rules"
    for name in rules:
        assert name in signature.parameters, f"{cls.__name__}: rule for {name!r}, not a parameter"
    seed = signature.parameters["seed"]
    assert seed.kind is inspect.Parameter.KEYWORD_ONLY, f"{cls.__name__}: seed is not keyword-only"


def test_the_same_parameter_has_the_same_rule_everywhere():
    seen: dict[str, dict[str, str]] = {}
    for cls in ENCODERS:
        for name, rule in parameter_rules(cls).items():
            seen.setdefault(name, {})[cls.__name__] = rule.describe()
    for name in ("clip", "levels"):
        descriptions = set(seen[name].values())
        assert len(descriptions) == 1, (name, seen[name])
    # min_val and max_val: a number, or (where an encoder takes points) one per axis
    for name in ("min_val", "max_val"):
        assert all(d.startswith("a finite number") for d in seen[name].values()), seen[name]


BAD = [
    # (factory, parameter, a value of the wrong type, a bad value of the right type)
    (
        lambda m, **kw: FractionalPowerEncoder(m, **{"min_val": 0.0, "max_val": 1.0, **kw}),
        "bandwidth",
        "1",
        -1.0,
    ),
    (
        lambda m, **kw: FractionalPowerEncoder(m, **{"min_val": 0.0, "max_val": 1.0, **kw}),
        "kernel",
        3,
        "student",
    ),
    (
        lambda m, **kw: FractionalPowerEncoder(m, **{"min_val": 0.0, "max_val": 1.0, **kw}),
        "n_features",
        2.0,
        0,
    ),
    (
        lambda m, **kw: FractionalPowerEncoder(m, **{"min_val": 0.0, "max_val": 1.0, **kw}),
        "clip",
        "yes",
        None,
    ),
    (lambda m, **kw: FractionalPowerEncoder(m, **{"max_val": 1.0, **kw}), "min_val", "0", float("nan")),
    (lambda m, **kw: VectorFPE(m, **{"min_val": 0.0, "max_val": 1.0, **kw}), "n_features", None, 0),
    (lambda m, **kw: PeriodicAngleEncoder(m, **kw), "period", "24", 0.0),
    (lambda m, **kw: PeriodicAngleEncoder(m, **kw), "harmonics", 2.5, 0),
    (lambda m, **kw: ResidueEncoder(m, **kw), "moduli", 5, (1, 3)),
    (lambda m, **kw: ResidueEncoder(m, **kw), "clip", 1, None),
    (lambda m, **kw: LevelEncoder(m, **{"min_val": 0.0, "max_val": 1.0, **kw}), "levels", 4.0, 1),
    (lambda m, **kw: LevelEncoder(m, **{"min_val": 0.0, **kw}), "max_val", [1.0], 10**400),
    (lambda m, **kw: TrajectoryEncoder(m, **kw), "n_features", "2", 0),
    (lambda m, **kw: TrajectoryEncoder(m, **kw), "method", 1, "spline"),
    (lambda m, **kw: TrajectoryEncoder(m, **kw), "levels", 8.0, 1),
    (lambda m, **kw: TrajectoryEncoder(m, **kw), "bandwidth", "1", 0.0),
    (lambda m, **kw: ImageEncoder(m, **kw), "shape", 28, (0, 28)),
    (lambda m, **kw: ImageEncoder(m, **kw), "min_val", "0", float("inf")),
    (lambda m, **kw: NGramEncoder(m, **kw), "n", 3.0, 0),
    (lambda m, **kw: NGramEncoder(m, **kw), "stride", "1", 0),
    (lambda m, **kw: NGramEncoder(m, **kw), "method", None, "bag"),
    (lambda m, **kw: PositionBindingEncoder(m, **kw), "method", None, "shift"),
    (lambda m, **kw: PositionBindingEncoder(m, **kw), "max_length", 2.0, 0),
    (lambda m, **kw: GraphEncoder(m, **kw), "directed", 1, None),
    (lambda m, **kw: GraphEncoder(m, **kw), "nodes", 1, None),
    (lambda m, **kw: RecordEncoder(m, **kw), "roles", {"a"}, None),
    (lambda m, **kw: RecordEncoder(m, **kw), "fillers", 2.0, None),
    (lambda m, **kw: NGramEncoder(m, **kw), "symbols", 3, None),
    (lambda m, **kw: PositionBindingEncoder(m, **kw), "symbols", b"ab", None),
    (lambda m, **kw: SymbolTable(m, **kw), "namespace", 1, None),
    (lambda m, **kw: SymbolTable(m, **kw), "cache", "no", None),
    (lambda m, **kw: VectorEncoder(m, **{"n_features": 3, **kw}), "bandwidth", "1", 0.0),
    (lambda m, **kw: VectorEncoder(m, **kw), "n_features", 3.0, 0),
]


@pytest.mark.parametrize(
    ("make", "name", "wrong_type", "bad_value"), BAD, ids=[f"{b[1]}-{i}" for i, b in enumerate(BAD)]
)
def test_a_wrong_type_is_a_type_error_and_a_bad_value_a_value_error(fhrr, make, name, wrong_type, bad_value):
    with pytest.raises(TypeError, match=f"{name} must be"):
        make(fhrr, **{name: wrong_type}, seed=1)
    if bad_value is not None:
        with pytest.raises(ValueError, match=f"{name} must be"):
            make(fhrr, **{name: bad_value}, seed=1)


def test_asserted_wordings_are_kept(fhrr):
    with pytest.raises(ValueError, match="bandwidth must be positive"):
        FractionalPowerEncoder(fhrr, 0.0, 1.0, bandwidth=0.0)
    with pytest.raises(ValueError, match="kernel must be one of"):
        FractionalPowerEncoder(fhrr, 0.0, 1.0, kernel="student")
    with pytest.raises(ValueError, match="period must be positive"):
        PeriodicAngleEncoder(fhrr, period=-1.0)
    assert FractionalPowerEncoder(fhrr, 0.0, 1.0, kernel="Gaussian", seed=1).kernel_name == "gaussian"


def test_numpy_scalars_pass_as_the_numbers_they_are(fhrr):
    enc = FractionalPowerEncoder(
        fhrr, np.float32(0.0), np.int64(4), bandwidth=np.float64(2.0), seed=np.int64(1)
    )
    assert enc.max_val.tolist() == [4.0]
    assert LevelEncoder(VSA.create("MAP", dim=DIM), 0.0, 1.0, levels=np.int64(5), seed=1).levels == 5


# -- the sequence module keeps its import path ----------------------------------------------------


def test_sequence_module_keeps_its_names():
    assert SequenceNGram is NGramEncoder
    assert SequencePositions is PositionBindingEncoder
    assert SequenceTrajectory is TrajectoryEncoder
    from holovec.encoders.fpe import KERNELS
    from holovec.encoders.fpe import PeriodicAngleEncoder as FromFpe

    assert FromFpe is PeriodicAngleEncoder and "sinc" in KERNELS


# -- deprecated spellings ---------------------------------------------------------------------------


def _warns(match: str):
    return pytest.warns(DeprecationWarning, match=match)


def test_positional_seed_still_works_and_warns(fhrr, map_model):
    with _warns("'seed', 'kernel' by position"):
        old = FractionalPowerEncoder(fhrr, 0.0, 1.0, 2.0, 5, "gaussian")
    new = FractionalPowerEncoder(fhrr, 0.0, 1.0, 2.0, seed=5, kernel="gaussian")
    assert old.kernel_name == "gaussian" and _same(fhrr, old.encode(0.3), new.encode(0.3))
    with _warns("'seed' by position"):
        old = VectorFPE(fhrr, 2, 0.0, 1.0, 1.0, 5)
    assert _same(fhrr, old.encode([0.1, 0.2]), VectorFPE(fhrr, 2, 0.0, 1.0, seed=5).encode([0.1, 0.2]))
    with _warns("'seed' by position"):
        old = LevelEncoder(map_model, 0.0, 1.0, 5, 3)
    assert _same(map_model, old.table, LevelEncoder(map_model, 0.0, 1.0, 5, seed=3).table)
    with _warns("'seed' by position"):
        assert ThermometerEncoder(map_model, 0.0, 1.0, 5, 3).seed == 3
    with _warns("'seed' by position"):
        assert PeriodicAngleEncoder(fhrr, 24.0, 3, 4).seed == 4
    with _warns("'seed' by position"):
        assert ResidueEncoder(fhrr, (3, 5), 6).seed == 6
    with _warns("'seed' by position"):
        old = SymbolTable(map_model, 7)
    assert _same(map_model, old["cat"], SymbolTable(map_model, seed=7)["cat"])


def test_value_range_is_min_val_and_max_val(fhrr, map_model):
    with _warns("'value_range' is deprecated since 0.2; use 'min_val' and 'max_val'"):
        old = ImageEncoder(map_model, (2, 2), levels=4, value_range=(0.0, 10.0), seed=1)
    new = ImageEncoder(map_model, (2, 2), levels=4, min_val=0.0, max_val=10.0, seed=1)
    image = [[1.0, 2.0], [9.0, 3.0]]
    assert _same(map_model, old.encode(image), new.encode(image))
    with _warns("ImageEncoder.value_range is deprecated"):
        assert new.value_range == (0.0, 10.0)
    with _warns("'value_range' is deprecated"):
        old = TrajectoryEncoder(fhrr, 2, value_range=[(0, 5), (0, 10)], seed=1)
    new = TrajectoryEncoder(fhrr, 2, min_val=[0, 0], max_val=[5, 10], seed=1)
    path = [[1.0, 2.0], [3.0, 9.0]]
    assert _same(fhrr, old.encode(path), new.encode(path))
    with pytest.raises(TypeError, match="not also value_range"):
        ImageEncoder(map_model, value_range=(0, 1), min_val=0.0)


def test_n_features_is_the_number_of_coordinates(fhrr):
    with _warns("'dims' is deprecated since 0.2; use 'n_features'"):
        old = FractionalPowerEncoder(fhrr, 0.0, 1.0, dims=2, seed=1)
    assert old.n_features == 2
    with _warns("VectorFPE: the argument 'dims'"):
        assert VectorFPE(fhrr, dims=3, min_val=0.0, max_val=1.0, seed=1).n_features == 3
    with _warns("FractionalPowerEncoder.dims is deprecated"):
        assert old.dims == 2
    with _warns("'n_dimensions' is deprecated since 0.2; use 'n_features'"):
        path = TrajectoryEncoder(fhrr, n_dimensions=3, seed=1)
    assert path.n_features == 3
    with _warns("TrajectoryEncoder.n_dimensions is deprecated"):
        assert path.n_dimensions == 3


def test_method_chooses_the_strategy(fhrr, map_model):
    with _warns("'mode' is deprecated since 0.2; use 'method'"):
        old = NGramEncoder(map_model, n=2, mode="chaining", seed=1)
    new = NGramEncoder(map_model, n=2, method="chaining", seed=1)
    assert old.method == "chaining" and _same(map_model, old.encode("abcd"), new.encode("abcd"))
    with _warns("NGramEncoder.mode is deprecated"):
        assert new.mode == "chaining"
    with _warns("'scalar' is deprecated since 0.2; use 'method'"):
        old = TrajectoryEncoder(fhrr, 1, scalar="level", seed=1)
    assert old.scalar_kind == "level"
    assert TrajectoryEncoder(fhrr, 1, method="level", seed=1).scalar_kind == "level"
    with pytest.raises(TypeError, match="method='fpe' needs"):
        TrajectoryEncoder(map_model, 1, method="fpe", seed=1)


def test_new_spellings_do_not_warn(fhrr, map_model):
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        FractionalPowerEncoder(fhrr, 0.0, 1.0, 2.0, seed=1, kernel="sinc", n_features=2)
        VectorFPE(fhrr, 2, 0.0, 1.0, seed=1)
        TrajectoryEncoder(fhrr, 2, min_val=0.0, max_val=1.0, method="auto", seed=1)
        ImageEncoder(map_model, (2, 2), min_val=0.0, max_val=1.0, seed=1)
        NGramEncoder(map_model, 3, method="bundling", seed=1)
        LevelEncoder(map_model, 0.0, 1.0, 5, seed=1, n_levels=None)
        SymbolTable(map_model, seed=1)


def test_holovec_level_names_live_in_compat(map_model):
    from holovec.compat import levels_argument

    assert levels_argument(None, None, "n_levels") == 100
    assert levels_argument(None, 7, "n_bins") == 7
    with pytest.raises(TypeError, match="not both"):
        levels_argument(5, 5, "n_levels")
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)  # HoloVec's names do not warn
        assert LevelEncoder(map_model, 0.0, 1.0, n_levels=5, seed=1).levels == 5
        assert ThermometerEncoder(map_model, 0.0, 1.0, n_bins=7).levels == 7
    with pytest.raises(ValueError, match="levels must be"):
        LevelEncoder(map_model, 0.0, 1.0, n_levels=1, seed=1)


def test_numpy_strings_pass_as_the_strings_they_are(fhrr, map_model):
    # grid searches over NumPy arrays give np.str_ values
    assert NGramEncoder(map_model, 2, method=np.str_("chaining"), seed=1).method == "chaining"
    assert FractionalPowerEncoder(fhrr, 0.0, 1.0, kernel=np.str_("sinc"), seed=1) is not None


def test_an_unknown_parameter_of_an_encoder_is_a_type_error(map_model):
    class Custom(E.LevelEncoder):
        def __init__(self, model):
            E.Encoder.__init__(self, model, seed=1, typo=1)

    with pytest.raises(TypeError, match="Custom has no parameter 'typo'"):
        Custom(map_model)
