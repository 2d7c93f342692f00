"""Present a meta-evaluation: markdown tables in the paper's shape, a JSON file, a PNG scatter grid."""

from __future__ import annotations

import json
import math
from pathlib import Path

UNDEFINED = "n/a"  # a number that exists for this row but could not be computed (see the notes)
ABSENT = "–"  # a number that does not apply to this row


def _number(value, digits: int = 4) -> str:
    if value is None:
        return ABSENT
    return UNDEFINED if math.isnan(value) else f"{value:.{digits}f}"


def _time(row: dict) -> str:
    if row["seconds"] is None:
        return ABSENT
    relative = "" if row["relative_time"] is None else f"{row['relative_time']:.1f}× "
    return f"{relative}({row['seconds']:.3g} s)"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header), *("| " + " | ".join(row) + " |" for row in rows)]


def _notes(rows: list[dict]) -> list[str]:
    return [f"- {row['name']}: {note}" for row in rows for note in row["notes"]]


def _head_tasks(heads: list[dict]) -> dict[str, int]:
    """Tasks behind each target's within-task AUC (the same for every format)."""
    return {h["target"]: h["within_task_auc_tasks"] for h in heads}


def _binary_cells(row: dict) -> list[str]:
    return [_number(row[key]) for key in ("positive_rate", "phi", "accuracy", "precision", "recall", "f1")]


def _agreement_header(within: bool) -> list[str]:
    return ["Method", "Value", "τ (tau-b)", "r_s", "r_p", "MAE", *(["τ within task"] if within else [])]


def _agreement_cells(row: dict, within: bool) -> list[str]:
    keys = ("value", "tau", "spearman", "pearson", "mae", *(("within_task_tau",) if within else ()))
    return [row["name"], *(_number(row[key]) for key in keys)]


def _within_tasks(metrics: list[dict]) -> int:
    # Which tasks count depends only on PassRatio, so every metric row has the same within_task_tasks.
    return metrics[0]["within_task_tasks"] if metrics else 0


def _rows_section(title: str, group: dict, within: bool) -> list[str]:
    tasks = f", {group['n_tasks']} tasks ({_within_tasks(group['metrics'])} for τ within task)" if within else ""
    lines = ["", f"{title} ({group['n']} samples{tasks}; mean PassRatio {_number(group['avg_pass_ratio'])})", ""]
    lines += _table(_agreement_header(within), [_agreement_cells(m, within) for m in group["metrics"]])
    return lines + _notes(group["metrics"])


def _heads_table(heads: list[dict], rates: dict, within_auc: bool, binary: bool) -> list[str]:
    rows = [[h["name"], h["target"], _number(rates.get(h["target"])), _number(h.get("auc")),
             *([_number(h["within_task_auc"])] if within_auc else []), *(_binary_cells(h) if binary else [])] for h in heads]
    return _table(["Head", "Target", "Target rate", "ROC AUC", *(["AUC within task"] if within_auc else []),
                   *(["Positive rate", "τ = r_s = r_p", "Accuracy", "Precision", "Recall", "F1"] if binary else [])], rows)


def _model_rows(section: dict, within: bool) -> list[str]:
    lines = _rows_section("## Metrics vs PassRatio on the rows the model reads, static checks set aside", section, within)
    if section["heads"]:
        lines += ["", *_heads_table(section["heads"], section["target_rates"], "within_task_auc" in section["heads"][0], binary=False)]
    reasons = ", ".join(f"{reason} {count}" for reason, count in section["decided"].items())
    return lines + [f"- left out: the {sum(section['decided'].values())} rows whose CodeScore the scorer's static checks decide "
                    f"in some CodeScore run ({reasons}); the tables above count them, as the metric's output does"]


def _by_group(section: dict, within: bool) -> list[str]:
    lines = ["", f"## Metrics vs PassRatio by {section['field']}", "", *(f"- {note}" for note in section["notes"])]
    for group in section["groups"]:
        lines += _rows_section(f"### {section['field']} = {group['group']}", group, within)
    return lines


def _interval(row: dict | None) -> list[str]:
    if row is None:
        return [ABSENT, ABSENT]
    return [_number(row["value"]), f"[{_number(row['low'])}, {_number(row['high'])}]"]


