"""The label distribution of a labelled set: counts, PassRatio histogram, shares, per candidate kind."""

from __future__ import annotations

from collections.abc import Sequence

BINS = 10


def label_distribution(rows: Sequence[dict]) -> dict:
    """Counts, mean PassRatio, a 10-bin PassRatio histogram (1.0 in the last bin), the shares of
    PassRatio 0 and 1, of executable and of all-pass rows, overall and per ``kind``."""
    summary = _summary(rows)
    summary["tasks"] = len({row["task_id"] for row in rows})
    summary["histogram"] = histogram([row["pass_ratio"] for row in rows])
    kinds = sorted({row.get("kind", "") for row in rows})
    summary["by_kind"] = {kind: _summary([row for row in rows if row.get("kind", "") == kind]) for kind in kinds}
    return summary


def histogram(values: Sequence[float], bins: int = BINS) -> list[int]:
    """Counts of values in ``bins`` equal bins over [0, 1]; 1.0 falls in the last bin."""
    counts = [0] * bins
    for value in values:
        if not 0 <= value <= 1:
            raise ValueError(f"pass_ratio must lie in [0, 1], got {value}")
        counts[min(int(value * bins), bins - 1)] += 1
    return counts


def _summary(rows: Sequence[dict]) -> dict:
    count = len(rows)

    def share(test) -> float:
        return round(sum(1 for row in rows if test(row)) / count, 4) if count else 0.0
    return {"count": count,
            "mean_pass_ratio": round(sum(row["pass_ratio"] for row in rows) / count, 4) if count else 0.0,
            "zero": share(lambda row: row["pass_ratio"] == 0), "partial": share(lambda row: 0 < row["pass_ratio"] < 1),
            "one": share(lambda row: row["pass_ratio"] == 1), "executable": share(lambda row: row["executable"]),
            "all_pass": share(lambda row: row["all_pass"])}


def format_distribution(name: str, dist: dict) -> str:
    """A markdown block for one split's distribution."""
    lines = [f"### {name}: {dist['count']} candidates, {dist['tasks']} tasks",
             f"mean pass_ratio {dist['mean_pass_ratio']:.3f}; pass_ratio = 0: {dist['zero']:.1%}, "
             f"0 < pass_ratio < 1: {dist['partial']:.1%}, = 1: {dist['one']:.1%}; "
             f"executable {dist['executable']:.1%}; all-pass {dist['all_pass']:.1%}", "",
             "| pass_ratio bin | " + " | ".join(f"{i / BINS:.1f}-{(i + 1) / BINS:.1f}" for i in range(BINS)) + " |",
             "|---|" + "---|" * BINS,
             "| candidates | " + " | ".join(str(count) for count in dist["histogram"]) + " |", "",
             "| kind | count | mean pass_ratio | = 0 | partial | = 1 | executable | all-pass |",
             "|---|---|---|---|---|---|---|---|"]
    for kind, row in dist["by_kind"].items():
        lines.append(f"| {kind} | {row['count']} | {row['mean_pass_ratio']:.3f} | {row['zero']:.1%} | {row['partial']:.1%} "
                     f"| {row['one']:.1%} | {row['executable']:.1%} | {row['all_pass']:.1%} |")
    return "\n".join(lines)
