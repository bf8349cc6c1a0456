"""holovec archives (``holovec._format``): named arrays and a JSON record in a ``.npz``,
written and read back exactly, and every damaged, edited or crafted file refused with a
``ValueError`` naming the problem, in memory bounded by the file's size."""

from __future__ import annotations

import io
import json
import tracemalloc
import zipfile

import numpy as np
import pytest
from test_retrieval_edge_cases import npy_bytes, zip_bytes

from holovec._format import metadata_checksum, read_archive, write_archive

FORMAT = "holovec.test"
ARRAYS = {
    "f32": np.arange(12, dtype=np.float32).reshape(3, 4) / 7,
    "f64": np.linspace(-1, 1, 5),
    "ints": np.array([-(2**40), 0, 7], dtype=np.int64),
    "small": np.array([1, 255], dtype=np.uint8),
    "cplx": np.exp(1j * np.arange(4, dtype=np.float32)).astype(np.complex64),
    "mask": np.array([[True, False], [False, True]]),
    "empty": np.zeros((0, 4), dtype=np.float32),
    "scalar": np.array(2.5),
}
METADATA = {
    "estimator": "holovec.learn.Centroid",
    "params": {"dim": 1000, "lr": 0.5, "model": "MAP", "seed": None, "flags": [True, False]},
    "note": "caf\u00e9 \u2615",
}


def archive(arrays=ARRAYS, metadata=METADATA, version=1):
    out = io.BytesIO()
    write_archive(out, format=FORMAT, version=version, metadata=metadata, arrays=arrays)
    return out.getvalue()


def read(data, *, versions=1, fmt=FORMAT, **kwargs):
    source = io.BytesIO(data) if isinstance(data, bytes) else data
    return read_archive(source, format=fmt, versions=versions, what="estimator", **kwargs)


def members(data):
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return {info.filename: zf.read(info) for info in zf.infolist()}


def zipped(parts, method=zipfile.ZIP_STORED):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", method) as zf:
        for name, payload in parts.items():
            zf.writestr(name, payload)
    return out.getvalue()


def npy(array, allow_pickle=False):
    out = io.BytesIO()
    np.save(out, array, allow_pickle=allow_pickle)
    return out.getvalue()


def record_of(data):
    return json.loads(str(np.load(io.BytesIO(members(data)["metadata.npy"]))[()]))


def with_record(data, record, sign=True):
    """``data`` with its metadata replaced by ``record`` (its checksum redone if ``sign``)."""
    record = dict(record)
    if sign:
        record["sha256_metadata"] = metadata_checksum(record)
    parts = members(data)
    parts["metadata.npy"] = npy(np.array(json.dumps(record)))
    return zipped(parts)


def refused(data, match, limit=4 * 2**20, **kwargs):
    """``read(data)`` raises ValueError matching ``match``, its allocations below ``limit``."""
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=match) as info:
            read(data, **kwargs)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < limit, f"peak {peak} bytes: {info.value}"
    return str(info.value)


# -- round trips -------------------------------------------------------------------------------
def test_arrays_and_metadata_round_trip(tmp_path):
    path = tmp_path / "model"
    write_archive(path, format=FORMAT, version=3, metadata=METADATA, arrays=ARRAYS)
    assert not path.exists() and (tmp_path / "model.npz").exists()  # the suffix added, as np.savez does
    meta, arrays = read_archive(tmp_path / "model.npz", format=FORMAT, versions={2, 3}, what="estimator")
    assert list(arrays) == list(ARRAYS)
    for name, expected in ARRAYS.items():
        got = arrays[name]
        assert got.dtype == expected.dtype and got.shape == expected.shape, name
        assert got.tobytes() == expected.tobytes(), name
    assert {k: meta[k] for k in METADATA} == METADATA
    assert meta["format"] == FORMAT and meta["version"] == 3
    assert set(meta) == {*METADATA, "format", "version", "sha256_arrays", "sha256_metadata"}
    assert set(meta["sha256_arrays"]) == set(ARRAYS)
    # the file is a plain .npz that NumPy reads without pickle
    with np.load(tmp_path / "model.npz", allow_pickle=False) as plain:
        np.testing.assert_array_equal(plain["f32"], ARRAYS["f32"])


def test_no_arrays_and_other_layouts_round_trip():
    meta, arrays = read(archive(arrays={}, metadata={}))
    assert arrays == {} and meta["format"] == FORMAT
    source = {"fortran": np.asfortranarray(ARRAYS["f32"]), "big": np.arange(3, dtype=">i4")}
    _, arrays = read(archive(arrays=source))
    np.testing.assert_array_equal(arrays["fortran"], source["fortran"])
    assert arrays["big"].dtype == np.int32 and arrays["big"].dtype.isnative
    np.testing.assert_array_equal(arrays["big"], [0, 1, 2])
    _, arrays = read(archive(arrays={"vectors": ARRAYS["f32"]}), arrays=["vectors"])
    assert list(arrays) == ["vectors"]


def test_what_cannot_be_written_is_refused():
    with pytest.raises(TypeError, match=r"'obj'.*only numbers"):
        archive(arrays={"obj": np.array([{"a": 1}, None], dtype=object)})
    with pytest.raises(TypeError, match="'text'"):
        archive(arrays={"text": np.array(["a", "b"])})
    with pytest.raises(TypeError, match="NumPy array"):
        archive(arrays={"lst": [1, 2]})
    for name in ("metadata", "a-b", "", "1x", "../x"):
        with pytest.raises(ValueError, match="identifier"):
            archive(arrays={name: np.zeros(2)})
    for field in ("format", "version", "sha256_arrays", "sha256_metadata"):
        with pytest.raises(ValueError, match=field):
            archive(metadata={field: 1})
    with pytest.raises(TypeError, match="key 1"):
        archive(metadata={"classes": {1: "a"}})
    with pytest.raises(TypeError):
        archive(metadata={"x": object()})


