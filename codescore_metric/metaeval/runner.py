"""Compute every metric on execution-labelled samples with timing, and measure agreement.

The rows are read by ``codescore_metric.labelled`` (which describes them). A task id (str or int) in
every row adds the mean within-task Kendall tau and confidence intervals from resampling tasks
(``codescore_metric.metaeval.bootstrap``); a group field (``Settings.group_field``, e.g. the
generating models joined by commas) adds the same numbers on each group's rows, sliced from the
metric values computed once on all rows.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import asdict, dataclass

import numpy as np

from codescore_metric import baselines
from codescore_metric.correlation import binary_agreement, correlations, roc_auc, within_task_auc, within_task_kendall
from codescore_metric.formats import ARGUMENT_FOR_FIELD, InputFormat
from codescore_metric.labelled import NO_GROUP, Fields, LabelledData, count_tasks, load_labelled
from codescore_metric.metaeval.bootstrap import HEAD_TARGETS, PLAIN_BASELINES, RULES_SUFFIX, default_leads, head_name, task_bootstrap
from codescore_metric.results import truncation_note, truncation_summary

HEAD_THRESHOLD = 0.5  # the Executability and Passability heads are probabilities (paper RQ2)
MIN_GROUP_ROWS = 2


@dataclass
class Settings:
    """What to compute. ``formats=None`` means every format the data supports; ``threshold=None`` the best one."""

    formats: tuple[str, ...] | None = None
    codescore: bool = True
    codebleu: bool = True
    checkpoint: str | None = None
    against: str | None = None  # a second checkpoint, scored the same way; its lead gets paired intervals
    device: str | None = None
    dtype: str | None = None
    normalization: str | None = None
    static_checks: bool | None = None
    batch_size: int | None = None
    threshold: float | None = 0.5
    criterion: str = "phi"
    progress: bool = False
    group_field: str | None = "generator"  # split the results by this field where the file has it; None: never
    bootstrap: int = 1000  # resamples of the tasks for confidence intervals (needs task ids); 0: none
    bootstrap_seed: int = 0


@dataclass
class MetricRun:
    """One metric's per-sample values on the data; ``seconds`` is ``None`` for precomputed columns."""

    name: str
    kind: str  # "codescore", "baseline" or "extra"
    values: np.ndarray
    seconds: float | None
    input_format: str | None = None
    executability: np.ndarray | None = None
    passability: np.ndarray | None = None
    certain: list[str | None] | None = None  # per row, why the scorer's static checks decided its CodeScore (None: the model)



# --------------------------------------------------------------------------- computing
def _timed(function, *args, **kwargs):
    start = time.perf_counter()
    result = function(*args, **kwargs)
    return result, time.perf_counter() - start


def _formats(data: LabelledData, requested: tuple[str, ...] | None, fields: Fields) -> list[str]:
    supported = data.supported_formats()
    if requested is None:
        return supported
    chosen = [InputFormat.parse(fmt).value for fmt in requested]
    absent = {"reference": fields.reference if data.references is None else None, "source": fields.source if data.sources is None else None}
    for fmt in chosen:
        if fmt not in supported:
            missing = [absent[name] for name in InputFormat(fmt).fields if absent.get(name)]
            raise ValueError(f"format {fmt!r} needs field(s) {missing} in every row; no row has them (supported here: {supported})")
    return list(dict.fromkeys(chosen))


def against_name(run_name: str, checkpoint: str) -> str:
    """The name of the ``--against`` checkpoint's run beside ``run_name`` (a run of the main checkpoint)."""
    return f"{run_name} of {checkpoint}"


