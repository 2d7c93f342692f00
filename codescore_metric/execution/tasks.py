"""Task formats (HumanEval, HumanEval-ET, MBPP, generic jsonl) and completion post-processing."""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from codescore_metric.execution.sandbox import Job
from codescore_metric.jsonl import read_records

FORMATS = ("humaneval", "mbpp", "generic")
TEST_CHOICES = ("auto", "original", "extended")
EXTENDED_FIELD = "test_case_list"  # HumanEval-ET's name, also written by `codescore extend-tests`

# A new top-level statement that ends a function-body completion, as the standard harnesses cut.
_BODY_STOP = re.compile(r"\n(?=def |class |if __name__|print\b|```)")
# A full program keeps its defs and classes but loses a main block, prints and copied asserts.
_PROGRAM_STOP = re.compile(r"\n(?=if __name__|print\b|assert\b|```)")
_FENCE = re.compile(r"^\s*```[\w+-]*\n")


def truncate_completion(completion: str) -> str:
    """Cut a HumanEval-style completion (the rest of a function body) at the first new top-level def,
    class, ``if __name__``, ``print`` or code fence."""
    if not isinstance(completion, str):
        raise TypeError(f"completion must be a string, got {type(completion).__name__}")
    return _BODY_STOP.split(completion, maxsplit=1)[0]


def clean_program(code: str) -> str:
    """Strip an opening code fence from a whole generated program and cut it at the first top-level
    ``if __name__``, ``print``, ``assert`` or closing fence."""
    if not isinstance(code, str):
        raise TypeError(f"generated code must be a string, got {type(code).__name__}")
    code = _PROGRAM_STOP.split("\n" + _FENCE.sub("", code, count=1), maxsplit=1)[0]
    return code.strip("\n") + "\n" if code.strip() else ""


@dataclass(frozen=True)
class Task:
    """One benchmark task: a reference program, the tests that judge candidates, the seed asserts."""

    task_id: str
    kind: str
    reference: str
    tests: tuple[str, ...]
    seed_tests: tuple[str, ...]
    setup: str = ""
    entry_point: str | None = None
    prompt: str = ""

    def job(self, program: str) -> Job:
        """A sandbox job judging ``program`` on this task's tests."""
        return Job(program, self.tests, self.setup)

    def candidate_program(self, generated: str, *, completion: bool) -> str:
        """The program to run: prompt + truncated body for a completion, else the cleaned program."""
        if completion:
            return self.prompt + truncate_completion(generated)
        return clean_program(generated)


def load_tasks(path: str | Path, fmt: str = "auto", tests: str = "auto") -> dict[str, Task]:
    """Read a task file. ``fmt``: humaneval, mbpp, generic or auto (from the first row's fields).

    ``tests``: ``original`` (HumanEval ``check(candidate)``, MBPP ``test_list``), ``extended``
    (``test_case_list``), or ``auto`` (extended where a row has it, else original).
    """
    if fmt not in (*FORMATS, "auto"):
        raise ValueError(f"unknown task format {fmt!r}; choose one of {', '.join(FORMATS)} or auto")
    if tests not in TEST_CHOICES:
        raise ValueError(f"unknown test choice {tests!r}; choose one of {', '.join(TEST_CHOICES)}")
    rows = read_records(path)
    if not rows:
        raise ValueError(f"{path}: no tasks in the file")
    if fmt == "auto":
        fmt = detect_format(rows[0][1], f"{path}:{rows[0][0]}")
    loader = {"humaneval": _humaneval, "mbpp": _mbpp, "generic": _generic}[fmt]
    tasks: dict[str, Task] = {}
    for line, row in rows:
        task = loader(row, f"{path}:{line}", tests)
        if task.task_id in tasks:
            raise ValueError(f"{path}:{line}: task_id {task.task_id!r} appears twice")
        tasks[task.task_id] = task
    return tasks


