"""`codescore meta-eval LABELLED.jsonl`: correlate CodeScore and baseline metrics with execution labels.

Prints markdown tables in the shape of the paper's Table 3 (Value, Kendall tau-b, Spearman, Pearson,
MAE against PassRatio, time relative to BLEU), binary metrics against all-pass (Table 6) and the
Executability / Passability heads at 0.5 (RQ2). Rows need the generated code, `pass_ratio` in
[0, 1], and optionally the reference code, the NL task, `executable` and `all_pass` (0/1).
With a `task_id` in every row the continuous table adds the mean within-task Kendall tau-b (ranking
the candidates of one task); with a `generator` field (models joined by commas) the continuous
numbers are repeated for each generator's rows, and the task ids give 95% confidence intervals from
resampling tasks (`--bootstrap`), including CodeScore's lead over BLEU and CodeBLEU and, with
`--against`, over a second model scored the same way.
"""

from __future__ import annotations

import importlib.util
import sys

from codescore_metric.cli.scoring_options import add_scoring_options
from codescore_metric.formats import COLUMN_FOR_FIELD, InputFormat


def _threshold(text: str) -> float | None:
    if text == "best":
        return None
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"--binary-threshold must be a number or 'best', got {text!r}") from None


def register(subparsers) -> None:
    parser = subparsers.add_parser("meta-eval", help="correlate metrics with execution labels (paper Tables 3-6)", description=__doc__)
    parser.add_argument("input", help="labelled jsonl file, one sample per line")
    parser.add_argument("--checkpoint", help="model folder, Hub repo id, 'dz1/CodeScore' or authors' .ckpt (default: bundled model)")
    parser.add_argument("--against", metavar="CHECKPOINT",
                        help="a second model (as --checkpoint) scored the same way beside the first; the intervals then "
                             "include the first model's paired lead over it in r_s, within-task τ and both heads' ROC AUC")
    parser.add_argument("--formats", nargs="+", choices=[f.value for f in InputFormat],
                        help="CodeScore input formats to evaluate (default: every one the rows support)")
    parser.add_argument("--no-codescore", action="store_true", help="evaluate only the baselines and extra columns (no model)")
    parser.add_argument("--no-codebleu", action="store_true", help="skip CodeBLEU")
    parser.add_argument("--extra-metric", action="append", default=[], metavar="NAME",
                        help="a numeric column holding a precomputed metric, evaluated like the others (repeatable)")
    parser.add_argument("--binary-threshold", default="0.5", metavar="T|best",
                        help="binarise metrics as value >= T (default 0.5), or 'best': per metric, the threshold that "
                             "agrees best with all_pass on this data (optimistic)")
    parser.add_argument("--binary-criterion", choices=["phi", "accuracy"], default="phi",
                        help="agreement maximised by --binary-threshold best (default phi)")
    parser.add_argument("--json", help="write every number, the settings and the CodeScorer signature to this file")
    parser.add_argument("--plot", help="write a PNG scatter grid of each metric against PassRatio (needs matplotlib)")
    add_scoring_options(parser)
    for name, default, what in (
        ("prediction", COLUMN_FOR_FIELD["prediction"], "the generated code"),
        ("reference", COLUMN_FOR_FIELD["reference"], "the reference solution"),
        ("source", COLUMN_FOR_FIELD["source"], "the NL task description"),
        ("pass-ratio", "pass_ratio", "the PassRatio label in [0, 1]"),
        ("executable", "executable", "the executability label (0/1)"),
        ("all-pass", "all_pass", "the all-tests-pass label (0/1)"),
        ("task-id", "task_id", "the task id (str or int; for the within-task τ)"),
    ):
        parser.add_argument(f"--{name}-field", default=default, help=f"field holding {what} (default {default})")
    parser.add_argument("--group-field", default="generator", metavar="NAME",
                        help="split the continuous numbers by this field where the file has it; a value 'a,b' counts under "
                             "a and under b, a missing or empty one under '(none)' (default generator; '' to turn off)")
    parser.add_argument("--bootstrap", type=int, default=1000, metavar="N",
                        help="95%% confidence intervals from N resamples of the tasks (needs task ids; default 1000, 0: none)")
    parser.add_argument("--bootstrap-seed", type=int, default=0, help="seed of the task resampling (default 0)")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    parser.set_defaults(func=run)


def run(args) -> int:
    from codescore_metric.labelled import Fields
    from codescore_metric.metaeval import rendering
    from codescore_metric.metaeval.runner import Settings, run_meta_eval

    if args.against and args.no_codescore:
        raise ValueError("--against compares two CodeScore models; leave out --no-codescore")
    if args.plot and importlib.util.find_spec("matplotlib") is None:
        raise ValueError("--plot needs matplotlib: pip install matplotlib==3.11.2 (or leave --plot out)")
    settings = Settings(
        formats=tuple(args.formats) if args.formats else None, codescore=not args.no_codescore, codebleu=not args.no_codebleu,
        checkpoint=args.checkpoint, against=args.against, device=args.device, dtype=args.dtype, normalization=args.normalization,
        static_checks=args.static_checks,
        batch_size=args.batch_size, threshold=_threshold(args.binary_threshold), criterion=args.binary_criterion,
        progress=not args.no_progress, group_field=args.group_field or None, bootstrap=args.bootstrap,
        bootstrap_seed=args.bootstrap_seed,
    )
    fields = Fields(args.prediction_field, args.reference_field, args.source_field, args.pass_ratio_field,
                    args.executable_field, args.all_pass_field, args.task_id_field)
    outcome = run_meta_eval(args.input, settings, fields, tuple(dict.fromkeys(args.extra_metric)))
    sys.stdout.write(rendering.markdown(outcome.results))
    if args.json:
        rendering.write_json(outcome.results, args.json)
        print(f"wrote {args.json}", file=sys.stderr)
    if args.plot:
        rendering.write_scatter(outcome.runs, outcome.pass_ratio, outcome.results["metrics"], args.plot)
        print(f"wrote {args.plot}", file=sys.stderr)
    return 0
