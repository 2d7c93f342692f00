"""Splicing mutants back into their source's layout (``codescore_metric.data.splice``)."""

import ast

import pytest

from codescore_metric.data import mutations
from codescore_metric.data.candidates import Donor, make_candidates
from codescore_metric.data.splice import splice

REMOVE_OCC = '''def remove_Occ(s,ch): 
    # first pass: from the left
    for i in range(len(s)): 
        if (s[i] == ch): 
            s = s[0 : i] + s[i + 1:]   # cut it out
            break
    for i in range(len(s) - 1,-1,-1):  
        if (s[i] == ch): 
            s = s[0 : i] + s[i + 1:] 
            break
    return s 
'''

# Varied layouts: decorators, classes, elif chains, try/except/finally, while/else, with, nested
# functions, docstrings, comments, multi-line expressions, CRLF line ends, no final newline.
PROGRAMS = [
    REMOVE_OCC,
    '''import functools


@functools.lru_cache(maxsize = 128)
def fib(n) :
    """Fibonacci, memoised."""
    if n<2 :   # base case
        return n
    elif n == 2:
        return 1
    else:
        return fib(n-1) + fib(n-2)
''',
    '''class Stack :
    def __init__(self):
        self.items = [ ]

    def push(self, x):
        self.items.append( x )   # grow
        return len(self.items)

def run(xs):
    s = Stack()
    total = 0
    for x in xs:
        total += s.push(x)
    while total > 10:
        total -= 3
    else:
        total = total*2
    return total
''',
    '''def parse(text):
    try:
        value = int(text.strip())
    except ValueError as err:
        # not a number
        value = -1
    finally:
        text = None
    with open(__file__) as handle:
        first = handle.read(1)
    squares = [v*v for v in range(value) if v % 2 == 0]
    result = (sum(squares)
              + len(first))
    return max(result, 0)
''',
    "def f(a, b):\r\n    if a > b:\r\n        return a - b\r\n    out = []\r\n    out.append(a)\r\n    return min(out)",
    '''def outer(xs):
    def inner(y):
        return y + 1
    best = 0
    for x in xs:
        if inner(x) > best and x != 3:
            best = inner(x)
        elif x < 0:
            best -= 1
    return best
''',
]


def _changed_lines(before: str, after: str) -> list[tuple[str, str]]:
    old, new = before.splitlines(), after.splitlines()
    assert len(old) == len(new)
    return [(a, b) for a, b in zip(old, new) if a != b]


def test_comment_and_odd_spacing_on_untouched_lines_survive():
    source = "def f(a,b):\n    # add them\n    x  =  a+b   # sum\n    return x*2\n"
    mutant = next(text for text in mutations.constant_off_by_one(source) if "x * 3" in text)
    assert splice(source, mutant) == "def f(a,b):\n    # add them\n    x  =  a+b   # sum\n    return x * 3\n"


def test_changed_operator_in_nested_loop_changes_only_that_line():
    mutant = next(text for text in mutations.arithmetic_swap(REMOVE_OCC) if "s[0:i] - s[i + 1:]" in text)
    result = splice(REMOVE_OCC, mutant)
    # the trailing comment of the changed line is kept
    assert _changed_lines(REMOVE_OCC, result) == [("            s = s[0 : i] + s[i + 1:]   # cut it out",
                                                   "            s = s[0:i] - s[i + 1:]   # cut it out")]
    mutant = next(text for text in mutations.compare_swap(REMOVE_OCC) if "if s[i] != ch" in text)
    assert _changed_lines(REMOVE_OCC, splice(REMOVE_OCC, mutant)) == [("        if (s[i] == ch): ", "        if s[i] != ch:")]


