"""AST mutation operators: small, named rewrites of a reference program into plausible wrong ones.

Every operator takes a program's source and returns the list of its distinct single-site mutants,
in a fixed order (site by site in ``ast.walk`` order, then variant by variant), each unparsed with
``ast.unparse``. Operators never run the code. ``OPERATORS`` holds the behaviour-changing ones,
``NON_EXECUTABLE`` the ones meant to break loading or running (syntax and name errors), and
``rename_locals``, ``rename_identifiers`` and ``EQUIVALENT_REWRITES`` (one-place edits such as ``a < b`` written
``b > a``) are the behaviour-preserving rewrites. Sampling among mutants, and so the seed,
belongs to the caller (``candidates.py``), which also splices each mutant back into its source
(``splice.splice``) so that the candidates it makes keep the source's layout outside the changed
statement; the operators themselves return the ``ast.unparse`` text.
"""

from __future__ import annotations

import ast
import copy
import random
import re
from collections.abc import Callable, Iterator

from codescore_metric.code_names import all_names, argument_names, assigned_names, functions, renamable, rename_names

# A variant edits the node it is given in place (inside a private copy of the tree), or returns the node to put in its
# place.
Variant = Callable[[ast.AST], "ast.AST | None"]

_COMPARE_SWAPS = {ast.Lt: (ast.LtE, ast.Gt), ast.LtE: (ast.Lt, ast.GtE), ast.Gt: (ast.GtE, ast.Lt),
                  ast.GtE: (ast.Gt, ast.LtE), ast.Eq: (ast.NotEq,), ast.NotEq: (ast.Eq,), ast.In: (ast.NotIn,),
                  ast.NotIn: (ast.In,), ast.Is: (ast.IsNot,), ast.IsNot: (ast.Is,)}
_ARITHMETIC_SWAPS = {ast.Add: (ast.Sub, ast.Mult), ast.Sub: (ast.Add,), ast.Mult: (ast.Add, ast.FloorDiv),
                     ast.Div: (ast.FloorDiv, ast.Mult), ast.FloorDiv: (ast.Div, ast.Mod), ast.Mod: (ast.FloorDiv,),
                     ast.Pow: (ast.Mult,), ast.BitAnd: (ast.BitOr,), ast.BitOr: (ast.BitAnd,),
                     ast.LShift: (ast.RShift,), ast.RShift: (ast.LShift,)}
_BUILTIN_SWAPS = {"min": ("max",), "max": ("min",), "any": ("all",), "all": ("any",), "sum": ("len", "max"),
                  "len": ("sum",), "sorted": ("list", "reversed"), "abs": ("int",), "round": ("int",),
                  "int": ("round",), "set": ("list",), "reversed": ("sorted",)}
_METHOD_SWAPS = {"append": ("extend",), "lower": ("upper",), "upper": ("lower",), "startswith": ("endswith",),
                 "endswith": ("startswith",), "find": ("rfind",), "rfind": ("find",), "index": ("count",),
                 "isdigit": ("isalpha",), "isalpha": ("isdigit",), "keys": ("values",), "values": ("keys",),
                 "split": ("rsplit",), "strip": ("lstrip",), "sort": ("reverse",), "pop": ("copy",)}
_DUPLICABLE = (ast.Assign, ast.AugAssign, ast.Expr)


def _sites(tree: ast.AST, variants_of: Callable[[ast.AST], list[Variant]]) -> Iterator[tuple[int, Variant]]:
    """``(node index in ast.walk order, variant)`` for every node that has variants."""
    for index, node in enumerate(ast.walk(tree)):
        for variant in variants_of(node):
            yield index, variant


