"""holovec archives under hostile conditions: saving never destroys the previous file, and
reading refuses what is no regular file, overlapping zip members, metadata that inflates
beyond what a record compresses to, and a model dim that the stored vectors cannot hold,
each in memory bounded by the file's real size (measured with tracemalloc)."""

from __future__ import annotations

import errno
import io
import json
import os
import stat
import struct
import threading
import tracemalloc
import zipfile
import zlib

import numpy as np
import pytest

from holovec import VSA
from holovec._format import CHECKSUMS, metadata_checksum, read_archive, write_archive
from holovec.retrieval import Codebook

FORMAT = "holovec.test"
#: the peak that a refused file may cost (tracemalloc), far below what it would allocate
PEAK_LIMIT = 50 * 2**20


def read(source, **kwargs):
    return read_archive(source, format=FORMAT, versions=1, what="estimator", **kwargs)


def refused(source, match, read_with=read, limit=PEAK_LIMIT):
    """``read_with(source)`` raises ValueError matching ``match``, its peak below ``limit``."""
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=match) as info:
            read_with(source)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < limit, f"peak {peak} bytes: {info.value}"
    return str(info.value)


# -- zip archives written by hand ---------------------------------------------------------------
def npy_header(descr: str, shape: tuple[int, ...]) -> bytes:
    header = f"{{'descr': {descr!r}, 'fortran_order': False, 'shape': {shape!r}, }}"
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1")


def local_header(name: str, crc: int, csize: int, usize: int, method: int = 0) -> bytes:
    encoded = name.encode()
    fields = (b"PK\x03\x04", 20, 0, method, 0, 0, crc, csize, usize, len(encoded), 0)
    return struct.pack("<4s5H3L2H", *fields) + encoded


def zip_file(body: bytes, entries: list[tuple[str, int, int, int, int, int]]) -> bytes:
    """``body`` (the members' local headers and data) and a central directory of
    ``(name, offset, crc, csize, usize, method)`` entries, which may say anything."""
    directory = b""
    for name, offset, crc, csize, usize, method in entries:
        encoded = name.encode()
        fields = (b"PK\x01\x02", 20, 20, 0, method, 0, 0, crc, csize, usize, len(encoded), 0, 0, 0, 0, 0)
        directory += struct.pack("<4s6H3L5H2L", *fields, offset) + encoded
    end = struct.pack(
        "<4s4H2LH", b"PK\x05\x06", 0, 0, len(entries), len(entries), len(directory), len(body), 0
    )
    return body + directory + end


def metadata_member(record: dict) -> bytes:
    out = io.BytesIO()
    np.save(out, np.array(json.dumps(record)), allow_pickle=False)
    return out.getvalue()


def signed(arrays: dict[str, np.ndarray]) -> dict:
    """A record of FORMAT version 1 with right checksums of ``arrays``."""
    record = {"format": FORMAT, "version": 1}
    CHECKSUMS.sign(record, arrays)
    return record


def stored(name: str, data: bytes) -> bytes:
    """A stored member: its local header and data."""
    return local_header(name, zlib.crc32(data), len(data), len(data)) + data


def nested_members(count: int, payload: int) -> tuple[bytes, int]:
    """An archive of ``count`` stored uint8 arrays, the data of each holding the next
    member whole (checksums right): ``payload`` bytes of the file read as about ``count *
    payload`` bytes of arrays. Returns the file and the arrays' total size."""
    data = npy_header("|u1", (payload,)) + bytes(payload)
    members = []  # (name, data), innermost first
    for i in reversed(range(count)):
        members.append((f"a{i}.npy", data))
        if i:
            blob = stored(f"a{i}.npy", data)
            data = npy_header("|u1", (len(blob),)) + blob
    members.reverse()
    body = stored(*members[0])
    arrays, entries, offset = {}, [], 0
    for name, data in members:
        header_len = 10 + struct.unpack("<H", data[8:10])[0]
        arrays[name[:-4]] = np.frombuffer(memoryview(data)[header_len:], np.uint8)
        entries.append((name, offset, zlib.crc32(data), len(data), len(data), 0))
        offset += 30 + len(name) + header_len  # where the next member starts, inside this one
    meta = metadata_member(signed(arrays))
    entries.append(("metadata.npy", len(body), zlib.crc32(meta), len(meta), len(meta), 0))
    body += stored("metadata.npy", meta)
    return zip_file(body, entries), sum(a.nbytes for a in arrays.values())


