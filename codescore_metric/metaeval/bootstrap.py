"""How precisely the meta-evaluation's numbers are known: confidence intervals from resampling tasks.

The candidates of one task share its difficulty, its reference and its tests, so they are not
independent samples: a validation set of 37 tasks measures between-task agreement on 37 points,
however many programs it holds. The intervals here resample whole tasks with replacement (a
cluster bootstrap, ``scipy.stats.bootstrap`` with percentile intervals) and recompute on every
resample:

* each metric's pooled Spearman and mean within-task Kendall tau;
* each head's ROC AUC;
* each CodeScore format's lead over BLEU and over CodeBLEU, in both correlations.

Every statistic is computed on the same resamples, so a lead's interval is a paired one: it answers
"is CodeScore ahead of BLEU on tasks like these", not two overlapping intervals read by eye.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy import stats

from codescore_metric.correlation import indices_by_task, roc_auc, task_kendall
from codescore_metric.formats import InputFormat

CONFIDENCE = 0.95
BASELINES = ("BLEU", "CodeBLEU")  # the metrics a CodeScore format's lead is measured against
HEAD_TARGETS = (("Executability", "executable", "executability"), ("Passability", "all_pass", "passability"))


class _Statistics:
    """Every statistic of one resample of tasks, as one vector (so all of them share the resample)."""

    def __init__(self, runs, data):
        self.task_rows = [np.asarray(rows) for rows in indices_by_task(data.task_ids).values()]
        self.pass_ratio = data.pass_ratio
        truth = [self.pass_ratio[rows] for rows in self.task_rows]
        self.correlated = [run for run in runs if np.ptp(run.values) > 0]  # a constant metric has no correlation
        self.task_taus = {run.name: np.array([_nan_if_none(task_kendall(run.values[rows], y))
                                              for rows, y in zip(self.task_rows, truth)])
                          for run in self.correlated}
        self.heads = [(f"{head} head ({InputFormat(run.input_format).label})", getattr(run, values), getattr(data, target))
                      for run in runs if run.kind == "codescore"
                      for head, target, values in HEAD_TARGETS if getattr(data, target) is not None]
        names = {run.name for run in self.correlated}
        self.leads = [(run.name, baseline) for run in self.correlated if run.kind == "codescore"
                      for baseline in BASELINES if baseline in names]

    def labels(self) -> list[tuple[str, str, str | None]]:
        """``(statistic, name, over)`` of each vector entry, in order."""
        return ([("spearman", run.name, None) for run in self.correlated]
                + [("within_task_tau", run.name, None) for run in self.correlated]
                + [("roc_auc", name, None) for name, _, _ in self.heads]
                + [(statistic, name, baseline) for statistic in ("spearman", "within_task_tau") for name, baseline in self.leads])

    def __call__(self, tasks: np.ndarray) -> np.ndarray:
        rows = np.concatenate([self.task_rows[task] for task in tasks])
        y = self.pass_ratio[rows]
        with warnings.catch_warnings():  # a resample can make a metric or a task constant: nan, kept as such
            warnings.simplefilter("ignore", RuntimeWarning)
            spearman = {run.name: stats.spearmanr(run.values[rows], y).statistic for run in self.correlated}
            within = {name: np.nanmean(taus[tasks]) for name, taus in self.task_taus.items()}
        aucs = [roc_auc(values[rows], labels[rows]) for _, values, labels in self.heads]
        leads = [[table[name] - table[baseline] for name, baseline in self.leads] for table in (spearman, within)]
        return np.array([*spearman.values(), *within.values(), *aucs, *leads[0], *leads[1]], dtype=np.float64)


def _nan_if_none(value: float | None) -> float:
    return float("nan") if value is None else value


def task_bootstrap(runs, data, n_resamples: int = 1000, seed: int = 0) -> dict:
    """Percentile intervals (95 %) over ``n_resamples`` resamples of the tasks of ``data`` (a
    ``LabelledData`` with task ids) for the statistics listed in the module docstring, each next to
    its value on all tasks: ``{"n_resamples", "n_tasks", "confidence", "seed", "intervals": [...]}``."""
    if data.task_ids is None:
        raise ValueError("the task bootstrap needs a task id in every row (field task_id)")
    if n_resamples < 2:
        raise ValueError(f"n_resamples must be at least 2 (or turn the bootstrap off); got {n_resamples}")
    statistics = _Statistics(runs, data)
    n_tasks = len(statistics.task_rows)
    if n_tasks < 2:
        raise ValueError(f"the task bootstrap needs at least 2 tasks; the data has {n_tasks}")
    everything = statistics(np.arange(n_tasks))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        result = stats.bootstrap((np.arange(n_tasks),), statistics, n_resamples=n_resamples, vectorized=False,
                                 confidence_level=CONFIDENCE, method="percentile", rng=np.random.default_rng(seed))
    low, high = np.atleast_1d(result.confidence_interval.low), np.atleast_1d(result.confidence_interval.high)
    intervals = [{"statistic": statistic, "name": name, "over": over, "value": float(value), "low": float(lo), "high": float(hi)}
                 for (statistic, name, over), value, lo, hi in zip(statistics.labels(), everything, low, high)]
    return {"n_resamples": n_resamples, "n_tasks": n_tasks, "confidence": CONFIDENCE, "seed": seed, "intervals": intervals}
