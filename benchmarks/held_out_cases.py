"""Held-out hand-written cases: twenty invented tasks (`benchmarks/held_out_tasks.py`) kept out of
`codescore_metric/behaviour.py` (and out of CI), so that a model chosen on the behaviour cases can be looked at on
programs nobody tuned it on.

Each task has a reference, ten tests, two correct rewrites, three plausible mistakes, a one-place edit that keeps
what the reference does (`held_out_tasks.EQUIVALENT_EDITS`) and a syntax error. The
PassRatio of every program comes from the execution sandbox, never from the variant's name; a mistake that
passes more than half of the tests is shown but left out of the correct > wrong count, as in the behaviour
bar. Scores are Ref&NL, one column per checkpoint.

    python benchmarks/held_out_cases.py                          # the embedded default model
    python benchmarks/held_out_cases.py default work/run/model   # side by side ("default" = the embedded model)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from held_out_tasks import EQUIVALENT_EDITS, TASKS

from codescore_metric import CodeScorer
from codescore_metric.behaviour import edit_once, is_near_copy, rewrites_over_mistakes
from codescore_metric.execution import Job, run_many
from codescore_metric.execution.labels import pass_ratio


def cases() -> list[dict]:
    """Every program of every task with its execution PassRatio (the syntax error is labelled 0 by the sandbox too)."""
    rows = []
    for task, spec in TASKS.items():
        programs = {name: code for name, code in spec.items() if name not in ("nl", "tests")}
        programs["equivalent"] = edit_once(spec["ref"], *EQUIVALENT_EDITS[task])
        programs["syntax_error"] = edit_once(spec["ref"], "):", ")")
        for name, code in programs.items():
            rows.append({"task": task, "case": name, "program": code, "reference": spec["ref"], "nl": spec["nl"],
                         "tests": [f"assert {test}" for test in spec["tests"]]})
    results = run_many([Job(program=row["program"], tests=row["tests"]) for row in rows])
    for row, result in zip(rows, results):
        row["pass_ratio"] = pass_ratio(result)
    return rows


def correct_over_wrong(rows: list[dict], scores: list[float]) -> dict[str, tuple[int, int]]:
    """Pairs ``(won, total)`` of a correct rewrite against a mistake that fails at least half the tests, within a
    task: all of them, and those whose mistake is a near copy of the reference or rewritten apart."""
    pairs = []
    for task in TASKS:
        mine = [(row, score) for row, score in zip(rows, scores) if row["task"] == task]
        good = [score for row, score in mine if row["case"].startswith("correct")]
        pairs += [(g, score, is_near_copy(row["program"], row["reference"])) for row, score in mine
                  if row["case"].startswith("wrong") and row["pass_ratio"] <= 0.5 for g in good]
    return rewrites_over_mistakes(pairs)


def equivalent_over_near_mistakes(rows: list[dict], scores: list[float]) -> tuple[int, int]:
    """Pairs ``(won, total)`` of the one-place ``equivalent`` edit, when it passes every test, against a near-copy
    mistake of its task that fails at least half the tests."""
    won = total = 0
    for task in TASKS:
        mine = [(row, score) for row, score in zip(rows, scores) if row["task"] == task]
        good = [score for row, score in mine if row["case"] == "equivalent" and row["pass_ratio"] == 1]
        bad = [score for row, score in mine if row["case"].startswith("wrong") and row["pass_ratio"] <= 0.5
               and is_near_copy(row["program"], row["reference"])]
        won += sum(g > b for g in good for b in bad)
        total += len(good) * len(bad)
    return won, total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("checkpoints", nargs="*", default=["default"],
                        help="model folders or Hub ids; 'default' is the embedded model")
    args = parser.parse_args()
    rows = cases()
    scores = {}
    for checkpoint in args.checkpoints:
        scorer = CodeScorer(None if checkpoint == "default" else checkpoint)
        result = scorer.score([row["program"] for row in rows], references=[row["reference"] for row in rows],
                              sources=[row["nl"] for row in rows], input_format="ref_nl")
        scores[checkpoint] = result.codescore
    print("| task | case | PassRatio | " + " | ".join(scores) + " |")
    print("|---|---|---|" + "---|" * len(scores))
    for i, row in enumerate(rows):
        print(f"| {row['task']} | {row['case']} | {row['pass_ratio']:.2f} | "
              + " | ".join(f"{values[i]:.3f}" for values in scores.values()) + " |")
    print()
    for checkpoint, values in scores.items():
        counts = correct_over_wrong(rows, values)
        won, total = equivalent_over_near_mistakes(rows, values)
        equivalent = [value for row, value in zip(rows, values) if row["case"] == "equivalent"]
        print(f"{checkpoint}: correct > wrong (mistakes failing at least half the tests) "
              + ", ".join(f"{name} {won}/{total}" for name, (won, total) in counts.items())
              + f"; one-place equivalent edits: mean {sum(equivalent) / len(equivalent):.3f}, "
              f"over near-copy mistakes {won}/{total}")


if __name__ == "__main__":
    main()
