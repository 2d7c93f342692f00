"""HumanEval-style docstring prompts made from MBPP tasks."""

import ast

from codescore_metric.data.prompts import docstring_prompt

REFERENCE = "import math\nR = 3\n\n@staticmethod\ndef area(r,\n         scale=1):\n    return math.pi * r * r * scale\n"


def test_prompt_has_imports_signature_description_and_example():
    prompt = docstring_prompt(REFERENCE, "area", "Write a function to find the area of a circle.",
                              ("assert area(2) == 12.566370614359172", "assert area(1) == 3.14"))
    assert prompt == (
        "import math\n\n"
        "@staticmethod\n"
        "def area(r,\n"
        "         scale=1):\n"
        '    """Write a function to find the area of a circle.\n'
        "    >>> area(2)\n"
        "    12.566370614359172\n"
        '    """\n'
    )
    completed = ast.parse(prompt + "    pass\n")  # a prompt a model can complete, as in HumanEval
    assert ast.get_docstring(completed.body[1]).startswith("Write a function")


def test_one_line_function_and_tests_that_are_not_equalities():
    prompt = docstring_prompt("def is_odd(n): return n % 2 == 1\n", "is_odd", 'Check "odd" numbers.',
                              ("assert not is_odd(2)",))
    assert prompt == 'def is_odd(n):\n    """Check "odd" numbers.\n    """\n'


def test_no_prompt_without_the_entry_point_or_for_broken_code():
    assert docstring_prompt("def f(x):\n    return x\n", "g", "text") is None
    assert docstring_prompt("def f(x)\n    return x\n", "f", "text") is None
