"""Static clean-up of Python source before a model reads it: drop type annotations that cannot change what it does.

LLM prompts differ in whether they show a typed signature (MultiPL-E's ``def f(xs: List[int]) -> int``) or
the benchmark's own untyped one, and the code written under them keeps that style. A model that reads the
annotations can learn which prompt, and so which generator, wrote a program instead of what the program
does. Removed: the annotations of function parameters and return values, those of assignments with a
value inside a function body (``x: int = 0`` there is ``x = 0``), and then any ``typing`` import nothing
reads any more. Kept: annotations in class bodies and at module level (dataclasses and ``__annotations__``
read them), bare declarations (``x: int`` makes ``x`` local), and everything else byte for byte. Code that
does not parse is returned unchanged.
"""

from __future__ import annotations

import ast
import io

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_SCOPES = (*_FUNCTIONS, ast.ClassDef, ast.Lambda)


def strip_annotations(code: str) -> str:
    """``code`` without the annotations and ``typing`` imports described in the module docstring."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):  # ValueError: null bytes
        return code
    offsets = _Offsets(code)
    spans = [_with_parentheses(code, *span) for span in _annotation_spans(tree, code, offsets)]
    stripped = _cut(code, spans)
    if stripped == code:
        return code
    stripped = _cut(stripped, _unused_typing_imports(stripped))
    try:
        ast.parse(stripped)
    except SyntaxError:  # a layout the cuts above do not foresee: keep the program as written
        return code
    return stripped


class _Offsets:
    """Character offsets in ``code`` of ast positions (1-based lines, UTF-8 byte columns)."""

    def __init__(self, code: str):
        self.lines = io.StringIO(code, newline="").readlines()  # lines end where Python's do: \n, \r\n or \r
        self.starts = [0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line))

    def at(self, line: int, byte_column: int) -> int:
        text = self.lines[line - 1] if line <= len(self.lines) else ""
        return self.starts[line - 1] + len(text.encode()[:byte_column].decode(errors="ignore"))


def _annotation_spans(tree: ast.Module, code: str, offsets: _Offsets):
    """(start, end) character offsets of each removable annotation, with its ``:`` or ``->``."""
    for node, scope in _nodes_with_scope(tree):
        if isinstance(node, _FUNCTIONS):
            arguments = node.args
            for argument in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
                             arguments.vararg, arguments.kwarg):
                if argument is not None and argument.annotation is not None:
                    name_end = offsets.at(argument.lineno, argument.col_offset + len(argument.arg.encode()))
                    yield name_end, _end(argument.annotation, offsets)
            if node.returns is not None:
                yield _arrow_start(node, code, offsets), _end(node.returns, offsets)
        elif isinstance(node, ast.AnnAssign) and node.value is not None and isinstance(scope, _FUNCTIONS):
            yield _end(node.target, offsets), _end(node.annotation, offsets)


def _nodes_with_scope(tree: ast.Module):
    """Every node with the innermost function, class, lambda or module it belongs to."""
    stack = [(tree, tree)]
    while stack:
        node, scope = stack.pop()
        yield node, scope
        inner = node if isinstance(node, _SCOPES) else scope
        stack.extend((child, inner) for child in ast.iter_child_nodes(node))


def _end(node: ast.AST, offsets: _Offsets) -> int:
    return offsets.at(node.end_lineno, node.end_col_offset)


def _arrow_start(function: ast.FunctionDef, code: str, offsets: _Offsets) -> int:
    """Offset just after the parameter list's ``)``: the ``->`` and the spaces before it go."""
    arrow = code.rfind("->", 0, offsets.at(function.returns.lineno, function.returns.col_offset))
    return code.rfind(")", 0, arrow) + 1


def _unused_typing_imports(code: str) -> list[tuple[int, int]]:
    """Character spans of whole-line ``typing`` imports none of whose names ``code`` still reads."""
    try:
        tree = ast.parse(code)
    except SyntaxError:  # cannot happen for a cut of valid annotations; keep the imports if it does
        return []
    read = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    offsets, spans = _Offsets(code), []
    for node in tree.body:
        typing_import = ((isinstance(node, ast.ImportFrom) and node.module == "typing" and node.level == 0)
                         or (isinstance(node, ast.Import) and all(alias.name == "typing" for alias in node.names)))
        names = [alias.asname or alias.name for alias in node.names] if typing_import else []
        if not typing_import or "*" in names or read.intersection(names):
            continue
        line_start, end, line_end = offsets.at(node.lineno, 0), _end(node, offsets), offsets.starts[node.end_lineno]
        if not code[line_start:offsets.at(node.lineno, node.col_offset)].strip() and not code[end:line_end].strip():
            spans.append((line_start, line_end))
    return spans


def _with_parentheses(code: str, start: int, end: int) -> tuple[int, int]:
    """Grow a cut over the closing brackets of an annotation written in parentheses, ``-> (int)``."""
    for _ in range(code.count("(", start, end) - code.count(")", start, end)):
        closing = code.find(")", end)
        if closing == -1 or code[end:closing].strip():
            break
        end = closing + 1
    return start, end


def _cut(code: str, spans: list[tuple[int, int]]) -> str:
    """``code`` without the (non-overlapping) character spans."""
    pieces, position = [], 0
    for start, end in sorted(spans):
        pieces.append(code[position:start])
        position = max(position, end)
    pieces.append(code[position:])
    return "".join(pieces)
