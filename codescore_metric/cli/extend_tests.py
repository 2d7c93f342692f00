"""`codescore extend-tests`: 100+ tests per task from its reference solution and its few asserts.

Each output row is the input task row plus ``test_case_list`` (the task's own asserts, then the new
ones, HumanEval-ET style; an existing ``test_case_list`` is replaced) and ``extension`` (how many new
tests, how many inputs were tried, and why the others were dropped).
"""

from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path


def register(subparsers) -> None:
    parser = subparsers.add_parser("extend-tests", help="generate extended tests for a task file", description=__doc__)
    parser.add_argument("input", type=Path, help="task file: HumanEval(-ET), MBPP or generic jsonl")
    parser.add_argument("-o", "--output", type=Path, required=True, help="task file with test_case_list")
    parser.add_argument("--task-format", default="auto", choices=("auto", "humaneval", "mbpp", "generic"))
    parser.add_argument("--per-task", type=int, default=110, help="new tests to aim for per task")
    parser.add_argument("--seed", type=int, default=0, help="mutation seed (with the task id)")
    parser.add_argument("--workers", type=int, default=None, help="tasks in parallel (default: the CPUs)")
    parser.add_argument("--test-timeout", type=float, default=2.0, help="seconds per reference run")
    parser.set_defaults(func=run)


def run(args) -> int:
    from tqdm import tqdm

    from codescore_metric.execution import Limits
    from codescore_metric.execution.extend import extend_task
    from codescore_metric.execution.sandbox import default_workers
    from codescore_metric.execution.tasks import load_tasks
    from codescore_metric.jsonl import read_records, write_jsonl

    if args.per_task < 0:
        raise SystemExit(f"--per-task must be >= 0, got {args.per_task}")
    tasks = list(load_tasks(args.input, args.task_format, tests="original").values())
    rows = [row for _, row in read_records(args.input)]
    limits = Limits(test_timeout=args.test_timeout, program_timeout=max(300.0, 10 * args.test_timeout))
    short = []
    with ThreadPoolExecutor(args.workers or default_workers()) as pool, \
            tqdm(total=len(tasks), unit="task", desc="extending", file=sys.stderr) as bar:
        extensions = pool.map(lambda task: extend_task(task, args.per_task, seed=args.seed, limits=limits), tasks)

        def records():
            for row, extension in zip(rows, extensions):
                yield {**row, "test_case_list": list(extension.tests),
                       "extension": {"new": extension.new, "candidates": extension.candidates, "dropped": extension.dropped}}
                if len(extension.tests) < 100:
                    short.append(f"{extension.task_id} ({len(extension.tests)})")
                bar.update()

        write_jsonl(args.output, records())
    print(f"{len(tasks) - len(short)} of {len(tasks)} tasks have 100 or more tests", file=sys.stderr)
    if short:
        print(f"under 100: {', '.join(short)}", file=sys.stderr)
    return 0
