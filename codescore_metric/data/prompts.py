"""HumanEval-style prompts for tasks whose NL is a bare sentence (MBPP).

A HumanEval prompt is the imports and the signature of the function to write, with the task
description and an example call in its docstring. Training on MBPP with that NL form as well as
with the bare sentence lets a model read both benchmarks' NL (MultiPL-E renders MBPP the same way).
"""

from __future__ import annotations

import ast
import textwrap


def docstring_prompt(reference: str, entry_point: str | None, description: str, example_tests: tuple[str, ...] = ()) -> str | None:
    """The reference's imports and ``def`` line of ``entry_point``, with ``description`` and up to
    one doctest-style example (from an ``assert f(...) == value`` test) as its docstring.

    None when the reference does not parse or does not define ``entry_point`` at module level.
    """
    try:
        tree = ast.parse(reference)
    except SyntaxError:
        return None
    lines = reference.splitlines()
    function = next((node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                     and node.name == entry_point), None)
    if function is None or not function.body:
        return None
    imports = [ast.get_source_segment(reference, node) for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))]
    first = function.decorator_list[0].lineno if function.decorator_list else function.lineno
    if function.body[0].lineno > function.lineno:
        header = "\n".join(lines[first - 1:function.body[0].lineno - 1])
    else:  # one-line function: keep the text up to the body's start
        header = lines[function.lineno - 1][:function.body[0].col_offset]
    indent = " " * (function.col_offset + 4)
    body = [*textwrap.wrap(description.strip(), 88), *_doctest(example_tests[:1])]
    docstring = f'{indent}"""' + f"\n{indent}".join(body).replace('"""', "'''") + f'\n{indent}"""\n'
    return "\n".join(imports + ([""] if imports else []) + [header.rstrip()]) + "\n" + docstring


def _doctest(tests: tuple[str, ...]) -> list[str]:
    """``>>> call`` / ``value`` lines for ``assert call == value`` tests; other tests are skipped."""
    lines = []
    for test in tests:
        try:
            statement = ast.parse(test.strip()).body[0]
        except (SyntaxError, IndexError):
            continue
        if (isinstance(statement, ast.Assert) and isinstance(statement.test, ast.Compare)
                and len(statement.test.ops) == 1 and isinstance(statement.test.ops[0], ast.Eq)):
            lines += [f">>> {ast.unparse(statement.test.left)}", ast.unparse(statement.test.comparators[0])]
    return lines
