"""Would a learned combination of the model's three heads and similarities to the reference beat CodeScore alone?

Each labelled set is scored once by its own checkpoint (Ref&NL: CodeScore, Executability, Passability) and compared
with its reference (CodeBLEU's four components, and the canonical-token ratio of `similarity_baselines.py`). A logistic
combination of some of these numbers (a feature set), with an optional pairwise within-task term, is fitted on the
rows no static check decides of the `--fit` sets, then applied to every set, where the checks' certain CodeScore stays
as it is. Printed per feature set: Spearman and mean within-task Kendall τ against PassRatio on every set, and the
hand-written behaviour suite's share of correct-over-wrong pairs (near-copy and rewritten mistakes apart, and the
one-place edits that keep what the reference does against the near-copy mistakes), scored with
`--behaviour-checkpoint`. A fit on one checkpoint's held-out programs applied to another checkpoint's is the fair
reading; the fitted sets are marked with `*`.

    python benchmarks/stacking.py --set main <build>/mbpp/validation.jsonl default \
        --set fold work/foldp/mbpp/validation.jsonl work/foldp/model \
        --set unseen work/foldp/mbpp/validation_unseen.jsonl work/foldp/model --fit fold
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit, logit
from scipy.stats import spearmanr

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from similarity_baselines import similarities

from codescore_metric import CodeScorer
from codescore_metric.behaviour import behaviour_report
from codescore_metric.correlation import within_task_kendall

HEADS = ("codescore", "executability", "passability")
SIMILARITIES = ("ngram_match_score", "weighted_ngram_match_score", "syntax_match_score", "dataflow_match_score",
                "canonical token ratio")
FEATURE_SETS = {
    "CodeScore": ("codescore",),
    "three heads": HEADS,
    "CodeBLEU": ("codebleu",),
    "similarities": SIMILARITIES,
    "CodeScore + similarities": ("codescore", *SIMILARITIES),
    "three heads + similarities": (*HEADS, *SIMILARITIES),
}
RANKING_WEIGHTS = (0.0, 1.0)
L2 = 1e-3


def features(scorer: CodeScorer, predictions: list[str], references: list[str], sources: list[str]) -> dict:
    """Every input a combination may use, per row (heads as logits), and the scorer's ``certain`` reasons."""
    result = scorer.score(predictions, references=references, sources=sources, input_format="ref_nl")
    values = {head: logit(np.clip(getattr(result, head), 1e-4, 1 - 1e-4)) for head in HEADS}
    values.update(similarities(predictions, references))
    return {"values": values, "codescore": np.array(result.codescore), "certain": result.certain}


def design(values: dict[str, np.ndarray], names: tuple[str, ...]) -> np.ndarray:
    """The rows' chosen features side by side, with a constant column last."""
    return np.column_stack([values[name] for name in names] + [np.ones(len(values[names[0]]))])


def ordered_pairs(truth: np.ndarray, tasks: list) -> np.ndarray:
    """``(better, worse)`` row pairs of one task whose PassRatios differ."""
    by_task: dict = {}
    for row, task in enumerate(tasks):
        by_task.setdefault(task, []).append(row)
    return np.array([(a, b) for rows in by_task.values() for a in rows for b in rows if truth[a] > truth[b]],
                    dtype=int).reshape(-1, 2)


def fit_combination(x: np.ndarray, truth: np.ndarray, tasks: list, ranking_weight: float) -> np.ndarray:
    """Weights of ``expit(x @ w)``: cross-entropy to PassRatio plus ``ranking_weight`` times a pairwise logistic loss
    on each task's ordered pairs, with a small L2 penalty on all but the constant."""
    pairs = ordered_pairs(truth, tasks)

    def loss(weights: np.ndarray) -> float:
        z = x @ weights
        pointwise = np.mean(np.logaddexp(0, z) - truth * z)
        pairwise = np.mean(np.logaddexp(0, -(z[pairs[:, 0]] - z[pairs[:, 1]]))) if len(pairs) else 0.0
        return pointwise + ranking_weight * pairwise + L2 * np.sum(weights[:-1] ** 2)

    return minimize(loss, np.zeros(x.shape[1]), method="L-BFGS-B").x


def combined(scored: dict, names: tuple[str, ...], weights: np.ndarray) -> np.ndarray:
    """The combination's score where no check decides, the scorer's certain CodeScore where one does."""
    stacked = expit(design(scored["values"], names) @ weights)
    return np.where([reason is None for reason in scored["certain"]], stacked, scored["codescore"])


