"""Does reading the pair both ways, or averaging Ref&NL with Ref-only, score real programs better than Ref&NL alone?

Whether a program does what its reference does is a symmetric question, so each program is also scored with the roles
swapped (the reference in the generated-code slot, the program in the reference slot, static checks off for that
pass). Rows whose output the static checks decide keep that value. Reports, for each combination, the correlation with
PassRatio on a labelled jsonl (all rows, and the rows that run every test), the head AUCs and the behaviour cases.

    python benchmarks/pair_orders.py work/default-model/mbpp/validation.jsonl
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from codescore_metric import CodeScorer
from codescore_metric.behaviour import behaviour_report
from codescore_metric.correlation import correlations, roc_auc, within_task_kendall
from codescore_metric.labelled import load_labelled
from codescore_metric.scorer import CERTAIN_SCORES, OUTPUT_NAMES

COMBINATIONS = {
    "as shipped (program, reference)": lambda f, s, r: f,
    "swapped (reference, program)": lambda f, s, r: s,
    "mean of both orders": lambda f, s, r: (f + s) / 2,
    "minimum of both orders": np.minimum,
    "mean with Ref-only": lambda f, s, r: (f + r) / 2,
}


class CombinedScorer:
    """Scores Ref&NL in both orders and Ref-only, then combines them as ``COMBINATIONS[name]``."""

    def __init__(self, checkpoint: str | None, name: str):
        self.forward = CodeScorer(checkpoint)
        self.unchecked = CodeScorer(checkpoint, static_checks=False)
        self.combine = COMBINATIONS[name]

    def score(self, predictions, *, references, sources, input_format="ref_nl"):
        forward = self.forward.score(predictions, references=references, sources=sources, input_format="ref_nl")
        swapped = self.unchecked.score(references, references=predictions, sources=sources, input_format="ref_nl")
        ref_only = self.unchecked.score(predictions, references=references, input_format="ref")
        for name in OUTPUT_NAMES:
            f, s, r = (np.asarray(getattr(result, name)) for result in (forward, swapped, ref_only))
            decided = np.array([name in CERTAIN_SCORES.get(reason, {}) for reason in forward.certain])
            setattr(forward, name, np.where(decided, f, self.combine(f, s, r)).tolist())
        return forward


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("labelled", type=Path, help="jsonl with generated_code, golden_code, source, pass_ratio, executable, all_pass, task_id")
    parser.add_argument("--checkpoint", help="model folder or Hub id (default: the embedded model)")
    args = parser.parse_args()
    data = load_labelled(args.labelled)
    truth, running = np.asarray(data.pass_ratio), np.asarray(data.executable) == 1
    print("| Ref&NL CodeScore | r_s | within-task τ | Exec / Pass AUC | running programs: r_s / within-task τ "
          "| behaviour correct > wrong |\n|---|---|---|---|---|---|")
    for name in COMBINATIONS:
        scorer = CombinedScorer(args.checkpoint, name)
        result = scorer.score(data.predictions, references=data.references, sources=data.sources)
        values = np.asarray(result.codescore)
        within = within_task_kendall(values, truth, data.task_ids)["within_task_tau"]
        running_ids = [task for task, keep in zip(data.task_ids, running) if keep]
        running_within = within_task_kendall(values[running], truth[running], running_ids)["within_task_tau"]
        print(f"| {name} | {correlations(values, truth)['spearman']:.3f} | {within:.3f} "
              f"| {roc_auc(result.executability, data.executable, 'executable'):.3f} / "
              f"{roc_auc(result.passability, data.all_pass, 'all_pass'):.3f} "
              f"| {correlations(values[running], truth[running])['spearman']:.3f} / {running_within:.3f} "
              f"| {behaviour_report(scorer)['correct_over_wrong']:.3f} |", flush=True)


if __name__ == "__main__":
    main()
