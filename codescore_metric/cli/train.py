"""`codescore train`: train a UniCE model (all three input formats per example) from execution-labelled data."""

from __future__ import annotations

import logging
import sys

from codescore_metric.formats import COLUMN_FOR_FIELD, LABEL_COLUMNS
from codescore_metric.layer_mix import POOLINGS
from codescore_metric.training.grouping import GROUP_MIXES
from codescore_metric.training.selection import SELECT_METRICS


def register(subparsers) -> None:
    parser = subparsers.add_parser("train", help="train a CodeScore (UniCE) model", description=__doc__)
    data = parser.add_argument_group("data (a `codescore build-data` folder, or two jsonl files)")
    data.add_argument("--data", help="datasets folder with train and validation splits")
    data.add_argument("--train", help=f"training jsonl ({', '.join((*COLUMN_FOR_FIELD.values(), *LABEL_COLUMNS))})")
    data.add_argument("--validation", help="validation jsonl, same fields")
    parser.add_argument("--backbone", required=True, help="pretrained encoder: local folder or Hub id (e.g. microsoft/unixcoder-base)")
    parser.add_argument("--backbone-name", help="backbone name recorded in the model (default: --backbone; e.g. the "
                        "Hub id of a local copy)")
    parser.add_argument("--output", required=True, help="folder for the best model, its tokenizer and training history")
    parser.add_argument("--model-id", default="codescore-trained", help="name recorded in the model's signature")
    parser.add_argument("--max-length", type=int, help="input tokens (default: all the backbone's positions)")
    parser.add_argument("--strip-code-comments", action="store_true",
                        help="the model reads code without comments, docstrings and blank lines (stored in its config)")
    parser.add_argument("--canonical-names", action="store_true",
                        help="the model reads code with its functions' parameters and locals renamed v0, v1, ... in order "
                             "of first appearance, so a consistent renaming reads the same (stored in its config)")
    parser.add_argument("--strip-annotations", action="store_true",
                        help="the model reads code without the type annotations of parameters, return values and local "
                             "assignments, so a typed and an untyped signature read the same (stored in its config)")
    parser.add_argument("--head-hidden", type=int, nargs="+", default=[512], help="hidden sizes of each head's MLP")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--gradient-accumulation", type=int, default=1)
    parser.add_argument("--encoder-lr", type=float, default=5e-5)
    parser.add_argument("--head-lr", type=float, default=5e-4)
    parser.add_argument("--layer-decay", type=float, default=0.95)
    parser.add_argument("--warmup-ratio", type=float, default=0.1)
    parser.add_argument("--freeze-embeddings", action="store_true")
    parser.add_argument("--frozen-layers", type=int, default=0,
                        help="freeze the embeddings and the first N encoder layers (no backward through them: faster)")
    parser.add_argument("--max-per-task", type=int, help="at most this many training rows per task (a seeded sample)")
    parser.add_argument("--skip-certain", action="store_true",
                        help="leave out training rows whose scores the scorer's static checks decide (not compiling, "
                             "an unbound name, the reference's own program, ...): the model is never asked about them")
    parser.add_argument("--rename-fraction", type=float, default=0.0,
                        help="share of training predictions (a seeded choice) whose parameters and local variables are "
                             "consistently renamed, labels kept: teaches that names do not decide correctness")
    parser.add_argument("--alternative-references", type=float, default=0.0, metavar="FRACTION",
                        help="share of training rows (a seeded choice) that read, as their reference, another program of "
                             "their task that passes every test, labels kept: correct code unlike its reference, and "
                             "mistakes beside a reference they were not made from (default 0)")
    parser.add_argument("--alternative-reference-kinds", nargs="+", default=[], metavar="KIND",
                        help="give --alternative-references only to rows of these kinds (build-data's kind column, e.g. "
                             "generation: the real programs; default: every row)")
    parser.add_argument("--ema-decay", type=float, default=0.0,
                        help="evaluate, select and save an exponential moving average of the weights, updated every "
                             "optimizer step with this decay (e.g. 0.995; default 0: the trained weights themselves)")
    parser.add_argument("--bf16", action="store_true", help="bf16 autocast (CPU)")
    parser.add_argument("--save-dtype", choices=["fp32", "fp16", "bf16"], default="fp32",
                        help="dtype of the saved weights (fp16 halves the file; loading casts back to fp32)")
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--data-seed", type=int,
                        help="seed of which rows are trained (--max-per-task's sample, --rename-fraction's choice; default: "
                             "--seed), so that a run can change its initialisation and batch order but not its rows")
    parser.add_argument("--formats", nargs="+", default=["ref", "nl", "ref_nl"], help="formats trained per example (L_Uni: all three)")
    parser.add_argument("--select-metric", default="spearman",
                        choices=list(SELECT_METRICS),
                        help="validation number that picks the saved model, averaged over formats (balanced: the mean "
                             "of Spearman and the mean within-task Kendall tau; balanced_heads: the mean of those two and "
                             "of 2 AUC - 1 for the Exec and Pass heads; default spearman)")
    parser.add_argument("--select-after", type=int, default=0, metavar="STEP",
                        help="validation points before this optimizer step are recorded in the learning curve but are "
                             "never saved and do not count towards --patience (e.g. half an epoch, so that an early "
                             "noisy point cannot end the run)")
    parser.add_argument("--patience", type=int, default=2, help="evaluations without improvement before stopping")
    parser.add_argument("--eval-every", type=int, help="optimizer steps between validation runs (default: once per epoch)")
    parser.add_argument("--ranking-weight", type=float, default=0.0,
                        help="weight of a within-task pairwise ranking loss beside L_Uni (needs --task-group-size)")
    parser.add_argument("--task-group-size", type=int, default=0,
                        help="batches of tasks with this many candidates each (e.g. 4), instead of length-bucketed batches")
    parser.add_argument("--contrary-pair-weight", type=float, default=0.0,
                        help="extra weight, in the ranking loss, of pairs whose better candidate is the farther from the "
                             "reference (in distance buckets): the pairs that nearness to the reference orders wrongly (default 0)")
    parser.add_argument("--running-pair-weight", type=float, default=0.0,
                        help="extra weight, in the ranking loss, of pairs of candidates that both run every test without "
                             "an error: the pairs only the program's logic can order (default 0)")
    parser.add_argument("--pass-ranking-weight", type=float, default=0.0,
                        help="weight of a second within-task ranking loss, on the Passability logit: candidates that pass "
                             "every test above those of their task that do not (needs --ranking-weight; default 0)")
    parser.add_argument("--task-group-mix", choices=list(GROUP_MIXES), default="random",
                        help="which of a task's candidates share a group: random (default), or spread: each group takes one "
                             "candidate from every PassRatio stratum of the task, so that better and worse ones meet")
    parser.add_argument("--pooling", choices=list(POOLINGS), default="first",
                        help="read the first token (the authors' model), the mean over tokens (sentence encoders), the mean "
                             "over the generated code's tokens (prediction) or both means side by side (prediction+mean)")
    parser.add_argument("--layout-tokens", action="store_true",
                        help="mark line ends, indentation and capitalised words with reserved vocabulary entries "
                             "(for uncased tokenizers that drop them, e.g. MiniLM's)")
    parser.add_argument("--change-tokens", action="store_true",
                        help="mark where the generated code and the reference differ, with two reserved vocabulary "
                             "entries (a consistent renaming is no change)")
    parser.add_argument("--distance-tokens", action="store_true",
                        help="start the generated code, when read beside the reference, with a reserved vocabulary entry "
                             "for its token distance from the reference (same, 1-2, 3-6, 7-15, 16-40, over 40 tokens, unreadable)")
    parser.add_argument("--nested-passability", action="store_true",
                        help="Passability = Executability x the Passability head's output, so that head learns the chance of "
                             "passing every test given that the code runs (all tests passing implies running)")
    parser.add_argument("--max-steps", type=int, help="stop after this many optimizer steps (quick runs)")
    parser.add_argument("--device", help="cpu, cuda, cuda:1, mps (default: best available)")
    parser.add_argument("--threads", type=int, help="torch CPU threads")
    parser.add_argument("--push-to-hub", metavar="REPO_ID", help="upload the best model to this Hub repo")
    parser.set_defaults(func=run)


