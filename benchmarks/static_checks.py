"""What the scorer's static checks decide on execution-labelled programs, and whether execution agrees.

Every rule that scores a program without the model (`codescore_metric.scorer.certain_reason`) claims something
about how it runs: a rule that scores 0 must never meet a program that passes a test. This applies the rules, in
the scorer's order, to labelled rows (``codescore build-data`` output: ``generated_code``, ``golden_code``,
``pass_ratio``, ``executable``) and counts, per file and rule, the rows decided, those that pass at least one test
(a counterexample for a rule that scores 0) and those that run every test without an error. Measure a new rule
this way before adding it.

    python benchmarks/static_checks.py work/default-model/mbpp/validation.jsonl work/default-model/mbpp/train.jsonl \\
        --markdown benchmarks/results/static_checks.md
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from codescore_metric import __version__
from codescore_metric.jsonl import read_records
from codescore_metric.scorer import CERTAIN_SCORES, certain_reason


def decided(rows: list[dict]) -> dict[str, Counter]:
    """Rule -> counts of ``rows``, ``passes_a_test``, ``runs_every_test`` (and ``all_pass``) among the rows it decides."""
    counts: dict[str, Counter] = {}
    for row in rows:
        reason = certain_reason(row["generated_code"], row["golden_code"], static_checks=True)
        if reason is None:
            continue
        count = counts.setdefault(reason, Counter())
        count["rows"] += 1
        count["passes_a_test"] += row["pass_ratio"] > 0
        count["runs_every_test"] += bool(row["executable"])
        count["all_pass"] += row["pass_ratio"] == 1
    return counts


def markdown(tables: dict[str, tuple[int, dict[str, Counter]]]) -> str:
    """One row per (file, rule): rows decided, passing a test, running every test, passing all."""
    lines = ["| rows | rule | scores | decided | pass a test | run every test | pass every test |",
             "|---|---|---|---|---|---|---|"]
    for name, (total, counts) in tables.items():
        for reason in (reason for reason in CERTAIN_SCORES if reason in counts):
            count, scores = counts[reason], CERTAIN_SCORES[reason]
            value = f"{next(iter(scores.values())):g}" + ("" if len(scores) == 3 else " (CodeScore, Passability)")
            lines.append(f"| {name} ({total:,}) | {reason} | {value} | {count['rows']:,} | {count['passes_a_test']:,} | "
                         f"{count['runs_every_test']:,} | {count['all_pass']:,} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path, help="execution-labelled jsonl files (build-data output)")
    parser.add_argument("--kinds", nargs="*", help="only rows of these kinds (e.g. generation); default: every row")
    parser.add_argument("--markdown", type=Path, help="also write the table here")
    args = parser.parse_args(argv)
    tables = {}
    for path in args.files:
        rows = [row for _, row in read_records(path) if not args.kinds or row.get("kind") in args.kinds]
        tables[str(path)] = (len(rows), decided(rows))
    table = markdown(tables)
    print(table)
    if args.markdown:
        args.markdown.write_text(f"# Static checks against execution\n\n`python benchmarks/static_checks.py "
                                 f"{' '.join(sys.argv[1:])}` (scorer {__version__})\n\n{table}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