def _mutants(tree: ast.Module, variants_of: Callable[[ast.AST], list[Variant]]) -> list[str]:
    """Apply each variant to a fresh copy of ``tree``; the distinct sources that differ from the original."""
    original = ast.unparse(tree)
    found: list[str] = []
    for index, variant in _sites(tree, variants_of):
        copied = copy.deepcopy(tree)
        node = next(node for i, node in enumerate(ast.walk(copied)) if i == index)
        replacement = variant(node)
        if replacement is not None:
            _replace(copied, node, replacement)
        ast.fix_missing_locations(copied)
        text = ast.unparse(copied)
        if text != original and text not in found:
            found.append(text)
    return found


def parse(source: str) -> ast.Module:
    """``ast.parse`` with a ``ValueError`` that says which program did not parse."""
    if not isinstance(source, str):
        raise TypeError(f"source must be a string, got {type(source).__name__}")
    try:
        return ast.parse(source)
    except SyntaxError as error:
        raise ValueError(f"cannot mutate a program that does not parse: {error.msg} (line {error.lineno})") from None


def _set(attribute: str, value) -> Variant:
    return lambda target: setattr(target, attribute, value)


def _replace_item(attribute: str, position: int, make: Callable[[ast.AST], ast.AST]) -> Variant:
    def apply(target: ast.AST) -> None:
        items = getattr(target, attribute)
        items[position] = make(items[position])
    return apply


def _plus(delta: int) -> Callable[[ast.AST], ast.AST]:
    def shift(expr: ast.AST) -> ast.AST:
        if isinstance(expr, ast.Constant) and type(expr.value) is int:
            return ast.Constant(expr.value + delta)
        return ast.BinOp(expr, ast.Add() if delta > 0 else ast.Sub(), ast.Constant(abs(delta)))
    return shift


# ---- behaviour-changing operators ------------------------------------------------------------------

def compare_swap(source: str) -> list[str]:
    """``<`` to ``<=`` or ``>``, ``==`` to ``!=``, ``in`` to ``not in``, ``is`` to ``is not`` (and back)."""
    def variants(node):
        if not isinstance(node, ast.Compare):
            return []
        return [_replace_item("ops", k, lambda _, new=new: new()) for k, op in enumerate(node.ops)
                for new in _COMPARE_SWAPS.get(type(op), ())]
    return _mutants(parse(source), variants)


def arithmetic_swap(source: str) -> list[str]:
    """``+`` to ``-`` or ``*``, ``/`` to ``//``, ``%`` to ``//`` and the like, in expressions and ``x op= y``."""
    def variants(node):
        if isinstance(node, (ast.BinOp, ast.AugAssign)):
            return [_set("op", new()) for new in _ARITHMETIC_SWAPS.get(type(node.op), ())]
        return []
    return _mutants(parse(source), variants)


def constant_off_by_one(source: str) -> list[str]:
    """An integer literal plus or minus one."""
    def variants(node):
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return [_set("value", node.value + delta) for delta in (1, -1)]
        return []
    return _mutants(parse(source), variants)


def range_off_by_one(source: str) -> list[str]:
    """One bound of a ``range(...)`` call or of a slice, plus or minus one."""
    def variants(node):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range":
            return [_replace_item("args", k, _plus(delta)) for k in range(len(node.args)) for delta in (1, -1)]
        if isinstance(node, ast.Slice):
            return [(lambda t, name=name, delta=delta: setattr(t, name, _plus(delta)(getattr(t, name))))
                    for name in ("lower", "upper") if getattr(node, name) is not None for delta in (1, -1)]
        return []
    return _mutants(parse(source), variants)


def negate_condition(source: str) -> list[str]:
    """The test of an ``if``, ``while``, conditional expression or comprehension filter negated;
    ``and`` swapped with ``or``; a ``not`` removed."""
    def variants(node):
        if isinstance(node, (ast.If, ast.While, ast.IfExp)):
            return [_negate_test]
        if isinstance(node, ast.comprehension):
            return [_replace_item("ifs", k, lambda test: ast.UnaryOp(ast.Not(), test)) for k in range(len(node.ifs))]
        if isinstance(node, ast.BoolOp):
            return [_set("op", ast.Or() if isinstance(node.op, ast.And) else ast.And())]
        return []
    return _mutants(parse(source), variants)


