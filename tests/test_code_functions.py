"""code_functions: a function that cannot be called as the reference's, or returns nothing where the reference's
always returns a value, fails its tests."""

import ast

import pytest

from codescore_metric.code_functions import drops_return_value, rejects_reference_calls

REFERENCE = "def total(xs):\n    s = 0\n    for x in xs:\n        s += x\n    return s\n"


def drops(prediction: str, reference: str = REFERENCE) -> bool:
    return drops_return_value(ast.parse(prediction), ast.parse(reference))


@pytest.mark.parametrize("prediction", [
    "def total(xs):\n    s = 0\n    for x in xs:\n        s += x\n",  # the return forgotten
    "def total(xs):\n    print(sum(xs))\n",  # prints instead of returning
    "def total(xs):\n    \"\"\"Sum them.\"\"\"\n",  # a stub: docstring only
    "def total(xs):\n    pass\n",
    "def total(xs):\n    if not xs:\n        return\n    return None\n",  # only ever None
    "def total(xs):\n    def inner():\n        return sum(xs)\n    inner()\n",  # the value returned by a nested function
    "def total(xs):\n    return sum(xs)\n\ndef total(xs):\n    pass\n",  # the last definition is the one tests call
])
def test_functions_that_never_return_a_value_are_found(prediction):
    assert drops(prediction)


@pytest.mark.parametrize("prediction", [
    "def total(xs):\n    return sum(xs)\n",
    "def total(xs):\n    if xs:\n        return sum(xs)\n",  # returns a value on some path
    "def total(xs):\n    yield sum(xs)\n",  # a generator returns a generator object
    "def total(xs):\n    pass\n\ntotal = sum\n",  # rebound at top level
    "import functools\n@functools.cache\ndef total(xs):\n    pass\n",  # a decorator could return anything
    "def other(xs):\n    pass\n",  # shares no function with the reference
])
def test_functions_that_may_return_a_value_are_not_judged(prediction):
    assert not drops(prediction)


@pytest.mark.parametrize("reference", [
    "def total(xs):\n    if not xs:\n        return None\n    return sum(xs)\n",  # its tests may expect None
    "def total(xs):\n    if not xs:\n        return\n    return sum(xs)\n",
    "def total(xs):\n    for x in xs:\n        return x\n",  # may fall off its end
    "def total(xs):\n    yield from xs\n",
    "def total(xs):\n    return sum(xs) if xs else None\n",
    "def total(xs):\n    return xs and (sum(xs) or None)\n",
])
def test_a_reference_that_may_return_none_decides_nothing(reference):
    assert not drops("def total(xs):\n    pass\n", reference)


def test_every_shared_function_must_return_nothing():
    reference = "def helper(x):\n    return x * 2\n\ndef total(xs):\n    return sum(map(helper, xs))\n"
    assert drops("def helper(x):\n    print(x)\n\ndef total(xs):\n    pass\n", reference)
    assert not drops("def helper(x):\n    print(x)\n\ndef total(xs):\n    return sum(xs)\n", reference)
    assert drops("def helper(x):\n    pass\n\ndef main(xs):\n    return 1\n", reference)  # the only shared one returns nothing
    # a stub helper beside an entry point that returns values is not judged, even if the reference's entry
    # point may fall off its end (only its helper always returns a value)
    loose = "def helper(x):\n    return x * 2\n\ndef total(xs):\n    for x in xs:\n        return helper(x)\n"
    assert not drops("def helper(x):\n    pass\n\ndef total(xs):\n    return sum(xs)\n", loose)


def rejects(prediction: str, reference: str) -> bool:
    return rejects_reference_calls(ast.parse(prediction), ast.parse(reference))


@pytest.mark.parametrize("prediction, reference", [
    ("def count(arr):\n    return len(arr)\n", "def count(arr, n):\n    return n\n"),  # too few parameters
    ("def count(arr, n, k):\n    return k\n", "def count(arr, n):\n    return n\n"),  # too many required
    ("def count(arr, *, n):\n    return n\n", "def count(arr, n=0):\n    return n\n"),  # n only by keyword
    ("def f(a, b):\n    return a\n\ndef g():\n    return 1\n", "def f(a):\n    return a\n\ndef g(x):\n    return x\n"),
])
def test_functions_that_reject_every_call_the_tests_make_are_found(prediction, reference):
    assert rejects(prediction, reference)


@pytest.mark.parametrize("prediction, reference", [
    ("def count(arr, n=None):\n    return n\n", "def count(arr, n):\n    return n\n"),  # a default covers it
    ("def count(arr):\n    return 1\n", "def count(arr, n=0):\n    return n\n"),  # tests may leave n out
    ("def count(*args):\n    return 1\n", "def count(arr, n):\n    return n\n"),
    ("def count(arr, n, k):\n    return k\n", "def count(arr, *rest):\n    return 1\n"),
    ("def count(arr, *, n=1):\n    return n\n", "def count(arr):\n    return 1\n"),  # keyword-only with a default
    ("def f(a, b):\n    return a\n\ndef g(x):\n    return 1\n", "def f(a):\n    return a\n\ndef g(x):\n    return x\n"),
    ("import functools\n@functools.wraps(len)\ndef count(arr):\n    return 1\n", "def count(arr, n):\n    return n\n"),
    ("def other(a, b, c):\n    return 1\n", "def count(arr):\n    return 1\n"),  # nothing shared
])
def test_functions_that_accept_some_call_the_tests_make_are_not_judged(prediction, reference):
    assert not rejects(prediction, reference)
