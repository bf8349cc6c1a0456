"""How a model is built and what it declares: the build step (``VSA.create`` through
``build_model``, variants by option), the protocol's flags and hooks (Hamming search,
packed form, real dtype, configuration), and the draws and pickling that the build wires."""

from __future__ import annotations

import pickle
from abc import ABCMeta

import numpy as np
import pytest

from holovec import VSA, kernels
from holovec.models import BSC, MAP, PackedBSC, VSAModel, build_model, model_class
from holovec.models.protocol import real_dtype_name

#: (model, options) with a Hamming search, and without
HAMMING = [("BSC", {}), ("BSC", {"packed": True}), ("MAP", {}), ("MAP-I", {})]
NO_HAMMING = [("MAP-C", {}), ("FHRR", {}), ("HRR", {}), ("BSDC", {}), ("GHRR", {}), ("VTB", {})]


def test_create_builds_the_variant_an_option_selects():
    assert type(VSA.create("BSC", 64)) is BSC
    packed = VSA.create("BSC", 64, packed=True)
    assert type(packed) is PackedBSC and isinstance(packed, BSC)
    assert type(build_model(model_class("BSC"), 64, packed=False)) is BSC
    assert type(PackedBSC(64)) is PackedBSC
    assert pickle.loads(pickle.dumps(packed)) == packed


def test_the_old_switch_to_a_variant_warns_and_builds_the_variant():
    with pytest.warns(DeprecationWarning, match=r"VSA.create\('BSC', dim, packed=True\)"):
        packed = BSC(64, packed=True)
    assert type(packed) is PackedBSC and packed == VSA.create("BSC", 64, packed=True)
    with pytest.raises(TypeError, match=r"PackedBSC vectors are packed"):
        PackedBSC(64, packed=False)
    with pytest.raises(TypeError, match="packed must be True or False"):
        VSA.create("BSC", 64, packed="yes")


def test_models_are_built_without_a_metaclass_and_with_short_mros():
    assert type(VSAModel) is ABCMeta
    for name in VSA.available_models():
        model = VSA.create(name, 1024)
        assert len(type(model).__mro__) <= 7, (name, type(model).__mro__)
        assert type(model).__mro__.index(VSAModel) < len(type(model).__mro__) - 2


def test_get_config_is_the_configuration():
    model = VSA.create("HRR", 64, seed=3, unitary=True)
    config = model.get_config()
    assert config == model._config()  # the old private name, kept for other packages
    assert config["model"] == "HRR" and config["seed"] == 3 and config["options"] == (("unitary", True),)
    assert VSA.create("HRR", 64, seed=3, unitary=True) == model != VSA.create("HRR", 64, seed=3)


@pytest.mark.parametrize(("name", "options"), HAMMING + NO_HAMMING)
def test_hamming_search_is_declared(name, options):
    model = VSA.create(name, 144, **options)
    index = model.search_index(model.random(3, seed=1))
    if (name, options) in HAMMING:
        assert model.has_hamming_search
        assert model.hamming_search_bits(index) is not None or not kernels.fast_hamming_search(model.backend)
        scores = model.to_numpy(model.hamming_similarity(np.arange(145)))
        assert scores[0] == 1.0 and (np.diff(scores) < 0).all()
    else:
        assert not model.has_hamming_search
        assert model.hamming_search_bits(index) is None
        if name != "MAP-C":  # (MAP-C inherits MAP's table, but never has +-1 vectors to use it)
            with pytest.raises(TypeError, match="has no Hamming search"):
                model.hamming_similarity(np.arange(3))


def test_packed_form_is_declared():
    packed = VSA.create("BSC", 100, packed=True)
    assert packed.has_packed_form and hasattr(packed, "pack") and hasattr(packed, "unpack")
    bits = VSA.create("BSC", 100).random(2, seed=1)
    assert np.array_equal(packed.unpack(packed.pack(bits)), bits)
    for name in ("BSC", "MAP", "FHRR"):
        model = VSA.create(name, 100)
        assert not model.has_packed_form and not hasattr(model, "pack")


@pytest.mark.parametrize(
    ("name", "dtype", "real"),
    [
        ("MAP", "float16", "float32"),
        ("MAP", "float32", "float32"),
        ("MAP", "float64", "float64"),
        ("FHRR", "complex64", "float32"),
        ("FHRR", "complex128", "float64"),
        ("GHRR", "complex128", "float64"),
        ("BSC", "uint8", "float32"),
    ],
)
def test_real_dtype_has_one_definition(name, dtype, real):
    model = VSA.create(name, 64, dtype=dtype)
    assert model.real_dtype_name == real_dtype_name(dtype) == real
    assert model.real_dtype == model.backend.dtype(real)
    if model.has_phasor_form:
        assert model.phase_dtype == model.real_dtype


def test_draw_from_a_row():
    model = VSA.create("FHRR", 64)
    whole = model.to_numpy(model.draw(10, seed=5, purpose=7, stream=2))
    part = model.to_numpy(model.draw(4, seed=5, purpose=7, stream=2, row_start=6))
    np.testing.assert_array_equal(part, whole[6:])
    with pytest.raises(ValueError, match="row_start"):
        model.draw(1, seed=5, purpose=7, row_start=-1)


def test_copies_go_on_drawing_what_the_original_would():
    model = VSA.create("MAP", 64, seed=9)
    model.random(seed=None)
    copy, other = pickle.loads(pickle.dumps(model)), model.with_backend("numpy", None)
    assert other is model
    np.testing.assert_array_equal(copy.random(), model.random())
    assert copy.spawn_seed() == model.spawn_seed()


def test_valid_elements_is_the_hook_asarray_uses():
    mapi = VSA.create("MAP-I", 16)
    assert bool(np.all(mapi.valid_elements(np.array([3.0, -1.0]))))
    with pytest.raises(ValueError, match="integers"):
        mapi.asarray(np.full(16, 0.5))
    assert MAP.allowed_values.fget(VSA.create("MAP", 16)) == "+1 or -1"


class _LateOption(MAP):
    """A model that sets its option after the base ``__init__`` built it."""

    name = "MAP-LATE-OPTION"
    option_names = ("scale",)

    def __init__(self, dim, backend=None, *, scale=1.0, **kwargs):
        super().__init__(dim, backend, **kwargs)
        self.scale = scale


def test_an_option_set_after_the_build_step_is_refused_not_left_out_of_the_key():
    # it would be missing from the configuration: models of other scales would compare
    # equal and share compiled kernels
    with pytest.raises(TypeError, match=r"must set its option\(s\) 'scale' before calling VSAModel.__init__"):
        _LateOption(64, scale=2.0)


def test_models_pickled_by_the_previous_version_load():
    from holovec.models.base import _rebuilt_model  # the name those pickles hold

    model = _rebuilt_model(MAP, 64, "numpy", "cpu", "float32", 7, {}, 3)
    fresh = VSA.create("MAP", 64, seed=7)
    for _ in range(3):
        fresh.random()
    assert model == fresh
    np.testing.assert_array_equal(model.random(), fresh.random())  # the 4th unseeded draw


def test_the_old_name_of_the_valid_elements_hook_still_validates():
    with pytest.warns(DeprecationWarning, match="_valid_elements is deprecated"):

        class OldHook(MAP):
            name = "MAP-OLD-HOOK"

            def _valid_elements(self, x):
                return x == 1  # only +1 allowed

    assert OldHook.valid_elements is OldHook.__dict__["_valid_elements"]