def inflating_metadata(megabytes: int, rows: int = 0) -> bytes:
    """An archive whose deflated metadata inflates to about ``megabytes`` MiB of UTF-32 JSON
    (lists, the costliest to parse), and a ``rows`` array of ``rows`` rows (deflated zeros),
    which raise the size that the metadata of an archive may have."""
    block = "[]," * 2**14
    count = megabytes * 2**20 // (4 * len(block))
    text_len = 1 + count * len(block) + 3
    header = npy_header(f"<U{text_len}", ())
    packer, crc = zlib.compressobj(9, zlib.DEFLATED, -15), zlib.crc32(header)
    payload = packer.compress(header)
    for part in ["[", *[block] * count, "[]]"]:
        raw = part.encode("utf-32-le")
        payload += packer.compress(raw)
        crc = zlib.crc32(raw, crc)
    payload += packer.flush()
    size = len(header) + 4 * text_len
    body, entries = b"", []
    if rows:
        array = npy_header("|u1", (rows, 1)) + bytes(rows)
        packed = zlib.compressobj(9, zlib.DEFLATED, -15)
        packed_bytes = packed.compress(array) + packed.flush()
        entries.append(("rows.npy", 0, zlib.crc32(array), len(packed_bytes), len(array), 8))
        body += local_header("rows.npy", zlib.crc32(array), len(packed_bytes), len(array), 8) + packed_bytes
    entries.append(("metadata.npy", len(body), crc, len(payload), size, 8))
    body += local_header("metadata.npy", crc, len(payload), size, 8) + payload
    return zip_file(body, entries)


def codebook_declaring(tmp_path, dim: int, count: int = 2) -> str:
    """A MAP codebook file of ``count`` vectors of length 4 whose (re-signed) record says
    ``dim`` and vector length ``dim``: the vectors cannot hold it."""
    model = VSA.create("MAP", 4, "numpy")
    book = Codebook(model, list(range(count)), model.random(count, seed=1) if count else None)
    path = tmp_path / "book.npz"
    book.save(path)
    with np.load(path, allow_pickle=False) as plain:
        vectors, record = plain["vectors"], json.loads(str(plain["metadata"][()]))
    record.update(dim=dim)
    record["sha256_metadata"] = metadata_checksum(record)
    with open(path, "wb") as f:  # the archive's own writer, not the codebook's
        with zipfile.ZipFile(f, "w") as zf:
            for name, array in (("vectors", vectors), ("metadata", np.array(json.dumps(record)))):
                with zf.open(name + ".npy", "w") as member:
                    np.lib.format.write_array(member, array, allow_pickle=False)
    return str(path)


# -- saving: a failure part-way leaves the previous file whole -------------------------------
ARRAYS = {"vectors": np.arange(4096, dtype=np.float32).reshape(64, 64)}


def save(path, arrays=ARRAYS, note="first"):
    write_archive(path, format=FORMAT, version=1, metadata={"note": note}, arrays=arrays)


def fail_part_way(monkeypatch, after=1000):
    """Make the archive writer fail with a full disk after ``after`` bytes of an array."""
    write_array = np.lib.format.write_array

    def failing(f, array, **kwargs):
        buffer = io.BytesIO()
        write_array(buffer, array, **kwargs)
        f.write(buffer.getvalue()[:after])
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(np.lib.format, "write_array", failing)


def test_a_failed_save_leaves_the_previous_file_whole(tmp_path, monkeypatch):
    path = tmp_path / "model.npz"
    save(path)
    before = path.read_bytes()
    fail_part_way(monkeypatch)
    with pytest.raises(OSError, match="No space left"):
        save(path, {"vectors": np.ones((64, 64), np.float32)}, note="second")
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["model.npz"]  # no temporary file left behind
    monkeypatch.undo()
    assert read(path)[0]["note"] == "first"
    with pytest.raises(OSError, match="No space left"):  # a first save that fails leaves nothing
        fail_part_way(monkeypatch)
        save(tmp_path / "other")
    assert os.listdir(tmp_path) == ["model.npz"]