def _negate_test(node: ast.AST) -> None:
    test = node.test
    negated = test.operand if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) else ast.UnaryOp(ast.Not(), test)
    node.test = negated


def swap_arguments(source: str) -> list[str]:
    """Two neighbouring positional arguments of a call swapped, or the operands of ``-``, ``/``, ``//``,
    ``%``, ``**`` or a comparison."""
    def variants(node):
        if isinstance(node, ast.Call):
            return [_swap_args(k) for k in range(len(node.args) - 1)
                    if ast.dump(node.args[k]) != ast.dump(node.args[k + 1])]
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Sub, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)):
            return [_swap_operands]
        return []
    return _mutants(parse(source), variants)


def _swap_args(k: int) -> Variant:
    def apply(node: ast.Call) -> None:
        node.args[k], node.args[k + 1] = node.args[k + 1], node.args[k]
    return apply


def _swap_operands(node: ast.BinOp) -> None:
    node.left, node.right = node.right, node.left


def delete_statement(source: str) -> list[str]:
    """One statement of a block removed (``pass`` left when the block would be empty); never a
    function or class definition itself, nor a docstring."""
    def variants(node):
        return [_edit_body(field, k, "delete") for field, body in _bodies(node) for k, statement in enumerate(body)
                if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                and not _is_docstring(statement)]
    return _mutants(parse(source), variants)


def duplicate_statement(source: str) -> list[str]:
    """An assignment, augmented assignment or expression statement (``xs.append(x)``) written twice."""
    def variants(node):
        return [_edit_body(field, k, "duplicate") for field, body in _bodies(node) for k, statement in enumerate(body)
                if isinstance(statement, _DUPLICABLE) and not _is_docstring(statement)]
    return _mutants(parse(source), variants)


def _bodies(node: ast.AST) -> list[tuple[str, list]]:
    return [(field, getattr(node, field)) for field in ("body", "orelse", "finalbody")
            if isinstance(getattr(node, field, None), list) and getattr(node, field)
            and isinstance(getattr(node, field)[0], ast.stmt)]


def _is_docstring(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant) and isinstance(statement.value.value, str)


def _edit_body(field: str, k: int, action: str) -> Variant:
    def apply(node: ast.AST) -> None:
        body = getattr(node, field)
        if action == "duplicate":
            body.insert(k, copy.deepcopy(body[k]))
        else:
            del body[k]
            if not body and field == "body":
                body.append(ast.Pass())
    return apply


def wrong_return(source: str) -> list[str]:
    """A ``return`` gives ``None``, the opposite boolean, or another variable of its function."""
    tree = parse(source)
    owners = {id(node): function for function in functions(tree) for node in ast.walk(function)
              if isinstance(node, ast.Return) and _owner(function, node) is function}

    def variants(node):
        if not isinstance(node, ast.Return) or id(node) not in owners:
            return []
        function, value = owners[id(node)], node.value
        found = []
        if value is not None and not (isinstance(value, ast.Constant) and value.value is None):
            found.append(_set("value", ast.Constant(None)))
        if isinstance(value, ast.Constant) and isinstance(value.value, bool):
            found.append(_set("value", ast.Constant(not value.value)))
        if isinstance(value, ast.Name):
            local_names = sorted(assigned_names(function) | argument_names(function))
            found += [_set("value", ast.Name(name, ast.Load())) for name in local_names if name != value.id]
        return found
    return _mutants(tree, variants)


def wrong_builtin(source: str) -> list[str]:
    """A built-in or method call swapped for a plausible wrong one: ``min``/``max``, ``any``/``all``,
    ``sum``/``len``, ``sorted``/``list``, ``.lower``/``.upper``, ``.startswith``/``.endswith``, ..."""
    tree = parse(source)
    shadowed = assigned_names(tree) | {function.name for function in functions(tree)}

    def variants(node):
        if not isinstance(node, ast.Call):
            return []
        func = node.func
        if isinstance(func, ast.Name) and func.id not in shadowed:
            return [_set_func("id", new) for new in _BUILTIN_SWAPS.get(func.id, ())]
        if isinstance(func, ast.Attribute):
            return [_set_func("attr", new) for new in _METHOD_SWAPS.get(func.attr, ())]
        return []
    return _mutants(tree, variants)


