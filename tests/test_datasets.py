"""holovec.datasets against a local HTTP server (127.0.0.1, port 0) serving tiny files in each
source's own format, pointed at by ``HOLOVEC_DATA_MIRROR``; ``tmp_path`` is the cache. No test
reaches the network."""

from __future__ import annotations

import gzip
import http.server
import io
import json
import sys
import tarfile
import threading
import urllib.parse
import zipfile

import numpy as np
import pytest

from holovec import datasets
from holovec.datasets import _sources

# ---- tiny files in each source's format -------------------------------------------------


def _zip(members: dict[str, str | bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in members.items():
            archive.writestr(name, text)
    return buffer.getvalue()


def _rows(table) -> str:
    return "".join(",".join(f"{v:g}" for v in row) + "\n" for row in table)


def isolet_zip() -> bytes:
    rng = np.random.default_rng(0)
    train = np.column_stack([rng.random((6, 5)), [1, 2, 3, 26, 1, 2]])
    test = np.column_stack([rng.random((3, 5)), [3, 4, 5]])
    # the UCI files write the label as "1."
    return _zip(
        {
            "isolet1+2+3+4.data": _rows(train).replace(",1\n", ", 1.\n"),
            "isolet5.data": _rows(test),
        }
    )


def ucihar_zip(nested: bool = False) -> bytes:
    base = "UCI HAR Dataset/"
    members = {
        base + "features.txt": "1 tBodyAcc-mean()-X\n2 tBodyAcc-mean()-Y\n3 tBodyAcc-std()-X\n",
        base + "activity_labels.txt": "".join(
            f"{k} {n}\n" for k, n in enumerate(["WALKING", "UP", "DOWN", "SIT", "STAND", "LAY"], 1)
        ),
        base + "train/X_train.txt": "  1.0e-01 -2.0e-01  3.0e-01\n  4.0e-01  5.0e-01 -6.0e-01\n",
        base + "train/y_train.txt": "1\n6\n",
        base + "test/X_test.txt": "  7.0e-01  8.0e-01  9.0e-01\n",
        base + "test/y_test.txt": "3\n",
    }
    inner = _zip(members)
    return _zip({"UCI HAR Dataset.zip": inner}) if nested else inner


def emg_zip() -> bytes:
    members = {}
    for subject in range(1, 6):
        labels = np.repeat([1, 2, 3, 4, 5, 1], [9, 8, 12, 8, 3, 8])  # runs of 9, 8, 12, 8, 3, 8 steps
        signal = np.arange(len(labels) * 4, dtype=float).reshape(-1, 4) + 1000 * subject
        members[f"EMG/COMPLETE_{subject}.csv"] = _rows(signal)
        members[f"EMG/LABEL_{subject}.csv"] = _rows(labels[:, None])
    return _zip(members)


def pamap2_table(subject: int) -> np.ndarray:
    steps = 12
    table = np.full((steps, 54), 1.5)
    table[:, 0] = np.arange(steps) / 100
    table[:, 1] = [0, 1, 1, 1, 2, 2, 0, 24, 24, 24, 4, 4]
    table[:, 2] = np.nan
    table[::4, 2] = [90, 100, 110]
    table[5, 10] = np.nan  # a missing IMU value: the row goes
    table[:, 3] = subject
    return table


def pamap2_zip() -> bytes:
    def text(table):
        return "".join(" ".join("NaN" if np.isnan(v) else f"{v:g}" for v in row) + "\n" for row in table)

    return _zip({f"PAMAP2_Dataset/Protocol/subject{s}.dat": text(pamap2_table(s)) for s in (101, 102, 108)})


def languages_zip() -> bytes:
    members = {}
    for code, _ in datasets._text.LANGUAGES:
        members[f"lang/training/{code}.txt"] = f"{code} one\n\n  {code}   two \n"
        members[f"lang/testing/{code}.txt"] = f"{code} three\n"
    return _zip(members)


def idx_gz(array: np.ndarray) -> bytes:
    header = bytes([0, 0, 0x08, array.ndim]) + np.array(array.shape, ">i4").tobytes()
    return gzip.compress(header + array.astype(np.uint8).tobytes())


def uci_tar() -> bytes:
    rng = np.random.default_rng(1)
    iris = np.column_stack([np.arange(1, 9), rng.standard_normal((8, 4)), np.arange(8) % 3])
    files = {
        "iris/iris_R.dat": "\tf1\tf2\tf3\tf4\tclase\n" + _rows(iris).replace(",", "\t"),
        "iris/conxuntos_kfold.dat": "".join(
            " ".join(map(str, fold)) + "\n" for _ in range(4) for fold in ([0, 1, 2, 3, 4], [5, 6, 7])
        ),
        "iris/conxuntos.dat": "0 1 2 3\n4 5 6 7\n",
        "adult/adult_train_R.dat": "\ta\tb\tclase\n1\t0.5\t1\t0\n2\t0.1\t2\t1\n3\t0.2\t3\t1\n",
        "adult/adult_test_R.dat": "\ta\tb\tclase\n1\t0.7\t4\t0\n",
    }
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def mnist_files() -> dict[str, bytes]:
    rng = np.random.default_rng(2)
    return {
        "train-images-idx3-ubyte.gz": idx_gz(rng.integers(0, 256, (5, 28, 28))),
        "train-labels-idx1-ubyte.gz": idx_gz(np.array([0, 1, 2, 3, 9])),
        "t10k-images-idx3-ubyte.gz": idx_gz(rng.integers(0, 256, (2, 28, 28))),
        "t10k-labels-idx1-ubyte.gz": idx_gz(np.array([7, 8])),
    }


def all_files() -> dict[str, bytes]:
    files = {
        "/isolet/isolet.zip": isolet_zip(),
        "/ucihar/UCI HAR Dataset.zip": ucihar_zip(),
        "/emg/emg.zip": emg_zip(),
        "/pamap2/PAMAP2_Dataset.zip": pamap2_zip(),
        "/european_languages/european_languages.zip": languages_zip(),
        "/uci/data_hundreds_classifiers.tar.gz": uci_tar(),
    }
    for key in ("mnist", "fashion_mnist"):
        files.update({f"/{key}/{name}": data for name, data in mnist_files().items()})
    return files


# ---- the server ---------------------------------------------------------------------------


class Server:
    """Serves ``files`` (path -> bytes); ``status`` forces an error code, ``truncate`` sends
    fewer bytes than the Content-Length it announces; ``requests`` counts the GETs."""

    def __init__(self, files: dict[str, bytes]) -> None:
        self.files, self.status, self.truncate, self.requests = files, None, False, []
        self.content_type = "application/octet-stream"
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                path = urllib.parse.unquote(self.path)
                owner.requests.append(path)
                body = owner.files.get(path)
                status = owner.status or (200 if body is not None else 404)
                if status != 200:
                    self.send_error(status)
                    return
                self.send_response(200)
                self.send_header("Content-Type", owner.content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body[: len(body) // 2] if owner.truncate else body)

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.02,), daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="module")
def files():
    return all_files()


@pytest.fixture
def server(files, monkeypatch):
    running = Server(dict(files))
    monkeypatch.setenv(_sources.MIRROR_ENV, running.url)
    monkeypatch.delenv("HOLOVEC_DATA", raising=False)
    yield running
    running.stop()


def stray_files(folder) -> list[str]:
    """What the cache holds besides complete files and their checksum records."""
    return sorted(
        str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file() and p.name.startswith(".")
    )


# ---- each format parses ---------------------------------------------------------------------


def test_isolet(server, tmp_path):
    data = datasets.fetch_isolet(data_home=tmp_path)
    assert data.X_train.shape == (6, 5) and data.X_test.shape == (3, 5)
    assert data.X_train.dtype == np.float32 and data.y_train.dtype == np.int64
    assert data.y_train.tolist() == [0, 1, 2, 25, 0, 1] and data.y_test.tolist() == [2, 3, 4]
    assert data.target_names[25] == "z"


@pytest.mark.parametrize("nested", [False, True], ids=["zip", "zip-in-zip"])
def test_ucihar(server, tmp_path, nested):
    server.files["/ucihar/UCI HAR Dataset.zip"] = ucihar_zip(nested)
    X_train, y_train, X_test, y_test = datasets.fetch_ucihar(data_home=tmp_path, return_X_y=True)
    assert X_train.shape == (2, 3) and X_test.shape == (1, 3) and X_train.dtype == np.float32
    assert y_train.tolist() == [0, 5] and y_test.tolist() == [2]
    data = datasets.fetch_ucihar(data_home=tmp_path)
    assert data.feature_names[0] == "tBodyAcc-mean()-X" and data.target_names[0] == "WALKING"


def test_emg_windows(server, tmp_path):
    data = datasets.fetch_emg(data_home=tmp_path, window=4)
    # per subject: runs of 9, 8, 12, 8, 3, 8 steps give 2 + 2 + 3 + 2 + 0 + 2 windows of 4
    assert len(data.y_train) + len(data.y_test) == 5 * 11
    assert data.X_train.shape[1:] == (4, 4) and data.X_train.dtype == np.float32
    assert set(data.y_test.tolist()) == {0, 1, 2, 3}  # every gesture with windows is tested
    first = datasets._signals.windows(np.arange(40.0).reshape(10, 4), np.zeros(10, int), 4)[0][0]
    assert first.tolist() == [[0, 4, 8, 12], [1, 5, 9, 13], [2, 6, 10, 14], [3, 7, 11, 15]]


def test_pamap2_by_subject(server, tmp_path):
    data = datasets.fetch_pamap2(data_home=tmp_path)
    # per subject 12 steps: 2 transient rows and 1 row with a missing IMU value dropped
    assert data.X_train.shape == (18, 52) and data.X_test.shape == (9, 52)
    assert set(data.X_test[:, 1].tolist()) == {108}  # hand temperature carries the subject here
    ids = sorted(datasets._tabular.PAMAP2_ACTIVITIES)
    assert data.y_test.tolist() == [ids.index(a) for a in (1, 1, 1, 2, 24, 24, 24, 4, 4)]
    assert data.X_test[:, 0].tolist() == [90, 90, 90, 100, 100, 110, 110, 110, 110]  # carried forward


def test_european_languages(server, tmp_path):
    data = datasets.fetch_european_languages(data_home=tmp_path)
    assert data.X_train.shape == (42,) and data.X_test.shape == (21,)
    assert data.X_train[:2].tolist() == ["bul one", "bul two"] and data.y_train[:3].tolist() == [0, 0, 1]
    assert data.target_names[5] == "English"


@pytest.mark.parametrize("fetch", [datasets.fetch_mnist, datasets.fetch_fashion_mnist])
def test_idx(server, tmp_path, fetch):
    X_train, y_train, X_test, y_test = fetch(data_home=tmp_path, return_X_y=True)
    assert X_train.shape == (5, 28, 28) and X_train.dtype == np.uint8 and X_test.shape == (2, 28, 28)
    assert y_train.tolist() == [0, 1, 2, 3, 9] and y_test.dtype == np.int64


def test_idx_header_must_match(tmp_path):
    path = tmp_path / "bad.gz"
    path.write_bytes(gzip.compress(bytes([0, 0, 8, 1, 0, 0, 0, 9, 1, 2])))
    with pytest.raises(ValueError, match="IDX header says"):
        datasets._idx.read_idx(path)


def test_uci_collection(server, tmp_path):
    data = datasets.fetch_uci("iris", fold=1, data_home=tmp_path)
    assert data.X_train.shape == (5, 4) and data.X_test.shape == (3, 4) and data.X_train.dtype == np.float32
    assert data.feature_names == ["f1", "f2", "f3", "f4"] and data.y_test.tolist() == [2, 0, 1]
    X_train, y_train, X_test, _ = datasets.fetch_uci("Adult", data_home=tmp_path, return_X_y=True)
    assert X_train.shape == (3, 2) and y_train.tolist() == [0, 1, 1] and np.allclose(X_test, [[0.7, 4.0]])
    assert server.requests == ["/uci/data_hundreds_classifiers.tar.gz"]  # one archive for every set
    with pytest.raises(ValueError, match="published split"):
        datasets.fetch_uci("adult", fold=1, data_home=tmp_path)
    with pytest.raises(ValueError, match="unknown UCI set"):
        datasets.fetch_uci("nope", data_home=tmp_path)
    names = datasets.uci_names()
    assert len(names) == 121 and names[:3] == ["abalone", "acute-inflammation", "acute-nephritis"]


# ---- the cache, checksums and errors --------------------------------------------------------


def test_hash_recorded_and_second_load_stays_local(server, tmp_path):
    datasets.fetch_isolet(data_home=tmp_path)
    record = json.loads((tmp_path / "isolet" / "isolet.zip.sha256.json").read_text())
    assert len(record["sha256"]) == 64 and record["url"].startswith(server.url)
    assert len(server.requests) == 1
    datasets.fetch_isolet(data_home=tmp_path)
    assert len(server.requests) == 1
    server.stop()  # offline now: the cache alone serves
    assert datasets.fetch_isolet(data_home=tmp_path, download_if_missing=False).X_test.shape == (3, 5)


def test_changed_file_is_a_checksum_error(server, tmp_path):
    datasets.fetch_isolet(data_home=tmp_path)
    path = tmp_path / "isolet" / "isolet.zip"
    path.write_bytes(path.read_bytes() + b"\0")
    with pytest.raises(ValueError, match="checksum mismatch") as error:
        datasets.fetch_isolet(data_home=tmp_path)
    assert str(path) in str(error.value) and "delete it" in str(error.value)


def test_known_checksum_hook(server, tmp_path, monkeypatch):
    source = _sources.SOURCES["isolet"]
    wrong = _sources.Source(source.key, source.files, {"isolet.zip": "0" * 64})
    monkeypatch.setitem(_sources.SOURCES, "isolet", wrong)
    with pytest.raises(ValueError, match="expected SHA-256 0000"):
        datasets.fetch_isolet(data_home=tmp_path)
    assert not (tmp_path / "isolet" / "isolet.zip").exists() and stray_files(tmp_path) == []


def test_truncated_download_leaves_nothing(server, tmp_path):
    server.truncate = True
    with pytest.raises(OSError, match="truncated download") as error:
        datasets.fetch_isolet(data_home=tmp_path)
    assert str(tmp_path / "isolet" / "isolet.zip") in str(error.value)
    assert list((tmp_path / "isolet").iterdir()) == []


@pytest.mark.parametrize("status", [500, 404])
def test_http_errors_leave_nothing(server, tmp_path, status):
    server.status = status
    with pytest.raises(OSError, match=f"HTTP {status}") as error:
        datasets.fetch_mnist(data_home=tmp_path)
    assert server.url in str(error.value)
    assert list((tmp_path / "mnist").iterdir()) == []


def test_html_page_instead_of_the_file(server, tmp_path):
    server.content_type = "text/html; charset=utf-8"
    with pytest.raises(OSError, match="HTML page"):
        datasets.fetch_isolet(data_home=tmp_path)
    assert list((tmp_path / "isolet").iterdir()) == []


def test_file_placed_by_hand_is_recorded_then_checked(server, tmp_path, files):
    target = tmp_path / "isolet" / "isolet.zip"
    target.parent.mkdir()
    target.write_bytes(files["/isolet/isolet.zip"])
    assert datasets.fetch_isolet(data_home=tmp_path, download_if_missing=False).X_train.shape == (6, 5)
    assert (tmp_path / "isolet" / "isolet.zip.sha256.json").is_file() and server.requests == []


def test_progress_bar(server, tmp_path, monkeypatch, capsys):
    pytest.importorskip("tqdm")
    monkeypatch.setattr(datasets._download, "PROGRESS_FROM", 0)
    datasets.fetch_isolet(data_home=tmp_path)
    assert "isolet.zip" in capsys.readouterr().err


def test_offline_error_names_url_and_path(server, tmp_path):
    server.stop()
    with pytest.raises(OSError) as error:
        datasets.fetch_uci("iris", data_home=tmp_path)
    target = tmp_path / "uci" / "data_hundreds_classifiers.tar.gz"
    assert f"{server.url}/uci/data_hundreds_classifiers.tar.gz" in str(error.value)
    assert str(target) in str(error.value) and list(target.parent.iterdir()) == []


def test_download_if_missing_false(server, tmp_path):
    with pytest.raises(FileNotFoundError) as error:
        datasets.fetch_isolet(data_home=tmp_path, download_if_missing=False)
    assert f"{server.url}/isolet/isolet.zip" in str(error.value)
    assert str(tmp_path / "isolet" / "isolet.zip") in str(error.value) and server.requests == []


def test_source_urls_without_mirror(monkeypatch):
    monkeypatch.delenv(_sources.MIRROR_ENV, raising=False)
    urls = _sources.source_urls("mnist", "t10k-labels-idx1-ubyte.gz")
    assert urls[0].startswith("https://ossci-datasets.s3.amazonaws.com/") and len(urls) == 2


def test_data_home_environment_variable(server, tmp_path, monkeypatch):
    monkeypatch.setenv("HOLOVEC_DATA", str(tmp_path / "env"))
    assert datasets.get_data_home() == tmp_path / "env"
    datasets.fetch_mnist()
    assert (tmp_path / "env" / "mnist" / "train-images-idx3-ubyte.gz").is_file()
    assert "mnist" in datasets.available(cached_only=True)
    monkeypatch.delenv("HOLOVEC_DATA")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert datasets.get_data_home() == tmp_path / "home" / "holovec_data"


def test_available_and_load(server, tmp_path):
    cached = datasets.available(cached_only=True, data_home=tmp_path)
    assert "isolet" not in cached and "uci/iris" not in cached
    assert {"isolet", "mnist", "uci/iris"} <= set(datasets.available())
    datasets.fetch_uci("iris", data_home=tmp_path)
    assert "uci/abalone" in datasets.available(cached_only=True, data_home=tmp_path)
    assert datasets.load("uci/iris", data_home=tmp_path).X_test.shape == (3, 4)
    assert datasets.load("isolet", data_home=tmp_path, return_X_y=True)[0].shape == (6, 5)


# ---- the offline sets ----------------------------------------------------------------------


def test_offline_digits():
    pytest.importorskip("sklearn")
    data = datasets.load_offline("digits")
    assert data.X_train.shape == (1347, 64) and data.X_test.shape == (450, 64)
    share = np.bincount(data.y_test) / 450 - np.bincount(np.concatenate([data.y_train, data.y_test])) / 1797
    assert np.abs(share).max() < 0.005  # stratified
    assert datasets.load("digits", return_X_y=True)[1].tolist() == data.y_train.tolist()


@pytest.mark.parametrize(
    ("name", "train", "test"),
    [
        ("GunPoint", (50, 1, 150), (150, 1, 150)),
        ("BasicMotions", (40, 6, 100), (40, 6, 100)),
        ("JapaneseVowels", (270, 12, 25), (370, 12, 25)),  # unequal length: aeon's _eq files
    ],
)
def test_offline_aeon(name, train, test):
    pytest.importorskip("aeon")
    if name not in datasets.available():
        pytest.skip(f"the installed aeon has no {name}")
    X_train, y_train, X_test, _ = datasets.load_offline(name, return_X_y=True)
    assert X_train.shape == train and X_test.shape == test and y_train.dtype == np.int64
    assert y_train.min() == 0


def test_offline_unknown_name():
    with pytest.raises(ValueError, match="unknown offline set"):
        datasets.load_offline("nope")


@pytest.mark.parametrize(
    ("name", "module", "extra"), [("iris", "sklearn", "learn"), ("GunPoint", "aeon", "timeseries")]
)
def test_offline_without_the_extra(monkeypatch, name, module, extra):
    for loaded in [m for m in sys.modules if m == module or m.startswith(module + ".")]:
        monkeypatch.delitem(sys.modules, loaded)
    monkeypatch.setitem(sys.modules, module, None)  # import fails
    with pytest.raises(ImportError, match=rf"holovec\[{extra}\]"):
        datasets.load_offline(name)
