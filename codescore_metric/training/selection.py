"""The validation number that picks a run's saved point (light: the CLI reads the choices without torch)."""

from __future__ import annotations

import math

import numpy as np

# balanced: the mean of Spearman (pooled over tasks) and the mean within-task Kendall tau;
# balanced_heads: the mean of those two and of both heads' ROC AUC as a rank correlation (Somers' D = 2 AUC - 1)
SELECT_METRICS = ("tau", "spearman", "pearson", "neg_mae", "within_task_tau", "balanced", "balanced_heads")


def selection_value(results: dict[str, dict[str, float]], metric: str) -> float:
    """Mean of the selection metric over formats (higher is better)."""
    def value(r: dict) -> float:
        if metric == "neg_mae":
            return -r["mae"]
        if metric == "balanced":
            return (r["spearman"] + r.get("within_task_tau", float("nan"))) / 2
        if metric == "balanced_heads":
            return (r["spearman"] + r.get("within_task_tau", float("nan")) + 2 * r["exec_auc"] - 1 + 2 * r["pass_auc"] - 1) / 4
        return r.get(metric, float("nan"))
    values = [value(r) for r in results.values()]
    return float(np.mean(values)) if not any(math.isnan(v) for v in values) else float("-inf")
