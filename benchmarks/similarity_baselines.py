"""How far simple similarities to the reference go once they get the scorer's static checks.

For each similarity (CodeBLEU, its four components, and difflib's ratio over the canonical Python tokens behind the
distance marker, `code_distance.code_tokens`) prints the pooled Spearman and mean within-task Kendall τ against
PassRatio, on every row with the checks' certain CodeScore where a check decides (as `meta-eval`'s "+ static checks"
rows), and on the rows no check decides. No model is run.

    python benchmarks/similarity_baselines.py work/default-model/mbpp/validation.jsonl
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from codescore_metric.baselines import CODEBLEU_DEFAULT_WEIGHTS, codebleu_items
from codescore_metric.code_distance import code_tokens
from codescore_metric.correlation import within_task_kendall
from codescore_metric.scorer import CERTAIN_SCORES, certain_reason


def token_ratio(prediction: str, reference: str) -> float:
    """difflib's similarity ratio of the two programs' canonical tokens; 0 when either does not tokenize."""
    ours, theirs = code_tokens(prediction), code_tokens(reference)
    if ours is None or theirs is None:
        return 0.0
    return difflib.SequenceMatcher(None, ours, theirs, autojunk=False).ratio()


def similarities(predictions: list[str], references: list[str]) -> dict[str, np.ndarray]:
    """Every similarity of each prediction to its reference, by name."""
    items = codebleu_items([([reference], [prediction]) for prediction, reference in zip(predictions, references)],
                           "python", CODEBLEU_DEFAULT_WEIGHTS)
    values = {name: np.array([item[name] for item in items], dtype=float) for name in items[0]}
    values["canonical token ratio"] = np.array([token_ratio(p, r) for p, r in zip(predictions, references)])
    return values


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("input", help="labelled jsonl with generated_code, golden_code, pass_ratio and task_id")
    args = parser.parse_args()
    rows = [json.loads(line) for line in Path(args.input).read_text(encoding="utf-8").splitlines() if line.strip()]
    predictions, references = [row["generated_code"] for row in rows], [row["golden_code"] for row in rows]
    truth, tasks = np.array([row["pass_ratio"] for row in rows], dtype=float), [row["task_id"] for row in rows]
    reasons = [certain_reason(p, r, static_checks=True) for p, r in zip(predictions, references)]
    undecided = np.flatnonzero([reason is None for reason in reasons])
    print(f"{args.input}: {len(rows)} rows, {len(rows) - len(undecided)} decided by the static checks\n")
    print("| similarity | + static checks: r_s | within-task τ | undecided rows: r_s | within-task τ |")
    print("|---|---|---|---|---|")
    for name, values in similarities(predictions, references).items():
        ruled = np.array([CERTAIN_SCORES[reason]["codescore"] if reason else value for value, reason in zip(values, reasons)])
        within_all = within_task_kendall(ruled, truth, tasks)["within_task_tau"]
        within_undecided = within_task_kendall(values[undecided], truth[undecided], [tasks[i] for i in undecided])["within_task_tau"]
        print(f"| {name} | {spearmanr(ruled, truth)[0]:.3f} | {within_all:.3f} | "
              f"{spearmanr(values[undecided], truth[undecided])[0]:.3f} | {within_undecided:.3f} |")


if __name__ == "__main__":
    main()
