"""What the encoders and estimators are given: features far from zero, finite numbers too
large for float32 and Dask arrays of unknown shape, torch tensors that require grad, hold
bfloat16 or no data at all, the memory of the projection encoder and HDEncoder's output names.
"""

from __future__ import annotations

import importlib.util
import tracemalloc

import numpy as np
import pytest

from holovec import VSA
from holovec.encoders import SinusoidEncoder, VectorEncoder
from holovec.encoders import vector as vector_module
from holovec.models import AllocationError
from holovec.random import Purpose, random_normal

pytest.importorskip("sklearn")

from conftest import device_for
from holovec.learn import CentroidClassifier, HDEncoder, RidgeHDClassifier, RidgeHDRegressor


def _installed(name: str) -> bool:
    return importlib.util.find_spec(name) is not None


def _numpy(x) -> np.ndarray:
    """A result of any backend as a NumPy array."""
    if hasattr(x, "detach"):
        x = x.detach().cpu()
        return (x.float() if str(x.dtype) == "torch.bfloat16" else x).numpy()
    return np.asarray(x)


def _unix_times(n: int = 400, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Three features spread by about 50 around 0, the same shifted to Unix times, and labels."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3)) * 50
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    return X, X + 1.7e9, y


# -- features far from zero keep their spread ---------------------------------------------


def test_offset_features_give_distinct_encodings(backend):
    X, shifted, _ = _unix_times()
    encoder = HDEncoder(dim=256, random_state=0, backend=backend, device=device_for(backend))
    H = _numpy(encoder.fit_transform(shifted))
    assert len(np.unique(H, axis=0)) == len(X)  # 21 distinct rows of 400 before
    # standardised in float64, the offset is gone: the encodings are those of X itself
    H0 = _numpy(
        HDEncoder(dim=256, random_state=0, backend=backend, device=device_for(backend)).fit_transform(X)
    )
    np.testing.assert_allclose(H, H0, atol=1e-4)


def test_offset_features_of_a_torch_tensor_give_distinct_encodings():
    torch = pytest.importorskip("torch")
    _, shifted, _ = _unix_times()
    H = HDEncoder(dim=256, random_state=0, backend="torch", device=device_for("torch")).fit_transform(
        torch.tensor(shifted)
    )
    assert len(np.unique(_numpy(H), axis=0)) == len(shifted)


@pytest.mark.parametrize(
    "estimator",
    [
        RidgeHDClassifier(dim=512, random_state=0),
        CentroidClassifier(dim=512, random_state=0),
        RidgeHDRegressor(dim=512, random_state=0),
    ],
    ids=["ridge", "centroid", "ridge-regressor"],
)
def test_offset_features_learn_as_well_as_centred_ones(estimator):
    from sklearn.base import clone, is_classifier

    X, shifted, y = _unix_times()
    target = y if is_classifier(estimator) else X[:, 0] - 2 * X[:, 1]
    scores = [clone(estimator).fit(Z[:300], target[:300]).score(Z[300:], target[300:]) for Z in (X, shifted)]
    assert scores[1] == pytest.approx(scores[0], abs=0.02)  # 0.77 against 0.98 before (ridge)


def test_offset_rows_encode_alike_in_any_batch():
    _, shifted, _ = _unix_times(n=40)
    encoder = HDEncoder(dim=256, random_state=0, batch_size=7).fit(shifted)
    whole = _numpy(encoder.transform(shifted))
    np.testing.assert_allclose(_numpy(encoder.transform(shifted[13:14]))[0], whole[13], atol=1e-6)


# -- finite numbers too large for float32; Dask arrays of unknown shape -------------------


def test_features_beyond_float32_are_fine_once_standardised():
    X = np.array([[1.0e39, 2.0], [3.0e39, 5.0], [2.0e39, -1.0]])  # finite in float64
    H = HDEncoder(dim=64, random_state=0).fit_transform(X)
    assert np.isfinite(H).all()


def test_features_beyond_float32_unstandardised_are_refused_truly():
    X = np.array([[1.0, 2.0], [1.0e39, 3.0], [4.0, 5.0]])
    with pytest.raises(ValueError, match=r"samples \[1\].*too large for the model's float32") as info:
        HDEncoder(dim=64, random_state=0, standardize=False).fit(X)
    assert "NaN" not in str(info.value) and "standardize=True" in str(info.value)


def test_new_samples_beyond_float32_once_standardised_are_named():
    X = np.random.default_rng(0).normal(size=(20, 2))
    encoder = HDEncoder(dim=64, random_state=0).fit(X)
    new = np.array([[0.0, 0.0], [0.0, 0.0], [1.0e39, 0.0]])
    with pytest.raises(ValueError, match=r"samples \[2\] standardised.*too large for the model's float32"):
        encoder.transform(new)


def test_features_whose_statistics_overflow_are_refused():
    X = np.array([[1.7e308, 1.0], [1.7e308, 2.0], [1.0, 3.0]])
    with pytest.raises(ValueError, match=r"features \[0\] are too large to standardise"):
        HDEncoder(dim=64, random_state=0).fit(X)


def _unknown_rows():
    da = pytest.importorskip("dask.array")
    X = da.from_array(np.random.default_rng(0).normal(size=(40, 3)), chunks=10)
    return X[X[:, 0] > 0]  # boolean indexing: chunk sizes unknown


@pytest.mark.parametrize("backend_name", ["dask", "numpy"])
def test_dask_arrays_of_unknown_shape_are_refused_clearly(backend_name):
    X = _unknown_rows()
    encoder = HDEncoder(dim=64, random_state=0, backend=backend_name)
    with pytest.raises(ValueError, match=r"shape that is not known.*X\.compute_chunk_sizes\(\)"):
        encoder.fit(X)
    X.compute_chunk_sizes()
    assert encoder.fit_transform(X).shape == (X.shape[0], 64)


def test_encoder_given_a_dask_array_of_unknown_shape():
    X = _unknown_rows()
    encoder = VectorEncoder(VSA.create("MAP", 64, backend="dask"), 3, seed=1)
    with pytest.raises(ValueError, match=r"x has a shape that is not known.*compute_chunk_sizes"):
        encoder.encode(X)


# -- torch tensors that require grad, hold bfloat16 or hold no data -----------------------

torch_only = pytest.mark.skipif(not _installed("torch"), reason="torch not installed")


def _tensor(kind: str):
    import torch

    values = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -3.0], [0.0, 1.0, 1.0], [2.0, 2.0, -0.5]])
    if kind == "grad":
        return values.clone().requires_grad_(True), values
    return values.to(torch.bfloat16), values  # these values are exact in bfloat16


