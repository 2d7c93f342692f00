"""How precisely the meta-evaluation's numbers are known: confidence intervals from resampling tasks.

The candidates of one task share its difficulty, its reference and its tests, so they are not
independent samples: a validation set of 37 tasks measures between-task agreement on 37 points,
however many programs it holds. The intervals here resample whole tasks with replacement (a
cluster bootstrap, ``scipy.stats.bootstrap`` with percentile intervals) and recompute on every
resample:

* each metric's pooled Spearman and mean within-task Kendall tau;
* each head's ROC AUC;
* each CodeScore format's lead over BLEU and over CodeBLEU, in both correlations, or over any other
  run named in ``leads`` (e.g. another checkpoint's run of the same format: then also in both heads'
  ROC AUC).

A resample on which a statistic is undefined (a head's ROC AUC where the resampled tasks hold one
class only) is left out of that statistic's interval and counted (``undefined_resamples``).

Every statistic is computed on the same resamples, so a lead's interval is a paired one: it answers
"is CodeScore ahead of BLEU on tasks like these", not two overlapping intervals read by eye.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy import stats

from codescore_metric.correlation import indices_by_task, roc_auc, task_kendall

CONFIDENCE = 0.95
PLAIN_BASELINES = ("BLEU", "CodeBLEU")
RULES_SUFFIX = " + static checks"  # a baseline given the scorer's certain scores where its static checks decide a row
# the metrics a CodeScore format's lead is measured against: the plain baselines and the same with the static checks
BASELINES = (*PLAIN_BASELINES, *(f"{name}{RULES_SUFFIX}" for name in PLAIN_BASELINES))
HEAD_TARGETS = (("Executability", "executable", "executability"), ("Passability", "all_pass", "passability"))


def head_name(head: str, run) -> str:
    """A CodeScore run's head as tables name it: ``CodeScore (Ref&NL)`` -> ``Passability head (Ref&NL)``."""
    return run.name.replace("CodeScore", f"{head} head", 1)


def default_leads(runs) -> list[tuple[str, str]]:
    """Each CodeScore run over each of :data:`BASELINES` among the runs."""
    names = {run.name for run in runs}
    return [(run.name, baseline) for run in runs if run.kind == "codescore" for baseline in BASELINES if baseline in names]


class _Statistics:
    """Every statistic of one resample of tasks, as one vector (so all of them share the resample)."""

    def __init__(self, runs, data, leads: list[tuple[str, str]]):
        self.task_rows = [np.asarray(rows) for rows in indices_by_task(data.task_ids).values()]
        self.pass_ratio = data.pass_ratio
        truth = [self.pass_ratio[rows] for rows in self.task_rows]
        self.correlated = [run for run in runs if np.ptp(run.values) > 0]  # a constant metric has no correlation
        self.task_taus = {run.name: np.array([_nan_if_none(task_kendall(run.values[rows], y))
                                              for rows, y in zip(self.task_rows, truth)])
                          for run in self.correlated}
        self.heads = {head_name(head, run): (getattr(run, values), getattr(data, target))
                      for run in runs if run.kind == "codescore"
                      for head, target, values in HEAD_TARGETS if getattr(data, target) is not None}
        correlated = {run.name for run in self.correlated}
        self.leads = [(name, over) for name, over in leads if name in correlated and over in correlated]
        by_name = {run.name: run for run in runs}
        self.head_leads = [(head_name(head, by_name[name]), head_name(head, by_name[over])) for name, over in leads
                           for head, _, _ in HEAD_TARGETS if head_name(head, by_name[name]) in self.heads
                           and head_name(head, by_name[over]) in self.heads]

    def labels(self) -> list[tuple[str, str, str | None]]:
        """``(statistic, name, over)`` of each vector entry, in order."""
        return ([("spearman", run.name, None) for run in self.correlated]
                + [("within_task_tau", run.name, None) for run in self.correlated]
                + [("roc_auc", name, None) for name in self.heads]
                + [(statistic, name, baseline) for statistic in ("spearman", "within_task_tau") for name, baseline in self.leads]
                + [("roc_auc", name, over) for name, over in self.head_leads])

    def __call__(self, tasks: np.ndarray) -> np.ndarray:
        rows = np.concatenate([self.task_rows[task] for task in tasks])
        y = self.pass_ratio[rows]
        with warnings.catch_warnings():  # a resample can make a metric or a task constant: nan, kept as such
            warnings.simplefilter("ignore", RuntimeWarning)
            spearman = {run.name: stats.spearmanr(run.values[rows], y).statistic for run in self.correlated}
            within = {name: np.nanmean(taus[tasks]) for name, taus in self.task_taus.items()}
        aucs = {name: roc_auc(values[rows], labels[rows]) for name, (values, labels) in self.heads.items()}
        leads = [table[name] - table[over] for table, pairs in ((spearman, self.leads), (within, self.leads), (aucs, self.head_leads))
                 for name, over in pairs]
        return np.array([*spearman.values(), *within.values(), *aucs.values(), *leads], dtype=np.float64)


