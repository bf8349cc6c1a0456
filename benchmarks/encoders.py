"""The encoders section: one row per encoder case, holovec against a hand-written
vectorised NumPy version of the same computation.

A case (:class:`EncoderCase`) builds its inputs once and returns the two functions to
time (:class:`Prepared`); the results of the two are compared once, so that a baseline
that computes something else cannot go unnoticed. The baseline runs on NumPy whatever
the backend (it is the reference a user would write by hand); on other backends only
holovec's time is shown.

To add a case: write ``make(backend, quick, dim) -> Prepared``, which builds its encoder
with the case's ``encoder(model)``, and append an ``EncoderCase`` to :data:`CASES`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TextIO

import numpy as np

from holovec import VSA

from .rows import Row, disagreement
from .timing import measure, no_wait, waiter


@dataclass
class Prepared:
    """What one case times: ``holovec()`` and ``baseline()`` (NumPy, or None)."""

    holovec: Callable[[], Any]
    baseline: Callable[[], Any] | None
    items: int  #: items per call (images, texts, ...), for the per-item time
    item_name: str  #: "image", "text", ...
    #: how the results must agree: "equal", "close", or "mostly" (>= 99%: ties broken differently)
    compare: str = "equal"
    to_numpy: Callable[[Any], np.ndarray] = np.asarray
    atol: float = 1e-4  #: the absolute tolerance of the comparison


@dataclass(frozen=True)
class EncoderCase:
    key: str
    label: Callable[[bool], str]  #: the row's label (quick: the --quick sizes)
    model: str
    make: Callable[[str, bool, int], Prepared]  #: (backend, quick, dim) -> the functions to time
    #: model -> the case's encoder (``make`` uses it too): made on its own, it checks the
    #: dimension before the run (see :func:`check_dim`) without drawing a vector
    encoder: Callable[[Any], Any]


# -- the cases ------------------------------------------------------------------------------

_WORDS = (
    "the of and to in is was he for it with as his on be at by had are but from or have an they "
    "which one you were her all she there would their we him been has when who will more no if out "
    "so said what up its about into than them can only other new some could time these two may then "
    "do first any my now such like our over man me even most made after also did many before must "
    "through back years where much your way well down should because each just those people how too "
    "little state good very make world still own see men work long get here between both life being "
    "under never day same another know while last might us great old year off come since against go "
    "came right used take three"
).split()


def sample_text(n_chars: int, seed: int = 0) -> str:
    """``n_chars`` characters of English-like prose: common words mixed with made-up ones
    (syllables), sentences with capitals, commas, digits and brackets. Its variety is that
    of real text: 10 kB have 72 distinct characters, 716 distinct bigrams and 2,424 distinct
    trigrams (10 kB of the GPL's text: 70, 627 and 2,195)."""
    rng = np.random.default_rng(seed)
    onsets = ["", "b", "c", "d", "f", "g", "h", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w"]
    onsets += ["th", "ch", "sh", "st", "tr", "pl", "br", "qu", "j", "z", "x", "y", "gr", "fl"]
    vowels = ["a", "e", "i", "o", "u", "ea", "ou", "ai", "y", "ee", "oo"]
    codas = ["", "", "n", "r", "s", "t", "l", "ng", "st", "rd", "m", "ck", "x", "ght"]
    words: list[str] = []
    while sum(len(w) + 1 for w in words) < n_chars:
        sentence = []
        for _ in range(int(rng.integers(5, 16))):
            if rng.random() < 0.8:
                word = str(rng.choice(_WORDS))
            else:
                syllables = int(rng.integers(1, 3))
                word = "".join(
                    rng.choice(onsets) + rng.choice(vowels) + rng.choice(codas) for _ in range(syllables)
                )
            r = rng.random()
            if r < 0.015:
                word = str(int(rng.integers(0, 2000)))
            elif r < 0.03:
                word = "(" + word + ")"
            elif r < 0.035:
                word = word.upper()
            elif r < 0.07:
                word = word.capitalize()
            if rng.random() < 0.06:
                word += str(rng.choice([",", ";", ":", "-"]))
            sentence.append(word)
        sentence[0] = sentence[0].capitalize()
        sentence[-1] += str(rng.choice([".", ".", ".", "?", "!", '."']))
        words += sentence
    return " ".join(words)[:n_chars]


def sample_images(n: int, seed: int = 0) -> np.ndarray:
    """``n`` MNIST-like 28x28 uint8 images: a dark background and a few bright strokes."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:28, 0:28]
    images = np.zeros((n, 28, 28), dtype=np.float64)
    for _ in range(3):  # three strokes per image (a loop over strokes, not over images)
        cy, cx = rng.uniform(6, 22, (2, n, 1, 1))
        angle = rng.uniform(0, np.pi, (n, 1, 1))
        distance = np.abs((x - cx) * np.sin(angle) - (y - cy) * np.cos(angle))
        along = np.abs((x - cx) * np.cos(angle) + (y - cy) * np.sin(angle))
        images = np.maximum(images, np.clip(1.5 - distance, 0, 1) * (along < rng.uniform(4, 9, (n, 1, 1))))
    return np.rint(images * 255).astype(np.uint8)


def _tie_break(model: Any) -> np.ndarray:
    """The model's tie-break vector (a bundle of a vector and its negation is all ties)."""
    x = model.random(seed=3)
    return np.asarray(model.to_numpy(model.bundle(model.xp.stack([x, -x]))))


def _ngram_encoder(model: Any) -> Any:
    from holovec.encoders import NGramEncoder

    return NGramEncoder(model, n=3, seed=1)


def _ngram_case(backend: str, quick: bool, dim: int) -> Prepared:
    model = VSA.create("MAP", dim=dim, backend=backend)
    text = sample_text(1_000 if quick else 10_000)
    encoder = _ngram_encoder(model)
    encoder.encode(text)  # the symbols' vectors are drawn once (a table keeps them)
    # the baseline gets the symbol vectors as a NumPy matrix, made once (not timed)
    codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
    alphabet = np.unique(codes)
    symbols = np.asarray(model.to_numpy(encoder.symbols.vectors([chr(c) for c in alphabet.tolist()])))
    ties = _tie_break(model)

    def baseline() -> np.ndarray:
        # the definition, vectorised: gather, roll the whole block per offset, bind, sum, sign
        index = np.searchsorted(alphabet, np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32))
        vectors = symbols[index]
        m = len(index) - 2
        grams = np.roll(vectors[:m], 2, axis=1)
        grams *= np.roll(vectors[1 : m + 1], 1, axis=1)
        grams *= vectors[2:]
        total = grams.sum(axis=0)
        return np.where(total == 0, ties, np.sign(total))

    return Prepared(
        holovec=lambda: encoder.encode(text),
        baseline=baseline,
        items=len(text),
        item_name="kB",
        compare="equal",
        to_numpy=lambda x: np.asarray(model.to_numpy(x)),
    )


def _image_encoder(model: Any) -> Any:
    from holovec.encoders import ImageEncoder

    return ImageEncoder(model, shape=(28, 28), levels=256, seed=1)


def _image_case(backend: str, quick: bool, dim: int) -> Prepared:
    model = VSA.create("MAP", dim=dim, backend=backend)
    n = 32 if quick else 256
    images = sample_images(n)
    encoder = _image_encoder(model)
    encoder.encode(images[:2])  # position codes and level ends are made once
    levels = np.asarray(model.to_numpy(encoder.level_vectors))  # (256, D), made once
    positions = np.asarray(model.to_numpy(encoder.position_codes))  # (784, D)
    ties = _tie_break(model)
    chunk = max(1, 2**25 // (784 * dim))  # images per gather: 128 MB of float32

    def baseline() -> np.ndarray:
        # the definition, vectorised: gather each pixel's level vector, multiply by its
        # position code, sum over the pixels (einsum), sign
        q = np.rint(images.reshape(len(images), -1) * (255 / 255)).astype(np.int64)  # 256 levels
        out = np.empty((len(images), dim), dtype=np.float32)
        for first in range(0, len(images), chunk):
            out[first : first + chunk] = np.einsum("npj,pj->nj", levels[q[first : first + chunk]], positions)
        return np.where(out == 0, ties, np.sign(out))

    return Prepared(
        holovec=lambda: encoder.encode(images),
        baseline=baseline,
        items=n,
        item_name="image",
        compare="equal",
        to_numpy=lambda x: np.asarray(model.to_numpy(x)),
    )


def _fpe_values(quick: bool) -> np.ndarray:
    return np.random.default_rng(5).uniform(0.0, 1.0, 100 if quick else 1_000)


def _fpe_encoder(model: Any) -> Any:
    from holovec.encoders import FractionalPowerEncoder

    return FractionalPowerEncoder(model, 0.0, 1.0, bandwidth=1.0, seed=1)


def _fpe_encode_case(backend: str, quick: bool, dim: int) -> Prepared:
    model = VSA.create("FHRR", dim=dim, backend=backend)
    encoder = _fpe_encoder(model)
    x = _fpe_values(quick)
    values = model.backend.asarray(x)
    theta = encoder.theta_host[0]  # the same phases (float32) for the baseline

    def baseline() -> np.ndarray:
        # z(x) = exp(1j * outer(x, theta)): the phases, then cos and sin written straight into
        # the real and imaginary parts of a complex64 array
        phases = np.outer(x.astype(np.float32), theta)
        out = np.empty(phases.shape, dtype=np.complex64)
        np.cos(phases, out=out.real)
        np.sin(phases, out=out.imag)
        return out

    return Prepared(
        holovec=lambda: encoder.encode(values),
        baseline=baseline,
        items=len(x),
        item_name="value",
        compare="close",
        to_numpy=lambda v: np.asarray(model.to_numpy(v)),
    )


#: candidates of the baseline's decode: HoloVec's default resolution
_DECODE_GRID = 1_000


def _fpe_decode_case(backend: str, quick: bool, dim: int) -> Prepared:
    model = VSA.create("FHRR", dim=dim, backend=backend)
    encoder = _fpe_encoder(model)
    x = _fpe_values(quick)[: 10 if quick else 100]
    vectors = encoder.encode(model.backend.asarray(x))
    encoder.decode(vectors[:1])  # the decoder's tables are made once
    # the baseline: a grid search, its table of candidate encodings made once (not timed)
    grid = np.linspace(0.0, 1.0, _DECODE_GRID)
    table = np.asarray(model.to_numpy(encoder.encode(grid))).view(np.float32)  # (re, im) interleaved
    queries = np.asarray(model.to_numpy(vectors))

    def baseline() -> np.ndarray:
        # Re <q, conj(t)> for every candidate: one real matrix product, then argmax
        sims = (table @ queries.view(np.float32).T).T
        return grid[np.argmax(sims, axis=-1)]

    return Prepared(
        holovec=lambda: encoder.decode(vectors),
        baseline=baseline,
        items=len(x),
        item_name="vector",
        compare="close",
        to_numpy=lambda v: np.asarray(model.backend.to_numpy(v)),
        atol=1 / (_DECODE_GRID - 1),  # the baseline is as good as its grid (a step: sinc is flat)
    )


def _level_encoder(model: Any) -> Any:
    from holovec.encoders import LevelEncoder

    return LevelEncoder(model, 0.0, 1.0, levels=100, seed=1)


def _level_encode_case(backend: str, quick: bool, dim: int) -> Prepared:
    model = VSA.create("MAP", dim=dim, backend=backend)
    encoder = _level_encoder(model)
    x = _fpe_values(quick)
    values = model.backend.asarray(x)
    table = np.asarray(model.to_numpy(encoder.table))  # the same level vectors

    def baseline() -> np.ndarray:
        return table[np.rint(x * 99).astype(np.intp)]  # the nearest level's row

    return Prepared(
        holovec=lambda: encoder.encode(values),
        baseline=baseline,
        items=len(x),
        item_name="value",
        compare="equal",
        to_numpy=lambda v: np.asarray(model.to_numpy(v)),
    )


SCALAR_CASES = [
    EncoderCase(
        "fpe_encode",
        lambda quick: f"FPE encode, {100 if quick else 1000:,} scalars",
        "FHRR",
        _fpe_encode_case,
        _fpe_encoder,
    ),
    EncoderCase(
        "fpe_decode",
        lambda quick: f"FPE decode, {10 if quick else 100} vectors (baseline: {_DECODE_GRID:,}-point grid)",
        "FHRR",
        _fpe_decode_case,
        _fpe_encoder,
    ),
    EncoderCase(
        "level_encode",
        lambda quick: f"level encode, {100 if quick else 1000:,} values (100 levels)",
        "MAP",
        _level_encode_case,
        _level_encoder,
    ),
]


CASES: list[EncoderCase] = [
    *SCALAR_CASES,
    EncoderCase(
        "ngram_text",
        lambda quick: f"n-gram encode (n=3) of {'1' if quick else '10'} kB of text",
        "MAP",
        _ngram_case,
        _ngram_encoder,
    ),
    EncoderCase(
        "image_batch",
        lambda quick: f"image encode, batch of {32 if quick else 256} 28x28 images (256 levels)",
        "MAP",
        _image_case,
        _image_encoder,
    ),
]


# -- running ---------------------------------------------------------------------------------


def check_dim(dim: int, cases: list[EncoderCase] | None = None) -> None:
    """Raise ``ValueError`` if an encoder of the section refuses ``dim`` (100 levels need
    enough elements to change between them, ...): each encoder made once on NumPy, no
    vector drawn, so that ``--dim`` is refused before the run rather than in it."""
    for case in CASES if cases is None else cases:
        case.encoder(VSA.create(case.model, dim=dim))


def run_encoders(
    backends: list[str],
    *,
    dim: int,
    quick: bool,
    repeat: int,
    budget_s: float,
    progress: TextIO | None = None,
    cases: list[EncoderCase] | None = None,
) -> list[Row]:
    results = []
    for backend in backends:
        wait = waiter(backend)
        for case in CASES if cases is None else cases:
            if progress is not None:
                print(f"[{backend}] encoders: {case.key}", file=progress, flush=True)
            prepared = case.make(backend, quick, dim)
            result = Row(
                "encoders",
                backend,
                case.model,
                case.key,
                case.label(quick),
                items=prepared.items,
                item_name=prepared.item_name,
            )
            result.times["holovec"] = measure(prepared.holovec, wait, repeat=repeat, budget_s=budget_s)
            baseline = prepared.baseline if backend == "numpy" else None
            if baseline is None:
                result.times["baseline"] = None
            else:
                result.times["baseline"] = measure(baseline, no_wait, repeat=repeat, budget_s=budget_s)
                needed = 0.99 if prepared.compare == "mostly" else 1.0
                differs = disagreement(
                    prepared.to_numpy(prepared.holovec()), baseline(), atol=prepared.atol, needed=needed
                )
                result.notes = [f"baseline {differs}"] if differs else []
            results.append(result)
    return results
