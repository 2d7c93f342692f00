"""Make Python layout and case visible to a tokenizer that drops them (an uncased WordPiece vocabulary).

``if x:\\n    return 1\\nreturn 2`` and ``if x: return 1 return 2`` differ in what they do, but an
uncased BERT tokenizer gives them the same ids, and reads ``True`` as ``true``. `layout_pieces`
rewrites code as text chunks interleaved with four markers, in the spirit of Python's own tokenizer:
NEWLINE ends every non-blank line, INDENT and DEDENT mark changes of indentation depth, and CAPITAL
goes before each word with an upper-case letter. The encoder maps each marker to a reserved
vocabulary entry (e.g. BERT's ``[unused0]``) so the backbone's vocabulary size does not change.
Unlike `tokenize`, this works line by line and so also on code that does not parse.
"""

from __future__ import annotations

import re

MARKERS = ("newline", "indent", "dedent", "capital")
NEWLINE, INDENT, DEDENT, CAPITAL = range(len(MARKERS))
# Markers that `code_changes.mark_changes` adds around what differs from the other code field.
CHANGE_MARKERS = ("change_start", "change_end")
CHANGE_START, CHANGE_END = range(len(MARKERS), len(MARKERS) + len(CHANGE_MARKERS))
# Markers for how far generated code is from the reference: marker DISTANCE_START + i is `code_distance` bucket i.
DISTANCE_START = CHANGE_END + 1
_CAPITALISED_WORD = re.compile(r"\b\w*[A-Z]\w*\b")


def layout_pieces(code: str) -> list[str | int]:
    """``code`` as text chunks (str) and markers (int indices into ``MARKERS``), in reading order."""
    pieces: list[str | int] = []
    depths = [0]
    for raw in code.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        line = raw.expandtabs(8).rstrip()
        if not line.strip():
            continue
        width = len(line) - len(line.lstrip())
        if width > depths[-1]:
            depths.append(width)
            pieces.append(INDENT)
        while width < depths[-1]:
            depths.pop()
            pieces.append(DEDENT)
            if width > depths[-1]:  # an inconsistent dedent: treat the new width as its own level
                depths.append(width)
        pieces += _case_marked(line.strip())
        pieces.append(NEWLINE)
    return pieces


def _case_marked(text: str) -> list[str | int]:
    """``text`` split so that each capitalised word is preceded by CAPITAL."""
    pieces: list[str | int] = []
    position = 0
    for match in _CAPITALISED_WORD.finditer(text):
        if match.start() > position:
            pieces.append(text[position:match.start()])
        pieces += [CAPITAL, match.group()]
        position = match.end()
    if position < len(text):
        pieces.append(text[position:])
    return pieces