def _codescore_runs(data: LabelledData, formats: list[str], settings: Settings,
                    against: bool = False) -> tuple[list[MetricRun], dict, list[str]]:
    from codescore_metric.scorer import CodeScorer

    checkpoint = settings.against if against else settings.checkpoint
    scorer, load_seconds = _timed(CodeScorer, checkpoint, device=settings.device, dtype=settings.dtype,
                                  normalization=settings.normalization, static_checks=settings.static_checks)
    texts = {"prediction": data.predictions, "reference": data.references, "source": data.sources}

    def score(fmt: str, count: int | None = None):
        arguments = {ARGUMENT_FOR_FIELD[name]: texts[name][:count] for name in InputFormat(fmt).fields}
        return scorer.score(**arguments, input_format=fmt, batch_size=settings.batch_size,
                            progress_bar=settings.progress and count is None)

    score(formats[0], count=1)  # warm-up (kernels, allocator) so the first timed format is not penalised
    runs, signatures, truncation, notes = [], {}, {}, []
    for fmt in formats:
        result, seconds = _timed(score, fmt)
        signatures[fmt] = result.signature
        truncation[fmt] = truncation_summary(result.truncated)
        if truncation[fmt]["samples"]:
            notes.append(f"CodeScore ({InputFormat(fmt).label}, at most {scorer.config.max_length} tokens): "
                         + truncation_note(result.truncated))
        name = f"CodeScore ({InputFormat(fmt).label})"
        runs.append(MetricRun(against_name(name, checkpoint) if against else name, "codescore", np.asarray(result.codescore),
                              seconds, fmt, np.asarray(result.executability), np.asarray(result.passability),
                              list(result.certain)))
    info = {"signatures": signatures, "load_seconds": load_seconds, "device": str(scorer.device), "model": scorer.model_id,
            "max_length": scorer.config.max_length, "truncation": truncation}
    return runs, info, notes


def _baseline_runs(data: LabelledData, settings: Settings) -> list[MetricRun]:
    functions = [("BLEU", baselines.sentence_bleu), ("Exact match", baselines.exact_match)]
    if settings.codebleu:
        functions.insert(1, ("CodeBLEU", baselines.sentence_codebleu))
    runs = []
    for name, function in functions:
        try:
            values, seconds = _timed(function, data.predictions, data.references)
        except ImportError as error:
            raise ValueError(f"{error}; or pass --no-codebleu") from error
        runs.append(MetricRun(name, "baseline", np.asarray(values, dtype=np.float64), seconds))
    return runs


def baselines_with_static_checks(runs: list[MetricRun]) -> list[MetricRun]:
    """BLEU and CodeBLEU given the scorer's certain CodeScore where its static checks decide a row (those of the first
    CodeScore run that reads the reference), else their own value: CodeScore's lead over these is what the learned
    model adds beyond the rules. Empty when no such run decided any row."""
    decider = next((run for run in runs if run.kind == "codescore" and run.certain is not None
                    and "reference" in InputFormat(run.input_format).fields), None)
    if decider is None or not any(decider.certain):
        return []
    return [MetricRun(f"{run.name}{RULES_SUFFIX}", "baseline",
                      np.asarray(baselines.with_static_checks(run.values, decider.values, decider.certain)), None)
            for run in runs if run.kind == "baseline" and run.name in PLAIN_BASELINES]


def compute_metrics(data: LabelledData, settings: Settings, fields: Fields = Fields()) -> tuple[list[MetricRun], dict, list[str]]:
    """``(runs, codescore_info, notes)``: every metric's per-sample values, timed, in table order."""
    notes, runs, info = [], [], {}
    formats = _formats(data, settings.formats, fields) if settings.codescore else []
    if settings.codescore and not formats:
        notes.append(f"CodeScore skipped: no input format is possible without {fields.reference!r} or {fields.source!r}")
    if data.references is None:
        notes.append(f"BLEU, CodeBLEU and exact match skipped: they need reference code (field {fields.reference!r})")
    else:
        runs += _baseline_runs(data, settings)
    runs += [MetricRun(name, "extra", values, None) for name, values in data.extras.items()]
    if formats:
        codescore_runs, info, truncation_notes = _codescore_runs(data, formats, settings)
        runs += codescore_runs
        notes += truncation_notes
        if settings.against is not None:
            against_runs, info["against"], truncation_notes = _codescore_runs(data, formats, settings, against=True)
            runs += against_runs
            notes += [f"{settings.against}: {note}" for note in truncation_notes]
        ruled = baselines_with_static_checks(runs)
        if ruled:
            last_baseline = max(index for index, run in enumerate(runs) if run.kind == "baseline")
            runs[last_baseline + 1:last_baseline + 1] = ruled
            notes.append(f"{', '.join(run.name for run in ruled)}: the baseline with the scorer's certain CodeScore (0 or 1) "
                         "on the rows its static checks decide, else its own value; CodeScore's lead over it is the "
                         "learned model's own")
    return runs, info, notes


# --------------------------------------------------------------------------- agreement
def _relative_time(run: MetricRun, bleu_seconds: float | None) -> float | None:
    if run.seconds is None or not bleu_seconds:
        return None
    return run.seconds / bleu_seconds


