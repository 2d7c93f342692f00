"""CodeScore against execution: the time to label programs by running their 100+ tests, and to score them.

The same labelled programs (a jsonl with ``task_id``, ``generated_code``, ``golden_code``, ``source`` and
``pass_ratio``, e.g. MBPP validation as `codescore build-data` writes it) are
- labelled by the sandbox (`codescore_metric.execution`): each row's job is built as `codescore label
  --tasks` builds it, on the task file's tests, or on the extended tests of ``--extended-tests`` (the
  ``extended_tests.jsonl`` that `codescore build-data` caches, ``test_case_list`` per task), behind the
  ``from typing import *`` prelude build-data ran generated programs with (``--no-prelude``: as `codescore
  label` alone), ``--workers`` programs at a time;
- scored by CodeScore in each dtype on the CPU (`cpu_dtypes.measure`: a fresh process each, Ref&NL,
  batch 32, ``--threads`` torch threads, after one warm-up batch).
The table gives programs/s of each and the speed ratio CodeScore / execution (the comparison the CodeScore
paper makes), with and without CodeScore's model load, plus how often the sandbox's PassRatio here equals
the file's.

    python benchmarks/against_execution.py work/real/mbpp/validation.jsonl --tasks ../shared/data/mbpp.jsonl \\
        --extended-tests work/real/mbpp/extended_tests.jsonl --markdown benchmarks/results/against_execution.md
    # a quick check: add --limit 5 --markdown /tmp/against_execution.md
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from cpu_dtypes import DTYPES, LABEL, environment, load_rows, measure, texts

from codescore_metric.cli.label import job_for_row as label_job
from codescore_metric.data.generations import EXECUTION_PRELUDE
from codescore_metric.execution import Job, Limits, run_many
from codescore_metric.execution.labels import labels
from codescore_metric.execution.tasks import load_tasks
from codescore_metric.jsonl import read_records

RESULTS = Path(__file__).parent / "results" / "against_execution.md"


def build_jobs(rows: list[dict], data: Path, tasks_path: Path, extended: Path | None, prelude: bool) -> list[Job]:
    """One sandbox job per row, as `codescore label --tasks` builds it; tests from ``extended`` where given."""
    tasks = load_tasks(tasks_path)
    if extended is not None:
        cached = {str(row["task_id"]): tuple(row["test_case_list"]) for _, row in read_records(extended)}
        missing = sorted({str(row["task_id"]) for row in rows} - set(cached))
        if missing:
            raise SystemExit(f"{extended} has no extended tests for task(s) {missing[:10]}")
        tasks = {task_id: replace(task, tests=cached[task_id]) if task_id in cached else task for task_id, task in tasks.items()}
    jobs = [label_job(row, f"{data}:{number}", tasks) for number, row in enumerate(rows, start=1)]
    return [replace(job, program=EXECUTION_PRELUDE + job.program) for job in jobs] if prelude else jobs


def execute(jobs: list[Job], limits: Limits, workers: int, shared_process: bool) -> dict:
    started = time.perf_counter()
    results = list(run_many(jobs, limits, workers=workers, shared_process=shared_process))
    seconds = time.perf_counter() - started
    tests = sum(len(result.tests) for result in results)
    return {"seconds": seconds, "programs_per_s": len(jobs) / seconds, "tests": tests, "tests_per_s": tests / seconds,
            "pass_ratio": [labels(result)["pass_ratio"] for result in results]}


def markdown(execution: dict, runs: dict[str, dict], rows: list[dict], args) -> str:
    count = len(rows)
    same = sum(abs(ours - float(row[LABEL])) < 1e-9 for ours, row in zip(execution["pass_ratio"], rows))
    way = "one process per test" if not args.shared_process else "all tests of a program in one process"
    command = " ".join(["python benchmarks/against_execution.py", *sys.argv[1:]])
    lines = [
        "# CodeScore against execution",
        "",
        f"`{command}`",
        "",
        f"{count} programs of `{args.data}`, {execution['tests']} tests in all ({execution['tests'] / count:.0f} per program); "
        f"execution: the sandbox, {way}, {args.workers} worker(s), {args.test_timeout:g} s per test; CodeScore: Ref&NL, "
        f"batch {args.batch_size}; {environment(args.threads)}. The sandbox's PassRatio equals the file's for {same} of {count} programs.",
        "",
        "| way | seconds | programs/s | speed-up vs execution | with model load |",
        "|---|---|---|---|---|",
        f"| execution ({execution['tests_per_s']:.0f} tests/s) | {execution['seconds']:.1f} | {execution['programs_per_s']:.2f} | 1x | |",
    ]
    for dtype, run in runs.items():
        loaded = count / (run["seconds"] + run["load_s"])
        lines.append(f"| CodeScore {dtype} | {run['seconds']:.1f} (+{run['load_s']:.1f} load) | {run['samples_per_s']:.2f} | "
                     f"{run['samples_per_s'] / execution['programs_per_s']:.1f}x | {loaded / execution['programs_per_s']:.1f}x |")
    lines += ["", "Speed-up: CodeScore's programs/s over execution's; \"with model load\" counts the model's load time too."]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("data", type=Path, help="labelled jsonl: task_id, generated_code, golden_code, source, pass_ratio")
    parser.add_argument("--tasks", type=Path, required=True, help="the task file (as for `codescore label --tasks`)")
    parser.add_argument("--extended-tests", type=Path, help="build-data's extended_tests.jsonl: test_case_list per task_id")
    parser.add_argument("--no-prelude", dest="prelude", action="store_false", help="run the programs without `from typing import *`")
    parser.add_argument("--shared-process", action="store_true", help="run a program's tests in one process (faster)")
    parser.add_argument("--workers", type=int, default=2, help="programs run at a time")
    parser.add_argument("--test-timeout", type=float, default=3.0)
    parser.add_argument("--checkpoint", help="CodeScore model (default: the embedded one)")
    parser.add_argument("--dtypes", nargs="+", default=list(DTYPES), choices=DTYPES)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--threads", type=int, default=2, help="torch CPU threads for CodeScore")
    parser.add_argument("--limit", type=int, help="first N rows only")
    parser.add_argument("--markdown", type=Path, default=RESULTS, help=f"table to write (default {RESULTS})")
    args = parser.parse_args()
    rows = load_rows(args.data, args.limit)
    jobs = build_jobs(rows, args.data, args.tasks, args.extended_tests, args.prelude)
    execution = execute(jobs, Limits(test_timeout=args.test_timeout), args.workers, args.shared_process)
    print(f"execution: {execution['programs_per_s']:.2f} programs/s, {execution['tests_per_s']:.0f} tests/s", flush=True)
    inputs = texts(rows)
    runs = {}
    for dtype in args.dtypes:
        runs[dtype] = measure(args.checkpoint, dtype, inputs, args.batch_size, args.threads)
        print(f"CodeScore {dtype}: {runs[dtype]['samples_per_s']:.2f} programs/s", flush=True)
    text = markdown(execution, runs, rows, args)
    args.markdown.parent.mkdir(parents=True, exist_ok=True)
    args.markdown.write_text(text)
    print(text + f"\nwrote {args.markdown}")


if __name__ == "__main__":
    main()
