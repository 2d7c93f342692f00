"""A second validation fold from a built MBPP dataset: hold out more training tasks, and optionally whole generators.

The recipe validates on the real programs of the 37 MBPP tasks 511-600, too few tasks to tell a difference of
0.03 from noise, and with none of the generators that only wrote programs for MBPP's test split (CodeLlama,
StarCoder, gpt-3.5-turbo-0613). This script takes the recipe's built data and moves ``--tasks`` tasks of that
test split (11-510, a seeded draw among those with real programs) out of training in every form (their real
programs, synthetic candidates and reference rows). Their real programs become the new ``validation`` split
(model selection); with ``--hold-out-generators``, every program those models wrote is dropped from training too,
and their programs of the fold's tasks go to ``validation_unseen`` instead, never looked at during training or
selection: real code from a model the metric has never read.

    python recipes/task_fold.py work/default-model/mbpp work/fold/mbpp --tasks 60 --seed 1 \\
        --hold-out-generators CodeLlama-34B-Instruct StarCoder gpt-3.5-turbo-0613
    WORK=work/fold OUT=work/fold-out bash recipes/train_default_model.sh
        # trains on it (the step "MBPP data" is skipped); give OUT, or the result replaces the embedded model
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from codescore_metric.data.builder import write_outputs
from codescore_metric.data.generations import KIND
from codescore_metric.jsonl import read_records

TEST_SPLIT = range(11, 511)


def fold_tasks(rows: list[dict], count: int, seed: int) -> set[str]:
    """``count`` tasks of MBPP's test split that have real programs, drawn by a seeded hash of the task id."""
    candidates = sorted({row["task_id"] for row in rows
                         if row["kind"] == KIND and int(row["task_id"].split("/")[-1]) in TEST_SPLIT})
    if count > len(candidates):
        raise ValueError(f"--tasks {count}: only {len(candidates)} test-split tasks have real programs")
    ranked = sorted(candidates, key=lambda task: hashlib.sha256(f"{seed}:{task}".encode()).hexdigest())
    return set(ranked[:count])


def generators_of(row: dict) -> set[str]:
    """The models that wrote a row's program (empty for synthetic rows)."""
    return {name for name in (row.get("generator") or "").split(",") if name}


def split_fold(train: list[dict], tasks: set[str], held_out: set[str]) -> dict[str, list[dict]]:
    """New splits: training without the fold's tasks and the held-out generators' programs; the fold's real
    programs by whether a held-out generator wrote them (a program written by both kinds goes to neither)."""
    splits: dict[str, list[dict]] = {"train": [], "validation": [], "validation_unseen": []}
    for row in train:
        by_held_out = generators_of(row) & held_out
        if row["task_id"] not in tasks:
            if not by_held_out:
                splits["train"].append(row)
        elif row["kind"] == KIND:
            if not by_held_out:
                splits["validation"].append(row)
            elif by_held_out == generators_of(row):
                splits["validation_unseen"].append(row)
    return splits


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("built", type=Path, help="the recipe's build-data output (holds train.jsonl)")
    parser.add_argument("out", type=Path, help="output folder (dataset/ and one jsonl per split)")
    parser.add_argument("--tasks", type=int, default=60, help="test-split tasks to hold out (default 60)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the task draw (default 1)")
    parser.add_argument("--hold-out-generators", nargs="*", default=[], metavar="MODEL",
                        help="models whose programs never enter training (names as in the generator field)")
    args = parser.parse_args(argv)

    train = [row for _, row in read_records(args.built / "train.jsonl")]
    known = set().union(*(generators_of(row) for row in train))
    unknown = sorted(set(args.hold_out_generators) - known)
    if unknown:
        raise SystemExit(f"--hold-out-generators: {unknown} wrote no training program; known: {sorted(known)}")
    tasks = fold_tasks(train, args.tasks, args.seed)
    splits = split_fold(train, tasks, set(args.hold_out_generators))
    if not args.hold_out_generators:
        del splits["validation_unseen"]
    args.out.mkdir(parents=True, exist_ok=True)
    write_outputs(splits, args.out, eval_only=False)
    summary = {"fold_tasks": sorted(tasks, key=lambda task: int(task.split("/")[-1])), "seed": args.seed,
               "held_out_generators": sorted(args.hold_out_generators),
               "rows": {split: len(rows) for split, rows in splits.items()},
               "dropped_from_training": len(train) - len(splits["train"]),
               "validation_unseen_by_generator": dict(Counter(row["generator"] for row in splits.get("validation_unseen", [])))}
    (args.out / "fold.json").write_text(json.dumps(summary, indent=1) + "\n")
    print(json.dumps({key: value for key, value in summary.items() if key != "fold_tasks"}, indent=1))


if __name__ == "__main__":
    main()
