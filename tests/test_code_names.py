import ast

import pytest

from codescore_metric.code_names import canonical_names

SUM_OF_SQUARES = '''import math

def sum_of_squares(numbers, *, scale=1):
    total = 0  # running sum
    for value in numbers:
        total += value * value
    return math.floor(total * scale) + helper(width=2)

def helper(width):
    return width
'''


def test_canonical_names_numbers_parameters_and_locals_by_first_appearance_in_place():
    canonical = canonical_names(SUM_OF_SQUARES)
    assert canonical == SUM_OF_SQUARES.replace("(numbers,", "(v0,").replace("total", "v1").replace(
        "value", "v2").replace("in numbers", "in v0")
    assert "# running sum" in canonical and "scale" in canonical  # comments and keyword-only parameters stay
    assert "def helper(width):" in canonical  # passed by keyword somewhere: kept


def test_programs_that_differ_only_in_local_names_read_the_same():
    renamed = SUM_OF_SQUARES.replace("numbers", "xs").replace("total", "acc").replace("value", "v0")
    assert renamed != SUM_OF_SQUARES
    assert canonical_names(renamed) == canonical_names(SUM_OF_SQUARES)
    assert canonical_names(canonical_names(SUM_OF_SQUARES)) == canonical_names(SUM_OF_SQUARES)


@pytest.mark.parametrize("program", [
    "def f(:\n    return 1\n",  # does not parse
    "def f(a):\n    return " + "-" * 100_000 + "a\n",  # too deep to parse
    "def f():\n    return 1\n",  # nothing to rename
    "def f(a):\n    return lambda: a\n",  # a nested scope
    "def f(a):\n    return f'{a}'\n",  # an f-string
    "def f(a):\n    global b\n    b = a\n",
    "x = 1\nprint(x)\n",  # module level names are not a function's
], ids=["syntax error", "too deep", "no names", "lambda", "f-string", "global", "module level"])
def test_canonical_names_leaves_what_it_cannot_rename_safely_unchanged(program):
    assert canonical_names(program) == program


def test_canonical_names_avoid_names_the_function_uses_otherwise():
    program = "v0 = 10\n\ndef f(a):\n    b = a + v0\n    return b\n"
    canonical = canonical_names(program)
    assert canonical == "v0 = 10\n\ndef f(v1):\n    v2 = v1 + v0\n    return v2\n"
    assert ast.dump(ast.parse(canonical)) != ast.dump(ast.parse(program))