def run(args) -> int:
    import torch

    from codescore_metric.training.backbone import model_from_backbone
    from codescore_metric.training.examples import load_split
    from codescore_metric.training.trainer import TrainingArguments, push_to_hub, train

    if (args.data and (args.train or args.validation)) or (not args.data and not (args.train and args.validation)):
        raise ValueError("give either --data FOLDER or both --train and --validation")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", stream=sys.stderr)
    if args.threads:
        torch.set_num_threads(args.threads)
    train_examples = load_split(args.data or args.train, "train")
    validation_examples = load_split(args.data or args.validation, "validation")
    settings = TrainingArguments(
        output_dir=args.output, epochs=args.epochs, batch_size=args.batch_size, gradient_accumulation=args.gradient_accumulation,
        encoder_lr=args.encoder_lr, head_lr=args.head_lr, layer_decay=args.layer_decay, warmup_ratio=args.warmup_ratio,
        freeze_embeddings=args.freeze_embeddings, frozen_layers=args.frozen_layers, max_per_task=args.max_per_task, bf16=args.bf16,
        skip_certain=args.skip_certain,
        rename_fraction=args.rename_fraction, alternative_reference_fraction=args.alternative_references,
        alternative_reference_kinds=tuple(args.alternative_reference_kinds), ema_decay=args.ema_decay,
        save_dtype=args.save_dtype, seed=args.seed, data_seed=args.data_seed, formats=tuple(args.formats),
        select_metric=args.select_metric, select_after=args.select_after, patience=args.patience, max_steps=args.max_steps, device=args.device,
        eval_every=args.eval_every, ranking_weight=args.ranking_weight, task_group_size=args.task_group_size,
        task_group_mix=args.task_group_mix, contrary_pair_weight=args.contrary_pair_weight,
        running_pair_weight=args.running_pair_weight, pass_ranking_weight=args.pass_ranking_weight,
    )
    torch.manual_seed(args.seed)
    model, tokenizer = model_from_backbone(args.backbone, max_length=args.max_length, head_hidden_sizes=args.head_hidden,
                                           strip_code_comments=args.strip_code_comments, canonical_names=args.canonical_names,
                                           strip_annotations=args.strip_annotations, name=args.backbone_name,
                                           pooling=args.pooling, layout_tokens=args.layout_tokens,
                                           change_tokens=args.change_tokens, distance_tokens=args.distance_tokens,
                                           nested_passability=args.nested_passability)
    history = train(model, tokenizer, train_examples, validation_examples, settings, model_id=args.model_id)
    best = history["evaluations"][history["best_evaluation"] - 1]
    summary = " | ".join(f"{fmt}: tau {m['tau']:.4f} r_s {m['spearman']:.4f} r_p {m['pearson']:.4f} MAE {m['mae']:.4f}"
                         + (f" within-task tau {m['within_task_tau']:.4f}" if "within_task_tau" in m else "")
                         for fmt, m in best["validation"].items())
    print(f"best point (step {best['steps']}, epoch {best['epochs_done']:.2f}) saved to {args.output}: {summary}", file=sys.stderr)
    if args.push_to_hub:
        print(f"pushed: {push_to_hub(args.output, args.push_to_hub)}", file=sys.stderr)
    return 0
