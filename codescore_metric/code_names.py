"""Consistent renaming of the parameters and local variables of a program's functions.

Two uses share one planner: `canonical_names` gives every function's names in order of first
appearance (``v0``, ``v1``, ...), so that two programs that differ only in how they name their
locals read the same to a model; the training augmentation (`data.mutations.rename_identifiers`)
draws ordinary names at random. Names are edited in place, by AST position, so layout and comments
stay, and every result is checked to parse to the original tree with only the planned names changed.
What is renamed keeps the program's behaviour: function names, ``self``/``cls``, keyword-only
parameters, parameters passed by keyword anywhere in the program, annotations, defaults and
decorators keep theirs, and functions holding nested functions, lambdas, classes, f-strings,
``global``/``nonlocal`` or ``locals()``-like calls are left alone.
"""

from __future__ import annotations

import ast
import builtins
import functools
import warnings
from collections.abc import Callable, Iterator

# What ``ast.parse`` raises on source it cannot read; deep nesting raises the last two.
PARSE_ERRORS = (SyntaxError, ValueError, MemoryError, RecursionError)

# (names of one function's parameters and locals, in order of first appearance; names the new ones must avoid) -> old -> new
ChooseNames = Callable[[list[str], set[str]], dict[str, str]]


@functools.lru_cache(maxsize=1024)  # a reference is read with every prediction of its task
def canonical_names(source: str) -> str:
    """``source`` with each function's renamable parameters and locals called ``v0``, ``v1``, ... in order of
    first appearance; ``source`` itself when it does not parse (deep nesting included) or nothing can be
    renamed safely."""
    def choose(names: list[str], taken: set[str]) -> dict[str, str]:
        taken = taken - set(names)
        fresh = (f"v{i}" for i in range(len(taken) + len(names) + 1) if f"v{i}" not in taken)
        return dict(zip(names, fresh))
    try:
        with warnings.catch_warnings():  # e.g. SyntaxWarning on an invalid escape: it still parses
            warnings.simplefilter("ignore")
            return rename_names(source, choose) or source
    except PARSE_ERRORS:
        return source


def rename_names(source: str, choose: ChooseNames) -> str | None:
    """``source`` with each function's renamable parameters and locals renamed by ``choose``, which is given
    them and the names already used in the program (and by earlier renames); ``None`` when nothing was
    renamed or the result would not be the same program. Raises `SyntaxError` when ``source`` does not parse."""
    tree = ast.parse(source)
    taken = all_names(tree)
    by_keyword = {keyword.arg for node in ast.walk(tree) if isinstance(node, ast.Call) for keyword in node.keywords}
    renames: dict[tuple[int, int], tuple[str, str]] = {}  # (line, byte column) of a name in ``source`` -> (old, new)
    for function in functions(tree):
        if not renamable(function) or any(isinstance(node, ast.JoinedStr) for node in ast.walk(function)):
            continue
        kept = by_keyword | {argument.arg for argument in function.args.kwonlyargs} | {"self", "cls"}
        parameters = argument_names(function)
        names = [node.arg if isinstance(node, ast.arg) else node.id for node in _local_nodes(function)
                 if (isinstance(node, ast.arg) and node.arg not in kept) or
                    (isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)) and node.id not in parameters)]
        mapping = {old: new for old, new in choose(list(dict.fromkeys(names)), taken).items() if old != new}
        taken |= set(mapping.values())
        for node in _local_nodes(function):
            name = _name_of(node)
            if name in mapping:
                renames[node.lineno, node.col_offset] = (name, mapping[name])
    if not renames:
        return None
    lines = [line.encode() for line in source.splitlines(keepends=True)]
    for (line, column), (old, new) in sorted(renames.items(), reverse=True):
        text, old = lines[line - 1], old.encode()
        if text[column:column + len(old)] != old:
            return None
        lines[line - 1] = text[:column] + new.encode() + text[column + len(old):]
    renamed = b"".join(lines).decode()
    return renamed if _renamed_as_planned(tree, renamed, renames) else None


def _local_nodes(function: ast.FunctionDef) -> Iterator[ast.AST]:
    """The parameters and the nodes of the body of ``function``: not its decorators, annotations or defaults,
    which are evaluated in the enclosing scope."""
    arguments = function.args
    yield from [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    yield from [argument for argument in (arguments.vararg, arguments.kwarg) if argument is not None]
    for statement in function.body:
        yield from ast.walk(statement)


def _name_of(node: ast.AST) -> str | None:
    return node.id if isinstance(node, ast.Name) else node.arg if isinstance(node, ast.arg) else None


def _renamed_as_planned(tree: ast.Module, renamed: str, renames: dict[tuple[int, int], tuple[str, str]]) -> bool:
    """Whether ``renamed`` parses to ``tree`` with exactly the names at ``renames``' positions changed."""
    try:
        other = ast.parse(renamed)
    except SyntaxError:
        return False
    for before, after in zip(ast.walk(tree), ast.walk(other), strict=False):
        if type(before) is not type(after):
            return False
        name = _name_of(before)
        if name is not None and _name_of(after) != renames.get((before.lineno, before.col_offset), (name, name))[1]:
            return False
        for field, value in ast.iter_fields(before):
            if field in ("id", "arg") and name is not None:
                continue
            if isinstance(value, list) and len(value) != len(getattr(after, field)):
                return False
            if not isinstance(value, (ast.AST, list)) and value != getattr(after, field):
                return False
    return sum(1 for _ in ast.walk(tree)) == sum(1 for _ in ast.walk(other))


def renamable(function: ast.AST) -> bool:
    """Whether ``function``'s locals can be renamed without a scope analysis: no nested scopes, ``global``,
    ``nonlocal`` or ``locals()``-like calls."""
    for node in ast.walk(function):
        if node is not function and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            return False
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            return False
        if isinstance(node, ast.Name) and node.id in ("locals", "eval", "exec", "vars"):
            return False
    return True


def functions(tree: ast.AST) -> list[ast.FunctionDef]:
    """Every (async) function definition under ``tree``."""
    return [node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]


def assigned_names(scope: ast.AST) -> set[str]:
    """Names stored or deleted anywhere under ``scope``."""
    return {node.id for node in ast.walk(scope) if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del))}


def argument_names(scope: ast.AST) -> set[str]:
    """Names of the parameters of every function under ``scope``."""
    return {node.arg for node in ast.walk(scope) if isinstance(node, ast.arg)}


def all_names(tree: ast.AST) -> set[str]:
    """Every name a program uses or defines, attributes and imports included, and the builtins."""
    names = set(dir(builtins))
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
    return names