def _bootstrap_title(section: dict) -> str:
    return (f"{section['confidence']:.0%} intervals from resampling the {section['n_tasks']} tasks "
            f"({section['n_resamples']} resamples, seed {section['seed']})")


def _bootstrap_tables(section: dict) -> list[str]:
    rows = {(row["statistic"], row["name"], row["over"]): row for row in section["intervals"]}
    level = f"{section['confidence']:.0%}"
    names = list(dict.fromkeys(name for statistic, name, over in rows if statistic == "spearman" and over is None))
    lines = _table(["Method", "r_s", f"{level} interval", "τ within task", f"{level} interval"],
                    [[name, *_interval(rows.get(("spearman", name, None))), *_interval(rows.get(("within_task_tau", name, None)))]
                     for name in names])
    heads = [row for row in section["intervals"] if row["statistic"] == "roc_auc" and row["over"] is None]
    if heads:
        lines += ["", *_table(["Head", "ROC AUC", f"{level} interval"], [[row["name"], *_interval(row)] for row in heads])]
    leads = [(name, over) for statistic, name, over in rows if statistic == "spearman" and over is not None]
    if leads:
        lines += ["", *_table(["Method", "Lead over", "r_s lead", f"{level} interval", "τ-within lead", f"{level} interval"],
                              [[name, over, *_interval(rows.get(("spearman", name, over))),
                                *_interval(rows.get(("within_task_tau", name, over)))] for name, over in leads])]
    head_leads = [row for row in section["intervals"] if row["statistic"] == "roc_auc" and row["over"] is not None]
    if head_leads:
        lines += ["", *_table(["Head", "Lead over", "ROC AUC lead", f"{level} interval"],
                              [[row["name"], row["over"], *_interval(row)] for row in head_leads])]
    lines += ["- whole tasks are resampled with replacement (a task's candidates are not independent samples); "
              "percentile intervals; every number shares the resamples, so a lead's interval is paired; "
              "metrics constant on every sample have no interval"]
    lines += [f"- {row['statistic']} of {row['name']}" + (f" over {row['over']}" if row["over"] else "")
              + f": undefined on {row['undefined_resamples']} resamples (one class only), left out of its interval"
              for row in section["intervals"] if row.get("undefined_resamples")]
    return lines


def markdown(results: dict) -> str:
    """The continuous table (vs PassRatio), the binary table (vs all-pass), the heads table, the confidence
    intervals and the per-group tables, with notes; the within-task τ column appears when every row has a task id."""
    truth = results["ground_truth"]
    within = truth["n_tasks"] is not None
    tasks = f", {truth['n_tasks']} tasks" if within else ""
    lines = [f"## Metrics vs PassRatio ({truth['n']} samples{tasks}; pooled)", ""]
    rows = [[*_agreement_cells(m, within), _time(m)] for m in results["metrics"]]
    rows.append(["PassRatio (ground truth)", _number(truth["avg_pass_ratio"]), *[ABSENT] * (5 + within)])
    lines += _table([*_agreement_header(within), "Time vs BLEU"], rows)
    if within and results["metrics"]:
        lines.append(f"- τ within task: mean Kendall tau-b among the candidates of one task, over the "
                     f"{_within_tasks(results['metrics'])} of {truth['n_tasks']} tasks with at least 2 samples and varying "
                     "PassRatio; a metric constant on such a task counts as 0")
    lines += _notes(results["metrics"])
    if results["binary"]:
        rule = results["binary"][0]["threshold_rule"]
        lines += ["", f"## Binary metrics vs all-pass (metric >= threshold; threshold rule: {rule})", ""]
        rows = [[b["name"], _number(b["threshold"]), *_binary_cells(b)] for b in results["binary"]]
        rows.append(["Pass@1 (ground truth)", ABSENT, _number(truth["pass_at_1"]), *[ABSENT] * 5])
        lines += _table(["Method", "Threshold", "Positive rate", "τ = r_s = r_p", "Accuracy", "Precision", "Recall", "F1"], rows)
        lines += _notes(results["binary"])
    if results["heads"]:
        lines += ["", "## Executability and Passability heads (probability >= 0.5)", ""]
        rates = {"executable": truth["executable_rate"], "all_pass": truth["pass_at_1"]}
        within_auc = "within_task_auc" in results["heads"][0]
        lines += _heads_table(results["heads"], rates, within_auc, binary=True)
        if within_auc:
            lines.append(f"- AUC within task: mean ROC AUC among the candidates of one task, over the tasks with both classes "
                         f"({', '.join(f'{t}: {n}' for t, n in _head_tasks(results['heads']).items())}); the pooled ROC AUC also "
                         "rewards knowing which tasks are hard")
        lines += _notes(results["heads"])
    if results.get("bootstrap"):
        lines += ["", f"## Uncertainty: {_bootstrap_title(results['bootstrap'])}", "", *_bootstrap_tables(results["bootstrap"])]
    if results.get("running"):
        lines += _rows_section("## Metrics vs PassRatio on the programs that run every test", results["running"], within)
        lines.append("- only the rows whose `executable` label is 1 (no error on any test): how well a metric orders programs "
                     "that it cannot tell apart by whether they crash; knowing the `executable` label alone orders none of them")
    if results.get("model_rows"):
        lines += _model_rows(results["model_rows"], within)
    if results["by_group"]:
        lines += _by_group(results["by_group"], within)
    if results["notes"]:
        lines += ["", *(f"- {note}" for note in results["notes"])]
    codescore = results.get("codescore", {})
    signatures = [*codescore.get("signatures", {}).values(), *codescore.get("against", {}).get("signatures", {}).values()]
    if signatures:
        lines += ["", *(f"`{signature}`" for signature in signatures)]
    return "\n".join(lines) + "\n"


