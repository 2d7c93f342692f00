"""Does averaging the three input formats (the authors' 3-pass mode) beat one format?

Scores a labelled jsonl (real programs with execution labels, e.g. the recipe's MBPP validation file)
in Ref-only, NL-only and Ref&NL, and compares each, and their mean, with PassRatio: Spearman,
Kendall, the mean within-task Kendall, and the ROC AUC of the mean Passability against all-pass.

    python benchmarks/ensemble.py work/default-model/mbpp/validation.jsonl --markdown benchmarks/results/ensemble.md
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from codescore_metric import CodeScorer, InputFormat
from codescore_metric.correlation import correlations, roc_auc, within_task_kendall
from codescore_metric.labelled import load_labelled


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("labelled", type=Path, help="jsonl with generated_code, golden_code, source, pass_ratio, all_pass, task_id")
    parser.add_argument("--checkpoint", help="model folder or Hub id (default: the embedded model)")
    parser.add_argument("--markdown", type=Path, help="also write the table to this file")
    args = parser.parse_args()
    data = load_labelled(args.labelled)
    scorer = CodeScorer(args.checkpoint)
    scores, passability = {}, {}
    for fmt in InputFormat:
        texts = {"references": data.references, "sources": data.sources}
        result = scorer.score(data.predictions, **{name: texts[name] for name in fmt.arguments[1:]}, input_format=fmt)
        scores[fmt.label], passability[fmt.label] = np.asarray(result.codescore), np.asarray(result.passability)
    scores["mean of the three"] = np.mean(list(scores.values()), axis=0)
    passability["mean of the three"] = np.mean(list(passability.values()), axis=0)
    lines = [f"`{args.labelled}`: {len(data.predictions)} programs of {data.n_tasks} tasks; "
             f"`{scorer.signature('ref_nl')}`", "",
             "| CodeScore | Spearman | Kendall | within-task Kendall | Passability AUC |", "|---|---|---|---|---|"]
    for name, values in scores.items():
        pooled = correlations(values, data.pass_ratio)
        within = within_task_kendall(values, data.pass_ratio, data.task_ids)["within_task_tau"]
        auc = roc_auc(passability[name], data.all_pass, "all_pass")
        lines.append(f"| {name} | {pooled['spearman']:.3f} | {pooled['tau']:.3f} | {within:.3f} | {auc:.3f} |")
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if args.markdown:
        args.markdown.write_text(text)
        print(f"wrote {args.markdown}")


if __name__ == "__main__":
    main()
