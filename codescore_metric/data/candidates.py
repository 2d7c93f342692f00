"""Candidate programs for one task, made from its reference and from other tasks' references.

Kinds (the ``kind`` field of each candidate):
- ``mutant``: one mutation operator applied once to the reference (``mutations.OPERATORS``);
- ``partial``: a partially correct rewrite: one branch of an ``if`` broken, or two mutations stacked;
- ``foreign``: another task's reference (same split only), its entry function renamed to this one's;
- ``non_executable``: a syntax error or an undefined name;
- ``equivalent``: the reference with its local variables renamed (should pass everything).
Every candidate made from a source keeps that source's layout (comments, spacing, parentheses) outside
the statements it changes (``splice.splice``; ``partial`` stacks and ``foreign`` candidates included),
so it differs from the source only where it was changed; one that does not parse stays as made.
Candidates are deduplicated by normalised source (and never equal the reference) and capped per
task; the draw is deterministic for a given seed and task id.
"""

from __future__ import annotations

import ast
import hashlib
import random
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from codescore_metric.data import mutations
from codescore_metric.data.splice import splice

KINDS = ("mutant", "partial", "foreign", "non_executable", "equivalent")
DEFAULT_MIX = {"mutant": 0.45, "partial": 0.2, "foreign": 0.1, "non_executable": 0.15, "equivalent": 0.1}


@dataclass(frozen=True)
class Candidate:
    """One candidate program: its source, how it was made (``kind``) and by what (``detail``); for a
    real program, ``generator`` names the models that wrote it."""

    code: str
    kind: str
    detail: str
    generator: str = ""


@dataclass(frozen=True)
class Donor:
    """Another task's reference solution, usable as a ``foreign`` candidate."""

    task_id: str
    reference: str
    entry_point: str | None