def test_changed_compound_header_keeps_its_body():
    mutant = next(text for text in mutations.constant_off_by_one(REMOVE_OCC) if "range(len(s) - 2, -1, -1)" in text)
    assert _changed_lines(REMOVE_OCC, splice(REMOVE_OCC, mutant)) == [
        ("    for i in range(len(s) - 1,-1,-1):  ", "    for i in range(len(s) - 2, -1, -1):")]


def test_elif_and_decorator_headers():
    source = PROGRAMS[1]
    mutant = next(text for text in mutations.compare_swap(source) if "elif n != 2" in text)
    assert _changed_lines(source, splice(source, mutant)) == [("    elif n == 2:", "    elif n != 2:")]
    mutant = next(text for text in mutations.constant_off_by_one(source) if "maxsize=129" in text)
    assert _changed_lines(source, splice(source, mutant)) == [
        ("@functools.lru_cache(maxsize = 128)", "@functools.lru_cache(maxsize=129)"), ("def fib(n) :", "def fib(n):")]


def test_deleted_and_duplicated_statements():
    source = "def f(xs):\n    out = [ ]  # start\n\n    out.append( xs[0] )\n    return out\n"
    deleted = next(text for text in mutations.delete_statement(source) if "append" not in text)
    assert splice(source, deleted) == "def f(xs):\n    out = [ ]  # start\n\n    return out\n"
    duplicated = next(text for text in mutations.duplicate_statement(source) if text.count("append") == 2)
    assert splice(source, duplicated) == "def f(xs):\n    out = [ ]  # start\n\n    out.append( xs[0] )\n    out.append(xs[0])\n    return out\n"
    cut = "            s = s[0 : i] + s[i + 1:]   # cut it out\n"
    expected = REMOVE_OCC.replace(cut, "")
    assert any(splice(REMOVE_OCC, text) == expected for text in mutations.delete_statement(REMOVE_OCC))


@pytest.mark.parametrize("program", range(len(PROGRAMS)))
def test_every_mutant_splices_to_the_same_ast(program):
    source = PROGRAMS[program]
    operators = {**mutations.OPERATORS, **mutations.PARTIAL_OPERATORS, "rename_locals": mutations.rename_locals,
                 "undefined_name": mutations.undefined_name}
    count = 0
    for name, operator in operators.items():
        for mutant in operator(source):
            result = splice(source, mutant)
            assert result != mutant, f"{name} fell back:\n{mutant}"
            assert ast.dump(ast.parse(result)) == ast.dump(ast.parse(mutant)), f"{name}:\n{result}"
            count += 1
    assert count >= 10


def test_layout_the_splice_cannot_handle_falls_back_to_the_mutant():
    source = "def f(a):\n    b = a + 1; return b\n"
    mutant = mutations.arithmetic_swap(source)[0]
    assert splice(source, mutant) == mutant
    assert splice("def f(:\n", "x = 1\n") == "x = 1\n"
    assert splice(REMOVE_OCC, "def f(:\n") == "def f(:\n"  # a mutant that does not parse is kept as it is
    assert splice(REMOVE_OCC, REMOVE_OCC) == REMOVE_OCC
    with pytest.raises(TypeError):
        splice(REMOVE_OCC, None)


def test_candidates_keep_the_source_comments():
    reference = "def total(xs):\n    # running total\n    t = 0\n    for x in xs:\n        t += x\n    return t\n"
    donor = "def other(xs, k):\n    # the donor's comment\n    return len(xs) * k\n"
    candidates = make_candidates("a", reference, "total", [Donor("b", donor, "other")], per_task=20, seed=1)
    mutants = [candidate for candidate in candidates if candidate.kind == "mutant"]
    assert mutants and all("    # running total\n" in candidate.code for candidate in mutants)
    for candidate in candidates:
        try:
            ast.parse(candidate.code)
        except SyntaxError:
            continue
        expected = "    # the donor's comment\n" if candidate.kind == "foreign" else "    # running total\n"
        assert expected in candidate.code, candidate
    assert any(candidate.kind == "foreign" for candidate in candidates)