def _nan_if_none(value: float | None) -> float:
    return float("nan") if value is None else value


def _percentile_interval(distribution: np.ndarray) -> tuple[list[float], list[float], np.ndarray]:
    """Percentile bounds of each row of a bootstrap distribution over the resamples where the
    statistic is defined (a resample with one class only has no ROC AUC), and how many were not.
    With no undefined resample the bounds are scipy's percentile interval; with no defined one, nan."""
    undefined = np.isnan(distribution).sum(axis=-1)
    alpha = 100 * (1 - CONFIDENCE) / 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-nan rows stay nan
        low, high = np.nanpercentile(distribution, [alpha, 100 - alpha], axis=-1)
    return [float(v) for v in low], [float(v) for v in high], undefined


def task_bootstrap(runs, data, n_resamples: int = 1000, seed: int = 0, leads: list[tuple[str, str]] | None = None) -> dict:
    """Percentile intervals (95 %) over ``n_resamples`` resamples of the tasks of ``data`` (a
    ``LabelledData`` with task ids) for the statistics listed in the module docstring, each next to
    its value on all tasks: ``{"n_resamples", "n_tasks", "confidence", "seed", "intervals": [...]}``.
    ``leads``: ``(name, over)`` run-name pairs whose differences get intervals (default :func:`default_leads`)."""
    if data.task_ids is None:
        raise ValueError("the task bootstrap needs a task id in every row (field task_id)")
    if n_resamples < 2:
        raise ValueError(f"n_resamples must be at least 2 (or turn the bootstrap off); got {n_resamples}")
    unknown = {name for pair in leads or () for name in pair} - {run.name for run in runs}
    if unknown:
        raise ValueError(f"leads name runs that are not among the runs: {sorted(unknown)}")
    statistics = _Statistics(runs, data, default_leads(runs) if leads is None else leads)
    n_tasks = len(statistics.task_rows)
    if n_tasks < 2:
        raise ValueError(f"the task bootstrap needs at least 2 tasks; the data has {n_tasks}")
    everything = statistics(np.arange(n_tasks))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        result = stats.bootstrap((np.arange(n_tasks),), statistics, n_resamples=n_resamples, vectorized=False,
                                 confidence_level=CONFIDENCE, method="percentile", rng=np.random.default_rng(seed))
    low, high, undefined = _percentile_interval(np.atleast_2d(result.bootstrap_distribution))
    intervals = [{"statistic": statistic, "name": name, "over": over, "value": float(value), "low": lo, "high": hi,
                  "undefined_resamples": int(count)}
                 for (statistic, name, over), value, lo, hi, count in zip(statistics.labels(), everything, low, high, undefined)]
    return {"n_resamples": n_resamples, "n_tasks": n_tasks, "confidence": CONFIDENCE, "seed": seed, "intervals": intervals}