def test_a_failed_codebook_save_leaves_the_previous_codebook(tmp_path, monkeypatch):
    model = VSA.create("MAP", 256, "numpy")
    Codebook(model, ["a", "b"], model.random(2, seed=1)).save(tmp_path / "book")
    fail_part_way(monkeypatch, after=100)
    with pytest.raises(OSError):
        Codebook(model, ["c"], model.random(1, seed=2)).save(tmp_path / "book")
    monkeypatch.undo()
    assert Codebook.load(tmp_path / "book.npz").labels == ["a", "b"]
    assert os.listdir(tmp_path) == ["book.npz"]


@pytest.mark.skipif(os.name != "posix", reason="POSIX file modes and umask")
def test_a_saved_file_has_the_mode_of_a_new_or_replaced_file(tmp_path):
    old_umask = os.umask(0o027)
    try:
        save(tmp_path / "new.npz")
    finally:
        os.umask(old_umask)
    assert stat.S_IMODE(os.stat(tmp_path / "new.npz").st_mode) == 0o640  # 0o666 less the umask
    (tmp_path / "new.npz").chmod(0o604)
    save(tmp_path / "new.npz", note="again")  # replacing a file keeps its mode
    assert stat.S_IMODE(os.stat(tmp_path / "new.npz").st_mode) == 0o604
    assert read(tmp_path / "new.npz")[0]["note"] == "again"


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links")
def test_saving_through_a_link_replaces_its_target(tmp_path):
    save(tmp_path / "target.npz")
    try:
        os.symlink(tmp_path / "target.npz", tmp_path / "link.npz")
    except OSError:
        pytest.skip("symbolic links are not allowed here")
    save(tmp_path / "link.npz", note="through the link")
    assert (tmp_path / "link.npz").is_symlink()
    assert read(tmp_path / "target.npz")[0]["note"] == "through the link"


def test_saving_over_a_directory_is_refused(tmp_path):
    (tmp_path / "dir.npz").mkdir()
    with pytest.raises(ValueError, match=r"dir.npz is a directory, not a regular file"):
        save(tmp_path / "dir.npz")
    assert os.listdir(tmp_path) == ["dir.npz"]


def test_a_file_object_is_written_directly():
    out = io.BytesIO()
    save(out, note="in memory")
    assert read(io.BytesIO(out.getvalue()))[0]["note"] == "in memory"


# -- reading: regular files only, refused before anything is read ------------------------------
@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_a_device_and_a_link_to_it_are_refused(tmp_path):
    """Reading /dev/zero would allocate until memory runs out."""
    refused("/dev/zero", r"^/dev/zero is a character device, not a regular file")
    with open("/dev/zero", "rb") as f:  # a file object of a device too
        refused(f, r"^/dev/zero is a character device")
    try:
        os.symlink("/dev/zero", tmp_path / "zero.npz")
    except OSError:
        pytest.skip("symbolic links are not allowed here")
    refused(tmp_path / "zero.npz", r"zero.npz is a character device")
    with pytest.raises(ValueError, match="is a character device"):
        Codebook.load(tmp_path / "zero.npz")


def test_a_directory_is_refused(tmp_path):
    refused(tmp_path, r"is a directory, not a regular file \(holovec reads estimator files")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes")
def test_a_named_pipe_is_refused_without_waiting(tmp_path):
    """Opening a pipe for reading waits for a writer: it is refused without opening it."""
    fifo = tmp_path / "pipe.npz"
    os.mkfifo(fifo)
    outcome = []

    def load():
        try:
            read(fifo)
        except ValueError as e:
            outcome.append(str(e))

    reader = threading.Thread(target=load, daemon=True)
    reader.start()
    reader.join(timeout=30)
    if reader.is_alive():  # blocked: a writer lets it go on, so that the test ends
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        reader.join(timeout=30)
    assert outcome and "is a named pipe (FIFO), not a regular file" in outcome[0], outcome


def test_a_missing_file_is_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        read(tmp_path / "missing.npz")


# -- reading: bounded by the file's real size ----------------------------------------------------
def test_overlapping_members_are_refused_with_bounded_memory():
    """60 stored arrays, each holding the next one: a file of 1 MiB that would read as
    60 MiB of arrays (Python's zipfile before 3.12 does not refuse overlaps)."""
    data, total = nested_members(60, 2**20)
    assert total > PEAK_LIMIT and total > 50 * len(data)
    refused(io.BytesIO(data), r"the a0 member overlaps the a1 member \(crafted\?\)")


