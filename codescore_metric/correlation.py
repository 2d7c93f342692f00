"""Agreement between a metric and execution ground truth: pure functions over arrays, used by the
meta-evaluation (``codescore_metric.metaeval``) and by training's validation (``codescore_metric.training``).

Continuous metrics are compared with PassRatio as in the paper (§4.1.3, pooled over all samples):
Kendall tau-b, Spearman r_s and Pearson r_p (``scipy.stats``) and MAE = mean |PassRatio - metric|.
A correlation that is undefined (fewer than two samples, or a constant input) is ``nan`` and a note
says why; nothing here raises for such data.

Binary metrics are compared with all-pass (Pass@1 of the sample, the paper's Table 6). A metric is
binarised as ``value >= threshold``. The paper does not state its threshold rule, so two rules are
offered and the one used is always reported:

* fixed: one threshold for every metric (default 0.5, meant for probability-like metrics);
* best: for each metric, the threshold that maximises agreement with all-pass *on the data being
  evaluated* (optimistic: it is fitted and measured on the same samples). Agreement is the phi
  coefficient (criterion ``"phi"``, the number the table reports; for two binary variables phi =
  tau-b = r_s = r_p) or accuracy (criterion ``"accuracy"``; with the paper's 0.1-16 % pass rates
  it often picks "nothing passes"). Candidates are the metric's distinct values plus one just above
  its maximum (nothing predicted positive); ties go to the highest threshold.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from scipy import stats

THRESHOLD_CRITERIA = ("phi", "accuracy")
NAN = float("nan")


def _as_array(name: str, values) -> np.ndarray:
    array = np.asarray(values, dtype=np.float64)
    if array.ndim != 1:
        raise ValueError(f"{name} must be a one-dimensional sequence of numbers, got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} holds {int(np.sum(~np.isfinite(array)))} non-finite value(s) (nan or inf); remove or fix them first")
    return array


def _pair(metric, truth, truth_name: str) -> tuple[np.ndarray, np.ndarray]:
    x, y = _as_array("metric", metric), _as_array(truth_name, truth)
    if len(x) != len(y):
        raise ValueError(f"metric and {truth_name} must have the same length, got {len(x)} and {len(y)}")
    return x, y


def undefined_reason(x: np.ndarray, y: np.ndarray, truth_name: str) -> str | None:
    """Why a correlation between ``x`` (the metric) and ``y`` is undefined, or ``None`` if it is defined."""
    if len(x) < 2:
        return f"correlation undefined: {len(x)} sample(s), at least 2 are needed"
    if np.ptp(x) == 0:
        return f"correlation undefined: the metric is constant ({x[0]:.4g} on every sample)"
    if np.ptp(y) == 0:
        return f"correlation undefined: {truth_name} is constant ({y[0]:.4g} on every sample)"
    return None


def correlations(metric, truth, truth_name: str = "PassRatio") -> dict:
    """``{"n", "value", "tau", "spearman", "pearson", "mae", "notes"}`` of a metric against ground truth.

    ``value`` is the metric's mean; ``mae`` is mean |truth - metric|. Undefined numbers are ``nan``
    with a line in ``notes``.
    """
    x, y = _pair(metric, truth, truth_name)
    result = {"n": len(x), "value": float(np.mean(x)) if len(x) else NAN, "mae": float(np.mean(np.abs(y - x))) if len(x) else NAN}
    reason = undefined_reason(x, y, truth_name)
    if reason:
        return {**result, "tau": NAN, "spearman": NAN, "pearson": NAN, "notes": [reason]}
    with warnings.catch_warnings():  # scipy warns on near-constant input; the numbers are still right
        warnings.simplefilter("ignore", RuntimeWarning)
        tau = stats.kendalltau(x, y, variant="b").statistic
        spearman = stats.spearmanr(x, y).statistic
        pearson = stats.pearsonr(x, y).statistic
    return {**result, "tau": float(tau), "spearman": float(spearman), "pearson": float(pearson), "notes": []}


def indices_by_task(task_ids) -> dict[str, list[int]]:
    """Sample indices of each task, in first-seen order; ids are compared by ``repr`` (so 1 and "1" differ)."""
    groups: dict[str, list[int]] = {}
    for index, task_id in enumerate(task_ids):
        groups.setdefault(repr(task_id), []).append(index)
    return groups


def _task_groups(task_ids, n_samples: int) -> list[list[int]]:
    """The sample indices of each task, after checking that ``task_ids`` has one id per sample."""
    task_ids = list(task_ids)
    if len(task_ids) != n_samples:
        raise ValueError(f"task_ids must have one id per sample, got {len(task_ids)} ids for {n_samples} samples")
    return list(indices_by_task(task_ids).values())


def task_kendall(task_metric: np.ndarray, task_truth: np.ndarray) -> float | None:
    """Kendall tau-b of one task's candidates; ``None`` when the task does not count (fewer than 2
    samples or a constant truth), 0 when only the metric is constant."""
    if len(task_truth) < 2 or np.ptp(task_truth) == 0:
        return None
    if np.ptp(task_metric) == 0:
        return 0.0
    return float(stats.kendalltau(task_metric, task_truth, variant="b").statistic)


def within_task_kendall(metric, truth, task_ids, truth_name: str = "PassRatio") -> dict:
    """``{"within_task_tau", "within_task_tasks", "notes"}``: the mean Kendall tau-b within each task.

    Tasks with one sample or a constant ``truth`` are skipped; a task where only the metric is constant
    counts as 0. ``within_task_tau`` is ``nan`` with a note when no task qualifies.
    """
    x, y = _pair(metric, truth, truth_name)
    taus, constant = [], 0
    for indices in _task_groups(task_ids, len(x)):
        tau = task_kendall(x[indices], y[indices])
        if tau is not None:
            taus.append(tau)
            constant += int(np.ptp(x[indices]) == 0)
    notes = []
    if not taus:
        notes.append(f"within-task τ undefined: no task has at least 2 samples with differing {truth_name}")
    if constant:
        notes.append(f"within-task τ: the metric is constant on {constant} of {len(taus)} task(s), counted as τ = 0")
    return {"within_task_tau": float(np.mean(taus)) if taus else NAN, "within_task_tasks": len(taus), "notes": notes}


def _labels(name: str, values) -> np.ndarray:
    array = _as_array(name, values)
    if not np.all((array == 0) | (array == 1)):
        raise ValueError(f"{name} must hold only 0/1 (or False/True) values")
    return array.astype(bool)


def _confusion(predicted: np.ndarray, labels: np.ndarray) -> tuple[int, int, int, int]:
    tp = int(np.sum(predicted & labels))
    fp = int(np.sum(predicted & ~labels))
    fn = int(np.sum(~predicted & labels))
    return tp, fp, fn, len(labels) - tp - fp - fn


def _ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator else NAN


def _phi(tp, fp, fn, tn):
    """Matthews/phi coefficient from confusion counts (arrays or ints); ``nan`` where a margin is empty."""
    tp, fp, fn, tn = (np.asarray(count, dtype=np.float64) for count in (tp, fp, fn, tn))  # int products overflow
    denominator = np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator > 0, (tp * tn - fp * fn) / denominator, np.nan)


def classification(predicted, labels, target_name: str = "all_pass") -> dict:
    """Binary predictions against binary labels.

    ``{"n", "positive_rate", "phi", "accuracy", "precision", "recall", "f1", "notes"}``; ``phi``
    equals Kendall tau-b, Spearman and Pearson for two binary variables. A number whose denominator
    is zero (e.g. precision with no positive prediction) is ``nan`` with a note.
    """
    predicted, labels = _labels("predictions", predicted), _labels(target_name, labels)
    if len(predicted) != len(labels):
        raise ValueError(f"predictions and {target_name} must have the same length, got {len(predicted)} and {len(labels)}")
    tp, fp, fn, tn = _confusion(predicted, labels)
    n = len(labels)
    precision, recall = _ratio(tp, tp + fp), _ratio(tp, tp + fn)
    notes = []
    reason = undefined_reason(predicted.astype(float), labels.astype(float), target_name)
    if reason:
        notes.append(reason.replace("the metric", "the binary prediction"))
    if math.isnan(precision):
        notes.append("precision undefined: nothing was predicted positive")
    if math.isnan(recall):
        notes.append(f"recall undefined: no sample has {target_name} = 1")
    return {
        "n": n,
        "positive_rate": _ratio(tp + fp, n),
        "phi": NAN if reason else float(_phi(tp, fp, fn, tn)),
        "accuracy": _ratio(tp + tn, n),
        "precision": precision,
        "recall": recall,
        "f1": _ratio(2 * tp, 2 * tp + fp + fn),
        "notes": notes,
    }


def roc_auc(scores, labels, target_name: str = "executable") -> float:
    """Area under the ROC curve of ``scores`` for binary ``labels`` (Mann-Whitney U / (n_pos n_neg),
    ties count half); ``nan`` when one class is absent. Threshold-free, unlike accuracy at 0.5."""
    x, y = _pair(scores, labels, target_name)
    y = _labels(target_name, y)
    positives, negatives = x[y], x[~y]
    if not len(positives) or not len(negatives):
        return NAN
    return float(stats.mannwhitneyu(positives, negatives).statistic / (len(positives) * len(negatives)))


def within_task_auc(scores, labels, task_ids, target_name: str = "all_pass") -> dict:
    """``{"within_task_auc", "within_task_auc_tasks"}``: the mean ROC AUC among the candidates of one task, over the
    tasks that have both classes (``nan`` when none has). Unlike the pooled AUC it does not reward knowing which
    tasks are hard, only telling a task's passing candidates from its failing ones."""
    x, y = _pair(scores, labels, target_name)
    y = _labels(target_name, y)
    aucs = [roc_auc(x[indices], y[indices], target_name) for indices in _task_groups(task_ids, len(x))
            if 0 < y[indices].sum() < len(indices)]
    return {"within_task_auc": float(np.mean(aucs)) if aucs else NAN, "within_task_auc_tasks": len(aucs)}