@torch_only
@pytest.mark.parametrize("kind", ["grad", "bfloat16"])
def test_torch_tensors_are_read_by_every_model(backend, kind):
    tensor, values = _tensor(kind)
    model = VSA.create("MAP", 256, backend=backend, device=device_for(backend), seed=0)
    np.testing.assert_array_equal(_numpy(model.backend.asarray(tensor)).astype(np.float32), values.numpy())
    encoder = VectorEncoder(model, 3, seed=1)
    np.testing.assert_array_equal(_numpy(encoder.encode(tensor)), _numpy(encoder.encode(values.numpy())))
    clf = CentroidClassifier(dim=256, random_state=0, backend=backend, device=device_for(backend)).fit(
        tensor, [0, 1, 0, 1]
    )
    assert _numpy(clf.predict(tensor)).shape == (4,)


@torch_only
def test_learner_targets_in_bfloat16():
    tensor, values = _tensor("bfloat16")
    reg = RidgeHDRegressor(dim=256, random_state=0).fit(values.numpy(), tensor[:, 0])
    assert np.isfinite(_numpy(reg.predict(values.numpy()))).all()


@torch_only
def test_meta_tensors_are_refused_as_holding_no_data(backend):
    import torch

    meta = torch.empty(4, 3, device="meta")
    model = VSA.create("MAP", 256, backend=backend, device=device_for(backend), seed=0)
    calls = {
        "backend.asarray": lambda: model.backend.asarray(meta),
        "encode": lambda: VectorEncoder(model, 3, seed=1).encode(meta),
        "HDEncoder.fit": lambda: HDEncoder(dim=64, backend=backend, device=device_for(backend)).fit(meta),
        "precomputed": lambda: HDEncoder("MAP", encoding="precomputed", backend=backend).fit(meta),
        "labels": lambda: CentroidClassifier(dim=64, backend=backend, device=device_for(backend)).fit(
            np.ones((4, 3)), torch.empty(4, device="meta")
        ),
    }
    for call in calls.values():
        with pytest.raises(ValueError, match=r"'meta' device, which holds no data"):
            call()