def test_members_are_checked_against_each_other_and_the_directory():
    one = npy_header("|u1", (8,)) + bytes(8)
    meta = metadata_member(signed({"x": np.zeros(8, np.uint8)}))
    body = stored("x.npy", one) + stored("metadata.npy", meta)
    meta_at = len(stored("x.npy", one))
    good = [
        ("x.npy", 0, zlib.crc32(one), len(one), len(one), 0),
        ("metadata.npy", meta_at, zlib.crc32(meta), len(meta), len(meta), 0),
    ]
    assert read(io.BytesIO(zip_file(body, good)))[1]["x"].tolist() == [0] * 8
    same_offset = [good[0], ("metadata.npy", 0, zlib.crc32(meta), len(meta), len(meta), 0)]
    refused(io.BytesIO(zip_file(body, same_offset)), "overlaps|no local header|differ")
    past_directory = [good[0], ("metadata.npy", meta_at, zlib.crc32(meta), len(meta) + 40, len(meta) + 40, 0)]
    refused(io.BytesIO(zip_file(body, past_directory)), "overlaps the zip directory|past the end")
    nowhere = [("x.npy", 5, zlib.crc32(one), len(one), len(one), 0), good[1]]
    refused(
        io.BytesIO(zip_file(body, nowhere)), "the x member has no local header where the zip directory says"
    )


def test_metadata_that_inflates_like_a_bomb_is_refused_before_it_is_read():
    """16 MiB of UTF-32 JSON lists (about 100 MiB at their parse's peak) deflated into
    17 kB: refused from the zip directory, even beside an array of many rows (which
    allows more metadata)."""
    for rows in (0, 2**15):
        data = inflating_metadata(16, rows)
        assert len(data) < 2**16
        refused(io.BytesIO(data), r"the metadata member declares \d+ bytes from \d+ compressed ones")


def test_deflated_metadata_of_an_ordinary_ratio_is_read():
    """A record deflated as zip tools do (many labels, a common prefix) still reads."""
    arrays = {"x": np.arange(3.0)}
    record = {
        "format": FORMAT,
        "version": 1,
        "labels": [f"https://example.org/items/{i:06d}" for i in range(20000)],
    }
    CHECKSUMS.sign(record, arrays)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        with zf.open("x.npy", "w") as f:
            np.lib.format.write_array(f, arrays["x"])
        zf.writestr("metadata.npy", metadata_member(record))
    meta, got = read(io.BytesIO(out.getvalue()))
    assert len(meta["labels"]) == 20000 and got["x"].tolist() == [0.0, 1.0, 2.0]


def test_a_codebook_dim_is_checked_before_the_model_is_made(tmp_path):
    """A 2 kB codebook of 2 vectors of length 4 whose (re-signed) record says dim 1e8:
    refused before a model of that dim (over half a GiB for MAP) is made."""
    path = codebook_declaring(tmp_path, 10**8)
    message = refused(
        path,
        r"the metadata says dim 100000000, but the vectors array holds vectors of 4",
        read_with=Codebook.load,
    )
    assert message.startswith(path)
    empty = codebook_declaring(tmp_path, 10**8, count=0)  # the header's length bounds it too
    refused(empty, "the metadata says dim 100000000", read_with=Codebook.load)
    fits = codebook_declaring(tmp_path, 4)
    assert len(Codebook.load(fits)) == 2


# -- every size a record names is bounded by the bytes that back it ---------------------------
# The checksums are no signature: these files are saved ones whose record (and arrays) were
# edited and signed again exactly as the library signs, as anyone can.
def resigned(source, edit) -> io.BytesIO:
    """The archive ``source`` (a path) with ``edit(record, arrays)`` applied, signed again
    as :func:`write_archive` signs (the codebook's own checksums for a codebook)."""
    from holovec._format.codebook import CODEBOOK_CHECKSUMS

    with np.load(source, allow_pickle=False) as plain:
        arrays = {name: plain[name] for name in plain.files if name != "metadata"}
        record = json.loads(str(plain["metadata"][()]))
    edit(record, arrays)
    scheme = CODEBOOK_CHECKSUMS if record["format"] == "holovec.codebook" else CHECKSUMS
    fields = {k: v for k, v in record.items() if k not in ("format", "version", *scheme.fields)}
    out = io.BytesIO()
    write_archive(
        out,
        format=record["format"],
        version=record["version"],
        metadata=fields,
        arrays=arrays,
        checksums=scheme,
    )
    return io.BytesIO(out.getvalue())


