"""The UniCE training loop: plain PyTorch, all three formats per example, an optional within-task ranking
term, evaluation every epoch or every ``eval_every`` steps (the learning curve), the best point kept. With
``ema_decay`` the evaluated and saved weights are an exponential moving average of the trained ones
(`torch.optim.swa_utils.AveragedModel`, updated after every optimizer step)."""

from __future__ import annotations

import json
import logging
import math
import random
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import torch

from codescore_metric.code_distance import distance_bucket
from codescore_metric.correlation import correlations, roc_auc, within_task_kendall
from codescore_metric.formats import ARGUMENT_FOR_FIELD, InputFormat
from codescore_metric.modeling import WEIGHT_DTYPES
from codescore_metric.training.examples import FormatBatches, LabelledExamples
from codescore_metric.training.grouping import GROUP_MIXES
from codescore_metric.training.objective import LossWeights, unice_loss, within_task_ranking_loss
from codescore_metric.training.optimizer import linear_schedule, parameter_groups
from codescore_metric.training.selection import SELECT_METRICS, selection_value

logger = logging.getLogger(__name__)


@dataclass
class TrainingArguments:
    """Settings of one run; saved next to the model as ``training_args.json``."""

    output_dir: str
    epochs: int = 3
    batch_size: int = 16
    gradient_accumulation: int = 1
    encoder_lr: float = 5e-5
    head_lr: float = 5e-4
    layer_decay: float = 0.95
    weight_decay: float = 0.01
    warmup_ratio: float = 0.1
    max_grad_norm: float = 1.0
    freeze_embeddings: bool = False
    frozen_layers: int = 0  # the embeddings and the first N encoder layers are not trained
    max_per_task: int | None = None  # at most this many training rows per task (a seeded sample)
    skip_certain: bool = False  # leave out training rows the scorer's static checks decide (scorer.certain_reason)
    rename_fraction: float = 0.0  # this share of training predictions get their parameters and locals renamed
    alternative_reference_fraction: float = 0.0  # this share of training rows read another all-pass program of their task as reference
    alternative_reference_kinds: tuple[str, ...] = ()  # ... of the rows of these kinds only (build-data's kind column); (): all rows
    ema_decay: float = 0.0  # > 0: evaluate and save an exponential moving average of the weights with this decay per step
    bf16: bool = False
    save_dtype: str = "fp32"  # weights file dtype: fp16 halves a model's size on disk
    seed: int = 12
    data_seed: int | None = None  # seed of the per-task sample and the renaming choice (which rows are trained); None: seed
    formats: tuple[str, ...] = ("ref", "nl", "ref_nl")
    loss_weights: LossWeights = field(default_factory=LossWeights)
    ranking_weight: float = 0.0  # weight of within_task_ranking_loss beside L_Uni
    task_group_size: int = 0  # >= 2: batches of tasks with this many candidates each; 0: length-bucketed batches
    task_group_mix: str = "random"  # which of a task's candidates share a group: "random" or "spread" (over its PassRatios)
    contrary_pair_weight: float = 0.0  # extra ranking weight of pairs whose better candidate is the farther from the reference
    running_pair_weight: float = 0.0  # extra ranking weight of pairs of candidates that both run every test without an error
    pass_ranking_weight: float = 0.0  # weight of a within-task ranking loss on the Passability logit (all-pass above the rest)
    select_metric: str = "spearman"
    select_after: int = 0  # evaluations before this optimizer step are recorded but can neither be saved nor end the run
    patience: int = 2  # evaluations without improvement before stopping
    max_steps: int | None = None
    eval_every: int | None = None  # optimizer steps between evaluations; None: once per epoch
    eval_batch_size: int = 32
    log_every: int = 50
    device: str | None = None  # None: cuda, then mps, then cpu

    def __post_init__(self):
        if self.select_metric not in SELECT_METRICS:
            raise ValueError(f"select_metric must be one of {SELECT_METRICS}; got {self.select_metric!r}")
        for name in ("epochs", "batch_size", "gradient_accumulation", "eval_batch_size"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1; got {getattr(self, name)}")
        if self.max_per_task is not None and self.max_per_task < 1:
            raise ValueError(f"max_per_task must be at least 1; got {self.max_per_task}")
        if self.ranking_weight and self.task_group_size < 2:
            raise ValueError("ranking_weight needs task_group_size >= 2, so that batches hold candidates of the same task")
        for name in ("contrary_pair_weight", "running_pair_weight", "pass_ranking_weight"):
            value = getattr(self, name)
            if value < 0 or (value and not self.ranking_weight):
                raise ValueError(f"{name} (--{name.replace('_', '-')}) must be at least 0 and needs ranking_weight; "
                                 f"got {value} with ranking_weight {self.ranking_weight}")
        if self.task_group_mix not in GROUP_MIXES:
            raise ValueError(f"task_group_mix (--task-group-mix) must be one of {', '.join(GROUP_MIXES)}; got {self.task_group_mix!r}")
        if self.select_after < 0:
            raise ValueError(f"select_after (--select-after) must be a step count of at least 0; got {self.select_after}")
        if self.eval_every is not None and self.eval_every < 1:
            raise ValueError(f"eval_every must be at least 1 step; got {self.eval_every}")
        if not 0 <= self.rename_fraction <= 1:
            raise ValueError(f"rename_fraction (--rename-fraction) must be between 0 and 1; got {self.rename_fraction}")
        if not 0 <= self.alternative_reference_fraction <= 1:
            raise ValueError("alternative_reference_fraction (--alternative-references) must be between 0 and 1; "
                             f"got {self.alternative_reference_fraction}")
        if not 0 <= self.ema_decay < 1:
            raise ValueError(f"ema_decay (--ema-decay) must be at least 0 and below 1 (0: off); got {self.ema_decay}")
        if self.save_dtype not in WEIGHT_DTYPES:
            raise ValueError(f"save_dtype must be one of {', '.join(WEIGHT_DTYPES)}; got {self.save_dtype!r}")
        self.formats = tuple(InputFormat.parse(f).value for f in self.formats)


def evaluate(model, tokenizer, examples: LabelledExamples, formats, batch_size: int = 32) -> dict[str, dict[str, float]]:
    """Per format: correlations of CodeScore with PassRatio (pooled and, with task ids, within task), and the
    Exec and Pass heads' accuracy at 0.5 and ROC AUC."""
    from codescore_metric.scorer import CodeScorer

    was_training = model.training
    model.eval()
    scorer = CodeScorer.from_model(model, tokenizer, normalization="sample")
    results = {}
    for fmt in formats:
        fields = {ARGUMENT_FOR_FIELD[name]: examples.texts[name] for name in InputFormat.parse(fmt).fields}
        scored = scorer.score(**fields, input_format=fmt, batch_size=batch_size)
        metrics = correlations(scored.codescore, examples.labels[:, 0].numpy())
        if examples.task_ids is not None:
            within = within_task_kendall(scored.codescore, examples.labels[:, 0].numpy(), examples.task_ids)
            metrics.update(within_task_tau=within["within_task_tau"], within_task_tasks=within["within_task_tasks"])
        for head, predictions, column in (("exec", scored.executability, 1), ("pass", scored.passability, 2)):
            predicted, target = np.array(predictions), examples.labels[:, column].numpy()
            metrics[f"{head}_accuracy"] = float(np.mean((predicted >= 0.5) == (target >= 0.5)))
            metrics[f"{head}_auc"] = roc_auc(predicted, target >= 0.5, f"{head} labels")
        metrics["mean_codescore"] = float(np.mean(scored.codescore))
        results[fmt] = metrics
    model.train(was_training)
    return results


def seed_everything(seed: int) -> random.Random:
    torch.manual_seed(seed)
    np.random.seed(seed)
    return random.Random(seed)


def training_rows(examples: LabelledExamples, args: TrainingArguments) -> tuple[LabelledExamples, dict[str, int]]:
    """The rows a run trains on (without ``args.skip_certain``'s rows, then ``args.max_per_task``'s sample,
    ``args.alternative_reference_fraction``'s references, ``args.rename_fraction``'s renamings, all seeded by
    ``args.data_seed``, else ``args.seed``) and how many rows were left out and references and predictions changed."""
    seed = args.seed if args.data_seed is None else args.data_seed
    changed = {"certain_train_rows_skipped": 0, "alternative_train_references": 0, "renamed_train_predictions": 0}
    if args.skip_certain:
        examples, changed["certain_train_rows_skipped"] = examples.without_certain()
    if args.max_per_task:
        examples = examples.per_task_sample(args.max_per_task, seed)
    if args.alternative_reference_fraction:
        examples, changed["alternative_train_references"] = examples.with_alternative_references(
            args.alternative_reference_fraction, seed, args.alternative_reference_kinds)
    if args.rename_fraction:
        examples, changed["renamed_train_predictions"] = examples.with_renamed_predictions(args.rename_fraction, seed)
    return examples, changed


def train(
    model,
    tokenizer,
    train_examples: LabelledExamples,
    validation_examples: LabelledExamples,
    args: TrainingArguments,
    model_id: str = "codescore-trained",
) -> dict:
    """Train ``model`` in place; save the best evaluation point (by ``args.select_metric``) to ``args.output_dir``
    (with ``args.ema_decay``, of the moving average: the saved weights are then not ``model``'s own).

    Returns the history: training loss and validation metrics per format at every evaluation point
    (each epoch, or every ``args.eval_every`` steps), and timings.
    """
    from codescore_metric.devices import resolve_device

    rng = seed_everything(args.seed)
    device = resolve_device(args.device)
    model.to(device)
    formats = tuple(InputFormat.parse(f) for f in args.formats)
    train_examples, changed = training_rows(train_examples, args)
    data = FormatBatches(train_examples, tokenizer, model.config.encoding_spec, formats)
    distance = torch.tensor([distance_bucket(prediction, reference) for prediction, reference
                             in zip(train_examples.texts["prediction"], train_examples.texts["reference"])]) if args.contrary_pair_weight else None

    def epoch_batches() -> list[list[int]]:
        if args.task_group_size:
            return data.task_batches(args.batch_size, args.task_group_size, rng, args.task_group_mix)
        return data.batches(args.batch_size, rng)

    optimizer = torch.optim.AdamW(parameter_groups(model, args.encoder_lr, args.head_lr, args.layer_decay, args.weight_decay, args.freeze_embeddings,
                                                   args.frozen_layers))
    batches = epoch_batches()
    steps_per_epoch = math.ceil(len(batches) / args.gradient_accumulation)
    total_steps = min(args.max_steps or steps_per_epoch * args.epochs, steps_per_epoch * args.epochs)
    scheduler = linear_schedule(optimizer, args.warmup_ratio, total_steps)
    output = Path(args.output_dir)
    history = {"model_id": model_id, "train_examples": len(data), "validation_examples": len(validation_examples),
               **changed, "steps_per_epoch": steps_per_epoch, "total_steps": total_steps,
               "truncated_train_inputs": {fmt.value: n for fmt, n in data.truncated.items()}, "evaluations": []}
    state = {"best": float("-inf"), "stale": 0, "losses": [], "started": time.perf_counter()}
    average = _moving_average(model, args.ema_decay)
    evaluated = model if average is None else average.module  # what is evaluated, selected and saved

    def checkpoint(epoch: int, step: int) -> bool:
        """Evaluate, keep the model if it is the best so far (from ``args.select_after`` on); True when training
        should stop early."""
        validation = evaluate(evaluated, tokenizer, validation_examples, args.formats, args.eval_batch_size)
        value = selection_value(validation, args.select_metric)
        history["evaluations"].append({"epoch": epoch, "steps": step, "epochs_done": round(step / steps_per_epoch, 3),
                                       "train_loss": float(np.mean(state["losses"])) if state["losses"] else float("nan"),
                                       "seconds": time.perf_counter() - state["started"], "validation": validation,
                                       "selection": value})
        logger.info("step %d (epoch %.2f): train loss %.4f, validation %s %.4f", step, step / steps_per_epoch,
                    history["evaluations"][-1]["train_loss"], args.select_metric, value)
        state["losses"], state["started"] = [], time.perf_counter()
        if step < args.select_after:
            return False
        if value > state["best"]:
            state["best"], state["stale"] = value, 0
            history["best_evaluation"] = len(history["evaluations"])
            _save(evaluated, tokenizer, output, args, history, model_id)
        else:
            state["stale"] += 1
        return state["stale"] >= args.patience

    step, stop = 0, False
    model.train()
    for epoch in range(1, args.epochs + 1):
        if epoch > 1:
            batches = epoch_batches()
        for index, indices in enumerate(batches):
            labels = data.labels[indices].to(device)
            groups = data.group_ids(indices).to(device) if args.ranking_weight else None
            batch_distance = distance[indices].to(device) if distance is not None else None
            loss = 0.0
            for fmt in formats:  # L_Uni is a sum over formats: one backward each keeps one format's activations
                inputs = {name: tensor.to(device) for name, tensor in data.tensors(fmt, indices).items()}
                with torch.autocast(device.type, dtype=torch.bfloat16, enabled=args.bf16):
                    logits = model(**inputs)
                format_loss = unice_loss(logits, labels[:, 0], labels[:, 1], labels[:, 2], args.loss_weights)
                if args.ranking_weight:
                    format_loss = format_loss + args.ranking_weight * within_task_ranking_loss(
                        logits[:, 0], labels[:, 0], groups, batch_distance, args.contrary_pair_weight,
                        labels[:, 1], args.running_pair_weight)
                if args.pass_ranking_weight:
                    format_loss = format_loss + args.pass_ranking_weight * within_task_ranking_loss(logits[:, 2], labels[:, 2], groups)
                (format_loss / args.gradient_accumulation).backward()
                loss += format_loss.item()
            state["losses"].append(loss)
            if (index + 1) % args.gradient_accumulation == 0 or index + 1 == len(batches):
                torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad(set_to_none=True)
                if average is not None:
                    average.update_parameters(model)
                step += 1
                if step % args.log_every == 0:
                    logger.info("epoch %d step %d loss %.4f", epoch, step, np.mean(state["losses"][-args.log_every:]))
                if args.eval_every and step % args.eval_every == 0 and step < total_steps:
                    stop = checkpoint(epoch, step)
                if stop or step >= total_steps:
                    break
        if stop:
            break
        if not args.eval_every or step >= total_steps:
            stop = checkpoint(epoch, step)
        if stop or step >= total_steps:
            break
    if "best_evaluation" not in history:  # every eligible evaluation was undefined (or none was eligible): keep the last
        history["best_evaluation"] = len(history["evaluations"])
        _save(evaluated, tokenizer, output, args, history, model_id)
    (output / "training_history.json").write_text(json.dumps(history, indent=2) + "\n")
    return history


def _moving_average(model, decay: float):
    """An exponential moving average of ``model``'s parameters (its first update copies them), or None when decay
    is 0. Buffers are not averaged: the encoder's are integer position and token-type ids."""
    if not decay:
        return None
    from torch.optim.swa_utils import AveragedModel, get_ema_multi_avg_fn

    return AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(decay))


def _save(model, tokenizer, output: Path, args: TrainingArguments, history: dict, model_id: str) -> None:
    best = history["evaluations"][history["best_evaluation"] - 1]
    model.config.provenance.update(model_id=model_id, revision="local", training_seed=args.seed, best_step=best["steps"])
    model.save_pretrained(output, weights_dtype=args.save_dtype)
    tokenizer.save_pretrained(str(output))
    (output / "training_args.json").write_text(json.dumps(asdict(args), indent=2, default=str) + "\n")


def push_to_hub(folder: str | Path, repo_id: str, private: bool = False) -> str:
    """Upload a trained model folder to the Hub; returns the commit URL."""
    from huggingface_hub import HfApi

    api = HfApi()
    api.create_repo(repo_id, private=private, exist_ok=True)
    return str(api.upload_folder(folder_path=str(folder), repo_id=repo_id, commit_message="Upload CodeScore (UniCE) model"))
