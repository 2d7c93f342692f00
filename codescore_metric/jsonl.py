"""Read and write jsonl files, keeping line numbers for error messages."""

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


def format_errors(path: str | Path, errors: list[tuple[int, str]], limit: int = 20) -> str:
    """One ``path:line: message`` line per error, at most ``limit`` of them."""
    lines = [f"  {path}:{line}: {message}" for line, message in sorted(errors)[:limit]]
    if len(errors) > limit:
        lines.append(f"  ... and {len(errors) - limit} more")
    return "\n".join(lines)


def write_jsonl(path: str | Path, records: Iterable[dict]) -> None:
    """Write one JSON object per line to ``path`` ('-' for stdout)."""
    handle = sys.stdout if str(path) == "-" else open(path, "w", encoding="utf-8")
    try:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    finally:
        if handle is not sys.stdout:
            handle.close()