def best_threshold(metric, labels, criterion: str = "phi") -> float:
    """The threshold ``t`` for which ``metric >= t`` agrees best with ``labels`` under ``criterion``.

    Ties go to the highest threshold; if no candidate has a defined phi, the result is the
    highest threshold (nothing predicted positive).
    """
    if criterion not in THRESHOLD_CRITERIA:
        raise ValueError(f"criterion must be one of {THRESHOLD_CRITERIA}, got {criterion!r}")
    x, y = _pair(metric, labels, "labels")
    y = _labels("labels", y)
    if not len(x):
        raise ValueError("best_threshold needs at least one sample")
    order = np.argsort(-x, kind="stable")
    sorted_x, sorted_y = x[order], y[order]
    # Candidate k predicts the first k sorted samples positive; only cuts between distinct values count.
    cuts = np.flatnonzero(np.diff(sorted_x) != 0) + 1
    counts = np.concatenate(([0], cuts, [len(x)]))
    thresholds = np.concatenate(([np.nextafter(sorted_x[0], np.inf)], sorted_x[counts[1:] - 1]))
    tp = np.concatenate(([0], np.cumsum(sorted_y)))[counts]
    fp = counts - tp
    fn, tn = int(y.sum()) - tp, (len(y) - int(y.sum())) - fp
    scores = _phi(tp, fp, fn, tn) if criterion == "phi" else (tp + tn) / len(y)
    if np.all(np.isnan(scores)):
        return float(thresholds[0])
    return float(thresholds[int(np.nanargmax(scores))])


def binary_agreement(metric, labels, threshold: float | None = None, criterion: str = "phi") -> dict:
    """Binarise ``metric`` at ``threshold`` (``None``: :func:`best_threshold`) and compare with ``labels``.

    Returns :func:`classification`'s dict plus ``"threshold"`` and ``"threshold_rule"``
    (``"fixed"`` or ``"best-<criterion>"``).
    """
    x, y = _pair(metric, labels, "all_pass")
    rule = "fixed"
    if threshold is None:
        threshold, rule = best_threshold(x, y, criterion), f"best-{criterion}"
    elif not math.isfinite(threshold):
        raise ValueError(f"threshold must be a finite number, got {threshold!r}")
    return {"threshold": float(threshold), "threshold_rule": rule, **classification(x >= threshold, y)}
