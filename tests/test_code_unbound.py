"""code_unbound: names a program reads and binds nowhere (each a NameError when its line runs)."""

import ast

import pytest

from codescore_metric.code_unbound import unbound_names


def unbound(code: str) -> set[str]:
    return set(unbound_names(ast.parse(code)))


@pytest.mark.parametrize("code, names", [
    ("def f(x):\n    return math.floor(x)\n", {"math"}),  # a forgotten import
    ("def f(xs):\n    return [y for y in xx]\n", {"xx"}),  # a typo
    ("def f(x):\n    return helper(x)\n", {"helper"}),  # a helper never written
    ("def f(x):\n    if x > 1e9:\n        return fallback(x)\n    return x\n", {"fallback"}),  # even on a rare branch
])
def test_names_read_but_never_bound_are_found(code, names):
    assert unbound(code) == names


@pytest.mark.parametrize("code", [
    "import math\ndef f(x):\n    return math.floor(x)\n",
    "def f(x):\n    return g(x)\n\ndef g(x):\n    return x\n",  # defined after its use
    "def f(x):\n    return K * x\n\nK = 3\n",  # a global assigned later
    "def f(xs: List[int]) -> Dict[str, Any]:\n    return {}\n",  # typing names: harnesses provide them
    "def f(x):\n    return len(str(abs(x)))\n",  # builtins
    "try:\n    from math import prod\nexcept ImportError:\n    prod = None\ndef f(xs):\n    return prod(xs)\n",
    "class A:\n    n = 1\n    def f(self):\n        return self.n\n",
    "def f(x):\n    global seen\n    seen = x\n    return seen\n",
])
def test_bound_names_and_harness_names_are_not_reported(code):
    assert unbound(code) == set()


@pytest.mark.parametrize("code", [
    "from math import *\ndef f(x):\n    return floor(x)\n",
    "exec('y = 1')\ndef f():\n    return y\n",
    "globals()['y'] = 1\ndef f():\n    return y\n",
    "locals()['y'] = 1\ndef f():\n    return y\n",  # at module level locals() is globals()
])
def test_programs_that_bind_names_at_run_time_are_not_judged(code):
    assert unbound(code) == set()
