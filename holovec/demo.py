"""The demo: records and analogies, "what is the dollar of Mexico?" (Kanerva 2010).

``python -m holovec`` and ``examples/quickstart.py`` both run :func:`main`; ``--help``
lists the options (``--model``, ``--backend``, ``--dim``, ``--seed``). ``import holovec``
does not import this module.

Each country is a record {name, capital, currency}: each field's filler is bound to its
role, ``bind(filler, role)``, and the bound pairs are bundled into one vector. The role
is the right operand because ``unbind(c, b)`` recovers the *left* operand of
``c = bind(a, b)`` on every model, commutative or not; so ``unbind(record, role)`` is a
noisy filler, which a search of the filler codebook cleans up.

The analogy takes one of two routes, chosen from the model's declared algebra:

- When bind commutes (``model.is_commutative``) and the model has an inverse, one vector
  ``mapping = bind(inverse(usa), mexico)`` maps each USA filler onto the Mexican filler of
  the same role: in ``inverse(usa) * mexico`` each role meets its own inverse and cancels,
  leaving a sum of pairs (USA filler)^-1 * (Mexican filler). Binding the mapping with
  Dollar gives Peso (Kanerva's "dollar of Mexico").
- When bind does not commute (VTB, GHRR with blocks larger than 1x1, BSDC's shift
  binding), a role cannot be moved next to its inverse, so that mapping does not cancel
  the roles (a mapping that does, where one exists, depends on the model's own matrix
  algebra, which the demo does not assume). The demo asks the records instead: the role
  whose unbinding from the USA record is most like Dollar (currency), then Mexico's
  filler of that role. The same route serves a commutative model without an inverse.

The demo knows the true answers and checks them: a wrong answer (a dimension too small
for the noise of the bundles, or a model whose unbinding cannot single out a field) is
reported as wrong, never printed as if it were right.

Examples
--------
>>> from holovec.demo import run
>>> result = run("MAP", dim=2000, quiet=True)
>>> result.analogy.label, result.correct
('Peso', True)
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from .models import VSAModel
from .vsa import VSA

__all__ = [
    "Answer",
    "DemoResult",
    "Records",
    "build_parser",
    "cleanup",
    "dollar_of_mexico",
    "encode_records",
    "main",
    "query",
    "run",
]

ROLES = ("name", "capital", "currency")
#: the two records: one filler per role
COUNTRIES = {
    "USA": {"name": "USA", "capital": "Washington", "currency": "Dollar"},
    "Mexico": {"name": "Mexico", "capital": "Mexico City", "currency": "Peso"},
}
FILLERS = tuple(filler for record in COUNTRIES.values() for filler in record.values())


@dataclass(frozen=True)
class Answer:
    """A cleaned-up answer: the best label, its similarity, and the true label."""

    label: str
    similarity: float
    expected: str

    @property
    def correct(self) -> bool:
        return self.label == self.expected


@dataclass
class DemoResult:
    """What :func:`run` found: the model, each field of the USA record, and the analogy."""

    model: VSAModel
    fields: dict[str, Answer]
    analogy: Answer
    #: the role of Dollar in the USA record, where the analogy was answered through it
    #: (``None`` where one mapping vector answered it)
    role: Answer | None = None

    @property
    def answers(self) -> list[Answer]:
        return [*self.fields.values(), self.analogy, *([self.role] if self.role else [])]

    @property
    def correct(self) -> bool:
        """Whether every answer is the true one."""
        return all(a.correct for a in self.answers)


@dataclass(frozen=True)
class Records:
    """The demo's vectors: the role and filler codebooks (one row per name) and the records."""

    roles: Any
    fillers: Any
    usa: Any
    mexico: Any

    def role(self, name: str) -> Any:
        return self.roles[ROLES.index(name)]

    def filler(self, name: str) -> Any:
        return self.fillers[FILLERS.index(name)]


def encode_records(model: VSAModel) -> Records:
    """Random role and filler vectors, and each country as a bundle of bound pairs."""
    roles = model.random(len(ROLES), seed=1)  # a codebook: one row per role
    fillers = model.random(len(FILLERS), seed=2)  # one row per filler

    def record(fields: dict[str, str]) -> Any:
        # bind(filler, role): the role (the key) on the right, where unbind looks for it
        pairs = [model.bind(fillers[FILLERS.index(f)], roles[ROLES.index(r)]) for r, f in fields.items()]
        return model.bundle(pairs)

    return Records(roles, fillers, record(COUNTRIES["USA"]), record(COUNTRIES["Mexico"]))


def cleanup(model: VSAModel, noisy: Any, codebook: Any, labels: Sequence[str]) -> tuple[str, float]:
    """The label of the codebook row most similar to ``noisy``, and that similarity."""
    sims = model.backend.to_numpy(model.similarity_matrix(noisy, codebook))
    best = int(sims.argmax())
    return labels[best], float(sims[best])


def query(model: VSAModel, records: Records, role: str) -> tuple[str, float]:
    """The filler of ``role`` in the USA record: unbind the role, clean up the result."""
    return cleanup(model, model.unbind(records.usa, records.role(role)), records.fillers, FILLERS)