def _heads(runs: list[MetricRun], data: LabelledData, indices: np.ndarray | None = None) -> list[dict]:
    """Each CodeScore run's head agreement with its target, on every row or on the rows ``indices``."""
    rows = []
    task_ids = data.task_ids if data.task_ids is None or indices is None else [data.task_ids[i] for i in indices]
    for run in runs:
        if run.kind != "codescore":
            continue
        for head, target, values in HEAD_TARGETS:
            labels = getattr(data, target)
            if labels is not None:
                probabilities = getattr(run, values)
                if indices is not None:
                    labels, probabilities = np.asarray(labels)[indices], probabilities[indices]
                agreement = binary_agreement(probabilities, labels, threshold=HEAD_THRESHOLD)
                within = {} if task_ids is None else within_task_auc(probabilities, labels, task_ids, target)
                rows.append({"name": head_name(head, run), "target": target,
                             "auc": roc_auc(probabilities, labels, target), **within, **agreement})
    return rows


def _agreement(values: np.ndarray, pass_ratio: np.ndarray, task_ids: list | None) -> dict:
    """:func:`correlations` plus the within-task tau (``None`` without task ids), their notes joined."""
    pooled = correlations(values, pass_ratio)
    if task_ids is None:
        return {**pooled, "within_task_tau": None, "within_task_tasks": None}
    within = within_task_kendall(values, pass_ratio, task_ids)
    return {**pooled, **within, "notes": pooled["notes"] + within["notes"]}


def group_indices(groups: list[tuple[str, ...]]) -> dict[str, np.ndarray]:
    """The row indices of each group name (a row counts under each of its names), sorted by name, ``(none)`` last."""
    members: dict[str, list[int]] = {}
    for index, names in enumerate(groups):
        for name in names:
            members.setdefault(name, []).append(index)
    return {name: np.asarray(members[name]) for name in sorted(members, key=lambda name: (name == NO_GROUP, name))}


def _rows_section(name: str, indices: np.ndarray, data: LabelledData, runs: list[MetricRun]) -> dict:
    """The continuous numbers (pooled and within task) of every run on the rows ``indices``."""
    pass_ratio = data.pass_ratio[indices]
    task_ids = None if data.task_ids is None else [data.task_ids[i] for i in indices]
    return {"group": name, "n": len(indices), "n_tasks": None if task_ids is None else count_tasks(task_ids),
            "avg_pass_ratio": float(np.mean(pass_ratio)),
            "metrics": [{"name": run.name, **_agreement(run.values[indices], pass_ratio, task_ids)} for run in runs]}


def _running_programs(data: LabelledData, runs: list[MetricRun]) -> dict | None:
    """The continuous numbers on the programs that run every test without an error (``executable`` 1): how well a
    metric orders what it cannot tell apart by whether it crashes. ``None`` without an executable field, or with
    fewer than :data:`MIN_GROUP_ROWS` such rows, or when every row runs (the main table says it all)."""
    if data.executable is None:
        return None
    indices = np.flatnonzero(np.asarray(data.executable) == 1)
    if len(indices) < MIN_GROUP_ROWS or len(indices) == len(data.pass_ratio):
        return None
    return _rows_section("programs that run every test", indices, data, runs)


def _model_rows(data: LabelledData, runs: list[MetricRun]) -> dict | None:
    """The continuous and head numbers on the rows whose CodeScore no static check decided, in any CodeScore run: what
    the model itself contributes, since the main tables count the rules' certain zeros and ones too. ``None`` when no
    row was decided (the main tables say it all) or fewer than :data:`MIN_GROUP_ROWS` rows are left."""
    reasons = [run.certain for run in runs if run.kind == "codescore" and run.certain is not None]
    if not reasons:
        return None
    decided = [next((reason for reason in row if reason), None) for row in zip(*reasons)]
    indices = np.asarray([index for index, reason in enumerate(decided) if reason is None], dtype=int)
    if len(indices) < MIN_GROUP_ROWS or len(indices) == len(decided):
        return None
    counts = Counter(reason for reason in decided if reason)
    rates = {target: float(np.mean(np.asarray(getattr(data, target))[indices]))
             for _, target, _ in HEAD_TARGETS if getattr(data, target) is not None}
    return {**_rows_section("rows the model reads", indices, data, runs), "heads": _heads(runs, data, indices),
            "target_rates": rates, "decided": dict(counts.most_common())}


