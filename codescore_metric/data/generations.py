"""Real generated programs (LLM outputs) as training and validation candidates.

A generations file is jsonl with one program per row: ``task_id`` (the benchmark's task id, int or
string) and ``program`` (the whole generated program, as the model wrote it) are required; ``id``
(a stable row id), ``models`` (a list of model names, or ``model``, one string) and
``prompt_style`` (the prompt family the program was generated from) are optional. Other fields are
ignored.

Programs are labelled by running them, as generated, against the task's extended tests; only
``from typing import *`` is put in front (``EXECUTION_PRELUDE``), because the harnesses that
produced them did the same, so an unimported ``List[int]`` is not a model error.

A (task, prompt style) group whose prompt asked for a different function than the tests call (most
of its programs do not define the tested name with the reference's number of parameters) is left
out: labelling those programs would mark the prompt, not the model, as wrong.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from codescore_metric.jsonl import format_errors, read_objects

EXECUTION_PRELUDE = "from typing import *\n"
KIND = "generation"  # the ``kind`` of a real program's row (synthetic kinds: data.candidates.KINDS)
MUTANT_KIND = "generation_mutant"  # a mutant of a real program that passed every test


@dataclass(frozen=True)
class Generation:
    """One generated program for one task."""

    task_id: str
    program: str
    row_id: str
    models: tuple[str, ...]
    prompt_style: str

    @property
    def generator(self) -> str:
        """The models that wrote this program, joined by commas (``""`` when unknown)."""
        return ",".join(self.models)


def read_generations(paths: Iterable[str | Path]) -> list[Generation]:
    """Every row of every file, in order; a ``ValueError`` lists each bad row by file and line."""
    generations, problems = [], []
    for path in paths:
        rows, errors = read_objects(path)
        bad = list(errors)
        for line, row in rows:
            generation, problem = _generation(row, f"{Path(path).name}:{line}")
            if problem:
                bad.append((line, problem))
            else:
                generations.append(generation)
        if bad:
            problems.append(format_errors(path, bad))
    if problems:
        raise ValueError("bad rows in the generations file(s); each row needs task_id (int or string) and program "
                         "(string):\n" + "\n".join(problems))
    return generations


def _generation(row: dict, where: str) -> tuple[Generation | None, str | None]:
    task_id, program = row.get("task_id"), row.get("program")
    if isinstance(task_id, bool) or not isinstance(task_id, (int, str)):
        return None, f"field 'task_id' must be an int or a string, got {task_id!r}"
    if not isinstance(program, str):
        return None, f"field 'program' must be a string, got {type(program).__name__}"
    models = row.get("models", row.get("model", ()))
    models = (models,) if isinstance(models, str) else models
    if not isinstance(models, (list, tuple)) or not all(isinstance(name, str) for name in models):
        return None, "field 'models' must be a list of strings (or 'model' one string)"
    style = row.get("prompt_style", "")
    if not isinstance(style, str):
        return None, f"field 'prompt_style' must be a string, got {type(style).__name__}"
    return Generation(str(task_id), program, str(row.get("id", where)), tuple(models), style), None


def defines_entry_point(program: str, entry_point: str | None, arity: int | None) -> bool:
    """Whether ``program`` defines ``entry_point`` at top level with ``arity`` positional parameters
    (any arity when ``arity`` is None); False when it does not parse."""
    if entry_point is None:
        return True
    try:
        module = ast.parse(program)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False
    for node in module.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == entry_point:
            return arity is None or _arity(node) == arity
        if isinstance(node, ast.ClassDef) and node.name == entry_point:
            return True
    return False


def entry_point_arity(reference: str, entry_point: str | None) -> int | None:
    """The number of positional parameters of the reference's ``entry_point`` (None if not a function)."""
    if entry_point is None:
        return None
    for node in ast.parse(reference).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == entry_point:
            return _arity(node)
    return None


def _arity(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    return len(node.args.posonlyargs) + len(node.args.args)


def mismatched_groups(generations: Sequence[Generation], tasks: dict) -> dict[tuple[str, str], str]:
    """``(task_id, prompt_style) -> reason`` for each group in which fewer than half the programs define
    the task's tested function with the reference's arity (the prompt asked for another signature)."""
    groups: dict[tuple[str, str], list[Generation]] = defaultdict(list)
    for generation in generations:
        if generation.task_id in tasks:
            groups[generation.task_id, generation.prompt_style].append(generation)
    mismatched = {}
    for (task_id, style), members in groups.items():
        task = tasks[task_id]
        arity = entry_point_arity(task.reference, task.entry_point)
        matching = sum(defines_entry_point(g.program, task.entry_point, arity) for g in members)
        if matching * 2 < len(members):
            mismatched[task_id, style] = (f"{len(members) - matching} of {len(members)} {style or 'unstyled'} programs do not "
                                          f"define {task.entry_point}() with {arity} parameter(s), as the tests call it")
    return mismatched
