"""code_return_kinds: the kinds of value a function can return, read only where its code shows them plainly."""

import ast

import pytest

from codescore_metric.code_functions import returns_other_kinds
from codescore_metric.code_return_kinds import return_kinds


def kinds(program: str):
    module = ast.parse(program)
    return return_kinds(module.body[-1], module)


@pytest.mark.parametrize("program, expected", [
    ("def f(a):\n    res = tuple(set(a))\n    return (res)\n", {"tuple"}),  # through a local name
    ("def f(a):\n    return sorted(set(a))\n", {"list"}),
    ("def f(a):\n    return [x for x in a if x]\n", {"list"}),
    ("def f(a):\n    return a, len(a)\n", {"tuple"}),
    ("def f(a):\n    return {x for x in a}\n", {"set"}),
    ("def f(a):\n    return frozenset(a)\n", {"set"}),  # compares equal to a set
    ("def f(a):\n    return {x: 1 for x in a}\n", {"dict"}),
    ("def f(a):\n    return ', '.join(a)\n", {"str"}),
    ("def f(a):\n    return f'{a}!'\n", {"str"}),
    ("def f(a):\n    return '%d items' % a\n", {"str"}),
    ("def f(a):\n    return 'Found' if a else 'Not found'\n", {"str"}),
    ("def f(a):\n    if a:\n        return 'x'\n    else:\n        return 'y'\n", {"str"}),
    ("def f(a):\n    return len(a) > 2\n", {"number"}),  # bool counts as a number: True == 1
    ("def f(a):\n    return not a\n", {"number"}),
    ("def f(a):\n    c = 0\n    for x in a:\n        c += 1\n    return c\n", {"number"}),  # augmented by a number
    ("def f(a):\n    out = []\n    out += [1]\n    return out * 2\n", {"list"}),
    ("def f(a):\n    s = ''\n    for c in a:\n        s += c\n    return s\n", {"str"}),  # a string accumulator
    ("def f(a):\n    t = 0\n    for x in a:\n        t += x\n    return t\n", {"number"}),  # 0 + x: a number or an error
    ("def f(a):\n    r = []\n    r += a\n    return r\n", {"list"}),  # extends itself in place
    ("def f(a):\n    return sum(a)\n", {"number"}),
    ("def f(a):\n    n = 0\n    for x in a:\n        n = n + x\n    return n\n", {"number"}),  # as n += x
    ("def f(a):\n    return max(len(a), 1)\n", {"number"}),
    ("def f(a):\n    return a.lower() if False else 'x'.upper()[1:]\n", None),  # a parameter's method: unknown
    ("def f(a):\n    s = 'abc'\n    return s[0] + s.upper().replace('A', 'b')\n", {"str"}),
    ("def f(a):\n    words = ' '.join(a).split()\n    return words[1:]\n", {"list"}),
    ("def f(a):\n    t = (1, 2)\n    return t.count(1) > 0\n", {"number"}),
    ("import math\n\ndef f(a):\n    return math.sqrt(a)\n", {"number"}),
    ("import re as regex\n\ndef f(a):\n    return regex.findall('x', a)\n", {"list"}),
    ("def f(a):\n    return {1} | {2}\n", {"set"}),
    ("def f(a):\n    for x in a:\n        if x:\n            return 'Yes'\n", {"str", "none"}),  # may fall off its end
    ("def f(a):\n    if a:\n        return 1\n    return None\n", {"number", "none"}),
])
def test_plain_return_values_are_read(program, expected):
    assert kinds(program) == expected


