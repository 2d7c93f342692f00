"""Coverage and mutant kill rates of `codescore extend-tests` on MBPP and HumanEval.

For each task: extend its tests from the reference and its seed asserts, check that the reference
passes all of its extended tests, then build a fixed set of mutants of the reference (one AST
operator change each: arithmetic, comparison, boolean operator, constant +1, ``not`` removed,
chosen with a seed from the task id) and count a mutant killed by a test list when it fails any
test there. Kill rates with the original asserts and with the extended tests come from one
fail-fast run over ``originals + new``. On HumanEval the authors' HumanEval-ET ``test_case_list``
is scored the same way, for comparison (HumanEval is used here only as an evaluation set).

    python benchmarks/extension_quality.py                       # both data sets, all tasks
    python benchmarks/extension_quality.py --limit 50 --mutants 3   # quick look
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import random
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from execution_speed import DEFAULT_DATA, write_section

from codescore_metric.execution import Job, Limits, run_program
from codescore_metric.execution.extend import extend_task
from codescore_metric.execution.labels import passable
from codescore_metric.execution.tasks import Task, load_tasks

SWAPS = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Add, ast.FloorDiv: ast.Mult, ast.Div: ast.Mult,
         ast.Mod: ast.FloorDiv, ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt,
         ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In, ast.And: ast.Or,
         ast.Or: ast.And, ast.Is: ast.IsNot, ast.IsNot: ast.Is}
MUTANT_LIMITS = Limits(test_timeout=1.0, program_timeout=30.0)


def mutants(source: str, task_id: str, count: int) -> list[str]:
    """Up to ``count`` distinct single-change mutants of ``source``, the same every run."""
    tree = ast.parse(source)
    sites = [(index, node) for index, node in enumerate(ast.walk(tree))
             if type(getattr(node, "op", None)) in SWAPS
             or (isinstance(node, ast.Compare) and type(node.ops[0]) in SWAPS)
             or (isinstance(node, ast.Constant) and type(node.value) is int)
             or (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not))]
    rng = random.Random(int.from_bytes(hashlib.sha256(task_id.encode()).digest()[:8], "big"))
    rng.shuffle(sites)
    found, original = [], ast.unparse(tree)
    for index, _ in sites:
        copy = ast.parse(source)
        node = list(ast.walk(copy))[index]
        if isinstance(node, ast.Compare):
            node.ops[0] = SWAPS[type(node.ops[0])]()
        elif isinstance(node, ast.Constant):
            node.value += 1
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            node.op = ast.UAdd()  # `not x` becomes `+x`: truthiness kept for bools, wrong elsewhere
        else:
            node.op = SWAPS[type(node.op)]()
        text = ast.unparse(copy)
        if text != original and text not in found:
            found.append(text)
        if len(found) == count:
            break
    return found


def first_failure(task: Task, program: str, tests: tuple[str, ...]) -> int | None:
    """Index of the first test ``program`` does not pass (fail-fast run), or None."""
    result = run_program(Job(program, tests, task.setup), MUTANT_LIMITS, fail_fast=True)
    if result.load.status != "passed":
        return 0
    return next((i for i, test in enumerate(result.tests) if test.status != "passed"), None)


def evaluate_task(task: Task, mutant_count: int, et_tests: tuple[str, ...] | None) -> dict:
    extension = extend_task(task)
    reference = run_program(Job(task.reference, extension.tests, task.setup))
    row = {"task_id": task.task_id, "tests": len(extension.tests), "new": extension.new,
           "reference_passes": passable(reference) if extension.tests else True,
           "killed_original": 0, "killed_extended": 0, "killed_et": 0, "mutants": 0}
    originals = len(task.seed_tests)
    try:
        programs = mutants(task.reference, str(task.task_id), mutant_count)
    except SyntaxError:
        programs = []
    for program in programs:
        failure = first_failure(task, program, extension.tests)
        row["mutants"] += 1
        row["killed_extended"] += failure is not None
        row["killed_original"] += failure is not None and failure < originals
        if et_tests is not None:
            row["killed_et"] += first_failure(task, program, et_tests) is not None
    return row


def summarise(name: str, rows: list[dict], with_et: bool, seconds: float) -> list[str]:
    n = len(rows)
    mutants_total = sum(r["mutants"] for r in rows) or 1
    lines = [f"### {name}", "", "| measure | value |", "|---|---|",
             f"| tasks | {n} |",
             f"| tasks with >= 100 tests | {sum(r['tests'] >= 100 for r in rows)} ({100 * sum(r['tests'] >= 100 for r in rows) / n:.1f}%) |",
             f"| mean tests per task (originals + new) | {sum(r['tests'] for r in rows) / n:.1f} |",
             f"| reference passes all its extended tests | {sum(r['reference_passes'] for r in rows)} / {n} |",
             f"| mutants | {sum(r['mutants'] for r in rows)} |",
             f"| kill rate, original asserts | {sum(r['killed_original'] for r in rows) / mutants_total:.3f} |",
             f"| kill rate, extended tests | {sum(r['killed_extended'] for r in rows) / mutants_total:.3f} |"]
    if with_et:
        lines.append(f"| kill rate, authors' HumanEval-ET test_case_list | {sum(r['killed_et'] for r in rows) / mutants_total:.3f} |")
    lines.append(f"| wall time | {seconds / 60:.1f} min |")
    failing = [r["task_id"] for r in rows if not r["reference_passes"]]
    short = [f"{r['task_id']} ({r['tests']})" for r in rows if r["tests"] < 100]
    lines += ["", f"Reference fails its own extended tests: {', '.join(map(str, failing)) or 'none'}.",
              f"Tasks under 100 tests: {', '.join(short[:40]) or 'none'}{' ...' if len(short) > 40 else ''}."]
    return lines


def run_set(name: str, tasks: list[Task], mutant_count: int, workers: int, et: dict | None) -> list[str]:
    started = time.perf_counter()
    with ThreadPoolExecutor(workers) as pool:
        rows = list(tqdm(pool.map(lambda t: evaluate_task(t, mutant_count, et[t.task_id] if et else None), tasks),
                         total=len(tasks), desc=name, unit="task", file=sys.stderr))
    lines = summarise(name, rows, et is not None, time.perf_counter() - started)
    print("\n".join(lines), flush=True)
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mbpp", type=Path, default=DEFAULT_DATA / "mbpp.jsonl")
    parser.add_argument("--humaneval", type=Path, default=DEFAULT_DATA / "HumanEval_ET.jsonl")
    parser.add_argument("--limit", type=int, default=None, help="first N tasks of each set")
    parser.add_argument("--mbpp-stride", type=int, default=1, help="every k-th MBPP task only (a fixed subset)")
    parser.add_argument("--mutants", type=int, default=5, help="mutants per task")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    lines = ["## Test extension quality", "",
             f"`python benchmarks/extension_quality.py {' '.join(sys.argv[1:])}` — {args.mutants} mutants per task,"
             " a mutant is killed when it fails any test of the list.", ""]
    if args.humaneval.exists():
        original = list(load_tasks(args.humaneval, "humaneval", tests="original").values())[: args.limit]
        et = {t.task_id: t.tests for t in load_tasks(args.humaneval, "humaneval", tests="extended").values()}
        lines += run_set("HumanEval (evaluation only)", original, args.mutants, args.workers, et) + [""]
        write_section("extension_quality", "\n".join(lines))
    if args.mbpp.exists():
        mbpp = list(load_tasks(args.mbpp, "mbpp", tests="original").values())[: args.limit: args.mbpp_stride]
        name = "MBPP" if args.mbpp_stride == 1 else f"MBPP (one task in {args.mbpp_stride}, from the first)"
        lines += run_set(name, mbpp, args.mutants, args.workers, None)
    write_section("extension_quality", "\n".join(lines))


if __name__ == "__main__":
    main()