def empty_object(kind, model):
    from holovec.memory import Hopfield, ModernHopfield

    return {
        "hopfield": lambda: Hopfield(model),
        "explicit hopfield": lambda: Hopfield(model, explicit=True),
        "modern hopfield": lambda: ModernHopfield(model),
        "codebook": lambda: Codebook(model, [], None),
    }[kind]()


@pytest.mark.parametrize("kind", ["hopfield", "explicit hopfield", "modern hopfield", "codebook"])
def test_an_empty_file_names_no_dim_beyond_the_documented_limit(tmp_path, kind):
    """An empty memory or codebook saves arrays of no rows, whose width is a number in a
    header (no bytes): a 2 kB file re-signed to say dim 2**22 made a model of that dim.
    Refused now before the model is made; the limit itself (2**20) and a larger dim
    loaded into a model made beforehand still load."""
    path = tmp_path / "empty.npz"
    empty_object(kind, VSA.create("MAP", 64, "numpy")).save(path)
    cls = type(empty_object(kind, VSA.create("MAP", 4, "numpy")))

    def declaring(dim):
        def edit(record, arrays):
            record["dim"] = record["vector_length"] = dim
            for name, array in arrays.items():  # the same empty arrays, as wide as the dim
                arrays[name] = np.zeros((0, dim) if array.shape[-1] == 64 else array.shape, array.dtype)

        return resigned(path, edit)

    empty = r"the metadata says dim 4194304, but the \w+ array is empty"
    message = refused(declaring(2**22), empty, cls.load)
    assert "a dim of at most 1048576" in message and "model=" in message
    from holovec._format import MAX_UNBACKED_DIM  # the documented limit

    assert MAX_UNBACKED_DIM == 2**20
    assert len(cls.load(declaring(MAX_UNBACKED_DIM))) == 0
    wide = VSA.create("MAP", 2 * MAX_UNBACKED_DIM, "numpy")
    assert cls.load(declaring(2 * MAX_UNBACKED_DIM), wide).model is wide


def saved_object(kind, tmp_path):
    """A small saved file of ``kind`` and its class."""
    from holovec.memory import SparseDistributedMemory
    from holovec.structures import Multiset

    path = tmp_path / f"{kind.replace(' ', '_')}.npz"
    if kind == "packed BSC memory":
        SparseDistributedMemory(VSA.create("BSC", 64, "numpy", packed=True), 4, seed=1).save(path)
        return path, SparseDistributedMemory
    options = {"packed": True} if kind == "packed BSC multiset" else {}
    model = VSA.create("BSC" if options else "MAP", 64, "numpy", **options)
    Multiset(model, ["a", "b"], seed=1).save(path)
    return path, Multiset


@pytest.mark.parametrize("kind", ["MAP multiset", "packed BSC multiset", "packed BSC memory"])
def test_a_dim_is_bounded_by_the_arrays_whatever_the_vector_length_says(tmp_path, kind):
    """The dim was checked only against arrays as wide as the record's vector length: a
    record that says another length (or a model whose sums are wider than its packed
    vectors) made a model of dim 2**24 (160 MB for MAP) from a 3 kB file. Refused now,
    naming the widest array, before the model is made."""
    path, cls = saved_object(kind, tmp_path)

    def edit(record, arrays):
        record["dim"] = 2**24
        record["vector_length"] = 3 if kind == "MAP multiset" else 2**24 // 8

    refused(resigned(path, edit), r"the metadata says dim 16777216, but the (sums|counters) array", cls.load)


def test_a_vector_length_the_model_does_not_have_is_refused(tmp_path):
    """A record whose vector length is not the model's (so that no array was checked
    against the dim) loaded; it is refused now, naming both lengths."""
    path, cls = saved_object("MAP multiset", tmp_path)

    def edit(record, arrays):
        record["vector_length"] = 3

    expected = "the record says vector length 3, but MAP vectors of dim 64 have length 64"
    with pytest.raises(ValueError, match=expected):
        cls.load(resigned(path, edit))