class CombinedScorer:
    """A scorer-like object for `behaviour_report`: the combination on top of a real scorer's cached features."""

    def __init__(self, scorer: CodeScorer):
        self.scorer, self.cache, self.names, self.weights = scorer, {}, None, None

    def score(self, predictions, *, references, sources, input_format):
        key = (tuple(predictions), tuple(references), tuple(sources))
        if key not in self.cache:
            self.cache[key] = features(self.scorer, predictions, references, sources)
        scored = self.cache[key]
        scores = scored["codescore"] if self.names is None else combined(scored, self.names, self.weights)
        return SimpleNamespace(codescore=list(scores), signature=f"stacked({self.names})")


def scorer_for(checkpoint: str) -> CodeScorer:
    """The scorer of a checkpoint folder or Hub id; ``default`` is the embedded model."""
    return CodeScorer(None if checkpoint == "default" else checkpoint)


def read_set(path: str, checkpoint: str) -> dict:
    """A labelled jsonl scored by ``checkpoint`` (``default`` for the embedded model), with its truth and tasks."""
    rows = [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]
    scored = features(scorer_for(checkpoint), [r["generated_code"] for r in rows], [r["golden_code"] for r in rows],
                      [r["source"] for r in rows])
    scored["truth"] = np.array([r["pass_ratio"] for r in rows], dtype=float)
    scored["tasks"] = [f"{path}:{r['task_id']}" for r in rows]
    return scored


def agreement(scores: np.ndarray, scored: dict) -> str:
    """``r_s / within-task τ`` of ``scores`` against the set's PassRatio."""
    within = within_task_kendall(scores, scored["truth"], scored["tasks"])["within_task_tau"]
    return f"{spearmanr(scores, scored['truth'])[0]:.3f} / {within:.3f}"


def behaviour_cell(report: dict) -> str:
    """Correct-over-wrong share, then near-copy and rewritten mistakes apart, then one-place equivalent edits over
    near-copy mistakes."""
    split = report["rewrites_over_mistakes"]
    near, rewritten = split["near-copy mistakes"], split["rewritten mistakes"]
    won, total = report["equivalent_over_near_mistakes"]
    return f"{report['correct_over_wrong']:.3f} ({near[0]}/{near[1]}, {rewritten[0]}/{rewritten[1]}; {won}/{total})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", nargs=3, action="append", required=True, metavar=("NAME", "FILE", "CHECKPOINT"),
                        help="a labelled jsonl and the checkpoint that scores it ('default': the embedded model)")
    parser.add_argument("--fit", nargs="+", required=True, help="names of the sets the combination is fitted on")
    parser.add_argument("--behaviour-checkpoint", default="default", help="the checkpoint that scores the behaviour suite")
    args = parser.parse_args()
    sets = {name: read_set(path, checkpoint) for name, path, checkpoint in args.set}
    unknown = set(args.fit) - set(sets)
    if unknown:
        parser.error(f"--fit names {sorted(unknown)}, which no --set defines; choose from {sorted(sets)}")
    behaviour_scorer = CombinedScorer(scorer_for(args.behaviour_checkpoint))
    fit_rows = [(sets[name], np.flatnonzero([reason is None for reason in sets[name]["certain"]])) for name in args.fit]
    print(f"fitted on {' + '.join(args.fit)} (rows no check decides); Ref&NL r_s / within-task τ; behaviour: "
          f"correct over wrong (near-copy, rewritten mistakes won; "
          f"equivalent one-place edits over near-copy mistakes)\n")
    print("| combination | ranking weight | " + " | ".join(f"{n}{'*' if n in args.fit else ''}" for n in sets) + " | behaviour |")
    print("|---|---|" + "---|" * (len(sets) + 1))
    print("| CodeScore as shipped | – | " + " | ".join(agreement(s["codescore"], s) for s in sets.values())
          + f" | {behaviour_cell(behaviour_report(behaviour_scorer))} |")
    for label, names in FEATURE_SETS.items():
        for ranking_weight in RANKING_WEIGHTS:
            x = np.concatenate([design(s["values"], names)[rows] for s, rows in fit_rows])
            truth = np.concatenate([s["truth"][rows] for s, rows in fit_rows])
            tasks = [s["tasks"][row] for s, rows in fit_rows for row in rows]
            weights = fit_combination(x, truth, tasks, ranking_weight)
            behaviour_scorer.names, behaviour_scorer.weights = names, weights
            cells = [agreement(combined(s, names, weights), s) for s in sets.values()]
            print(f"| {label} | {ranking_weight:g} | " + " | ".join(cells)
                  + f" | {behaviour_cell(behaviour_report(behaviour_scorer))} |")


if __name__ == "__main__":
    main()
