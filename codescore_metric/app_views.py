"""What the Gradio app shows, computed without Gradio: example rows, input checks, the score bars,
the model card's limits, clean model-loading errors, and the file tab's checks, table and plots."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from pathlib import Path

from codescore_metric.formats import COLUMN_FOR_FIELD, OUTPUT_NAMES, InputFormat

KINDS = {"correct": "Correct", "subtly_wrong": "Subtly wrong", "not_runnable": "Not runnable"}
ESTIMATES = tuple(zip(OUTPUT_NAMES, ("CodeScore", "Executability", "Passability")))
BASELINES = (("bleu", "BLEU"), ("codebleu", "CodeBLEU"))
NO_SCORES = "No scores yet: pick an example or press Score."
FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", flags=re.S)  # a model card's YAML header


# --------------------------------------------------------------------------- single sample
def example_rows(records: Sequence[dict], picks: Sequence[tuple[str, str]]) -> list[dict]:
    """The examples ``picks`` names as ``(task_id, input_format)``, read from labelled ``records``
    whose task ids are ``<task>/<kind>``: each a dict with the four inputs and a ``label``. The code
    is stripped of surrounding whitespace, as `gr.Code` shows (and so scores) it."""
    by_id = {record["task_id"]: record for record in records}
    rows = []
    for task_id, fmt in picks:
        record = by_id[task_id]
        task, kind = task_id.split("/")
        rows.append({
            "generated": record[COLUMN_FOR_FIELD["prediction"]].strip(),
            "reference": record[COLUMN_FOR_FIELD["reference"]].strip(),
            "source": record[COLUMN_FOR_FIELD["source"]],
            "input_format": InputFormat.parse(fmt).value,
            "label": f"{KINDS[kind]}: {task}",
        })
    return rows


def _bar(key: str, name: str, value: float | None) -> str:
    if value is None:
        return (f'<div class="cs-bar cs-na" data-metric="{key}"><span class="cs-name">{name}</span>'
                '<span class="cs-track"></span><span class="cs-value">n/a</span></div>')
    return (f'<div class="cs-bar" data-metric="{key}" data-value="{value:.4f}"><span class="cs-name">{name}</span>'
            f'<span class="cs-track"><span class="cs-fill cs-{key}" style="width:{100 * value:.1f}%"></span></span>'
            f'<span class="cs-value">{value:.4f}</span></div>')


def score_bars(scores: dict | None) -> str:
    """HTML bars of the three estimates beside BLEU and CodeBLEU (n/a when ``None``); a short
    placeholder, with no numbers, when ``scores`` is ``None``."""
    if scores is None:
        return f'<div class="cs-empty">{NO_SCORES}</div>'
    estimates = "".join(_bar(key, name, scores[key]) for key, name in ESTIMATES)
    baselines = "".join(_bar(key, name, scores.get(key)) for key, name in BASELINES)
    note = "" if scores.get("bleu") is not None else '<div class="cs-note">no reference read: no text overlap to compute</div>'
    return (
        '<div class="cs-bars">'
        f'<div class="cs-group"><div class="cs-title">CodeScore estimates (learned model)</div>{estimates}</div>'
        f'<div class="cs-group"><div class="cs-title">Baselines (overlap with the reference)</div>{baselines}{note}</div>'
        "</div>"
    )


BARS_CSS = """
.cs-empty { padding: 18px; border: 1px dashed var(--border-color-primary); border-radius: 8px;
  color: var(--body-text-color-subdued); text-align: center; }