# -- refusals ----------------------------------------------------------------------------------
GOOD = archive()


def test_a_changed_array_is_refused():
    parts = members(GOOD)
    changed = ARRAYS["ints"].copy()
    changed[1] = 1
    parts["ints.npy"] = npy(changed)  # a valid member (its zip CRC redone): only the checksum sees it
    refused(zipped(parts), r"^the estimator file: checksum mismatch: the ints array was changed or damaged$")
    flipped = bytearray(GOOD)  # a flipped byte in the file: the zip's CRC or the checksum finds it
    flipped[GOOD.index(ARRAYS["f32"].tobytes()) + 5] ^= 0x01
    refused(bytes(flipped), "checksum mismatch: the f32 array|Bad CRC-32")


def test_an_edited_metadata_field_is_refused():
    record = record_of(GOOD)
    for edit in ({"note": "other"}, {"params": {**METADATA["params"], "lr": 0.25}}, {"extra": 1}):
        refused(with_record(GOOD, {**record, **edit}, sign=False), "checksum mismatch: the metadata")
    unsigned = {k: v for k, v in record.items() if k != "sha256_metadata"}
    refused(with_record(GOOD, unsigned, sign=False), "lacks its checksum sha256_metadata")
    # a crafted record whose checksums are redone is read as what it says: refused by the caller's check
    crafted = with_record(GOOD, {**record, "params": "bad"})

    def check(meta, headers):
        if not isinstance(meta["params"], dict):
            raise ValueError("bad params: expected a JSON object")
        assert headers["f32"].shape == (3, 4) and headers["f32"].dtype == np.float32

    assert read(GOOD, check=check)[0]["params"] == METADATA["params"]
    refused(crafted, r"^the estimator file: bad params: expected a JSON object$", check=check)


def test_missing_and_extra_members_are_refused():
    parts = members(GOOD)
    missing = zipped({k: v for k, v in parts.items() if k != "ints.npy"})
    refused(missing, "checksums of arrays .*'ints'")
    refused(zipped({**parts, "extra.npy": npy(np.zeros(2))}), "checksums of arrays .*'extra'")
    refused(zipped({k: v for k, v in parts.items() if k != "metadata.npy"}), "expected arrays")
    refused(zipped({**parts, "../evil.npy": npy(np.zeros(2))}), "expected arrays named by identifiers")
    only = archive(arrays={"vectors": ARRAYS["f32"]})
    expected = r"expected arrays 'labels', 'vectors' and 'metadata', found \['metadata', 'vectors'\]"
    refused(only, expected, arrays=["vectors", "labels"])


def test_another_format_or_version_is_refused():
    refused(GOOD, r"not a holovec estimator \(format 'holovec.test'\)", fmt="holovec.estimator")
    refused(GOOD, r"version 1 is not supported \(this holovec reads versions 2, 3\)", versions={2, 3})
    refused(GOOD, r"version 1 is not supported \(this holovec reads version 2\)", versions=2)
    record = record_of(GOOD)
    for version in (True, 1.0, "1", None):
        refused(with_record(GOOD, {**record, "version": version}), "version .* is not supported")


def test_a_pickled_object_array_is_refused():
    parts = members(GOOD)
    parts["ints.npy"] = npy(np.array([{"a": 1}, None], dtype=object), allow_pickle=True)
    refused(zipped(parts), r"the ints array holds no numbers \(dtype \[\('', '\|O'\)\]\)")


def test_truncated_files_and_other_files_are_refused(tmp_path):
    for cut in (0, 10, len(GOOD) // 3, len(GOOD) // 2, len(GOOD) - 30, len(GOOD) - 1):
        refused(GOOD[:cut], "not a holovec estimator file|not a readable|truncated|ends early")
    plain = tmp_path / "plain.npy"
    np.save(plain, ARRAYS["f32"])
    message = refused(plain, r"not a holovec estimator file \(a .npz zip archive\)")
    assert message.startswith(str(plain))
    with pytest.raises(FileNotFoundError):
        read(tmp_path / "missing.npz")
    with pytest.raises(TypeError, match="path"):
        read(None)


def test_a_deflate_bomb_is_refused_with_bounded_memory():
    """A deflated member of 32 MiB of zeros (a file of about 33 kB) whose checksum is wrong:
    hashed block by block and refused without being read into memory."""
    size = 2**25
    record = {"format": FORMAT, "version": 1, "sha256_arrays": {"zeros": "0" * 64}}
    record["sha256_metadata"] = metadata_checksum(record)
    bomb = zipped(
        {
            "zeros.npy": npy_bytes("|u1", (size,), bytes(size)),
            "metadata.npy": npy(np.array(json.dumps(record))),
        },
        zipfile.ZIP_DEFLATED,
    )
    assert len(bomb) < 2**16
    refused(bomb, "checksum mismatch: the zeros array")
    # members that declare more than the file or deflate can hold: refused from the zip directory
    meta = npy(np.array(json.dumps(record)))
    for method, match in (
        (8, "more than deflate can produce"),
        (0, "past the end of the file|sizes disagree"),
    ):
        lying = zip_bytes(
            [
                ("zeros.npy", npy_bytes("|u1", (2**30,), bytes(64)), method, 2**30),
                ("metadata.npy", meta, 0, None),
            ]
        )
        refused(lying, match)
