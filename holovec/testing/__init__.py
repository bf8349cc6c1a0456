"""The conformance checks of a model: laws, errors, protocol and encoder support.

In the spirit of scikit-learn's ``parametrize_with_checks``: every check takes a model and
derives what it expects from the model's declared properties (``is_exact_inverse``,
``is_commutative``, ``element_kind``, ``bundle_is_sum``, ...), so that the same suite
serves every registered model, including one a user registers::

    import pytest
    from holovec.testing import model_checks

    @pytest.mark.parametrize("check", model_checks(), ids=lambda c: c.__name__)
    def test_my_model(check):
        check(VSA.create("MY-MODEL", dim=256, seed=1))

:func:`model_variants` lists every registered model and its variants (``BSC`` packed,
``HRR`` unitary, ``BSDC`` with CDT binding, ...) as ready-to-use configurations, so that a
suite covers each of them. :func:`check_reproducible_across_backends` compares two
backends and is called apart. Checks use small dimensions and plain NumPy for their
expectations; each raises ``AssertionError`` with what was expected.

The package: ``checks`` (declarations, draws, errors, protocol hooks), ``laws`` (the
algebraic laws that every model states through its flags), ``encoders`` (a working
example of every encoder) and ``variants`` (the registered models and their options).
"""

from __future__ import annotations

# each check by name too, as holovec.testing had them (model_checks' ids), unlisted
from .checks import (
    check_bind_laws,  # noqa: F401
    check_bundle_and_permute,  # noqa: F401
    check_declarations,  # noqa: F401
    check_elements_and_atoms,  # noqa: F401
    check_encoders,  # noqa: F401
    check_equality,  # noqa: F401
    check_errors,  # noqa: F401
    check_phasor_form,  # noqa: F401
    check_random,  # noqa: F401
    check_reproducible_across_backends,
    check_search_protocol,  # noqa: F401
    check_similarity_scale,  # noqa: F401
    check_sum_form,  # noqa: F401
    model_checks,
)
from .encoders import encoder_examples
from .variants import ANY_MODEL_DIM, ModelVariant, model_variants

__all__ = [  # (the single checks stay importable from here, unlisted, as before)
    "ANY_MODEL_DIM",
    "ModelVariant",
    "check_reproducible_across_backends",
    "encoder_examples",
    "model_checks",
    "model_variants",
]