def task_rng(seed: int, task_id: str) -> random.Random:
    """A random generator that depends only on ``seed`` and ``task_id`` (not on the task order)."""
    digest = hashlib.sha256(f"candidates:{seed}:{task_id}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def normalise(code: str) -> str:
    """The source as ``ast.unparse`` writes it (comments and layout gone); collapsed whitespace when it
    does not parse."""
    try:
        return ast.unparse(ast.parse(code))
    except (SyntaxError, ValueError):
        return re.sub(r"\s+", " ", code).strip()


def make_candidates(task_id: str, reference: str, entry_point: str | None, donors: Sequence[Donor], *,
                    per_task: int = 20, seed: int = 0, mix: dict[str, float] | None = None) -> list[Candidate]:
    """Up to ``per_task`` distinct candidates for one task, drawn kind by kind in the proportions of
    ``mix`` (default ``DEFAULT_MIX``); slots a kind cannot fill go to the other kinds."""
    if per_task < 0:
        raise ValueError(f"per_task must be >= 0, got {per_task}")
    mix = DEFAULT_MIX if mix is None else mix
    unknown = set(mix) - set(KINDS)
    if unknown:
        raise ValueError(f"unknown candidate kind(s) {sorted(unknown)} in mix; choose from {', '.join(KINDS)}")
    rng = task_rng(seed, task_id)
    streams = {"mutant": _mutants(reference, rng), "partial": _partials(reference, rng),
               "foreign": _foreign(task_id, entry_point, donors, rng),
               "non_executable": _round_robin(mutations.NON_EXECUTABLE, reference, rng, "non_executable"),
               "equivalent": (Candidate(splice(reference, code), "equivalent", "rename_locals")
                              for code in mutations.rename_locals(reference))}
    quotas = _quotas(per_task, mix)
    seen = {normalise(reference)}
    chosen: list[Candidate] = []
    for kind in KINDS:  # first pass: each kind up to its quota
        chosen += _take(streams[kind], quotas.get(kind, 0), seen)
    for kind in KINDS:  # second pass: fill what is left, in the order of KINDS
        if len(chosen) >= per_task:
            break
        if mix.get(kind, 0) > 0:
            chosen += _take(streams[kind], per_task - len(chosen), seen)
    return chosen


def _quotas(per_task: int, mix: dict[str, float]) -> dict[str, int]:
    total = sum(mix.values())
    if total <= 0 or any(share < 0 for share in mix.values()):
        raise ValueError(f"mix shares must be non-negative and not all zero, got {mix}")
    return {kind: round(per_task * share / total) for kind, share in mix.items()}


def _take(stream: Iterator[Candidate], count: int, seen: set[str]) -> list[Candidate]:
    taken: list[Candidate] = []
    if count <= 0:
        return taken
    for candidate in stream:
        key = normalise(candidate.code)
        if key not in seen:
            seen.add(key)
            taken.append(candidate)
            if len(taken) >= count:
                break
    return taken


def _round_robin(operators: dict[str, Callable[[str], list[str]]], source: str, rng: random.Random,
                 kind: str) -> Iterator[Candidate]:
    """One mutant of each operator in turn (operators and their mutants in a seeded order), each
    spliced into ``source``."""
    pools = []
    for name, operator in operators.items():
        found = operator(source)
        rng.shuffle(found)
        pools.append((name, found))
    rng.shuffle(pools)
    while any(found for _, found in pools):
        for name, found in pools:
            if found:
                yield Candidate(splice(source, found.pop()), kind, name)


def mutants_of(program: str, rng: random.Random, count: int = 1) -> list[Candidate]:
    """Up to ``count`` distinct ``mutant`` candidates of any parseable program (e.g. a real generated
    one), drawn like a reference's and kept in the program's own layout."""
    return _take(_mutants(program, rng), count, {normalise(program)})


def equivalent_rewrite(program: str, rng: random.Random) -> Candidate | None:
    """One ``equivalent`` candidate of a parseable program: a rewrite drawn from all of
    `mutations.EQUIVALENT_REWRITES`' rewrites of it (detail: the rewrite's name), kept in the program's own
    layout; ``None`` when none applies."""
    options = [(name, text) for name, rewrite in mutations.EQUIVALENT_REWRITES.items() for text in rewrite(program)]
    if not options:
        return None
    name, text = rng.choice(options)
    return Candidate(splice(program, text), "equivalent", name)


def _mutants(reference: str, rng: random.Random) -> Iterator[Candidate]:
    return _round_robin(mutations.OPERATORS, reference, rng, "mutant")


def _partials(reference: str, rng: random.Random, attempts: int = 40) -> Iterator[Candidate]:
    """Broken branches first, then stacks of two mutations from different operators, each spliced
    into the reference."""
    branches = mutations.break_branch(reference)
    rng.shuffle(branches)
    for code in branches:
        yield Candidate(splice(reference, code), "partial", "break_branch")
    names = sorted(mutations.OPERATORS)
    firsts: dict[str, list[str]] = {}
    for _ in range(attempts):
        first_name, second_name = rng.sample(names, 2)
        if first_name not in firsts:
            firsts[first_name] = mutations.OPERATORS[first_name](reference)
        if not firsts[first_name]:
            continue
        first = rng.choice(firsts[first_name])
        seconds = mutations.OPERATORS[second_name](first)
        if seconds:
            yield Candidate(splice(reference, rng.choice(seconds)), "partial", f"{first_name}+{second_name}")


def _foreign(task_id: str, entry_point: str | None, donors: Sequence[Donor], rng: random.Random) -> Iterator[Candidate]:
    """Other tasks' references with their entry function renamed to this task's entry point, spliced
    into the donor's reference."""
    order = [donor for donor in donors if donor.task_id != task_id]
    rng.shuffle(order)
    for donor in order:
        code = rename_function(donor.reference, donor.entry_point, entry_point) if entry_point else None
        if code is not None:
            yield Candidate(splice(donor.reference, code), "foreign", f"task {donor.task_id}")


def rename_function(source: str, old: str | None, new: str) -> str | None:
    """``source`` with the top-level function ``old`` (definition and every call) renamed to ``new``;
    ``None`` when ``source`` does not parse or defines no such function."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    if not old or not any(isinstance(node, ast.FunctionDef) and node.name == old for node in tree.body):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == old:
            node.name = new
        elif isinstance(node, ast.Name) and node.id == old:
            node.id = new
    return ast.unparse(tree)