def _set_func(attribute: str, value: str) -> Variant:
    return lambda call: setattr(call.func, attribute, value)


def break_branch(source: str) -> list[str]:
    """A partially correct rewrite: one branch of an ``if`` replaced by the other branch, or emptied."""
    def variants(node):
        if not isinstance(node, ast.If):
            return []
        found = [_set("body", [ast.Pass()])]
        if node.orelse:
            found += [_set("body", copy.deepcopy(node.orelse)), _set("orelse", copy.deepcopy(node.body))]
        return found
    return _mutants(parse(source), variants)


OPERATORS: dict[str, Callable[[str], list[str]]] = {
    "compare_swap": compare_swap, "arithmetic_swap": arithmetic_swap, "constant_off_by_one": constant_off_by_one,
    "range_off_by_one": range_off_by_one, "negate_condition": negate_condition, "swap_arguments": swap_arguments,
    "delete_statement": delete_statement, "duplicate_statement": duplicate_statement, "wrong_return": wrong_return,
    "wrong_builtin": wrong_builtin,
}
PARTIAL_OPERATORS: dict[str, Callable[[str], list[str]]] = {"break_branch": break_branch}


# ---- non-executable variants -----------------------------------------------------------------------

_HEADER = re.compile(r"^(\s*(?:def|if|elif|else|for|while|with|try|except|class)\b.*):(\s*(?:#.*)?)$")


def syntax_error(source: str) -> list[str]:
    """Programs that no longer parse: a block header without its colon, an unclosed bracket, a
    body line out of indentation, a keyword misspelt (``retrun``)."""
    lines = ast.unparse(parse(source)).splitlines()
    found = []
    for k, line in enumerate(lines):
        header = _HEADER.match(line)
        if header:
            found.append(lines[:k] + [header.group(1) + header.group(2)] + lines[k + 1:])
            break
    for k, line in enumerate(lines):
        if line.rstrip().endswith(")"):
            found.append(lines[:k] + [line.rstrip()[:-1]] + lines[k + 1:])
            break
    for k, line in enumerate(lines):
        if k and line.startswith("    ") and lines[k - 1].rstrip().endswith(":"):
            found.append(lines[:k] + [line[2:]] + lines[k + 1:])
            break
    for k, line in enumerate(lines):
        if line.lstrip().startswith("return "):
            found.append(lines[:k] + [line.replace("return ", "retrun ", 1)] + lines[k + 1:])
            break
    texts = ["\n".join(variant) for variant in found]
    return [text for i, text in enumerate(texts) if text not in texts[:i] and not _parses(text)]


def _parses(text: str) -> bool:
    try:
        ast.parse(text)
    except SyntaxError:
        return False
    return True


def undefined_name(source: str) -> list[str]:
    """Programs that raise ``NameError`` when run: a variable or parameter read under a misspelt name
    (one site per name, its first read), or a used import dropped."""
    tree = parse(source)
    known = all_names(tree)
    first_reads: dict[str, int] = {}
    for index, node in enumerate(ast.walk(tree)):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in assigned_names(tree) | argument_names(tree):
            first_reads.setdefault(node.id, index)
    mutants: list[str] = []
    for name, index in sorted(first_reads.items(), key=lambda item: item[1]):
        misspelt = _misspell(name, known)
        copied = copy.deepcopy(tree)
        next(node for i, node in enumerate(ast.walk(copied)) if i == index).id = misspelt
        mutants.append(ast.unparse(copied))
    for k, statement in enumerate(tree.body):
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            copied = copy.deepcopy(tree)
            del copied.body[k]
            mutants.append(ast.unparse(copied))
    return [text for i, text in enumerate(mutants) if text not in mutants[:i]]


