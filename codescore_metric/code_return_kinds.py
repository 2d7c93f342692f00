"""What kinds of value a function can return, read from its code alone.

Tests of generated code compare what a function returns with ``==`` (``assert f(x) == expected``), and values
of some kinds never compare equal whatever they hold: a list is never equal to a tuple, a string, a set, a dict
or a number. `return_kinds` reads the kinds a function's ``return`` statements give when the code shows them
plainly (a list display or comprehension, ``sorted(...)``, ``tuple(...)``, a string literal or f-string,
``len(...)``, a comparison, a string method, ``math.sqrt(...)``, a local name every binding of which shows its
kind, an accumulator such as ``total += x`` that starts as a number, ...) and answers ``None`` whenever one of
them is not plain (a parameter, a call of the program's own functions, ``max(xs)``, an item of a list, an
attribute, ...). Values of other types that compare equal to these (numpy's, ``Decimal``) are not read as any
kind, so they decide nothing.

The kinds: ``"number"`` (``int``, ``float`` and ``bool``, which compare equal across: ``True == 1``),
``"str"``, ``"list"``, ``"tuple"``, ``"set"`` (``set`` and ``frozenset``), ``"dict"`` and ``"none"`` (a bare
``return``, ``return None``, or falling off the end of the body).
"""

from __future__ import annotations

import ast
from collections import Counter

from codescore_metric.code_unbound import binds_names_dynamically

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_OWN_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
Kinds = frozenset  # of kind names

# Builtins whose result has one kind whatever their arguments (or that raise).
_CALL_KINDS = {
    "list": "list", "sorted": "list", "tuple": "tuple", "set": "set", "frozenset": "set", "dict": "dict",
    "str": "str", "repr": "str", "chr": "str", "hex": "str", "bin": "str", "oct": "str", "format": "str",
    "int": "number", "float": "number", "len": "number", "abs": "number", "round": "number", "ord": "number",
    "bool": "number", "all": "number", "any": "number", "isinstance": "number", "callable": "number",
}
# Methods by the kind of their receiver, and the kind they return.
_METHOD_KINDS = {
    "str": {**dict.fromkeys(("join", "format", "upper", "lower", "strip", "lstrip", "rstrip", "replace", "title",
                             "capitalize", "swapcase", "casefold", "center", "ljust", "rjust", "zfill"), "str"),
            **dict.fromkeys(("split", "rsplit", "splitlines"), "list"),
            **dict.fromkeys(("count", "find", "rfind", "index", "rindex", "startswith", "endswith", "isdigit",
                             "isalpha", "isalnum", "isupper", "islower", "isspace", "isnumeric", "isdecimal",
                             "istitle"), "number")},
    "list": {"count": "number", "index": "number", "copy": "list"},
    "tuple": {"count": "number", "index": "number"},
    "set": dict.fromkeys(("union", "intersection", "difference", "symmetric_difference", "copy"), "set"),
    "dict": {"copy": "dict"},
}
# Functions of standard modules, by the kind they return, when the module is imported plainly at top level.
_MODULE_FUNCTION_KINDS = {
    "math": dict.fromkeys(("sqrt", "floor", "ceil", "trunc", "fabs", "factorial", "gcd", "lcm", "comb", "perm", "isqrt",
                           "pow", "exp", "log", "log2", "log10", "sin", "cos", "tan", "asin", "acos", "atan", "atan2",
                           "hypot", "degrees", "radians", "fsum", "dist", "isclose", "isnan", "isinf", "isfinite"),
                          "number"),
    "re": {"sub": "str", "escape": "str", "findall": "list", "split": "list"},
}
_NUMBER_OPERATORS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.BitOr, ast.BitAnd,
                     ast.BitXor, ast.LShift, ast.RShift)
_SET_OPERATORS = (ast.BitOr, ast.BitAnd, ast.BitXor, ast.Sub)
_SEQUENCES = {"list", "tuple", "str"}


def return_kinds(function: ast.FunctionDef | ast.AsyncFunctionDef, module: ast.Module) -> Kinds | None:
    """The kinds of value ``function`` (a top-level ``def`` of ``module``) can return, or ``None`` when its code
    does not show them all (a generator, an ``async def``, a ``return`` of a value of no plain kind, ...)."""
    if isinstance(function, ast.AsyncFunctionDef):
        return None
    nodes = list(own_nodes(function))
    if any(isinstance(node, (ast.Yield, ast.YieldFrom)) for node in nodes) or binds_names_dynamically(nodes):
        return None
    bindings = _module_bindings(module)
    reader = _KindReader(function, nodes, _shadowed_builtins(bindings) | _parameters(function),
                         _plain_imports(module, bindings))
    kinds = set() if _ends_in_exit(function.body) else {"none"}
    for node in nodes:
        if isinstance(node, ast.Return):
            found = Kinds({"none"}) if node.value is None else reader.kinds(node.value)
            if found is None:
                return None
            kinds |= found
    return Kinds(kinds)


