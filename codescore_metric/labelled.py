"""Execution-labelled rows: read and check a labelled jsonl into columns.

A labelled row holds the generated code, optionally the reference code and the NL task, the
execution labels (``pass_ratio`` in [0, 1]; ``executable`` and ``all_pass`` as 0/1 or booleans),
optionally a task id and a group field (e.g. the generating models joined by commas), and any
precomputed metric columns named with ``extra_metrics``. Only explicitly named columns are read as
extra metrics: guessing from "every other numeric column" would also pick up ids, counts and other
labels. The meta-evaluation (``codescore meta-eval``) and training (``codescore train`` on jsonl
files) both read their rows here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from codescore_metric.formats import COLUMN_FOR_FIELD, InputFormat
from codescore_metric.jsonl import bad_rows_message, read_objects

NO_GROUP = "(none)"  # the group of a row whose group field is missing, null or empty


@dataclass(frozen=True)
class Fields:
    """Names of the row fields read from the labelled jsonl."""

    prediction: str = COLUMN_FOR_FIELD["prediction"]
    reference: str = COLUMN_FOR_FIELD["reference"]
    source: str = COLUMN_FOR_FIELD["source"]
    pass_ratio: str = "pass_ratio"
    executable: str = "executable"
    all_pass: str = "all_pass"
    task_id: str = "task_id"


@dataclass
class LabelledData:
    """Column-wise labelled samples; a column no row has is ``None``."""

    predictions: list[str]
    references: list[str] | None
    sources: list[str] | None
    pass_ratio: np.ndarray
    executable: np.ndarray | None
    all_pass: np.ndarray | None
    extras: dict[str, np.ndarray]
    task_ids: list[str | int] | None  # None unless every row has one
    groups: list[tuple[str, ...]] | None = None  # each row's group names; None when the file has no group field
    group_field: str | None = None  # the field the groups were read from

    @property
    def n_tasks(self) -> int | None:
        """The number of distinct task ids, or ``None`` unless every row has one."""
        return None if self.task_ids is None else count_tasks(self.task_ids)

    def supported_formats(self) -> list[str]:
        """The CodeScore input formats whose texts every row has, in the paper's order."""
        has = {"prediction": True, "reference": self.references is not None, "source": self.sources is not None}
        return [fmt.value for fmt in InputFormat if all(has[name] for name in fmt.fields)]


# --------------------------------------------------------------------------- checks of one value
def _text(value):
    return (value, None) if isinstance(value, str) else (None, f"is {type(value).__name__}, not a string")


def _number(value):
    if isinstance(value, bool):
        return float(value), None
    if not isinstance(value, (int, float)) or not math.isfinite(value):
        return None, f"is {value!r}, not a finite number"
    return float(value), None


def checked_ratio(value) -> tuple[float | None, str | None]:
    """``(value as a float, None)`` for a number in [0, 1] (a bool counts), else ``(None, what is wrong)``."""
    number, error = _number(value)
    if error is None and not 0.0 <= number <= 1.0:
        return None, f"is {value!r}, not a number in [0, 1]"
    return number, error


def _binary(value):
    number, error = _number(value)
    if error is None and number not in (0.0, 1.0):
        return None, f"is {value!r}, not 0/1 or false/true"
    return number, error


def _task_id(value):
    if value is None or (isinstance(value, (str, int)) and not isinstance(value, bool)):
        return value, None
    return None, f"is {value!r}, not a string or an integer"


def _group_names(value):
    """The groups of a row: the comma-separated names in ``value``, or ``(NO_GROUP,)`` if there are none."""
    if value is not None and not isinstance(value, str):
        return None, f"is {value!r}, not a string (model names joined by commas)"
    names = tuple(dict.fromkeys(name.strip() for name in (value or "").split(",") if name.strip()))
    return names or (NO_GROUP,), None


