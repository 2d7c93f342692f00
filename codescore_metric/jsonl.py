"""Read and write jsonl files, keeping line numbers for error messages.

Every jsonl file of the package goes through here: :func:`read_jsonl` for the raw values,
:func:`read_objects` when each line must be a JSON object and the caller adds its own row checks to
the same error list, :func:`read_records` when bad lines simply stop the caller (one ``ValueError``
that lists every bad line as ``file:line: problem``), and :func:`write_jsonl`.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from pathlib import Path


def read_jsonl(path: str | Path) -> tuple[list[tuple[int, object]], list[tuple[int, str]]]:
    """``(rows, errors)``: ``(line_number, value)`` for each non-blank line that parses, ``(line_number, message)`` for each that does not."""
    rows, errors = [], []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                rows.append((number, json.loads(line)))
            except json.JSONDecodeError as error:
                errors.append((number, f"not valid JSON ({error.msg} at column {error.colno})"))
    return rows, errors


def read_objects(path: str | Path) -> tuple[list[tuple[int, dict]], list[tuple[int, str]]]:
    """Like :func:`read_jsonl`, with a value that is not a JSON object moved to the errors."""
    rows, errors = read_jsonl(path)
    errors += [(line, f"expected a JSON object, got {type(row).__name__}") for line, row in rows if not isinstance(row, dict)]
    return [(line, row) for line, row in rows if isinstance(row, dict)], errors


def read_records(path: str | Path, message: str = "{path}: {count} bad line(s)", shown_as: str | Path | None = None) -> list[tuple[int, dict]]:
    """``(line_number, object)`` for every line of ``path``; any bad line raises one ``ValueError``.

    The error is ``message`` (``{path}`` and ``{count}`` filled in), a colon, and one
    ``file:line: problem`` line per bad line (see :func:`format_errors`), the file shown as
    ``shown_as`` (default ``path``).
    """
    records, errors = read_objects(path)
    if errors:
        text = message.format(path=path, count=len(errors))
        raise ValueError(f"{text}:\n{format_errors(path if shown_as is None else shown_as, errors)}")
    return records


def bad_rows_message(path: str | Path, errors: list[tuple[int, str]], consequence: str = "nothing was scored") -> str:
    """``N bad row(s) (M problem(s)); <consequence>:`` (a row counted once however many problems it has)
    and the :func:`format_errors` listing."""
    rows = len({line for line, _ in errors})
    return f"{rows} bad row(s) ({len(errors)} problem(s)); {consequence}:\n{format_errors(path, errors)}"


def format_errors(path: str | Path, errors: list[tuple[int, str]], limit: int = 20) -> str:
    """One ``path:line: message`` line per error, at most ``limit`` of them."""
    lines = [f"  {path}:{line}: {message}" for line, message in sorted(errors)[:limit]]
    if len(errors) > limit:
        lines.append(f"  ... and {len(errors) - limit} more")
    return "\n".join(lines)


def write_jsonl(path: str | Path, records: Iterable[dict], append: bool = False) -> None:
    """Write one JSON object per line to ``path`` ('-' for stdout), flushing after each line, so a run
    stopped half-way leaves whole lines only (``append``: add to the end of the file)."""
    handle = sys.stdout if str(path) == "-" else open(path, "a" if append else "w", encoding="utf-8")
    try:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            handle.flush()
    finally:
        if handle is not sys.stdout:
            handle.close()