def _misspell(name: str, known: set[str]) -> str:
    candidates = [name[:-1] if len(name) > 1 else name + name, name + "s", name + "_", "_" + name]
    return next(c for c in [*candidates, name + "_undefined"] if c not in known and c.isidentifier())


NON_EXECUTABLE: dict[str, Callable[[str], list[str]]] = {"syntax_error": syntax_error, "undefined_name": undefined_name}


# ---- behaviour-preserving rewrite ------------------------------------------------------------------

def rename_locals(source: str) -> list[str]:
    """The program with the local variables of its functions renamed (``v0``, ``v1``, ...): a
    different-looking but equivalent program, or nothing when there is nothing safe to rename.
    Parameters keep their names (tests may pass them by keyword); functions holding nested
    functions, lambdas, ``global`` or ``locals()``-like calls are left alone."""
    tree = parse(source)
    taken = all_names(tree)
    changed = False
    for function in functions(tree):
        if not renamable(function):
            continue
        names = sorted(assigned_names(function) - argument_names(function))
        fresh = (f"v{i}" for i in range(len(taken) + len(names) + 1) if f"v{i}" not in taken)
        mapping = dict(zip(names, fresh))
        for node in ast.walk(function):
            if isinstance(node, ast.Name) and node.id in mapping:
                node.id, changed = mapping[node.id], True
    return [ast.unparse(tree)] if changed else []


_MIRRORED = {ast.Lt: ast.Gt, ast.Gt: ast.Lt, ast.LtE: ast.GtE, ast.GtE: ast.LtE, ast.Eq: ast.Eq, ast.NotEq: ast.NotEq}
_NEGATED_COMPARISON = {ast.NotIn: ast.In, ast.IsNot: ast.Is}


def mirror_comparison(source: str) -> list[str]:
    """A single comparison with its operands swapped and its operator mirrored: ``a < b`` as ``b > a``."""
    def rewrite(node: ast.Compare) -> ast.AST:
        return ast.Compare(node.comparators[0], [_MIRRORED[type(node.ops[0])]()], [node.left])
    return _rewrites(source, lambda node: isinstance(node, ast.Compare) and len(node.ops) == 1
                     and type(node.ops[0]) in _MIRRORED, rewrite)


def expand_augmented_assignment(source: str) -> list[str]:
    """``x += y`` as ``x = x + y``, for a plain name."""
    def rewrite(node: ast.AugAssign) -> ast.AST:
        return ast.Assign([ast.Name(node.target.id, ast.Store())],
                          ast.BinOp(ast.Name(node.target.id, ast.Load()), node.op, node.value))
    return _rewrites(source, lambda node: isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name), rewrite)


def spell_out_negation(source: str) -> list[str]:
    """``a not in b`` as ``not a in b``, ``a is not b`` as ``not a is b``."""
    def rewrite(node: ast.Compare) -> ast.AST:
        return ast.UnaryOp(ast.Not(), ast.Compare(node.left, [_NEGATED_COMPARISON[type(node.ops[0])]()], node.comparators))
    return _rewrites(source, lambda node: isinstance(node, ast.Compare) and len(node.ops) == 1
                     and type(node.ops[0]) in _NEGATED_COMPARISON, rewrite)


def explicit_range_start(source: str) -> list[str]:
    """``range(n)`` as ``range(0, n)``."""
    def rewrite(node: ast.Call) -> ast.AST:
        return ast.Call(node.func, [ast.Constant(0), node.args[0]], [])
    return _rewrites(source, lambda node: isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                     and node.func.id == "range" and len(node.args) == 1 and not node.keywords, rewrite)


def swap_if_branches(source: str) -> list[str]:
    """``if c: A else: B`` as ``if not c: B else: A``."""
    def rewrite(node: ast.If) -> ast.AST:
        swapped = ast.If(node.test, node.orelse, node.body)
        _negate_test(swapped)
        return swapped
    return _rewrites(source, lambda node: isinstance(node, ast.If) and bool(node.orelse), rewrite)