def detect_format(row: dict, where: str) -> str:
    """Guess a task row's format from its fields."""
    if isinstance(row, dict):
        if "canonical_solution" in row:
            return "humaneval"
        if "test_list" in row and "code" in row:
            return "mbpp"
        if "program" in row and "tests" in row:
            return "generic"
    raise ValueError(f"{where}: cannot tell the task format; expected HumanEval fields (prompt, canonical_solution,"
                     " test, entry_point), MBPP fields (code, test_list) or generic ones (program, tests)")


def _field(row: dict, name: str, kind: type, where: str, default=None):
    if name not in row:
        if default is not None:
            return default
        raise ValueError(f"{where}: missing field {name!r}")
    value = row[name]
    if kind is list:
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise ValueError(f"{where}: field {name!r} must be a list of strings")
        return tuple(value)
    if not isinstance(value, kind):
        raise ValueError(f"{where}: field {name!r} must be a {kind.__name__}, got {type(value).__name__}")
    return value


def _pick(row: dict, original: tuple[str, ...], choice: str, where: str) -> tuple[str, ...]:
    if choice == "original" or (choice == "auto" and EXTENDED_FIELD not in row):
        return original
    return _field(row, EXTENDED_FIELD, list, where)


def _humaneval(row: dict, where: str, choice: str) -> Task:
    entry = _field(row, "entry_point", str, where)
    prompt = _field(row, "prompt", str, where)
    check = _field(row, "test", str, where)
    picked = _pick(row, (f"check({entry})",), choice, where)
    return Task(task_id=str(_field(row, "task_id", (str, int), where)), kind="humaneval",
                reference=prompt + _field(row, "canonical_solution", str, where), tests=picked,
                seed_tests=check_asserts(check, entry), setup=check if picked == (f"check({entry})",) else "",
                entry_point=entry, prompt=prompt)


def _mbpp(row: dict, where: str, choice: str) -> Task:
    original = _field(row, "test_list", list, where)
    return Task(task_id=str(_field(row, "task_id", (str, int), where)), kind="mbpp",
                reference=_field(row, "code", str, where), tests=_pick(row, original, choice, where),
                seed_tests=original, setup=_field(row, "test_setup_code", str, where, default=""),
                entry_point=row.get("entry_point") or called_name(original, _field(row, "code", str, where)))


def _generic(row: dict, where: str, choice: str) -> Task:
    tests = _field(row, "tests", list, where)
    program = _field(row, "program", str, where)
    return Task(task_id=str(_field(row, "task_id", (str, int), where)), kind="generic", reference=program,
                tests=_pick(row, tests, choice, where), seed_tests=tests, setup=_field(row, "setup", str, where, default=""),
                entry_point=row.get("entry_point") or called_name(tests, program))


def check_asserts(check_source: str, entry_point: str) -> tuple[str, ...]:
    """The self-contained top-level asserts of HumanEval's ``check(candidate)``, each calling the entry
    point by name; asserts that use ``check``'s local variables are left out."""
    try:
        module = ast.parse(check_source)
    except SyntaxError as error:
        raise ValueError(f"the HumanEval test code does not parse: {error}") from error
    found = []
    for node in module.body:
        if isinstance(node, ast.FunctionDef) and node.name == "check" and node.args.args:
            parameter = node.args.args[0].arg
            for statement in node.body:
                names = [name for name in ast.walk(statement) if isinstance(name, ast.Name)]
                stored = {name.id for name in names if not isinstance(name.ctx, ast.Load)}
                free = {name.id for name in names} - stored - {parameter} - set(dir(builtins))
                if isinstance(statement, ast.Assert) and not free:  # skip asserts on check()'s locals
                    for name in names:
                        if name.id == parameter:
                            name.id = entry_point
                    found.append(ast.unparse(statement))
    return tuple(found)


def called_name(tests: tuple[str, ...], program: str) -> str | None:
    """The first function the tests call that the program defines at top level (MBPP has no entry point)."""
    try:
        defined = {node.name for node in ast.parse(program).body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    except SyntaxError:
        return None
    return next((call.func.id for call in named_calls(tests) if call.func.id in defined), None)


def named_calls(tests) -> Iterator[ast.Call]:
    """Every call of a plain name (``f(...)``) in the tests that parse, outermost first."""
    for test in tests:
        try:
            tree = ast.parse(test)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                yield node