def own_nodes(function: ast.FunctionDef | ast.AsyncFunctionDef):
    """The nodes of ``function``'s body outside the functions, classes and lambdas nested in it."""
    stack = list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, _OWN_SCOPES):
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def _module_bindings(module: ast.Module) -> Counter | None:
    """How many times ``module`` binds each name anywhere (``None`` after a ``from ... import *``)."""
    counts = Counter()
    for node in ast.walk(module):
        if isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names):
            return None
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            counts[node.id] += 1
        elif isinstance(node, (*_FUNCTIONS, ast.ClassDef)):
            counts[node.name] += 1
        elif isinstance(node, ast.arg):
            counts[node.arg] += 1
        else:
            counts.update(_bound_names(node))
    return counts


def _shadowed_builtins(bindings: Counter | None) -> set[str]:
    """The builtin call names the module binds itself (perhaps all of them, after a star import)."""
    return set(_CALL_KINDS) if bindings is None else {name for name in _CALL_KINDS if bindings[name]}


def _plain_imports(module: ast.Module, bindings: Counter | None) -> dict[str, str]:
    """Alias -> module for the modules of `_MODULE_FUNCTION_KINDS` that ``module`` imports at top level
    (``import math``, ``import re as regex``) and binds no other way anywhere."""
    if bindings is None:
        return {}
    return {alias.asname or alias.name: alias.name for statement in module.body if isinstance(statement, ast.Import)
            for alias in statement.names
            if alias.name in _MODULE_FUNCTION_KINDS and bindings[alias.asname or alias.name] == 1}


def _parameters(function: ast.FunctionDef) -> set[str]:
    arguments = function.args
    every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg]
    return {argument.arg for argument in every if argument is not None}


def _ends_in_exit(statements: list[ast.stmt]) -> bool:
    """Whether every path through ``statements`` ends in a ``return`` or ``raise`` (read simply: the last
    statement is one, or an ``if``/``else`` whose branches both end so)."""
    last = statements[-1]
    if isinstance(last, (ast.Return, ast.Raise)):
        return True
    if isinstance(last, ast.If):
        return bool(last.orelse) and _ends_in_exit(last.body) and _ends_in_exit(last.orelse)
    return False


