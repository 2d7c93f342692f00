"""Run the data builder and record runtime, candidate counts and label distribution in results/data.md.

    python benchmarks/build_data.py --benchmark mbpp --limit 20 --name mbpp-subset      # 20 tasks per split
    python benchmarks/build_data.py --benchmark mbpp --name mbpp-full                    # train + validation
    python benchmarks/build_data.py --benchmark humaneval --name humaneval-eval           # eval-only

Inputs default to ../shared/data (mbpp.jsonl, HumanEval_ET.jsonl); outputs go to --output-dir.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from execution_speed import write_section

from codescore_metric.data.builder import BuildConfig, build
from codescore_metric.data.distribution import format_distribution
from codescore_metric.execution.sandbox import Limits, default_workers

RESULTS = Path(__file__).parent / "results" / "data.md"
DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
INPUTS = {"mbpp": "mbpp.jsonl", "humaneval": "HumanEval_ET.jsonl"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--benchmark", choices=sorted(INPUTS), required=True)
    parser.add_argument("--input", type=Path, help="task jsonl (default: ../shared/data/<benchmark file>)")
    parser.add_argument("--output-dir", type=Path, help="default: /tmp/codescore-data-<name>")
    parser.add_argument("--name", required=True, help="section name in results/data.md")
    parser.add_argument("--limit", type=int, help="tasks per split")
    parser.add_argument("--candidates-per-task", type=int, default=20)
    parser.add_argument("--workers", type=int)
    parser.add_argument("--results", type=Path, default=RESULTS)
    args = parser.parse_args()
    source = args.input or DEFAULT_DATA / INPUTS[args.benchmark]
    output = args.output_dir or Path(f"/tmp/codescore-data-{args.name}")
    config = BuildConfig(args.benchmark, output, input=source, per_task=args.candidates_per_task, workers=args.workers,
                         limit=args.limit, eval_only=args.benchmark == "humaneval", progress=False,
                         limits=Limits(test_timeout=1.0, program_timeout=20.0))
    start = time.perf_counter()
    report = build(config)
    seconds = time.perf_counter() - start
    command = "python benchmarks/build_data.py " + " ".join(sys.argv[1:])
    total = sum(len(rows) for rows in report.rows.values())
    lines = [f"## {args.name}", f"`{command}`", "",
             f"- machine: {platform.machine()}, {os.cpu_count()} CPUs, {config.workers or default_workers()} workers; "
             f"Python {platform.python_version()}",
             f"- wall time {seconds:.0f} s (test extension included unless cached) for {total} labelled candidates "
             f"({args.candidates_per_task} per task asked); limits: 1 s per test, 20 s per candidate",
             f"- dropped tasks (reference fails its own tests): {len(report.dropped)}"
             + ("".join(f"\n  - {task}: {why}" for task, why in sorted(report.dropped.items())[:20])), ""]
    lines += [format_distribution(split, dist) + "\n" for split, dist in report.distributions.items()]
    write_section(args.name, "\n".join(lines), args.results)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
