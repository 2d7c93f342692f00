"""A model card (README.md) for a trained CodeScore model from its training history and meta-evaluations
(written by `codescore model-card`)."""

from __future__ import annotations

import json
from pathlib import Path

from codescore_metric.formats import FORMAT_LABELS


def _number(value) -> str:
    return "n/a" if value is None else f"{value:.4f}"


def _intervals(results: dict):
    """``cell(statistic, name)``: the task-bootstrap interval of a number as ``[low, high]`` ("–" without one),
    and the column header (``None`` when the file has no intervals)."""
    section = results.get("bootstrap")
    if not section:
        return None, None
    rows = {(row["statistic"], row["name"]): row for row in section["intervals"] if row["over"] is None}

    def cell(statistic: str, name: str) -> str:
        row = rows.get((statistic, name))
        return "–" if row is None else f"[{_number(row['low'])}, {_number(row['high'])}]"

    return cell, f"{section['confidence']:.0%} interval"


def evaluation_table(results: dict) -> str:
    """Method | Value | tau | r_s | r_p | MAE | within-task tau rows from a `codescore meta-eval --json` file and the
    heads' table, with the task-bootstrap intervals of r_s, within-task tau and ROC AUC where the file has them."""
    truth = results["ground_truth"]
    cell, level = _intervals(results)
    extra = [f"r_s {level}", f"within-task τ {level}"] if cell else []
    lines = ["| " + " | ".join(["method", "value", "τ", "r_s", "r_p", "MAE", "within-task τ", *extra]) + " |",
             "|" + "---|" * (7 + len(extra))]
    for metric in results["metrics"]:
        cells = [_number(metric.get(key)) for key in ("value", "tau", "spearman", "pearson", "mae", "within_task_tau")]
        if cell:
            cells += [cell("spearman", metric["name"]), cell("within_task_tau", metric["name"])]
        lines.append(f"| {metric['name']} | " + " | ".join(cells) + " |")
    lines.append(f"| PassRatio (ground truth) | {_number(truth['avg_pass_ratio'])} |" + " – |" * (5 + len(extra)))
    if results.get("heads"):
        rates = {"executable": truth.get("executable_rate"), "all_pass": truth.get("pass_at_1")}
        within = "within_task_auc" in results["heads"][0]
        header = ["head", "target rate", "ROC AUC", *([f"ROC AUC {level}"] if cell else []), *(["AUC within task"] if within else []),
                  "accuracy at 0.5", "positive rate at 0.5"]
        lines += ["", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += [f"| {h['name']} | {_number(rates[h['target']])} | {_number(h.get('auc'))} | "
                  + (f"{cell('roc_auc', h['name'])} | " if cell else "")
                  + (f"{_number(h['within_task_auc'])} | " if within else "")
                  + f"{_number(h['accuracy'])} | {_number(h['positive_rate'])} |" for h in results["heads"]]
    if cell:
        section = results["bootstrap"]
        lines += ["", f"Intervals: resampling the {section['n_tasks']} tasks, {section['n_resamples']} resamples "
                      "(`codescore meta-eval --bootstrap`)."]
    return f"{truth['n']} candidates" + (f" of {truth['n_tasks']} tasks" if truth.get("n_tasks") else "") + ".\n\n" + "\n".join(lines)


def _data_seed(args: dict) -> str:
    """", data seed N" when the run's rows were sampled with their own seed (``--data-seed``)."""
    return "" if args.get("data_seed") is None else f", data seed {args['data_seed']}"


def _select_after(args: dict) -> str:
    """" among the points from step N on" when earlier points could not be selected (``--select-after``)."""
    return f" among the points from step {args['select_after']} on" if args.get("select_after") else ""


def _mean(metrics, key: str) -> float:
    """Mean of ``key`` over the metric dicts of the validation formats."""
    return sum(m[key] for m in metrics) / len(metrics)


def learning_curve(history: dict) -> str:
    """One row per evaluation point: step, epochs, training loss, mean validation r_s, within-task τ and head
    ROC AUCs (n/a in histories written before the AUCs were recorded)."""
    lines = ["| step | epochs | train loss | r_s | within-task τ | Exec AUC | Pass AUC |", "|---|---|---|---|---|---|---|"]
    for point in history["evaluations"]:
        metrics = point["validation"].values()
        cells = [_number(_mean(metrics, key)) if all(key in m for m in metrics) else "n/a"
                 for key in ("spearman", "within_task_tau", "exec_auc", "pass_auc")]
        lines.append(f"| {point['steps']} | {point['epochs_done']:.2f} | {point['train_loss']:.4f} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def model_card(model_dir: Path, evaluations: dict[str, dict], notes: str = "") -> str:
    """The card's markdown: what the model is, how it was trained, and how it agrees with execution."""
    config = json.loads((model_dir / "config.json").read_text())
    history = json.loads((model_dir / "training_history.json").read_text())
    args = json.loads((model_dir / "training_args.json").read_text())
    encoder = config["encoder"]
    best = history["evaluations"][history["best_evaluation"] - 1]
    validation = "\n".join(
        f"| {FORMAT_LABELS.get(fmt, fmt)} | {_number(m['tau'])} | {_number(m['spearman'])} | {_number(m['pearson'])} | {_number(m['mae'])} "
        f"| {_number(m.get('within_task_tau'))} |"
        for fmt, m in best["validation"].items()
    )
    reading = [name for name, on in (("code read without comments, docstrings and blank lines", config.get("strip_code_comments")),
                                     ("parameters and locals renamed v0, v1, ... by first appearance", config.get("canonical_names")),
                                     ("type annotations of parameters, return values and locals dropped", config.get("strip_annotations")),
                                     ("layout and case markers", config.get("layout_tokens")),
                                     ("markers around what differs from the reference", config.get("change_tokens")),
                                     ("a marker for the token distance from the reference", config.get("distance_tokens"))) if on]
    spread = ", each group spread over the task's PassRatios" if args.get("task_group_mix") == "spread" else ""
    contrary = (f", pairs whose better candidate is the farther from the reference weighted {1 + args['contrary_pair_weight']:g}x"
                if args.get("contrary_pair_weight") else "")
    running = (f", pairs of candidates that both run weighted {1 + args['running_pair_weight']:g}x"
               if args.get("running_pair_weight") else "")
    passing = (f" + {args['pass_ranking_weight']:g} x the same loss on the Passability logit"
               if args.get("pass_ranking_weight") else "")
    ranking = (f" + {args['ranking_weight']} x within-task pairwise ranking loss (batches of {args['task_group_size']} "
               f"candidates per task{spread}{contrary}{running}){passing}") if args.get("ranking_weight") else ""
    sections = [
        "---\nlibrary_name: codescore\ntags: [code, code-evaluation, metric]\nlicense: apache-2.0\n---\n",
        f"# {config['provenance'].get('model_id', model_dir.name)}\n",
        "A CodeScore (UniCE) model: it reads generated Python code with a reference solution and/or the task "
        "description and predicts PassRatio (the CodeScore), Executability and Passability, without running the code.\n",
        "## Architecture\n",
        f"- backbone: `{config['provenance'].get('backbone', 'unknown')}` ({encoder['model_type']}, {encoder['num_hidden_layers']} layers, "
        f"hidden {encoder['hidden_size']}, vocabulary {encoder['vocab_size']}), max input {config['max_length']} tokens, "
        f"{config['encoding_profile']} encoding profile{''.join(', ' + item for item in reading)}\n"
        f"- {config['layer_transformation']} mix over all {encoder['num_hidden_layers'] + 1} hidden states, "
        f"per-{config['normalization']} normalisation, {config.get('pooling', 'first')}-token pooling, "
        f"{config['head_type']} heads {config['head_hidden_sizes']}"
        + ("; Passability = Executability x the Passability head (which learns passing given running)"
           if config.get("nested_passability") else "") + "\n",
        "## Training\n",
        f"- data: {history['train_examples']} training and {history['validation_examples']} validation candidates "
        "(execution-labelled, split by task); HumanEval was never used for training or model selection\n"
        f"- loss: L_Uni, every example in formats {', '.join(args['formats'])}: "
        f"squared error on PassRatio + BCE on the Exec and Pass logits{ranking}\n"
        f"- {history['total_steps']} steps ({history['total_steps'] / history['steps_per_epoch']:.2f} epochs), best point step "
        f"{best['steps']} by mean validation {args['select_metric']}{_select_after(args)}; "
        f"batch {args['batch_size']} x {args['gradient_accumulation']}, encoder lr {args['encoder_lr']}, head lr {args['head_lr']}, "
        f"layer decay {args['layer_decay']}, seed {args['seed']}{_data_seed(args)}, bf16 autocast {args['bf16']}"
        + (f"; the weights are an exponential moving average of the trained ones (decay {args['ema_decay']} per step)"
           if args.get("ema_decay") else "") + "\n"
        f"- training time: {sum(e['seconds'] for e in history['evaluations']) / 60:.1f} min (validation included)\n",
        "### Validation (best point)\n",
        "| format | τ | r_s | r_p | MAE | within-task τ |\n|---|---|---|---|---|---|\n" + validation + "\n",
        "### Learning curve (validation, mean over formats)\n",
        learning_curve(history) + "\n",
    ]
    for name, results in evaluations.items():
        sections += [f"## {name}\n", evaluation_table(results) + "\n"]
    if notes:
        sections += ["## Notes\n", notes + "\n"]
    sections += [
        "## Limitations\n",
        "Python only. CodeScore is an estimate of what tests would show and can be confidently wrong, above all on "
        "subtle logic errors; when correctness matters, run tests. Judge the model by its numbers on real generated "
        "code of tasks it never saw; numbers on synthetic candidates (mutants and broken variants of the reference) "
        "reward distance from the reference and say little about real use. `python benchmarks/behaviour.py "
        "--checkpoint MODEL` shows its scores on hand-written cases.\n",
    ]
    return "\n".join(sections)
