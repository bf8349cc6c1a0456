"""The conformance suite: every registered model (and a test-only twin of MAP registered
under a new name) passes every check of :mod:`holovec.testing`, on every backend.

The models, their option variants and the encoders each model supports are generated from
``VSA.available_models()`` and the models' declared properties, never listed here.
"""

from __future__ import annotations

import contextlib

import pytest

from conftest import backend_param, device_for, model_variants, variant_id
from holovec import VSA
from holovec.models import MAP, model_class, register_model, unregister_model
from holovec.testing import check_reproducible_across_backends, encoder_examples, model_checks

DIM = 256  # a square (VTB), a multiple of 4 (GHRR m=2) and of 16 segments (BSDC-SEG)


class MAPTwin(MAP):
    """Exactly MAP's algebra under another name: a model a user registers."""

    name = "MAP-TWIN"


@contextlib.contextmanager
def registered(cls):
    register_model(cls)
    try:
        yield
    finally:
        unregister_model(cls.name)


def variants() -> list[tuple[str, dict]]:
    """Every registered model (and the MAP twin) with its default options, plus each
    boolean option flipped."""
    classes = {name: model_class(name) for name in VSA.available_models()}
    return model_variants({**classes, MAPTwin.name: MAPTwin})


def make(name: str, options: dict, backend: str = "numpy"):
    return VSA.create(name, dim=DIM, backend=backend, device=device_for(backend), seed=1, **options)


@pytest.mark.parametrize("check", model_checks(), ids=lambda c: c.__name__)
@pytest.mark.parametrize("variant", variants(), ids=variant_id)
def test_model_conformance(variant, check):
    name, options = variant
    with registered(MAPTwin):
        check(make(name, options))


@pytest.mark.parametrize("other", [backend_param("torch"), backend_param("jax")])
@pytest.mark.parametrize("variant", variants(), ids=variant_id)
def test_reproducible_across_backends(variant, other):
    name, options = variant
    with registered(MAPTwin):
        check_reproducible_across_backends(make(name, options), make(name, options, other))


@pytest.mark.parametrize(
    "check", [c for c in model_checks() if c.__name__ != "check_encoders"], ids=lambda c: c.__name__
)
@pytest.mark.parametrize("backend", [backend_param("torch"), backend_param("jax")])
def test_core_models_conform_on_every_backend(backend, check):
    for name in ("FHRR", "MAP", "BSC", "HRR"):
        check(make(name, {}, backend))


def test_a_registered_subclass_is_supported_like_its_parent():
    """Every encoder that supports MAP supports its twin, and encodes exactly as for MAP."""
    import numpy as np

    with registered(MAPTwin):
        parent, twin = make("MAP", {}), make(MAPTwin.name, {})
        assert MAPTwin.name in VSA.available_models()
        for cls, build, use in encoder_examples():
            assert cls.supports(twin) == cls.supports(parent), cls.__name__
            assert (MAPTwin.name in cls.supported_model_names()) == cls.supports(parent)
            if cls.supports(parent):
                np.testing.assert_array_equal(use(build(twin)), use(build(parent)), err_msg=cls.__name__)
    assert MAPTwin.name not in VSA.available_models()


def test_the_encoder_examples_cover_every_encoder():
    import holovec.encoders as E

    public = {
        getattr(E, n)
        for n in E.__all__
        if isinstance(getattr(E, n), type) and issubclass(getattr(E, n), E.Encoder)
    }
    public -= {E.Encoder, E.SymbolCodebook}  # the base class; a codebook is made from a table
    assert public <= {cls for cls, _, _ in encoder_examples()}