class _KindReader:
    """Reads the kinds of an expression of one function, following its local names' plain bindings
    (``name = value``, ``name: T = value``, ``name += value``); a name bound any other way is opaque."""

    def __init__(self, function: ast.FunctionDef, nodes: list[ast.AST], opaque_names: set[str],
                 modules: dict[str, str]):
        self.assigned: dict[str, list[ast.expr]] = {}
        self.augmented: dict[str, list[ast.AugAssign]] = {}
        self.opaque = set(opaque_names) | _names_bound_by_nested_scopes(function)
        plain = set()  # the Name nodes that are plain bindings
        for node in nodes:
            if isinstance(node, ast.Assign) and all(isinstance(target, ast.Name) for target in node.targets):
                for target in node.targets:
                    self.assigned.setdefault(target.id, []).append(node.value)
                    plain.add(id(target))
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                if node.value is not None:
                    self.assigned.setdefault(node.target.id, []).append(node.value)
                plain.add(id(node.target))
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                self.augmented.setdefault(node.target.id, []).append(node)
                plain.add(id(node.target))
        for node in nodes:
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load) and id(node) not in plain:
                self.opaque.add(node.id)
            else:
                self.opaque |= _bound_names(node)
        self.modules = {alias: name for alias, name in modules.items() if alias not in self.opaque}
        self._reading: set[str] = set()

    def kinds(self, expression: ast.expr) -> Kinds | None:
        """The kinds ``expression`` can have, or ``None`` when the code does not show them."""
        single = _literal_kind(expression)
        if single is not None:
            return Kinds({single})
        if isinstance(expression, ast.Name):
            return self._name_kinds(expression.id)
        if isinstance(expression, ast.Call):
            return self._call_kinds(expression)
        if isinstance(expression, ast.Subscript):
            return self._subscript_kinds(expression)
        if isinstance(expression, ast.BinOp):
            return self._operation_kinds(self.kinds(expression.left), expression.op, expression.right)
        if isinstance(expression, ast.UnaryOp):
            operand = self.kinds(expression.operand)
            return Kinds({"number"}) if isinstance(expression.op, ast.Not) or operand == {"number"} else None
        if isinstance(expression, (ast.IfExp, ast.BoolOp)):
            branches = [expression.body, expression.orelse] if isinstance(expression, ast.IfExp) else expression.values
            return _union(self.kinds(branch) for branch in branches)
        return None

    def _name_kinds(self, name: str) -> Kinds | None:
        if name in self.opaque or name not in self.assigned or name in self._reading:
            return None
        self._reading.add(name)
        try:
            # `name = name + x` is read as `name += x`
            updates = [(value.op, value.right) for value in self.assigned[name] if _updates(value, name)]
            updates += [(update.op, update.value) for update in self.augmented.get(name, [])]
            kinds = _union(self.kinds(value) for value in self.assigned[name] if not _updates(value, name))
            for operator, value in updates:
                kinds = _union([kinds, self._update_kinds(kinds, operator, value)])
            return kinds
        finally:
            self._reading.discard(name)

    def _call_kinds(self, call: ast.Call) -> Kinds | None:
        function = call.func
        if isinstance(function, ast.Name) and function.id not in self.opaque:
            if function.id in _CALL_KINDS:
                return Kinds({_CALL_KINDS[function.id]})
            if function.id == "sum" and len(call.args) == 1 and not call.keywords:  # 0 + the items: a number
                return Kinds({"number"})
            if (function.id in ("min", "max") and len(call.args) > 1 and not call.keywords
                    and all(self.kinds(argument) == {"number"} for argument in call.args)):  # one of its numbers
                return Kinds({"number"})
            return None
        if not isinstance(function, ast.Attribute):
            return None
        receiver = function.value
        if isinstance(receiver, ast.Name) and receiver.id in self.modules:
            kind = _MODULE_FUNCTION_KINDS[self.modules[receiver.id]].get(function.attr)
            return None if kind is None else Kinds({kind})
        receiver_kinds = self.kinds(receiver)
        if receiver_kinds is None or len(receiver_kinds) != 1:
            return None
        kind = _METHOD_KINDS.get(next(iter(receiver_kinds)), {}).get(function.attr)
        return None if kind is None else Kinds({kind})

    def _subscript_kinds(self, subscript: ast.Subscript) -> Kinds | None:
        """A string's items and slices are strings; a list's or tuple's slices are lists or tuples."""
        container = self.kinds(subscript.value)
        if container == {"str"} or (container in ({"list"}, {"tuple"}) and isinstance(subscript.slice, ast.Slice)):
            return container
        return None

    def _update_kinds(self, kinds: Kinds | None, operator: ast.operator, value: ast.expr) -> Kinds | None:
        """The kinds of ``name op= value``: an accumulator keeps its kind whatever is added to it (a list extends
        itself in place, a set updates itself; a number or string plus something else is one again, or raises)."""
        if kinds is not None and len(kinds) == 1:
            kind = next(iter(kinds))
            if ((kind == "list" and isinstance(operator, ast.Add)) or (kind == "set" and isinstance(operator, _SET_OPERATORS))
                    or (kind == "str" and isinstance(operator, (ast.Add, ast.Mod)))
                    or (kind == "number" and isinstance(operator, _NUMBER_OPERATORS)
                        and not isinstance(operator, ast.Mult))):  # 0 * 'ab' is a string
                return kinds
        return self._operation_kinds(kinds, operator, value)

    def _operation_kinds(self, left: Kinds | None, operator: ast.operator, right_expression: ast.expr) -> Kinds | None:
        if left == {"str"} and isinstance(operator, ast.Mod):  # printf-style formatting
            return left
        right = self.kinds(right_expression)
        if left is None or right is None or len(left) != 1 or len(right) != 1:
            return None
        (a,), (b,) = left, right
        if a == b == "number" and isinstance(operator, _NUMBER_OPERATORS):
            return left
        if a == b and a in _SEQUENCES and isinstance(operator, ast.Add):
            return left
        if a == b == "set" and isinstance(operator, _SET_OPERATORS):
            return left
        if {a, b} & _SEQUENCES and "number" in {a, b} and isinstance(operator, ast.Mult):
            return Kinds({a if a != "number" else b})
        return None


def _updates(value: ast.expr, name: str) -> bool:
    return isinstance(value, ast.BinOp) and isinstance(value.left, ast.Name) and value.left.id == name


def _literal_kind(expression: ast.expr) -> str | None:
    if isinstance(expression, (ast.List, ast.ListComp)):
        return "list"
    if isinstance(expression, ast.Tuple):
        return "tuple"
    if isinstance(expression, (ast.Set, ast.SetComp)):
        return "set"
    if isinstance(expression, (ast.Dict, ast.DictComp)):
        return "dict"
    if isinstance(expression, ast.JoinedStr):
        return "str"
    if isinstance(expression, ast.Compare):
        return "number"
    if isinstance(expression, ast.Constant):
        value = expression.value
        if value is None:
            return "none"
        if isinstance(value, (bool, int, float)):
            return "number"
        if isinstance(value, str):
            return "str"
    return None


def _union(parts) -> Kinds | None:
    kinds = set()
    for part in parts:
        if part is None:
            return None
        kinds |= part
    return Kinds(kinds)


def _bound_names(node: ast.AST) -> set[str]:
    """The names ``node`` binds other than as an assignment target (imports, ``global``, ``except ... as``, patterns)."""
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(alias.asname or alias.name).split(".")[0] for alias in node.names}
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return set(node.names)
    if isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
        return {node.name}
    if isinstance(node, ast.MatchMapping) and node.rest:
        return {node.rest}
    return set()


def _names_bound_by_nested_scopes(function: ast.FunctionDef) -> set[str]:
    """The names of the functions and classes nested in ``function``, and the names they declare ``nonlocal``."""
    names = set()
    for node in ast.walk(function):
        if node is not function and isinstance(node, (*_FUNCTIONS, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Nonlocal):
            names |= set(node.names)
    return names