def _loose_column(objects, name: str, check, errors: list) -> list:
    """``check`` applied to every row's ``name`` (``None`` where a row lacks it); problems go to ``errors``."""
    column = []
    for line, row in objects:
        value, error = check(row.get(name))
        if error:
            errors.append((line, f"field {name!r} {error}"))
        column.append(value)
    return column


def count_tasks(task_ids) -> int:
    """The number of distinct task ids (compared by ``repr``, so 1 and "1" differ)."""
    return len({repr(task_id) for task_id in task_ids})


# Names read when the default ones are absent: the authors' labels (score, passed, pass@1) and the
# `program` field of `codescore label`'s self-contained rows.
FALLBACK_NAMES = {"prediction": "program", "pass_ratio": "score", "executable": "passed", "all_pass": "pass@1"}


def with_fallback_names(fields: Fields, rows: list[dict]) -> Fields:
    """``fields`` with a default name swapped for its fallback (``FALLBACK_NAMES``) when no row has the
    default and every row has the fallback."""
    changes = {}
    for key, theirs in FALLBACK_NAMES.items():
        ours = getattr(fields, key)
        if ours == getattr(Fields(), key) and rows and not any(ours in row for row in rows) and all(theirs in row for row in rows):
            changes[key] = theirs
    return replace(fields, **changes)


def load_labelled(path, fields: Fields = Fields(), extra_metrics: tuple[str, ...] = (), group_field: str | None = None) -> LabelledData:
    """Read and check a labelled jsonl; raise ``ValueError`` listing every bad row by line number.

    ``prediction`` and ``pass_ratio`` are required; ``reference``, ``source``, ``executable`` and
    ``all_pass`` are optional, but a field that any row has must be in every row. The task id and
    ``group_field`` may be missing from some rows (no task ids are kept then; the row's group is ``(none)``).
    """
    objects, errors = read_objects(path)
    fields = with_fallback_names(fields, [row for _, row in objects])
    columns = {
        "prediction": (fields.prediction, _text, True),
        "reference": (fields.reference, _text, False),
        "source": (fields.source, _text, False),
        "pass_ratio": (fields.pass_ratio, checked_ratio, True),
        "executable": (fields.executable, _binary, False),
        "all_pass": (fields.all_pass, _binary, False),
        **{f"extra:{name}": (name, _number, True) for name in extra_metrics},
    }
    values = {}
    for key, (name, check, required) in columns.items():
        if not required and not any(name in row for _, row in objects):
            values[key] = None
            continue
        flag = f" (rename with --{key.replace('_', '-')}-field)" if not key.startswith("extra:") else ""
        values[key] = []
        for line, row in objects:
            if name not in row:
                errors.append((line, f"missing field {name!r}{flag}"))
                continue
            value, error = check(row[name])
            if error:
                errors.append((line, f"field {name!r} {error}"))
            values[key].append(value)
    task_ids = _loose_column(objects, fields.task_id, _task_id, errors)
    grouped = bool(group_field) and any(group_field in row for _, row in objects)
    groups = _loose_column(objects, group_field, _group_names, errors) if grouped else None
    if errors:
        raise ValueError(f"the labelled file has {bad_rows_message(path, errors, 'nothing was evaluated')}")
    if not objects:
        raise ValueError(f"{path} holds no rows; a labelled jsonl needs one JSON object per line")
    numbers = {key: np.asarray(column, dtype=np.float64) for key, column in values.items()
               if column is not None and key not in ("prediction", "reference", "source")}
    return LabelledData(
        predictions=values["prediction"],
        references=values["reference"],
        sources=values["source"],
        pass_ratio=numbers["pass_ratio"],
        executable=numbers.get("executable"),
        all_pass=numbers.get("all_pass"),
        extras={name: numbers[f"extra:{name}"] for name in extra_metrics},
        task_ids=task_ids if all(task_id is not None for task_id in task_ids) else None,
        groups=groups,
        group_field=group_field if grouped else None,
    )
