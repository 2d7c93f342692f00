"""Scores of the hand-written behaviour cases (`codescore_metric/behaviour.py`) under one checkpoint.

Prints a task x variant table of CodeScores and the four behaviour properties with their targets
(a verbatim copy scores high, correct beats wrong, renaming changes little, syntax errors score
low), for eyeballing before a model is called done.

    python benchmarks/behaviour.py                                  # the embedded default model, Ref&NL
    python benchmarks/behaviour.py --checkpoint PATH --format ref --markdown behaviour.md
    python benchmarks/behaviour.py --no-static-checks    # what the model itself says of copies and syntax errors
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from codescore_metric import CodeScorer
from codescore_metric.behaviour import TARGETS, behaviour_report, counts_as_correct, meets_target
from codescore_metric.formats import InputFormat


def render(report: dict) -> str:
    """The report as markdown: one row per task, then the summary properties."""
    variants = list(dict.fromkeys(variant for by_variant in report["scores"].values() for variant in by_variant))
    losing = [pair[0] for pair in report["losing_pairs"]]
    lines = [f"`{report['signature']}`", "",
             "| task | " + " | ".join(variants) + " | correct > wrong |",
             "|---" * (len(variants) + 2) + "|"]
    for task_id, by_variant in report["scores"].items():
        pairs = sum(map(counts_as_correct, by_variant)) * sum(variant.startswith("wrong_") for variant in by_variant)
        cells = [f"{by_variant[variant]:.3f}" if variant in by_variant else "" for variant in variants]
        lines.append(f"| {task_id} | " + " | ".join(cells) + f" | {pairs - losing.count(task_id)}/{pairs} |")
    lines += ["", "| property | value | target | met |", "|---|---|---|---|",
              f"| copy_min | {report['copy_min']:.3f} | | |"]
    for name, (comparison, bar) in TARGETS.items():
        lines.append(f"| {name} | {report[name]:.3f} | {comparison} {bar:g} | {'yes' if meets_target(report, name) else 'NO'} |")
    lines += ["", "| correct rewrite (not the renamed copy) > mistake | pairs won |", "|---|---|"]
    lines += [f"| {name} | {won}/{total} |" for name, (won, total) in report["rewrites_over_mistakes"].items()]
    won, total = report["equivalent_over_near_mistakes"]
    lines += ["", f"One-place edits that keep what the reference does: mean score {report['equivalent_mean']:.3f}, "
                  f"above the near-copy mistakes of their task in {won}/{total} pairs."]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--checkpoint", help="a model folder, Hub id or authors' .ckpt (default: the embedded model)")
    parser.add_argument("--format", default="ref_nl", choices=[fmt.value for fmt in InputFormat])
    parser.add_argument("--markdown", type=Path, help="also write the tables to this file")
    parser.add_argument("--no-static-checks", action="store_true",
                        help="let the model score copies of the reference and code that does not compile itself")
    args = parser.parse_args()
    scorer = CodeScorer(args.checkpoint, static_checks=False if args.no_static_checks else None)
    text = render(behaviour_report(scorer, args.format))
    print(text, end="")
    if args.markdown:
        args.markdown.parent.mkdir(parents=True, exist_ok=True)
        args.markdown.write_text(text)
        print(f"wrote {args.markdown}")


if __name__ == "__main__":
    main()