@pytest.mark.parametrize("program", [
    "def f(a):\n    return a\n",  # a parameter can be anything
    "def f(a):\n    return max(a)\n",
    "def f(a):\n    return a[0]\n",
    "def f(a):\n    return g(a)\n",
    "def f(a):\n    return a.upper()\n",  # a method of an unknown object
    "def f(a):\n    return a[1:]\n",
    "def f(a):\n    x = [1]\n    return x[0]\n",  # a list's item can be anything
    "def f(a):\n    return max(a)\n\n",
    "def f(a):\n    return sum(a, [])\n",  # a start value: anything
    "import math\nmath = None\n\ndef f(a):\n    return math.sqrt(a)\n",  # the module's name rebound
    "def f(a):\n    import math\n    return math.sqrt(a)\n",  # imported inside the function: not followed
    "import math\n\ndef f(a):\n    return math.prod(a)\n",  # not every function of the module
    "def f(a):\n    t = 0\n    t *= a\n    return t\n",  # 0 * 'ab' is a string
    "def f(a):\n    yield 1\n",  # a generator
    "async def f(a):\n    return 1\n",  # a coroutine
    "def f(list):\n    return list(a)\n",  # the builtin shadowed by a parameter
    "sorted = reversed\n\ndef f(a):\n    return sorted(a)\n",  # ... or at top level
    "from helpers import *\n\ndef f(a):\n    return sorted(a)\n",  # ... or perhaps by a star import
    "def f(a):\n    for res in a:\n        pass\n    return res\n",  # bound by a loop
    "def f(a):\n    res = []\n    res = tuple(res) if a else res\n    return res\n",  # a name read in its own binding
    "def f(a):\n    x = []\n    def g():\n        nonlocal x\n        x = 'a'\n    g()\n    return x\n",
    "def f(a):\n    x = 1\n    exec('x = \"s\"')\n    return x\n",
    "def f(a):\n    return len(a) > 2 and a\n",  # `and` gives one of its operands
    "def f(a):\n    x, y = a\n    return x\n",
])
def test_values_the_code_does_not_show_are_unknown(program):
    assert kinds(program) is None


def test_mixed_but_plain_kinds_are_all_kept():
    assert kinds("def f(a):\n    res = []\n    res = tuple(res) if a else 'x'\n    return res\n") == {"list", "tuple", "str"}


def other(prediction: str, reference: str) -> bool:
    return returns_other_kinds(ast.parse(prediction), ast.parse(reference))


REFERENCE = "def union_elements(a, b):\n    res = tuple(set(a + b))\n    return (res)\n"
MATCH = ("import re\n\ndef text_match(text):\n    if re.search('ab*', text):\n        return 'Found a match!'\n"
         "    else:\n        return 'Not matched!'\n")


@pytest.mark.parametrize("prediction, reference", [
    ("def union_elements(a, b):\n    return sorted(set(a) | set(b))\n", REFERENCE),  # a list never equals a tuple
    ("import re\n\ndef text_match(text):\n    return bool(re.search('ab*', text))\n", MATCH),  # True never equals a string
    ("def text_match(text):\n    return re.search('ab*', text) is not None\n\nimport re\n", MATCH),
    ("def f(a):\n    return str(len(a))\n", "def f(a):\n    return len(a)\n"),
])
def test_returning_only_other_kinds_is_found(prediction, reference):
    assert other(prediction, reference)


@pytest.mark.parametrize("prediction, reference", [
    ("def union_elements(a, b):\n    return tuple(sorted(set(a) | set(b)))\n", REFERENCE),  # a tuple: the model judges
    ("def union_elements(a, b):\n    return a\n", REFERENCE),  # unknown kind
    ("def f(a):\n    return 1.0\n", "def f(a):\n    return len(a) > 1\n"),  # numbers and bools compare equal
    ("def f(a):\n    for x in a:\n        return 1\n", "def f(a):\n    for x in a:\n        return 'a'\n"),  # both may give None
    ("def g(a):\n    return []\n", "def f(a):\n    return ()\n"),  # no function shared
    ("def f(a):\n    return []\n\ndef h(a):\n    return ''\n", "def f(a):\n    return ()\n\ndef h(a):\n    return ''\n"),
])
def test_a_shared_kind_or_an_unknown_one_decides_nothing(prediction, reference):
    assert not other(prediction, reference)