def dollar_of_mexico(model: VSAModel, records: Records) -> tuple[tuple[str, float], tuple[str, float] | None]:
    """The answer to "what is the dollar of Mexico?", and the role of Dollar in the USA
    record where the answer went through it (else ``None``)."""
    inverse_usa = None
    if model.is_commutative:
        try:
            inverse_usa = model.inverse(records.usa)
        except ValueError:  # a model without inverse vectors says so (BSDC with CDT binding)
            pass
    if inverse_usa is not None:
        # inverse(usa) * mexico maps each USA filler to the Mexican filler of its role
        mapping = model.bind(inverse_usa, records.mexico)
        return cleanup(model, model.bind(mapping, records.filler("Dollar")), records.fillers, FILLERS), None
    # which role holds the Dollar in the USA record? (every role in one batched unbind)
    role = cleanup(model, records.filler("Dollar"), model.unbind(records.usa, records.roles), ROLES)
    answer = model.unbind(records.mexico, records.role(role[0]))
    return cleanup(model, answer, records.fillers, FILLERS), role


def run(
    model: str | VSAModel = "FHRR",
    backend: str | None = "numpy",
    dim: int = 10_000,
    *,
    seed: int = 2026,
    file: TextIO | None = None,
    quiet: bool = False,
) -> DemoResult:
    """Encode the two records, query the USA record, answer "what is the dollar of Mexico?",
    and report the answers (each checked against the truth).

    Parameters
    ----------
    model : str | VSAModel, optional
        A model name from :meth:`holovec.VSA.available_models`, or a model (then
        ``backend``, ``dim`` and ``seed`` are its own).
    backend : str | None, optional
        Passed to :meth:`holovec.VSA.create`.
    dim : int, optional
        Passed to :meth:`holovec.VSA.create`.
    seed : int, optional
        Passed to :meth:`holovec.VSA.create`.
    file : TextIO, optional
        Where the report goes: ``None`` for standard output.
    quiet : bool, optional
        Print nothing.

    Returns
    -------
    DemoResult
        Every answer with its similarity and the true answer; ``result.correct`` says
        whether all are right.
    """
    if not isinstance(model, VSAModel):
        model = VSA.create(model, dim=dim, backend=backend, seed=seed)

    def say(text: str = "", answer: Answer | None = None) -> None:
        if answer is not None and not answer.correct:
            text += f"  WRONG: expected {answer.expected}"
        if not quiet:
            print(text, file=file or sys.stdout)

    say(f"model: {model}")
    records = encode_records(model)

    say("\nWhat is in the USA record?")
    fields = {}
    for role in ROLES:
        fields[role] = answer = Answer(*query(model, records, role), COUNTRIES["USA"][role])
        say(f"  {role:8s} -> {answer.label:12s} (similarity {answer.similarity:.3f})", answer)

    (label, sim), role = dollar_of_mexico(model, records)
    analogy = Answer(label, sim, COUNTRIES["Mexico"]["currency"])
    say(f"\nWhat is the dollar of Mexico?  -> {label} (similarity {sim:.3f})", analogy)
    if role is None:
        return DemoResult(model, fields, analogy)
    found = Answer(*role, "currency")
    why = "bind does not commute" if not model.is_commutative else "the model has no inverse"
    say(f"  ({why}, so bind(inverse(usa), mexico) cannot cancel the roles; asked instead:")
    say(f"   the Dollar is the USA's {found.label} (similarity {found.similarity:.3f})", found)
    say(f"   and the answer is Mexico's {found.label})")
    return DemoResult(model, fields, analogy, found)


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    """The command line of the demo (``python -m holovec --help``)."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description=(
            'Records and analogies: encode two countries as records and answer "what is the '
            'dollar of Mexico?" with hyperdimensional computing.'
        ),
    )
    parser.add_argument(
        "--model",
        default="FHRR",
        help=f"the model, any case: {', '.join(VSA.available_models())} (default: FHRR)",
    )
    parser.add_argument(
        "--backend",
        default="numpy",
        help="numpy, torch (or pytorch), jax, dask or auto (default: numpy)",
    )
    parser.add_argument(
        "--dim",
        type=int,
        default=10_000,
        help="elements per vector (default: 10000; VTB needs a square, GHRR a multiple of 4)",
    )
    parser.add_argument("--seed", type=int, default=2026, help="the model's seed (default: 2026)")
    return parser


def main(argv: Sequence[str] | None = None, *, prog: str | None = None) -> int:
    """Run the demo from the command line: 0 when every answer is right, 1 when one is
    wrong (with a warning on standard error); a bad option exits with status 2."""
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    try:
        model = VSA.create(args.model, dim=args.dim, backend=args.backend, seed=args.seed)
    except (ValueError, TypeError) as error:
        parser.error(str(error))
    result = run(model)
    if result.correct:
        return 0
    wrong = [a for a in result.answers if not a.correct]
    print(
        f"warning: {len(wrong)} of {len(result.answers)} answers are wrong with {model.name} at "
        f"dim={model.dim}; a larger --dim lowers the noise of the bundles",
        file=sys.stderr,
    )
    return 1
