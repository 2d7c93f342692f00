"""Put a mutant back into its source's layout.

Mutation operators edit a program's AST and write the result with ``ast.unparse``, which rewrites the
whole program's layout (parentheses, spacing, quotes, comments). ``splice`` keeps the original text
and swaps in only the statements that differ, so a mutant differs from its source only where it was
changed.
"""

from __future__ import annotations

import ast
import copy
import difflib
import io
import re
import tokenize

# Fields holding the nested statement lists of compound statements (``match`` cases have no
# positions, so a ``match`` is always replaced whole).
_BODIES = ("body", "orelse", "finalbody", "handlers")
_ELIF = re.compile(r"\s*elif\b")


def splice(original: str, mutated: str) -> str:
    """``original``'s text with only the statements that differ from ``mutated`` replaced by their
    ``ast.unparse`` text, indented like the statements they replace; comments, blank lines and the
    layout of every other line are kept byte for byte. A changed compound statement header (``for``,
    ``if``, ``def``, ...) is replaced alone when its bodies can be kept; deleted and inserted
    statements are found by aligning statement lists.

    The result always parses to the same AST as ``mutated``; whenever it would not (either source
    does not parse, statements share a line, or anything else unexpected), ``mutated`` is returned
    unchanged.
    """
    if not isinstance(original, str) or not isinstance(mutated, str):
        raise TypeError(f"splice takes two strings, got {type(original).__name__} and {type(mutated).__name__}")
    try:
        target = ast.parse(mutated)
        result = _Splicer(original).splice(target)
        if ast.dump(ast.parse(result)) == ast.dump(target):
            return result
    except Exception:  # any surprise means no splice, never an error
        pass
    return mutated


class _Unsupported(Exception):
    """The original's layout is one this module does not splice into."""


class _Splicer:
    """The original's lines, its trailing comments, and the line edits collected in source order."""

    def __init__(self, original: str):
        self.tree = ast.parse(original)
        self.lines = io.StringIO(original, newline="").readlines()
        self.open_end = bool(self.lines) and not self.lines[-1].endswith(("\n", "\r"))
        ends = (line[len(line.rstrip("\r\n")):] for line in self.lines)
        self.newline = next((end for end in ends if end), "\n")
        if self.open_end:
            self.lines[-1] += self.newline
        tokens = tokenize.generate_tokens(io.StringIO(original, newline="").readline)
        self.comments = {token.start[0]: token.start[1] for token in tokens if token.type == tokenize.COMMENT}
        self.edits: list[tuple[int, int, list[str]]] = []  # (first line index, end index, new lines)
        for node in ast.walk(self.tree):  # col_offset counts UTF-8 bytes
            if isinstance(node, (ast.stmt, ast.ExceptHandler)) and self.lines[node.lineno - 1].encode()[:node.col_offset].strip():
                raise _Unsupported("a statement starts after other code on its line (``;``, ``if x: y``)")

    def splice(self, target: ast.Module) -> str:
        self._list(self.tree.body, target.body)
        for start, end, new in reversed(self.edits):
            self.lines[start:end] = new
        text = "".join(self.lines)
        return text[:-len(self.newline)] if self.open_end and text.endswith(self.newline) else text

    # ---- walking ---------------------------------------------------------------------------------

    def _list(self, old: list, new: list) -> None:
        """Align two statement lists and edit where they differ."""
        matcher = difflib.SequenceMatcher(None, [ast.dump(s) for s in old], [ast.dump(s) for s in new], autojunk=False)
        for op, i1, i2, j1, j2 in matcher.get_opcodes():
            if op == "replace" and i2 - i1 == j2 - j1:
                for before, after in zip(old[i1:i2], new[j1:j2]):
                    self._pair(before, after)
            elif op == "insert":
                if i1 > 0:
                    self._edit(old[i1 - 1].end_lineno, old[i1 - 1].end_lineno, new[j1:j2], self._indent(old[i1 - 1]))
                elif old:
                    start = _first_line(old[0]) - 1
                    self._edit(start, start, new[j1:j2], self._indent(old[0]))
                else:
                    self._edit(len(self.lines), len(self.lines), new[j1:j2], "")
            elif op != "equal":  # a deletion, or a replacement by a different number of statements
                self._replace(old[i1:i2], new[j1:j2])

    def _pair(self, before: ast.AST, after: ast.AST) -> None:
        """Edit one original statement into its counterpart: the header alone and then the bodies of a
        compound statement whose bodies line up, else the whole statement."""
        if not self._same_shape(before, after):
            self._replace([before], [after])
            return
        if ast.dump(_header(before)) != ast.dump(_header(after)):
            start = _first_line(before)
            end = _first_line(before.body[0]) - 1
            while end > start and self.lines[end - 1].strip()[:1] in ("", "#"):  # comments before the body
                end -= 1
            self._edit(start - 1, end, [_header(after)], self._indent(before))
        for field in _BODIES:
            self._list(getattr(before, field, []), getattr(after, field, []))

    def _same_shape(self, before: ast.AST, after: ast.AST) -> bool:
        """Compound statements of one type whose statement lists are empty in the same places (and an
        ``elif`` stays a lone ``if``), so that their headers and bodies can be edited apart."""
        if type(before) is not type(after) or not isinstance(getattr(before, "body", None), list):
            return False
        if any(bool(getattr(before, field, [])) != bool(getattr(after, field, [])) for field in _BODIES):
            return False
        if isinstance(before, ast.If) and len(before.orelse) == 1 and self._is_elif(before.orelse[0]):
            return len(after.orelse) == 1 and isinstance(after.orelse[0], ast.If)
        return True

    # ---- editing ---------------------------------------------------------------------------------

    def _replace(self, old: list, new: list) -> None:
        """Replace the lines of consecutive original statements by the text of ``new`` (none: delete)."""
        self._edit(_first_line(old[0]) - 1, old[-1].end_lineno, new, self._indent(old[0]))

    def _edit(self, start: int, end: int, nodes: list, indent: str) -> None:
        """Record that line indices ``start:end`` become ``nodes`` unparsed at ``indent``; a trailing
        comment on the last replaced line is kept, and so is the ``el`` of an ``elif``."""
        text = "\n".join(ast.unparse(node) for node in nodes)
        if not text:
            self.edits.append((start, end, []))
            return
        if end > start and _ELIF.match(self.lines[start]):
            text = "el" + text
        new = [indent + line if line else line for line in text.split("\n")]
        if end > start and end in self.comments:
            last = self.lines[end - 1]
            new[-1] += last[len(last[:self.comments[end]].rstrip()):].rstrip("\r\n")
        self.edits.append((start, end, [line + self.newline for line in new]))

    def _indent(self, node: ast.AST) -> str:
        line = self.lines[_first_line(node) - 1]
        return line[:len(line) - len(line.lstrip())]

    def _is_elif(self, node: ast.AST) -> bool:
        return isinstance(node, ast.If) and bool(_ELIF.match(self.lines[node.lineno - 1]))


def _first_line(node: ast.AST) -> int:
    """The statement's first line, its decorators included."""
    return min([node.lineno, *(decorator.lineno for decorator in getattr(node, "decorator_list", ()))])


def _header(node: ast.AST) -> ast.AST:
    """A shallow copy of a compound statement with its statement lists emptied."""
    header = copy.copy(node)
    for field in _BODIES:
        if hasattr(header, field):
            setattr(header, field, [])
    return header
