"""Names a program reads but binds nowhere: the line that reads one raises ``NameError`` when it runs.

pyflakes finds them (its ``UndefinedName`` check: not a builtin, not assigned, defined or imported
anywhere the read can see, at any point of the module). Two kinds of names are given the benefit of
the doubt: those of ``typing`` (harnesses of generated code commonly put ``from typing import *``
first, ours included, so an unimported ``List[int]`` runs), and a program that can bind names
dynamically (`binds_names_dynamically`: ``exec``, ``globals()``, ``locals()`` at module level, a star
import, ...) is not judged at all.
"""

from __future__ import annotations

import ast
import typing
from collections.abc import Iterable

from pyflakes.checker import Checker
from pyflakes.messages import UndefinedName

# Names a harness may provide before running generated code.
HARNESS_NAMES = frozenset(typing.__all__)
# Builtins whose calls can bind names behind the code's back (``locals()`` is ``globals()`` at module level).
_DYNAMIC_BINDERS = frozenset({"exec", "eval", "globals", "locals", "vars", "__import__"})


def unbound_names(module: ast.Module, provided: frozenset[str] = HARNESS_NAMES) -> frozenset[str]:
    """The names ``module`` reads and never binds (``provided`` and builtins aside); empty when the
    program can bind names at run time, since a static reading cannot tell then."""
    if binds_names_dynamically(ast.walk(module)):
        return frozenset()
    checker = Checker(module, builtins=provided)
    return frozenset(message.message_args[0] for message in checker.messages if isinstance(message, UndefinedName))


def binds_names_dynamically(nodes: Iterable[ast.AST]) -> bool:
    """Whether one of ``nodes`` is a star import or a call of a builtin that can bind names at run time."""
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _DYNAMIC_BINDERS:
            return True
    return False
