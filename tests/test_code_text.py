"""Comment and docstring stripping: what goes, what stays, and broken code."""

import ast

import pytest

from codescore_metric.code_text import strip_comments

HUMANEVAL_STYLE = '''from typing import List


def has_close_elements(numbers: List[float], threshold: float) -> bool:
    """ Check if in given list of numbers, are any two numbers closer to each other than
    given threshold.
    >>> has_close_elements([1.0, 2.0, 3.0], 0.5)
    False
    """
    for idx, elem in enumerate(numbers):  # every pair
        for idx2, elem2 in enumerate(numbers):
            # skip the element itself
            if idx != idx2:
                distance = abs(elem - elem2)
                if distance < threshold:
                    return True

    return False
'''


def test_humaneval_prompt_loses_docstring_comments_and_blank_lines():
    assert strip_comments(HUMANEVAL_STYLE) == (
        "from typing import List\n"
        "def has_close_elements(numbers: List[float], threshold: float) -> bool:\n"
        "    for idx, elem in enumerate(numbers):\n"
        "        for idx2, elem2 in enumerate(numbers):\n"
        "            if idx != idx2:\n"
        "                distance = abs(elem - elem2)\n"
        "                if distance < threshold:\n"
        "                    return True\n"
        "    return False\n"
    )


def test_stripped_code_has_the_same_syntax_tree():
    stripped = strip_comments(HUMANEVAL_STYLE)
    without_docstrings = ast.parse(HUMANEVAL_STYLE)
    function = without_docstrings.body[1]
    function.body = function.body[1:]
    assert ast.dump(ast.parse(stripped)) == ast.dump(without_docstrings)


def test_string_literals_keep_their_text():
    code = 'def f():\n    s = """a\n\n# not a comment\n"""\n    t = "#x"  # real comment\n    return s + t\n'
    assert strip_comments(code) == 'def f():\n    s = """a\n\n# not a comment\n"""\n    t = "#x"\n    return s + t\n'


@pytest.mark.parametrize("code", ['def f(x): "doc"; return x\n', 'x = ("a"\n     "b")\n', "print('hi')\n"])
def test_strings_that_are_not_statements_alone_stay(code):
    assert strip_comments(code) == code


def test_code_broken_part_way_is_cleaned_up_to_the_error():
    code = 'def f(x)\n    """doc"""\n    # note\n    return (x +\n'
    assert strip_comments(code) == "def f(x)\n    return (x +\n"


def test_nothing_left_returns_the_input():
    assert strip_comments('"""only a docstring"""\n# and a comment\n') == '"""only a docstring"""\n# and a comment\n'
    assert strip_comments("") == ""


def test_code_that_cannot_be_tokenized_at_all_is_unchanged():
    code = "def f(:\n\treturn '''unterminated\n"
    assert strip_comments(code) == code
