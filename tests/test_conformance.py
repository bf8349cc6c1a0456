"""The conformance suite: every registered model and variant passes every check of
:mod:`holovec.testing` on every backend (the ``conformance_model`` fixture of conftest),
and so does a test-only twin of MAP registered under a new name.

The models, their option variants and the encoders each model supports are generated from
``VSA.available_models()`` and the models' declared properties
(:func:`holovec.testing.model_variants`), never listed here. The generic laws (bind
inverse, commutativity, self-inverse, identity, similarity preservation, permutation,
bundles and similarities of batches) are checks of :mod:`holovec.testing.laws`; the
per-model files compare each model with its references only.
"""

from __future__ import annotations

import contextlib
from typing import ClassVar

import pytest

from conftest import CONFORMANCE_DIM, backend_param, device_for
from holovec import VSA
from holovec.models import MAP, register_model, unregister_model
from holovec.testing import check_reproducible_across_backends, encoder_examples, model_checks, model_variants
from holovec.testing.checks import check_encoders
from holovec.testing.laws import LAW_CHECKS

DIM = CONFORMANCE_DIM  # a square (VTB), a multiple of 4 (GHRR m=2) and of 16 segments (BSDC-SEG)


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


def make(name: str, options: dict, backend: str = "numpy"):
    return VSA.create(name, dim=DIM, backend=backend, device=device_for(backend), seed=1, **options)


#: checks that JAX would only re-test at the price of a compilation per new shape: the
#: laws are backend-independent code over the backend's operations, which are compared
#: with NumPy's op by op (tests/test_jax_eager.py, tests/test_device_paths.py), and
#: tests/test_laws.py runs them on JAX for the core models
NOT_ON_JAX = {*LAW_CHECKS, check_encoders}


@pytest.mark.parametrize("check", model_checks(), ids=lambda c: c.__name__)
def test_model_conformance(conformance_model, check):
    if conformance_model.backend.name == "jax" and check in NOT_ON_JAX:
        pytest.skip("on JAX: compared with NumPy op by op instead (compile time)")
    check(conformance_model)


@pytest.mark.parametrize("check", model_checks(), ids=lambda c: c.__name__)
def test_a_model_a_user_registers_conforms(check):
    with registered(MAPTwin):
        check(make(MAPTwin.name, {}))


@pytest.mark.parametrize("other", [backend_param("torch"), backend_param("jax")])
@pytest.mark.parametrize("variant", model_variants(), ids=lambda v: v.id)
def test_reproducible_across_backends(variant, other):
    name, options = variant
    check_reproducible_across_backends(make(name, options), make(name, options, other))


def test_model_variants_cover_every_option_choice():
    """Every registered model, each boolean option flipped and each named choice."""
    ids = [v.id for v in model_variants()]
    assert set(VSA.available_models()) <= {v.name for v in model_variants()}
    for expected in ("BSC-packed=True", "HRR-unitary=True", "BSDC-binding=cdt", "BSDC-SEG-thinning=vote"):
        assert expected in ids
    assert len(ids) == len(set(ids)), "each variant once"
    twin = model_variants([MAPTwin])
    assert [v.id for v in twin] == ["MAP-TWIN"]
    model = model_variants(["HRR"])[1].create(64, seed=2)
    assert model.unitary is True and model.dim == 64 and model.seed == 2


def test_model_variants_read_declared_option_rules():
    """Choices declared as an ``Options`` rule are taken as declared (no probing)."""
    from holovec._params import Options
    from holovec.models import model_class

    class Declared(model_class("BSDC-SEG")):
        name = "BSDC-SEG-DECLARED"
        _parameter_rules: ClassVar[dict] = {"thinning": Options("none", "vote", "extra")}

    ids = [v.id for v in model_variants([Declared])]
    assert ids == ["BSDC-SEG-DECLARED", "BSDC-SEG-DECLARED-thinning=vote", "BSDC-SEG-DECLARED-thinning=extra"]


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