def many_labels(tmp_path, kind, n, dim=2000):
    """A saved structure of ``kind`` at ``dim`` whose (re-signed) record names ``n`` labels
    (``n // 2`` edges for a graph, ``n // 3`` transitions for an automaton)."""
    from holovec._format.labels import encode_labels
    from holovec.structures import FiniteStateAutomaton, Graph, HashTable, Multiset, Sequence

    model = VSA.create("MAP", dim, "numpy")
    made = {
        "multiset": lambda: Multiset(model, ["a"], seed=1),
        "sequence": lambda: Sequence(model, ["a"], seed=1),
        "hash table": lambda: HashTable(model, {"k": "v"}, seed=1),
        "graph": lambda: Graph(model, seed=1),
        "automaton": lambda: FiniteStateAutomaton(model, seed=1),
    }[kind]()
    path = tmp_path / "many.npz"
    made.save(path)

    def edit(record, arrays):
        record["labels"] = encode_labels(list(range(n)))
        fields = record["fields"]
        if kind == "hash table":
            fields["keys"] = n // 2
        elif kind == "graph":
            fields["edges"] = n // 2
        elif kind == "automaton":
            fields["transitions"] = n // 3

    return resigned(path, edit), type(made)


@pytest.mark.parametrize("kind", ["multiset", "sequence", "hash table"])
def test_loading_a_structure_draws_no_label_vector(tmp_path, kind):
    """A load drew one vector per label in the record (a 12.6 MB Multiset file took 6.4 GB
    and 29 s): 6,000 labels at dim 2,000, 48 MB of vectors (twice that at the draw's
    peak), from a 0.4 MB file. Now the labels seen draw their vectors when first needed."""
    data, cls = many_labels(tmp_path, kind, 6000)
    assert len(data.getvalue()) < 2**19
    tracemalloc.start()
    try:
        loaded = cls.load(data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 * 2**20, peak
    table = loaded.fillers if kind == "hash table" else loaded.table
    first = 3000 if kind == "hash table" else 0
    assert len(table) == 6000 - first and table.labels[:2] == [first, first + 1]


@pytest.mark.parametrize("kind", ["graph", "automaton"])
def test_items_added_again_at_load_use_memory_of_one_block(tmp_path, kind, monkeypatch):
    """Graphs and automata add their saved items again to check the saved sum: all at
    once, keeping every node's vector (6,000 labels at dim 2,000: over 100 MB at the
    peak). Now in blocks (here of 1 MiB), each block's symbols forgotten after it."""
    import holovec.structures.base as base

    monkeypatch.setattr(base, "CHUNK_BYTES", 2**20, raising=False)
    data, cls = many_labels(tmp_path, kind, 6000)
    what = "edges" if kind == "graph" else "transitions"
    refused(data, f"the saved sum is not the sum of the saved {what}", cls.load, limit=24 * 2**20)


def test_a_loaded_structure_answers_as_the_saved_one(tmp_path):
    """The labels seen that a load does not draw answer as if drawn: candidates in the
    saved order, membership, counts, decodes, a new label after them, and a save again."""
    from holovec.structures import HashTable, Multiset, Sequence

    model = VSA.create("MAP", 2000, "numpy")
    bag = Multiset(model, ["b", "a", "b", 3, (1, "x")], seed=4)
    bag.remove(3)
    seq = Sequence(model, ["x", "y", "x", "z"], seed=5)
    table = HashTable(model, {"k": "v", "j": "w", 1: "v"}, seed=6)
    for original in (bag, seq, table):
        original.save(tmp_path / "s.npz")
        loaded = type(original).load(tmp_path / "s.npz")
        assert repr(loaded) == repr(original)
        np.testing.assert_array_equal(loaded.vector, original.vector)
    bag.save(tmp_path / "bag.npz")
    again = Multiset.load(tmp_path / "bag.npz")
    assert again.table.labels == bag.table.labels and len(again.table) == 4
    assert 3 in again.table and "c" not in again.table
    assert again.count(["a", "b", 3]) == pytest.approx(bag.count(["a", "b", 3]))
    assert again.decode() == bag.decode() and again.members() == bag.members()
    again.add("c")
    assert again.table.labels == [*bag.table.labels, "c"]
    np.testing.assert_array_equal(again.table.matrix[:4], bag.table.matrix)
    seq.save(tmp_path / "seq.npz")
    assert Sequence.load(tmp_path / "seq.npz").decode() == seq.decode()
    table.save(tmp_path / "table.npz")
    loaded_table = HashTable.load(tmp_path / "table.npz")
    assert loaded_table.get("j") == table.get("j") and loaded_table.fillers.labels == table.fillers.labels
    again.save(tmp_path / "bag2.npz")
    assert Multiset.load(tmp_path / "bag2.npz").table.labels == [*bag.table.labels, "c"]