.cs-bars { display: flex; gap: 24px; flex-wrap: wrap; }
.cs-group { flex: 1 1 320px; padding: 12px 14px; border: 1px solid var(--border-color-primary); border-radius: 8px; }
.cs-title { font-weight: 600; margin-bottom: 8px; }
.cs-bar { display: grid; grid-template-columns: 110px 1fr 58px; align-items: center; gap: 10px; margin: 6px 0; }
.cs-track { height: 14px; border-radius: 7px; background: rgba(128, 128, 128, 0.18); overflow: hidden; }
.cs-fill { display: block; height: 100%; border-radius: 7px; background: #9ca3af; }
.cs-codescore { background: #f97316; }
.cs-executability { background: #3b82f6; }
.cs-passability { background: #10b981; }
.cs-value { font-variant-numeric: tabular-nums; text-align: right; }
.cs-na .cs-value, .cs-note { color: var(--body-text-color-subdued); }
.cs-note { font-size: 0.85em; margin-top: 4px; }
"""


# --------------------------------------------------------------------------- model card and errors
def model_card_body(path: str | Path) -> str:
    """A model card's markdown without its YAML header."""
    return FRONT_MATTER.sub("", Path(path).read_text(encoding="utf-8")).strip()


def model_card_limits(path: str | Path) -> str:
    """The "Limitations" section of a model card (markdown), or a pointer to the card if it has none."""
    parts = re.split(r"^## +(.+)$", model_card_body(path), flags=re.M)
    sections = {title.strip(): text.strip() for title, text in zip(parts[1::2], parts[2::2])}
    return sections.get("Limitations") or f"The model card ({Path(path).name}) has no Limitations section; read it in full."


def _causes(error: BaseException):
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        yield error
        error = error.__cause__ or error.__context__


def model_error_message(checkpoint: str | None, error: BaseException) -> str:
    """One sentence on why ``checkpoint`` (``None``: the embedded model) did not load, without the
    exception chain: the Hub cause when there is one, else the first sentence of the error."""
    from huggingface_hub.errors import HfHubHTTPError, LocalEntryNotFoundError, RepositoryNotFoundError, RevisionNotFoundError

    from codescore_metric.authors_checkpoint import AUTHORS_REPOS

    if checkpoint is None:
        name, they = "the embedded default model", "it is"
    elif str(checkpoint) in AUTHORS_REPOS:
        name, they = f"the authors' weights ({checkpoint})", "they are"
    else:
        name, they = f"the model {checkpoint}", "it is"
    causes = list(_causes(error))
    if any(isinstance(e, LocalEntryNotFoundError) for e in causes):
        reason = f"the Hugging Face Hub cannot be reached and {they} not in the local cache"
    elif any(isinstance(e, RevisionNotFoundError) for e in causes):
        reason = "the requested revision does not exist on the Hugging Face Hub"
    elif any(isinstance(e, RepositoryNotFoundError) for e in causes):
        reason = "the Hugging Face Hub has no such repository (or it is private)"
    elif any(isinstance(e, (HfHubHTTPError, ConnectionError)) for e in causes):
        reason = "the download from the Hugging Face Hub failed"
    else:
        first = (str(error).strip().splitlines() or [type(error).__name__])[0]
        reason = re.split(r"(?<=[a-z)])\. ", first)[0].rstrip(".")
    return f"Could not load {name}: {reason}."


# --------------------------------------------------------------------------- file tab
def file_problems(path: str | Path, input_format: str) -> tuple[list[tuple[int, dict]], str | None, list[tuple[int, str]]]:
    """``(rows, label field or None, problems)`` of a jsonl to score in ``input_format``.

    The rows are read and checked as ``codescore score`` does; when any row carries an execution
    label (``pass_ratio``, or the authors' ``score``), every row must hold one in [0, 1].
    """
    from codescore_metric.cli.score import row_errors
    from codescore_metric.jsonl import read_objects
    from codescore_metric.labelled import Fields, checked_ratio, with_fallback_names

    rows, problems = read_objects(path)
    problems += row_errors(rows, InputFormat.parse(input_format), dict(COLUMN_FOR_FIELD))
    label = with_fallback_names(Fields(), [row for _, row in rows]).pass_ratio
    if not any(label in row for _, row in rows):
        return rows, None, problems
    for line, row in rows:
        if label not in row:
            problems.append((line, f"missing field {label!r} (other rows have it)"))
        elif error := checked_ratio(row[label])[1]:
            problems.append((line, f"field {label!r} {error}"))
    return rows, label, problems


def agreement(scored: Sequence[dict], label: str) -> list[dict]:
    """Kendall tau and Spearman of each score column (CodeScore, BLEU, CodeBLEU) against the label
    column: ``{"metric", "n", "kendall_tau", "spearman", "notes"}`` per column present. Where some row's scores were
    decided by the static checks (``certain``), BLEU and CodeBLEU are also given those checks' CodeScore on such rows
    ("+ static checks", as in ``codescore meta-eval``), so what the model adds beyond the rules shows."""
    from codescore_metric.baselines import with_static_checks
    from codescore_metric.correlation import correlations

    truth = [float(row[label]) for row in scored]
    columns = [(name, [row[key] for row in scored]) for key, name in ESTIMATES[:1] + BASELINES if all(key in row for row in scored)]
    certain = [row.get("certain") for row in scored]
    if any(certain):
        codescores = [row["codescore"] for row in scored]
        columns += [(f"{name} + static checks", with_static_checks([row[key] for row in scored], codescores, certain))
                    for key, name in BASELINES if all(key in row for row in scored)]
    out = []
    for name, values in columns:
        corr = correlations(values, truth)
        out.append({"metric": name, "n": corr["n"], "kendall_tau": corr["tau"], "spearman": corr["spearman"], "notes": corr["notes"]})
    return out


def _number(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.3f}"


def agreement_markdown(rows: list[dict], label: str) -> str:
    """A markdown table of :func:`agreement`'s rows."""
    lines = [f"**Agreement with the execution label `{label}`** (n = {rows[0]['n']}; higher is better)", "",
             "| metric | Spearman r_s | Kendall τ |", "|---|---|---|"]
    lines += [f"| {row['metric']} | {_number(row['spearman'])} | {_number(row['kendall_tau'])} |" for row in rows]
    notes = sorted({note for row in rows for note in row["notes"]})
    return "\n".join(lines + ([""] + [f"- {note}" for note in notes] if notes else []))


def _preview(code: str, width: int = 60) -> str:
    """The code's non-blank lines on one line, joined by ⏎, cut to ``width`` characters."""
    line = " ⏎ ".join(line.strip() for line in code.splitlines() if line.strip())
    return line if len(line) <= width else line[: width - 1] + "…"


def score_table(scored: Sequence[dict], lines: Sequence[int], label: str | None):
    """A pandas DataFrame with one row per scored record: its line, task id, scores, label and code."""
    import pandas as pd

    columns = {"line": list(lines)}
    if any("task_id" in row for row in scored):
        columns["task_id"] = [str(row.get("task_id", "")) for row in scored]
    for key, name in ESTIMATES + BASELINES:
        if all(key in row for row in scored):
            columns[name] = [round(float(row[key]), 4) for row in scored]
    if label:
        columns[f"label: {label}"] = [round(float(row[label]), 4) for row in scored]
    columns["generated code"] = [_preview(row[COLUMN_FOR_FIELD["prediction"]]) for row in scored]
    return pd.DataFrame(columns)


def _figure(width: float = 5.6, height: float = 3.6):
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), dpi=110, layout="constrained")
    return figure, figure.add_subplot()


def histogram_figure(codescore: Sequence[float]):
    """A matplotlib histogram of CodeScore over ten bins of [0, 1]."""
    figure, axes = _figure()
    axes.hist(codescore, bins=[i / 10 for i in range(11)], color="#f97316", edgecolor="white")
    axes.set(xlim=(0, 1), xlabel="CodeScore (estimated PassRatio)", ylabel="rows", title=f"CodeScore of {len(codescore)} rows")
    axes.yaxis.get_major_locator().set_params(integer=True)
    return figure


def scatter_figure(codescore: Sequence[float], truth: Sequence[float], label: str, stats: dict):
    """A matplotlib scatter of CodeScore (x) against the execution label (y), titled with ``stats``'
    Spearman and Kendall tau (a row of :func:`agreement`)."""
    figure, axes = _figure()
    axes.plot([0, 1], [0, 1], color="#9ca3af", linestyle="--", linewidth=1, label="CodeScore = label")
    axes.scatter(codescore, truth, s=36, alpha=0.75, color="#f97316", edgecolors="white", linewidths=0.5)
    axes.set(xlim=(-0.02, 1.02), ylim=(-0.05, 1.05), xlabel="CodeScore (estimate)", ylabel=f"{label} (measured by running tests)",
             title=f"Spearman r_s = {_number(stats['spearman'])}, Kendall τ = {_number(stats['kendall_tau'])} (n = {stats['n']})")
    axes.legend(loc="upper left", frameon=False, fontsize=8)
    return figure
