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


def _binary_cells(row: dict) -> list[str]:
    return [_number(row[key]) for key in ("positive_rate", "phi", "accuracy", "precision", "recall", "f1")]


def markdown(results: dict) -> str:
    """The continuous table (vs PassRatio), the binary table (vs all-pass) and the heads table, with notes."""
    truth = results["ground_truth"]
    tasks = f", {truth['n_tasks']} tasks" if truth["n_tasks"] is not None else ""
    lines = [f"## Metrics vs PassRatio ({truth['n']} samples{tasks}; pooled)", ""]
    rows = [[m["name"], *(_number(m[key]) for key in ("value", "tau", "spearman", "pearson", "mae")), _time(m)] for m in results["metrics"]]
    rows.append(["PassRatio (ground truth)", _number(truth["avg_pass_ratio"]), ABSENT, ABSENT, ABSENT, ABSENT, ABSENT])
    lines += _table(["Method", "Value", "τ (tau-b)", "r_s", "r_p", "MAE", "Time vs BLEU"], rows)
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
        rows = [[h["name"], h["target"], _number(rates[h["target"]]), _number(h.get("auc")), *_binary_cells(h)]
                for h in results["heads"]]
        lines += _table(["Head", "Target", "Target rate", "ROC AUC", "Positive rate", "τ = r_s = r_p", "Accuracy", "Precision",
                         "Recall", "F1"], rows)
        lines += _notes(results["heads"])
    if results["notes"]:
        lines += ["", *(f"- {note}" for note in results["notes"])]
    signatures = results.get("codescore", {}).get("signatures", {})
    if signatures:
        lines += ["", *(f"`{signature}`" for signature in signatures.values())]
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
    """A PNG grid with one scatter per metric (x: metric value, y: PassRatio), titled with its τ and r_s."""
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
        axes.scatter(run.values, pass_ratio, s=6, alpha=0.35, linewidths=0)
        m = stats[run.name]
        axes.set_title(f"{run.name}\nτ {_number(m['tau'], 3)}  r_s {_number(m['spearman'], 3)}", fontsize=9)
        axes.set_xlabel("metric value", fontsize=8)
        axes.set_ylabel("PassRatio", fontsize=8)
        axes.tick_params(labelsize=7)
    figure.savefig(path, format="png", dpi=100)