def _by_group(data: LabelledData, runs: list[MetricRun]) -> dict:
    """The continuous numbers on each group's rows with at least :data:`MIN_GROUP_ROWS` rows."""
    sections, small = [], []
    for name, indices in group_indices(data.groups).items():
        if len(indices) < MIN_GROUP_ROWS:
            small.append(name)
            continue
        sections.append(_rows_section(name, indices, data, runs))
    notes = []
    shared = sum(len(names) > 1 for names in data.groups)
    if shared:
        notes.append(f"groups overlap: {shared} row(s) name several {data.group_field} values (comma-separated) and count under each")
    if small:
        notes.append(f"left out, fewer than {MIN_GROUP_ROWS} rows: {', '.join(small)}")
    return {"field": data.group_field, "groups": sections, "notes": notes}


def meta_evaluate(data: LabelledData, runs: list[MetricRun], settings: Settings) -> dict:
    """Every number of the meta-evaluation: continuous, binary and head tables, per-group numbers, ground truth, notes."""
    bleu_seconds = next((run.seconds for run in runs if run.name == "BLEU"), None)
    metrics = [
        {"name": run.name, "kind": run.kind, "input_format": run.input_format, **_agreement(run.values, data.pass_ratio, data.task_ids),
         "seconds": run.seconds, "relative_time": _relative_time(run, bleu_seconds)}
        for run in runs
    ]
    notes = [] if data.task_ids is not None else ["within-task τ not computed: not every row has a task id"]
    if data.all_pass is None:
        binary = []
        notes.append("binary table skipped: no all_pass field")
    else:
        binary = [{"name": run.name, **binary_agreement(run.values, data.all_pass, settings.threshold, settings.criterion)} for run in runs]
    if data.executable is None:
        notes.append("Executability head not evaluated: no executable field")
    ground_truth = {
        "n": len(data.pass_ratio),
        "n_tasks": data.n_tasks,
        "avg_pass_ratio": float(np.mean(data.pass_ratio)),
        "pass_at_1": None if data.all_pass is None else float(np.mean(data.all_pass)),
        "executable_rate": None if data.executable is None else float(np.mean(data.executable)),
    }
    by_group = None if data.groups is None else _by_group(data, runs)
    return {"settings": asdict(settings), "ground_truth": ground_truth, "metrics": metrics, "binary": binary,
            "heads": _heads(runs, data), "running": _running_programs(data, runs), "model_rows": _model_rows(data, runs),
            "by_group": by_group,
            "bootstrap": _bootstrap(data, runs, settings, notes), "notes": notes}


def _bootstrap(data: LabelledData, runs: list[MetricRun], settings: Settings, notes: list[str]) -> dict | None:
    """The task bootstrap's intervals, or ``None`` (with a note when it was asked for but cannot run)."""
    if not settings.bootstrap:
        return None
    if data.task_ids is None or data.n_tasks < 2:
        notes.append("confidence intervals not computed: they resample tasks and need a task id in every row, at least 2 tasks")
        return None
    leads = default_leads(runs)
    if settings.against is not None:
        names = {run.name for run in runs}
        leads += [(run.name, against_name(run.name, settings.against)) for run in runs
                  if against_name(run.name, settings.against) in names]
    return task_bootstrap(runs, data, settings.bootstrap, settings.bootstrap_seed, leads)


@dataclass
class MetaEvaluation:
    """The outcome of :func:`run_meta_eval`: per-sample runs and PassRatio (for plots), the results dict (tables, JSON)."""

    runs: list[MetricRun]
    pass_ratio: np.ndarray
    results: dict


def run_meta_eval(path, settings: Settings, fields: Fields = Fields(), extra_metrics: tuple[str, ...] = ()) -> MetaEvaluation:
    """Load a labelled jsonl, compute every metric and measure its agreement with execution."""
    data = load_labelled(path, fields, extra_metrics, settings.group_field)
    runs, codescore_info, notes = compute_metrics(data, settings, fields)
    results = meta_evaluate(data, runs, settings)
    results["notes"] = notes + results["notes"]
    results["settings"].update(input=str(path), fields=asdict(fields), extra_metrics=list(extra_metrics))
    results["codescore"] = codescore_info
    return MetaEvaluation(runs, data.pass_ratio, results)
