"""Static clean-up of Python source before a model reads it: drop comments, docstrings and blank lines.

None of these change what a program does, but they can fill most of a short model's input (a
HumanEval prompt's docstring is often longer than the function body) and their style differs
between benchmarks. The clean-up works on the token stream, so all other formatting is kept, text
inside string literals is never touched, and code that stops tokenizing part way (a candidate with
a syntax error) is cleaned up to the point of the error.
"""

from __future__ import annotations

import io
import tokenize

_STATEMENT_START = (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, None)
_STATEMENT_END = (tokenize.NEWLINE, tokenize.ENDMARKER, tokenize.COMMENT)


def strip_comments(code: str) -> str:
    """``code`` without comments, string-only statements (docstrings) and blank lines.

    A line left empty by a removal goes with it. When nothing but comments and docstrings would be
    left, or the code cannot be tokenized at all, ``code`` is returned unchanged.
    """
    line_starts = [0]
    for line in code.splitlines(keepends=True):
        line_starts.append(line_starts[-1] + len(line))

    def index(position: tuple[int, int]) -> int:
        row, column = position
        return line_starts[row - 1] + column if row <= len(line_starts) - 1 else len(code)

    cuts = sorted(_widen(code, index(start), index(end)) for start, end in _removable_spans(code))
    pieces, position = [], 0
    for begin, finish in cuts:
        if finish <= position:
            continue
        pieces.append(code[position:max(begin, position)])
        position = finish
    pieces.append(code[position:])
    cleaned = "".join(pieces)
    return cleaned if cleaned.strip() else code


def _removable_spans(code: str):
    """(start, end) token positions of comments, string-only statements and blank lines."""
    previous_type, pending_string = None, None
    try:
        for token in tokenize.generate_tokens(io.StringIO(code).readline):
            if pending_string is not None and token.type in _STATEMENT_END:
                yield pending_string
            pending_string = None
            if token.type == tokenize.COMMENT:
                yield token.start, token.end
            elif token.type == tokenize.NL and not token.line.strip():
                yield (token.start[0], 0), token.end
            elif token.type == tokenize.STRING and previous_type in _STATEMENT_START:
                pending_string = (token.start, token.end)
            if token.type not in (tokenize.COMMENT, tokenize.NL):
                previous_type = token.type
    except (tokenize.TokenError, SyntaxError):  # broken code: keep what was found before the error
        return


def _widen(code: str, begin: int, finish: int) -> tuple[int, int]:
    """Grow a cut over the spaces around it, and over its whole line(s) when nothing else is on them."""
    line_begin = code.rfind("\n", 0, begin) + 1
    line_end = code.find("\n", finish)
    line_end = len(code) if line_end == -1 else line_end
    alone_before = not code[line_begin:begin].strip()
    alone_after = not code[finish:line_end].strip()
    if alone_before and alone_after:
        return line_begin, min(line_end + 1, len(code))
    if alone_after:
        return len(code[:begin].rstrip(" \t")), line_end
    return begin, finish
