"""The UniCE training loop: plain PyTorch, all three formats per example, evaluation every epoch."""

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

from codescore_metric.formats import InputFormat
from codescore_metric.metaeval.correlation import correlations
from codescore_metric.modeling import WEIGHT_DTYPES
from codescore_metric.training.examples import FormatBatches, LabelledExamples
from codescore_metric.training.objective import LossWeights, unice_loss
from codescore_metric.training.optimizer import linear_schedule, parameter_groups

logger = logging.getLogger(__name__)
SELECT_METRICS = ("tau", "spearman", "pearson", "neg_mae")


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
    bf16: bool = False
    save_dtype: str = "fp32"  # weights file dtype: fp16 halves a model's size on disk
    seed: int = 12
    formats: tuple[str, ...] = ("ref", "nl", "ref_nl")
    loss_weights: LossWeights = field(default_factory=LossWeights)
    select_metric: str = "spearman"
    patience: int = 2
    max_steps: int | None = None
    eval_batch_size: int = 32
    log_every: int = 50
    device: str | None = None  # None: cuda, then mps, then cpu

    def __post_init__(self):
        if self.select_metric not in SELECT_METRICS:
            raise ValueError(f"select_metric must be one of {SELECT_METRICS}; got {self.select_metric!r}")
        for name in ("epochs", "batch_size", "gradient_accumulation", "eval_batch_size"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1; got {getattr(self, name)}")
        if self.save_dtype not in WEIGHT_DTYPES:
            raise ValueError(f"save_dtype must be one of {', '.join(WEIGHT_DTYPES)}; got {self.save_dtype!r}")
        self.formats = tuple(InputFormat.parse(f).value for f in self.formats)


def evaluate(model, tokenizer, examples: LabelledExamples, formats, batch_size: int = 32) -> dict[str, dict[str, float]]:
    """Per format: correlations of CodeScore with PassRatio, and accuracy of the Exec and Pass heads at 0.5."""
    from codescore_metric.scorer import CodeScorer

    was_training = model.training
    model.eval()
    scorer = CodeScorer.from_model(model, tokenizer, normalization="sample")
    results = {}
    for fmt in formats:
        fields = {f"{name}s": examples.texts[name] for name in InputFormat.parse(fmt).fields}
        scored = scorer.score(**fields, input_format=fmt, batch_size=batch_size)
        metrics = correlations(scored.codescore, examples.labels[:, 0].numpy())
        metrics["exec_accuracy"] = float(np.mean((np.array(scored.executability) >= 0.5) == (examples.labels[:, 1].numpy() >= 0.5)))
        metrics["pass_accuracy"] = float(np.mean((np.array(scored.passability) >= 0.5) == (examples.labels[:, 2].numpy() >= 0.5)))
        metrics["mean_codescore"] = float(np.mean(scored.codescore))
        results[fmt] = metrics
    model.train(was_training)
    return results


def selection_value(results: dict[str, dict[str, float]], metric: str) -> float:
    """Mean of the selection metric over formats (higher is better)."""
    values = [-r["mae"] if metric == "neg_mae" else r[metric] for r in results.values()]
    return float(np.mean(values)) if not any(math.isnan(v) for v in values) else float("-inf")


def seed_everything(seed: int) -> random.Random:
    torch.manual_seed(seed)
    np.random.seed(seed)
    return random.Random(seed)


def train(model, tokenizer, train_examples: LabelledExamples, validation_examples: LabelledExamples, args: TrainingArguments, model_id: str = "codescore-trained") -> dict:
    """Train ``model`` in place; save the best epoch (by ``args.select_metric``) to ``args.output_dir``.

    Returns the history: per-epoch training loss, validation metrics per format and timings.
    """
    from codescore_metric.devices import resolve_device

    rng = seed_everything(args.seed)
    device = resolve_device(args.device)
    model.to(device)
    formats = tuple(InputFormat.parse(f) for f in args.formats)
    data = FormatBatches(train_examples, tokenizer, model.config.encoding_spec, formats)
    optimizer = torch.optim.AdamW(parameter_groups(model, args.encoder_lr, args.head_lr, args.layer_decay, args.weight_decay, args.freeze_embeddings))
    steps_per_epoch = math.ceil(math.ceil(len(data) / args.batch_size) / args.gradient_accumulation)
    total_steps = min(args.max_steps or steps_per_epoch * args.epochs, steps_per_epoch * args.epochs)
    scheduler = linear_schedule(optimizer, int(args.warmup_ratio * total_steps), total_steps)
    output = Path(args.output_dir)
    history = {"model_id": model_id, "train_examples": len(data), "validation_examples": len(validation_examples),
               "truncated_train_inputs": {fmt.value: n for fmt, n in data.truncated.items()}, "epochs": []}
    best, stale, step = float("-inf"), 0, 0
    model.train()
    for epoch in range(args.epochs):
        started, losses = time.perf_counter(), []
        batches = data.batches(args.batch_size, rng)
        for index, indices in enumerate(batches):
            labels = data.labels[indices].to(device)
            loss = 0.0
            for fmt in formats:  # L_Uni is a sum over formats: one backward each keeps one format's activations
                inputs = {name: tensor.to(device) for name, tensor in data.tensors(fmt, indices).items()}
                with torch.autocast(device.type, dtype=torch.bfloat16, enabled=args.bf16):
                    logits = model(**inputs)
                format_loss = unice_loss(logits, labels[:, 0], labels[:, 1], labels[:, 2], args.loss_weights)
                (format_loss / args.gradient_accumulation).backward()
                loss += format_loss.item()
            losses.append(loss)
            if (index + 1) % args.gradient_accumulation == 0 or index + 1 == len(batches):
                torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad(set_to_none=True)
                step += 1
                if step % args.log_every == 0:
                    logger.info("epoch %d step %d loss %.4f", epoch + 1, step, np.mean(losses[-args.log_every:]))
                if step >= total_steps:
                    break
        validation = evaluate(model, tokenizer, validation_examples, args.formats, args.eval_batch_size)
        value = selection_value(validation, args.select_metric)
        history["epochs"].append({"epoch": epoch + 1, "steps": step, "train_loss": float(np.mean(losses)),
                                  "seconds": time.perf_counter() - started, "validation": validation, "selection": value})
        logger.info("epoch %d: train loss %.4f, validation %s %.4f", epoch + 1, np.mean(losses), args.select_metric, value)
        if value > best:
            best, stale = value, 0
            history["best_epoch"] = epoch + 1
            _save(model, tokenizer, output, args, history, model_id)
        else:
            stale += 1
        if stale >= args.patience or step >= total_steps:
            break
    if "best_epoch" not in history:  # every epoch was undefined (e.g. constant predictions): keep the last
        history["best_epoch"] = len(history["epochs"])
        _save(model, tokenizer, output, args, history, model_id)
    (output / "training_history.json").write_text(json.dumps(history, indent=2) + "\n")
    return history


def _save(model, tokenizer, output: Path, args: TrainingArguments, history: dict, model_id: str) -> None:
    model.config.provenance.update(model_id=model_id, revision="local", training_seed=args.seed, best_epoch=history["best_epoch"])
    model.save_pretrained(output, weights_dtype=args.save_dtype)
    tokenizer.save_pretrained(str(output))
    (output / "training_args.json").write_text(json.dumps(asdict(args), indent=2, default=str) + "\n")


def push_to_hub(folder: str | Path, repo_id: str, private: bool = False) -> str:
    """Upload a trained model folder to the Hub; returns the commit URL."""
    from huggingface_hub import HfApi

    api = HfApi()
    api.create_repo(repo_id, private=private, exist_ok=True)
    return str(api.upload_folder(folder_path=str(folder), repo_id=repo_id, commit_message="Upload CodeScore (UniCE) model"))