def _json_safe(value):
    if isinstance(value, dict):
        return {str(key): _json_safe(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(item) for item in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if hasattr(value, "item"):  # numpy scalars
        return _json_safe(value.item())
    return value


def write_json(results: dict, path: str | Path) -> None:
    """Write every number, the settings and the CodeScorer signatures; undefined numbers become ``null``."""
    Path(path).write_text(json.dumps(_json_safe(results), indent=2, ensure_ascii=False, allow_nan=False) + "\n", encoding="utf-8")


def write_scatter(runs, pass_ratio, metrics: list[dict], path: str | Path, columns: int = 3) -> None:
    """Save `scatter_figure` as a PNG."""
    scatter_figure(runs, pass_ratio, metrics, columns).savefig(path, format="png", dpi=100)


def scatter_figure(runs, pass_ratio, metrics: list[dict], columns: int = 3):
    """A grid with one scatter per metric (x: metric value, y: PassRatio) on axes fixed to 0-1 (widened
    only for a metric whose values leave that range), titled with its τ, r_s and within-task τ."""
    try:
        from matplotlib.figure import Figure
    except ImportError as error:
        raise ImportError("the scatter plot needs matplotlib: pip install matplotlib==3.11.2") from error
    if not runs:
        raise ValueError("nothing to plot: no metric was computed")
    columns = min(columns, len(runs))
    rows = math.ceil(len(runs) / columns)
    figure = Figure(figsize=(4 * columns, 3.6 * rows), layout="constrained")
    stats = {m["name"]: m for m in metrics}
    for index, run in enumerate(runs):
        axes = figure.add_subplot(rows, columns, index + 1)
        axes.scatter(run.values, pass_ratio, s=14, alpha=0.3, linewidths=0.3, edgecolors="white")
        m = stats[run.name]
        within = f"  within-task τ {_number(m['within_task_tau'], 3)}" if m.get("within_task_tau") is not None else ""
        axes.set_title(f"{run.name}\nτ {_number(m['tau'], 3)}  r_s {_number(m['spearman'], 3)}{within}", fontsize=9)
        finite = [value for value in run.values if math.isfinite(value)]
        axes.set_xlim(min([0.0, *finite]) - 0.03, max([1.0, *finite]) + 0.03)
        axes.set_ylim(-0.03, 1.03)
        axes.grid(alpha=0.3, linewidth=0.5)
        axes.set_xlabel("metric value", fontsize=8)
        axes.set_ylabel("PassRatio (execution)", fontsize=8)
        axes.tick_params(labelsize=7)
    return figure