# -- the projection's memory ---------------------------------------------------------------


@pytest.mark.parametrize("cls", [VectorEncoder, SinusoidEncoder])
def test_projection_memory_is_checked_before_allocating(backend, cls, monkeypatch):
    model = VSA.create("MAP", 10_000, backend=backend, device=device_for(backend), seed=0)
    monkeypatch.setattr(type(model.backend), "available_memory", lambda self: 2**30)
    with pytest.raises(AllocationError, match=r"200000 features to dim 10000 needs about \d+\.\d+ GiB"):
        cls(model, 200_000, seed=1)  # a 7.5 GiB matrix: a raw MemoryError before
    assert cls(model, 100, seed=1).matrix.shape == (100, 10_000)  # 4 MiB: not refused


def test_projection_memory_is_checked_again_before_the_draw(monkeypatch):
    model = VSA.create("MAP", 10_000, seed=0)
    encoder = VectorEncoder(model, 20_000, seed=1)  # enough memory when made
    monkeypatch.setattr(type(model.backend), "available_memory", lambda self: 2**28)
    with pytest.raises(AllocationError, match="available on device cpu"):
        encoder.encode(np.ones(20_000))


def test_hdencoder_refuses_a_projection_too_large(monkeypatch):
    monkeypatch.setattr(type(VSA.create("MAP", 64).backend), "available_memory", lambda self: 2**28)
    with pytest.raises(AllocationError):
        HDEncoder("MAP", dim=10_000, encoding="projection", random_state=0).fit(np.ones((2, 20_000)))


def test_projection_drawn_in_blocks_is_the_draw_at_once(backend, monkeypatch):
    monkeypatch.setattr(vector_module, "DRAW_BLOCK_BYTES", 2 * 256 * 4)  # two rows a block
    model = VSA.create("HRR", 256, backend=backend, device=device_for(backend), seed=0)
    encoder = VectorEncoder(model, 5, seed=3)
    at_once = random_normal(
        model.backend, encoder.seed, 5, 256, encoder.real_dtype, purpose=Purpose.PROJECTION
    )
    np.testing.assert_allclose(_numpy(encoder.matrix), _numpy(at_once), rtol=0, atol=1e-6)


def test_projection_draw_peaks_near_twice_the_matrix(monkeypatch):
    monkeypatch.setattr(vector_module, "DRAW_BLOCK_BYTES", 2**18)
    encoder = VectorEncoder(VSA.create("MAP", 16_384, seed=0), 64, seed=1)  # a 4 MiB matrix
    tracemalloc.start()
    try:
        matrix = encoder.matrix
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2.5 * matrix.nbytes + 6 * 2**18  # five times the matrix when drawn at once
    assert encoder._matrix_peak_bytes() >= peak


# -- output feature names ------------------------------------------------------------------


def test_hdencoder_names_its_outputs():
    from sklearn.exceptions import NotFittedError

    X = np.random.default_rng(0).normal(size=(10, 3))
    encoder = HDEncoder(dim=16, random_state=0)
    with pytest.raises(NotFittedError):
        encoder.get_feature_names_out()
    names = encoder.fit(X).get_feature_names_out()
    assert names.tolist() == [f"hdencoder{i}" for i in range(16)]
    assert names.dtype == object and len(names) == encoder.transform(X).shape[1]
    with pytest.raises(ValueError, match="input_features should have length equal"):
        encoder.get_feature_names_out(["a", "b"])


def test_hdencoder_names_in_a_pipeline():
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X = np.random.default_rng(0).normal(size=(10, 3))
    pipe = make_pipeline(StandardScaler(), HDEncoder("MAP", dim=8, random_state=0)).fit(X)
    assert pipe.get_feature_names_out().tolist() == [f"hdencoder{i}" for i in range(8)]
    out = pipe.set_output(transform="default").transform(X)
    assert isinstance(out, np.ndarray) and out.shape == (10, 8)


def test_hdencoder_set_output_pandas():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(
        np.random.default_rng(0).normal(size=(6, 2)), columns=["a", "b"], index=list("uvwxyz")
    )
    out = HDEncoder("MAP", dim=8, random_state=0).set_output(transform="pandas").fit_transform(frame)
    assert isinstance(out, pd.DataFrame)
    assert out.columns.tolist() == [f"hdencoder{i}" for i in range(8)]
    assert out.index.tolist() == list("uvwxyz")