def commute_constant(source: str) -> list[str]:
    """``x + 1`` as ``1 + x`` and ``x * 2`` as ``2 * x``: a sum or product with one numeric constant operand."""
    def numeric(node: ast.AST) -> bool:
        return isinstance(node, ast.Constant) and type(node.value) in (int, float)

    def rewrite(node: ast.BinOp) -> ast.AST:
        return ast.BinOp(node.right, node.op, node.left)
    return _rewrites(source, lambda node: isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mult))
                     and numeric(node.left) != numeric(node.right), rewrite)


# Rewrites meant to keep what a program does while changing its code in one place (execution still labels each).
EQUIVALENT_REWRITES: dict[str, Callable[[str], list[str]]] = {
    "mirror_comparison": mirror_comparison, "expand_augmented_assignment": expand_augmented_assignment,
    "spell_out_negation": spell_out_negation, "explicit_range_start": explicit_range_start,
    "swap_if_branches": swap_if_branches, "commute_constant": commute_constant,
}


def _rewrites(source: str, eligible: Callable[[ast.AST], bool], rewrite: Variant) -> list[str]:
    """One program per eligible node with ``rewrite`` applied to it (see `_mutants`)."""
    return _mutants(parse(source), lambda node: [rewrite] if eligible(node) else [])


def _replace(tree: ast.AST, target: ast.AST, replacement: ast.AST) -> None:
    """Put ``replacement`` where ``target`` is in ``tree``."""
    for parent in ast.walk(tree):
        for field, value in ast.iter_fields(parent):
            if value is target:
                setattr(parent, field, replacement)
                return
            if isinstance(value, list):
                for position, item in enumerate(value):
                    if item is target:
                        value[position] = replacement
                        return


# Names a person might choose, drawn by ``rename_identifiers``; any not free in a program are skipped.
_NAME_POOL = ("value", "item", "items", "result", "total", "count", "index", "idx", "acc", "temp", "tmp", "current",
              "elem", "element", "num", "number", "nums", "numbers", "data", "seq", "sequence", "arr", "array", "lst",
              "values", "text", "string", "s", "word", "words", "key", "val", "out", "output", "res", "ans", "answer",
              "x", "y", "z", "a", "b", "c", "n", "m", "k", "i", "j", "p", "q", "t", "left", "right", "lo", "hi", "start",
              "end", "size", "length", "first", "second", "prev", "nxt", "pos", "step", "flag", "found", "best", "low",
              "high", "part", "parts", "row", "col", "grid", "matrix", "pair", "pairs", "char", "ch", "digits", "limit")


def rename_identifiers(source: str, rng: random.Random) -> str | None:
    """``source`` with the parameters and local variables of its functions consistently renamed to names
    drawn by ``rng`` from ordinary identifiers (`code_names.rename_names` says what is kept and how the
    result is checked); ``None`` when nothing can be renamed safely. Keyword-only parameters and parameters
    passed by keyword anywhere in the program keep their names, since tests may pass them by keyword."""
    def choose(names: list[str], taken: set[str]) -> dict[str, str]:
        free = [name for name in _NAME_POOL if name not in taken]
        rng.shuffle(free)
        return dict(zip(sorted(names), free))
    parse(source)  # a ValueError that names the problem, as for the other operators
    return rename_names(source, choose)


# ---- helpers ---------------------------------------------------------------------------------------

def _owner(function: ast.AST, target: ast.AST) -> ast.AST | None:
    """The innermost function (or lambda) under ``function`` that contains ``target``."""
    owner = None

    def visit(node, current):
        nonlocal owner
        if node is target:
            owner = current
            return
        for child in ast.iter_child_nodes(node):
            inner = child if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) else current
            visit(child, inner)
    visit(function, function)
    return owner
