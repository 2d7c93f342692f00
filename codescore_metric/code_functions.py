"""What a prediction's functions break of what the reference's functions of the same names promise.

Tests of generated code call the reference's functions by name and position and compare what they
return (``assert f(x, y) == z``), so two facts about a prediction's same-named functions decide tests
without running anything:

* **Arity** (`rejects_reference_calls`): a function that cannot take the number of positional arguments
  the reference's takes (or requires keyword-only ones the reference's does not) raises ``TypeError`` on
  every call the tests make.
* **Return value** (`drops_return_value`): when the reference's function returns a value on every path
  (it never returns ``None``, bare, spelt out or as a branch of a conditional expression, and its body
  ends in a ``return``), its tests expect values that are not ``None``; a function that returns nothing (a
  stub, a ``print`` instead of a ``return``, a forgotten ``return``) returns ``None`` and fails each of
  them. Whether it runs without an error is not decided by this.
* **Kind of value** (`returns_other_kinds`): when the code shows every kind of value both functions can return
  (`code_return_kinds`: a list, a tuple, a string, a number, ...) and no kind is shared, no value the prediction's
  returns can equal one the reference's returns (a list never equals a tuple), so every test that compares the
  returned value with ``==`` fails; tests that compare ``sorted(f(x))`` or ``set(f(x))`` instead are outside this
  contract. Whether it runs is again not decided.

Only top-level ``def`` statements are read; a prediction's decorated or otherwise rebound definitions are
not judged, and a check holds only when it holds for every function the two programs share.
"""

from __future__ import annotations

import ast

from codescore_metric.code_return_kinds import own_nodes, return_kinds

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def rejects_reference_calls(prediction: ast.Module, reference: ast.Module) -> bool:
    """True when every top-level function the two programs share (at least one) rejects each call the
    reference's accepts: the positional counts they take do not overlap, or the prediction's requires a
    keyword-only argument where the reference's requires none."""
    shared = _shared_functions(prediction, reference)
    return bool(shared) and all(_rejects(predicted, expected) for predicted, expected in shared)


def drops_return_value(prediction: ast.Module, reference: ast.Module) -> bool:
    """True when no top-level function the two programs share returns a value in ``prediction``, and the
    reference always returns one from at least one of them."""
    shared = _shared_functions(prediction, reference)
    return (any(_always_returns_value(expected) for _, expected in shared)
            and all(not _returns_value(predicted) for predicted, _ in shared))


def returns_other_kinds(prediction: ast.Module, reference: ast.Module) -> bool:
    """True when every top-level function the two programs share (at least one) can return, as far as both
    codes show, only values of kinds the reference's never returns (`code_return_kinds.return_kinds`)."""
    shared = _shared_functions(prediction, reference)
    return bool(shared) and all(_other_kinds(predicted, prediction, expected, reference) for predicted, expected in shared)


def _other_kinds(predicted: ast.FunctionDef, prediction: ast.Module, expected: ast.FunctionDef,
                 reference: ast.Module) -> bool:
    predicted_kinds, expected_kinds = return_kinds(predicted, prediction), return_kinds(expected, reference)
    return predicted_kinds is not None and expected_kinds is not None and not predicted_kinds & expected_kinds


def _shared_functions(prediction: ast.Module, reference: ast.Module) -> list[tuple[ast.FunctionDef, ast.FunctionDef]]:
    """(prediction's, reference's) definition of each top-level function both define; empty when one of the
    prediction's is decorated, since a decorator can change how it is called and what it returns."""
    predicted, expected = _top_level_functions(prediction), _top_level_functions(reference)
    shared = [(predicted[name], expected[name]) for name in predicted if name in expected]
    return [] if any(function.decorator_list for function, _ in shared) else shared


def _positional_range(function: ast.FunctionDef) -> tuple[int, float]:
    """How many positional arguments the function takes: at least, at most (``inf`` with ``*args``)."""
    arguments = function.args
    positional = len(arguments.posonlyargs) + len(arguments.args)
    return positional - len(arguments.defaults), float("inf") if arguments.vararg else positional


def _requires_keywords(function: ast.FunctionDef) -> bool:
    return any(default is None for default in function.args.kw_defaults)


def _rejects(predicted: ast.FunctionDef, expected: ast.FunctionDef) -> bool:
    (low, high), (expected_low, expected_high) = _positional_range(predicted), _positional_range(expected)
    if _requires_keywords(predicted) and not _requires_keywords(expected):
        return True
    return high < expected_low or low > expected_high


def _top_level_functions(module: ast.Module) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    """Name -> the last top-level ``def`` of it, leaving out names the module also binds another way."""
    functions, rebound = {}, set()
    for statement in module.body:
        if isinstance(statement, _FUNCTIONS):
            functions[statement.name] = statement
            continue
        for node in ast.walk(statement):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                rebound.add(node.id)
            elif isinstance(node, (*_FUNCTIONS, ast.ClassDef)):
                rebound.add(node.name)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                rebound |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
    return {name: node for name, node in functions.items() if name not in rebound}


def _returns_nothing(node: ast.Return) -> bool:
    return node.value is None or _is_none(node.value)


def _is_none(expression: ast.expr) -> bool:
    return isinstance(expression, ast.Constant) and expression.value is None


def _may_be_none(expression: ast.expr) -> bool:
    """``None`` spelt out, also as a branch of ``a if c else None`` or an operand of ``a or None``."""
    if isinstance(expression, ast.IfExp):
        return _may_be_none(expression.body) or _may_be_none(expression.orelse)
    if isinstance(expression, ast.BoolOp):
        return any(_may_be_none(value) for value in expression.values)
    return _is_none(expression)


def _returns_value(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether some ``return`` of the function's own body gives a value (a generator counts as one)."""
    return any(isinstance(node, (ast.Yield, ast.YieldFrom)) or (isinstance(node, ast.Return) and not _returns_nothing(node))
               for node in own_nodes(function))


def _always_returns_value(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A simple reading of "returns a value on every path": no ``yield``, no ``return`` that may give ``None``
    (bare, spelt out, or as a branch of a conditional expression), and the body's last statement is a ``return``."""
    if any(isinstance(node, (ast.Yield, ast.YieldFrom))
           or (isinstance(node, ast.Return) and (node.value is None or _may_be_none(node.value)))
           for node in own_nodes(function)):
        return False
    return isinstance(function.body[-1], ast.Return)
