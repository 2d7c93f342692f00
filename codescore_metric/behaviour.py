"""Hand-written behaviour cases for a CodeScore model, and a report of how a model scores them.

Each `BehaviourTask` is an invented task (not from MBPP or HumanEval) with a reference program,
standalone ``assert`` tests and variants of the reference whose execution labels are known:
``correct`` (structurally different, pass every test), ``renamed`` (the reference with its
parameters and locals renamed, function name kept), ``equivalent`` (the reference with one edit in one place that
keeps what it does, e.g. ``a > b`` as ``b < a``), ``wrong`` (plausible mistakes that fail at
least half of the tests) and ``syntax_error`` (does not compile). ``tests/test_behaviour_labels.py``
checks those labels by execution; `behaviour_report` says how a scorer ranks the variants.
"""

from __future__ import annotations

import io
import textwrap
import tokenize
from dataclasses import dataclass
from statistics import mean
from typing import TYPE_CHECKING

from codescore_metric.code_distance import token_distance
from codescore_metric.formats import ARGUMENT_FOR_FIELD, InputFormat

if TYPE_CHECKING:
    from codescore_metric.scorer import CodeScorer


@dataclass(frozen=True)
class BehaviourTask:
    """One invented task: its NL description, reference program, tests and labelled variants."""

    task_id: str
    nl: str
    reference: str
    tests: tuple[str, ...]
    correct: tuple[str, ...]
    wrong: tuple[str, ...]
    renamed: str
    equivalent: str
    syntax_error: str

    def variants(self) -> dict[str, str]:
        """Variant name -> program: ``reference`` (a verbatim copy), ``correct_i``, ``renamed``, ``equivalent``, ``wrong_i``,
        ``syntax_error``."""
        return {
            "reference": self.reference,
            **{f"correct_{i}": code for i, code in enumerate(self.correct, 1)},
            "renamed": self.renamed,
            "equivalent": self.equivalent,
            **{f"wrong_{i}": code for i, code in enumerate(self.wrong, 1)},
            "syntax_error": self.syntax_error,
        }


def dedented(text: str) -> str:
    """``text`` dedented, without its leading newline: a program written inside an indented triple-quoted string."""
    return textwrap.dedent(text).lstrip("\n")


def _rename(code: str, names: dict[str, str]) -> str:
    """``code`` with every name token in ``names`` replaced (attribute names after a ``.`` are kept)."""
    lines = code.splitlines(keepends=True)
    tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    for before, token in reversed(list(zip([None, *tokens], tokens))):
        if token.type == tokenize.NAME and token.string in names and (before is None or before.string != "."):
            row, col = token.start
            line = lines[row - 1]
            lines[row - 1] = line[:col] + names[token.string] + line[col + len(token.string):]
    return "".join(lines)


def edit_once(code: str, old: str, new: str) -> str:
    """``code`` with the first ``old`` replaced by ``new`` (``old`` must occur)."""
    if old not in code:
        raise ValueError(f"{old!r} does not occur in the program")
    return code.replace(old, new, 1)


def _task(task_id: str, nl: str, reference: str, tests: tuple[str, ...], correct: tuple[str, ...],
          wrong: tuple[str, ...], renames: dict[str, str], syntax_edit: tuple[str, str],
          equivalent_edit: tuple[str, str]) -> BehaviourTask:
    """A task with its programs dedented, ``renamed`` made by ``renames``, and ``syntax_error`` and ``equivalent`` each by
    one ``(old, new)`` edit of the reference."""
    reference = dedented(reference)
    return BehaviourTask(
        task_id=task_id, nl=nl, reference=reference, tests=tests,
        correct=tuple(dedented(code) for code in correct), wrong=tuple(dedented(code) for code in wrong),
        renamed=_rename(reference, renames), equivalent=edit_once(reference, *equivalent_edit),
        syntax_error=edit_once(reference, *syntax_edit),
    )


BEHAVIOUR_TASKS: tuple[BehaviourTask, ...] = (
    _task(
        "run_length_encode",
        "Write a function to run-length encode a string, writing each run as the character followed by its length.",
        """
        def run_length_encode(text):
            if not text:
                return ""
            pieces = []
            current, count = text[0], 1
            for char in text[1:]:
                if char == current:
                    count += 1
                else:
                    pieces.append(current + str(count))
                    current, count = char, 1
            pieces.append(current + str(count))
            return "".join(pieces)
        """,
        (
            'assert run_length_encode("") == ""',
            'assert run_length_encode("a") == "a1"',
            'assert run_length_encode("aaab") == "a3b1"',
            'assert run_length_encode("abc") == "a1b1c1"',
            'assert run_length_encode("aabbaa") == "a2b2a2"',
            'assert run_length_encode("wwwwb") == "w4b1"',
            'assert run_length_encode("112223") == "122331"',
            'assert run_length_encode("xyyz") == "x1y2z1"',
            'assert run_length_encode("  a") == " 2a1"',
        ),
        (
            """
            from itertools import groupby

            def run_length_encode(text):
                return "".join(char + str(len(list(run))) for char, run in groupby(text))
            """,
            """
            import re

            def run_length_encode(text):
                return "".join(match.group(1) + str(len(match.group(0))) for match in re.finditer(r"(.)\\1*", text, re.DOTALL))
            """,
        ),
        (
            """
            def run_length_encode(text):
                if not text:
                    return ""
                pieces = []
                current, count = text[0], 1
                for char in text[1:]:
                    if char == current:
                        count += 1
                    else:
                        pieces.append(current + str(count))
                        current, count = char, 1
                return "".join(pieces)
            """,
            """
            def run_length_encode(text):
                if not text:
                    return ""
                pieces = []
                current, count = text[0], 1
                for char in text[1:]:
                    if char == current:
                        count += 1
                    else:
                        pieces.append(current + str(count))
                        current, count = char, 0
                pieces.append(current + str(count))
                return "".join(pieces)
            """,
        ),
        {"text": "s", "pieces": "parts", "current": "last", "count": "run_length", "char": "c"},
        ("for char in text[1:]:", "for char in text[1:]"),
        ("count += 1", "count = count + 1"),
    ),
    _task(
        "clamp",
        "Write a function to clamp a number to the closed range from low to high.",
        """
        def clamp(value, low, high):
            if value < low:
                return low
            if value > high:
                return high
            return value
        """,
        (
            "assert clamp(5, 0, 10) == 5",
            "assert clamp(2.5, -1.5, 3.0) == 2.5",
            "assert clamp(0, 0, 10) == 0",
            "assert clamp(10, 0, 10) == 10",
            "assert clamp(-3, 0, 10) == 0",
            "assert clamp(-100, -50, -10) == -50",
            "assert clamp(0.5, 1.0, 2.0) == 1.0",
            "assert clamp(11, 0, 10) == 10",
            "assert clamp(99, -5, 5) == 5",
            "assert clamp(3, 2, 2) == 2",
        ),
        (
            """
            def clamp(value, low, high):
                return max(low, min(value, high))
            """,
            """
            def clamp(value, low, high):
                return sorted((low, value, high))[1]
            """,
        ),
        (
            """
            def clamp(value, low, high):
                return min(low, max(value, high))
            """,
            """
            def clamp(value, low, high):
                if value < low:
                    return high
                if value > high:
                    return low
                return value
            """,
        ),
        {"value": "x", "low": "lower", "high": "upper"},
        ("return value\n", "return (value\n"),
        ("if value > high:", "if high < value:"),
    ),
    _task(
        "count_vowels",
        "Write a function to count the vowels (a, e, i, o, u, in either case) in a string.",
        """
        def count_vowels(text):
            total = 0
            for char in text:
                if char.lower() in "aeiou":
                    total += 1
            return total
        """,
        (
            'assert count_vowels("") == 0',
            'assert count_vowels("AEIOU") == 5',
            'assert count_vowels("Yearly") == 2',
            'assert count_vowels("Eye") == 2',
            'assert count_vowels("rhythm") == 0',
            'assert count_vowels("Apple Pie") == 4',
            'assert count_vowels("bcd") == 0',
            'assert count_vowels("YOU") == 2',
            'assert count_vowels("Ouija Yoga") == 6',
            'assert count_vowels("Mystery Eel") == 3',
        ),
        (
            """
            def count_vowels(text):
                return sum(1 for char in text.lower() if char in "aeiou")
            """,
            """
            def count_vowels(text):
                lowered = text.lower()
                return sum(lowered.count(vowel) for vowel in "aeiou")
            """,
        ),
        (
            """
            def count_vowels(text):
                total = 0
                for char in text:
                    if char in "aeiou":
                        total += 1
                return total
            """,
            """
            def count_vowels(text):
                return sum(1 for char in text.lower() if char in "aeiouy")
            """,
        ),
        {"text": "sentence", "total": "vowels", "char": "letter"},
        ('if char.lower() in "aeiou":', 'if char.lower() in "aeiou"'),
        ('in "aeiou":', 'in "uoiea":'),
    ),
    _task(
        "second_largest_distinct",
        "Write a function to find the second largest distinct value in a list, or None if there are fewer than two distinct values.",
        """
        def second_largest_distinct(numbers):
            largest = second = None
            for number in numbers:
                if largest is None or number > largest:
                    if largest is not None:
                        second = largest
                    largest = number
                elif number != largest and (second is None or number > second):
                    second = number
            return second
        """,
        (
            "assert second_largest_distinct([5, 5, 4]) == 4",
            "assert second_largest_distinct([7]) is None",
            "assert second_largest_distinct([3, 3, 3]) is None",
            "assert second_largest_distinct([10, 9, 8, 7]) == 9",
            "assert second_largest_distinct([4, 1, 4, 2, 4, 0]) == 2",
            "assert second_largest_distinct([]) is None",
            "assert second_largest_distinct([2, 9, 9, 1, 5]) == 5",
            "assert second_largest_distinct([-2, -2, -7, -4, -9]) == -4",
            "assert second_largest_distinct([1.5, 0.5, 2.5, 3.5]) == 2.5",
            "assert second_largest_distinct([0, 0]) is None",
        ),
        (
            """
            def second_largest_distinct(numbers):
                distinct = sorted(set(numbers))
                return distinct[-2] if len(distinct) >= 2 else None
            """,
            """
            def second_largest_distinct(numbers):
                unique = set(numbers)
                if len(unique) < 2:
                    return None
                unique.remove(max(unique))
                return max(unique)
            """,
        ),
        (
            """
            def second_largest_distinct(numbers):
                if len(numbers) < 2:
                    return None
                return sorted(numbers)[-2]
            """,
            """
            def second_largest_distinct(numbers):
                distinct = sorted(set(numbers))
                if len(distinct) < 2:
                    return None
                return distinct[1]
            """,
        ),
        {"numbers": "values", "largest": "best", "second": "runner_up", "number": "value"},
        ("for number in numbers:", "for number in numbers"),
        ("if largest is None or number > largest:", "if largest is None or largest < number:"),
    ),
    _task(
        "merge_intervals",
        "Write a function to merge overlapping or touching [start, end] intervals and return them sorted by start.",
        """
        def merge_intervals(intervals):
            merged = []
            for start, end in sorted(intervals):
                if merged and start <= merged[-1][1]:
                    merged[-1][1] = max(merged[-1][1], end)
                else:
                    merged.append([start, end])
            return merged
        """,
        (
            "assert merge_intervals([]) == []",
            "assert merge_intervals([[1, 3], [2, 6], [8, 10]]) == [[1, 6], [8, 10]]",
            "assert merge_intervals([[8, 10], [1, 3], [2, 6]]) == [[1, 6], [8, 10]]",
            "assert merge_intervals([[1, 10], [2, 3]]) == [[1, 10]]",
            "assert merge_intervals([[5, 6], [1, 10], [2, 3]]) == [[1, 10]]",
            "assert merge_intervals([[4, 5], [1, 4]]) == [[1, 5]]",
            "assert merge_intervals([[3, 3]]) == [[3, 3]]",
            "assert merge_intervals([[6, 8], [1, 9], [2, 4], [4, 7]]) == [[1, 9]]",
            "assert merge_intervals([[10, 12], [0, 20], [13, 14]]) == [[0, 20]]",
            "assert merge_intervals([(2, 3), (1, 2)]) == [[1, 3]]",
            "assert merge_intervals([[-5, -1], [-10, 0]]) == [[-10, 0]]",
            "assert merge_intervals([[1, 5], [2, 3], [4, 4]]) == [[1, 5]]",
            "assert merge_intervals([[0, 100], [50, 60], [70, 80]]) == [[0, 100]]",
        ),
        (
            """
            def merge_intervals(intervals):
                if not intervals:
                    return []
                ordered = sorted(intervals, key=lambda pair: pair[0])
                result = []
                low, high = ordered[0]
                for start, end in ordered[1:]:
                    if start > high:
                        result.append([low, high])
                        low, high = start, end
                    else:
                        high = max(high, end)
                result.append([low, high])
                return result
            """,
            """
            def merge_intervals(intervals):
                ordered = sorted(list(pair) for pair in intervals)
                if len(ordered) < 2:
                    return ordered
                first, second = ordered[0], ordered[1]
                if second[0] <= first[1]:
                    return merge_intervals([[first[0], max(first[1], second[1])]] + ordered[2:])
                return [first] + merge_intervals(ordered[1:])
            """,
        ),
        (
            """
            def merge_intervals(intervals):
                merged = []
                for start, end in intervals:
                    if merged and start <= merged[-1][1]:
                        merged[-1][1] = max(merged[-1][1], end)
                    else:
                        merged.append([start, end])
                return merged
            """,
            """
            def merge_intervals(intervals):
                merged = []
                for start, end in sorted(intervals):
                    if merged and start <= merged[-1][1]:
                        merged[-1][1] = end
                    else:
                        merged.append([start, end])
                return merged
            """,
        ),
        {"intervals": "spans", "merged": "out", "start": "left", "end": "right"},
        ("merged.append([start, end])", "merged.append([start, end]"),
        ("if merged and start <= merged[-1][1]:", "if merged and merged[-1][1] >= start:"),
    ),
    _task(
        "roman_to_int",
        "Write a function to convert a Roman numeral string to an integer.",
        """
        def roman_to_int(numeral):
            values = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}
            total = 0
            for index, letter in enumerate(numeral):
                value = values[letter]
                if index + 1 < len(numeral) and value < values[numeral[index + 1]]:
                    total -= value
                else:
                    total += value
            return total
        """,
        (
            'assert roman_to_int("I") == 1',
            'assert roman_to_int("IV") == 4',
            'assert roman_to_int("IX") == 9',
            'assert roman_to_int("LVIII") == 58',
            'assert roman_to_int("MCMXCIV") == 1994',
            'assert roman_to_int("MMXXIV") == 2024',
            'assert roman_to_int("CCC") == 300',
            'assert roman_to_int("XLIX") == 49',
            'assert roman_to_int("MMMCMXCIX") == 3999',
            'assert roman_to_int("DCCCXC") == 890',
            'assert roman_to_int("XXVII") == 27',
        ),
        (
            """
            def roman_to_int(numeral):
                for pair, spelled in (("CM", "DCCCC"), ("CD", "CCCC"), ("XC", "LXXXX"), ("XL", "XXXX"), ("IX", "VIIII"), ("IV", "IIII")):
                    numeral = numeral.replace(pair, spelled)
                values = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}
                return sum(values[letter] for letter in numeral)
            """,
            """
            def roman_to_int(numeral):
                values = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}
                total, previous = 0, 0
                for letter in reversed(numeral):
                    value = values[letter]
                    total += -value if value < previous else value
                    previous = max(previous, value)
                return total
            """,
        ),
        (
            """
            def roman_to_int(numeral):
                values = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}
                return sum(values[letter] for letter in numeral)
            """,
            """
            def roman_to_int(numeral):
                values = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}
                total = 0
                for index, letter in enumerate(numeral):
                    value = values[letter]
                    if index + 1 < len(numeral) and value <= values[numeral[index + 1]]:
                        total -= value
                    else:
                        total += value
                return total
            """,
        ),
        {"numeral": "roman", "values": "table", "total": "result", "index": "i", "letter": "symbol", "value": "amount"},
        ('"M": 1000}', '"M": 1000'),
        ("total += value", "total = value + total"),
    ),
    _task(
        "is_leap_year",
        "Write a function to check whether a year is a leap year in the Gregorian calendar.",
        """
        def is_leap_year(year):
            return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        """,
        (
            "assert is_leap_year(2024) is True",
            "assert is_leap_year(1996) is True",
            "assert is_leap_year(2000) is True",
            "assert is_leap_year(2023) is False",
            "assert is_leap_year(2019) is False",
            "assert is_leap_year(1900) is False",
            "assert is_leap_year(2100) is False",
            "assert is_leap_year(1800) is False",
            "assert is_leap_year(1700) is False",
            "assert is_leap_year(2200) is False",
        ),
        (
            """
            def is_leap_year(year):
                if year % 400 == 0:
                    return True
                if year % 100 == 0:
                    return False
                return year % 4 == 0
            """,
            """
            import calendar

            def is_leap_year(year):
                return calendar.isleap(year)
            """,
        ),
        (
            """
            def is_leap_year(year):
                return year % 4 == 0
            """,
            """
            def is_leap_year(year):
                return year % 4 == 0 or year % 100 != 0 or year % 400 == 0
            """,
        ),
        {"year": "y"},
        ("def is_leap_year(year):", "def is_leap_year(year)"),
        ("year % 4 == 0", "not year % 4"),
    ),
    _task(
        "rotate_right",
        "Write a function to rotate a list to the right by k positions, where k may exceed the list's length.",
        """
        def rotate_right(items, k):
            if not items:
                return []
            k %= len(items)
            return items[-k:] + items[:-k]
        """,
        (
            "assert rotate_right([1, 2, 3, 4, 5], 2) == [4, 5, 1, 2, 3]",
            "assert rotate_right([1, 2, 3], 0) == [1, 2, 3]",
            "assert rotate_right([1, 2, 3], 4) == [3, 1, 2]",
            "assert rotate_right([], 5) == []",
            "assert rotate_right([1, 2, 3, 4], 1) == [4, 1, 2, 3]",
            "assert rotate_right([1, 2, 3, 4], 7) == [2, 3, 4, 1]",
            "assert rotate_right([10, 20, 30, 40, 50], 12) == [40, 50, 10, 20, 30]",
            "assert rotate_right([5, 6, 7], 8) == [6, 7, 5]",
            'assert rotate_right(["x", "y", "z"], 5) == ["y", "z", "x"]',
            "assert rotate_right([1, 2, 3, 4, 5, 6], 1) == [6, 1, 2, 3, 4, 5]",
            "assert rotate_right([1, 2], 3) == [2, 1]",
        ),
        (
            """
            def rotate_right(items, k):
                result = list(items)
                for _ in range(k % len(result) if result else 0):
                    result.insert(0, result.pop())
                return result
            """,
            """
            from collections import deque

            def rotate_right(items, k):
                ring = deque(items)
                ring.rotate(k)
                return list(ring)
            """,
        ),
        (
            """
            def rotate_right(items, k):
                return items[-k:] + items[:-k]
            """,
            """
            def rotate_right(items, k):
                if not items:
                    return []
                k %= len(items)
                return items[k:] + items[:k]
            """,
        ),
        {"items": "values", "k": "steps"},
        ("return items[-k:] + items[:-k]", "return items[-k:] + items[:-k"),
        ("k %= len(items)", "k = k % len(items)"),
    ),
    _task(
        "flatten_nested",
        "Write a function to flatten an arbitrarily nested list of lists into one flat list.",
        """
        def flatten_nested(items):
            flat = []
            for item in items:
                if isinstance(item, list):
                    flat.extend(flatten_nested(item))
                else:
                    flat.append(item)
            return flat
        """,
        (
            "assert flatten_nested([]) == []",
            "assert flatten_nested([1, 2, 3]) == [1, 2, 3]",
            "assert flatten_nested([1, [2, 3]]) == [1, 2, 3]",
            "assert flatten_nested([[1, [2, [3, [4]]]]]) == [1, 2, 3, 4]",
            "assert flatten_nested([[], [[]], 5]) == [5]",
            "assert flatten_nested([1, [2, [3]], 4]) == [1, 2, 3, 4]",
            'assert flatten_nested([["a"], ["b", ["c"]]]) == ["a", "b", "c"]',
            "assert flatten_nested([[1, 2], [3, 4]]) == [1, 2, 3, 4]",
            "assert flatten_nested([0, [None, [False]]]) == [0, None, False]",
            "assert flatten_nested([[[[]]]]) == []",
        ),
        (
            """
            def flatten_nested(items):
                stack, flat = [items], []
                while stack:
                    top = stack.pop()
                    if isinstance(top, list):
                        stack.extend(reversed(top))
                    else:
                        flat.append(top)
                return flat
            """,
            """
            def flatten_nested(items):
                def walk(node):
                    for item in node:
                        if isinstance(item, list):
                            yield from walk(item)
                        else:
                            yield item
                return list(walk(items))
            """,
        ),
        (
            """
            def flatten_nested(items):
                return [x for sub in items for x in (sub if isinstance(sub, list) else [sub])]
            """,
            """
            def flatten_nested(items):
                flat = []
                for item in items:
                    if isinstance(item, list):
                        flat.append(flatten_nested(item))
                    else:
                        flat.append(item)
                return flat
            """,
        ),
        {"items": "nested", "flat": "output", "item": "element"},
        ("flat.extend(flatten_nested(item))", "flat.extend(flatten_nested(item)"),
        ("flat.append(item)", "flat += [item]"),
    ),
    _task(
        "word_frequencies",
        "Write a function to count how often each word occurs in a text, ignoring case, where words are separated by whitespace.",
        """
        def word_frequencies(text):
            counts = {}
            for word in text.lower().split():
                counts[word] = counts.get(word, 0) + 1
            return counts
        """,
        (
            'assert word_frequencies("") == {}',
            'assert word_frequencies("a b a") == {"a": 2, "b": 1}',
            'assert word_frequencies("The the THE") == {"the": 3}',
            'assert word_frequencies("Hello  world") == {"hello": 1, "world": 1}',
            r'assert word_frequencies("one\ttwo\none") == {"one": 2, "two": 1}',
            'assert word_frequencies("  Spaces  Around ") == {"spaces": 1, "around": 1}',
            'assert word_frequencies("Go go GO stop") == {"go": 3, "stop": 1}',
            'assert word_frequencies("x") == {"x": 1}',
            r'assert word_frequencies("Red blue\nRED") == {"red": 2, "blue": 1}',
            'assert word_frequencies("   ") == {}',
            'assert word_frequencies("Cat dog  cat") == {"cat": 2, "dog": 1}',
        ),
        (
            """
            from collections import Counter

            def word_frequencies(text):
                return dict(Counter(text.lower().split()))
            """,
            """
            def word_frequencies(text):
                words = text.lower().split()
                return {word: words.count(word) for word in words}
            """,
        ),
        (
            """
            def word_frequencies(text):
                counts = {}
                for word in text.split():
                    counts[word] = counts.get(word, 0) + 1
                return counts
            """,
            """
            def word_frequencies(text):
                counts = {}
                for word in text.lower().split(" "):
                    counts[word] = counts.get(word, 0) + 1
                return counts
            """,
        ),
        {"text": "sentence", "counts": "frequency", "word": "token"},
        ("counts = {}", "counts = {"),
        ("counts.get(word, 0) + 1", "1 + counts.get(word, 0)"),
    ),
    _task(
        "is_balanced",
        "Write a function to check whether the brackets (), [] and {} in a string are balanced and properly nested, ignoring other characters.",
        """
        def is_balanced(text):
            pairs = {")": "(", "]": "[", "}": "{"}
            stack = []
            for char in text:
                if char in "([{":
                    stack.append(char)
                elif char in pairs:
                    if not stack or stack.pop() != pairs[char]:
                        return False
            return not stack
        """,
        (
            'assert is_balanced("") is True',
            'assert is_balanced("([]{})") is True',
            'assert is_balanced("a(b)c[d]") is True',
            'assert is_balanced("{[()()]}") is True',
            'assert is_balanced("([)]") is False',
            'assert is_balanced("[(])") is False',
            'assert is_balanced("{(})") is False',
            'assert is_balanced("({)}") is False',
            'assert is_balanced("[{]}") is False',
            'assert is_balanced("(]") is False',
            'assert is_balanced(")(") is False',
            'assert is_balanced("][") is False',
            'assert is_balanced("((") is False',
            'assert is_balanced("x{y]") is False',
        ),
        (
            """
            def is_balanced(text):
                brackets = "".join(char for char in text if char in "()[]{}")
                while True:
                    shorter = brackets.replace("()", "").replace("[]", "").replace("{}", "")
                    if shorter == brackets:
                        return not brackets
                    brackets = shorter
            """,
            """
            def is_balanced(text):
                closers = {"(": ")", "[": "]", "{": "}"}

                def match_from(position, expected):
                    while position < len(text):
                        char = text[position]
                        if char in closers:
                            position = match_from(position + 1, closers[char])
                            if position is None:
                                return None
                        elif char in ")]}":
                            return position + 1 if char == expected else None
                        else:
                            position += 1
                    return position if expected is None else None

                return match_from(0, None) is not None
            """,
        ),
        (
            """
            def is_balanced(text):
                depth = 0
                for char in text:
                    if char in "([{":
                        depth += 1
                    elif char in ")]}":
                        depth -= 1
                        if depth < 0:
                            return False
                return depth == 0
            """,
            """
            def is_balanced(text):
                return all(text.count(opener) == text.count(closer) for opener, closer in ("()", "[]", "{}"))
            """,
        ),
        {"text": "source", "pairs": "matching", "stack": "open_brackets", "char": "symbol"},
        ("for char in text:", "for char in text"),
        ("return not stack", "return len(stack) == 0"),
    ),
    _task(
        "digit_sum",
        "Write a function to find the sum of the decimal digits of an integer, ignoring its sign.",
        """
        def digit_sum(number):
            number = abs(number)
            total = 0
            while number:
                total += number % 10
                number //= 10
            return total
        """,
        (
            "assert digit_sum(0) == 0",
            "assert digit_sum(7) == 7",
            "assert digit_sum(123) == 6",
            "assert digit_sum(9999) == 36",
            "assert digit_sum(10**12 + 5) == 6",
            "assert digit_sum(-123) == 6",
            "assert digit_sum(-5) == 5",
            "assert digit_sum(-1000) == 1",
            "assert digit_sum(-908) == 17",
            "assert digit_sum(-77) == 14",
        ),
        (
            """
            def digit_sum(number):
                return sum(int(digit) for digit in str(abs(number)))
            """,
            """
            def digit_sum(number):
                if number < 0:
                    return digit_sum(-number)
                if number < 10:
                    return number
                return number % 10 + digit_sum(number // 10)
            """,
        ),
        (
            """
            def digit_sum(number):
                return sum(int(digit) for digit in str(number))
            """,
            """
            def digit_sum(number):
                number = abs(number)
                total = 0
                while number > 9:
                    total += number % 10
                    number //= 10
                return total
            """,
        ),
        {"number": "n", "total": "acc"},
        ("while number:", "while number"),
        ("while number:", "while number > 0:"),
    ),
    _task(
        "transpose_matrix",
        "Write a function to transpose a matrix given as a list of equal-length rows.",
        """
        def transpose_matrix(matrix):
            if not matrix:
                return []
            result = []
            for col in range(len(matrix[0])):
                new_row = []
                for row in matrix:
                    new_row.append(row[col])
                result.append(new_row)
            return result
        """,
        (
            "assert transpose_matrix([]) == []",
            "assert transpose_matrix([[1]]) == [[1]]",
            "assert transpose_matrix([[1, 2], [3, 4]]) == [[1, 3], [2, 4]]",
            "assert transpose_matrix([[1, 2, 3]]) == [[1], [2], [3]]",
            "assert transpose_matrix([[1], [2], [3]]) == [[1, 2, 3]]",
            "assert transpose_matrix([[1, 2, 3], [4, 5, 6]]) == [[1, 4], [2, 5], [3, 6]]",
            'assert transpose_matrix([["a", "b"], ["c", "d"], ["e", "f"]]) == [["a", "c", "e"], ["b", "d", "f"]]',
            "assert transpose_matrix([[0, 0, 0, 0]]) == [[0], [0], [0], [0]]",
            "assert transpose_matrix([[1, 2], [3, 4], [5, 6], [7, 8]]) == [[1, 3, 5, 7], [2, 4, 6, 8]]",
            "assert transpose_matrix([[1, 2, 3], [4, 5, 6], [7, 8, 9]]) == [[1, 4, 7], [2, 5, 8], [3, 6, 9]]",
        ),
        (
            """
            def transpose_matrix(matrix):
                return [list(column) for column in zip(*matrix)]
            """,
            """
            def transpose_matrix(matrix):
                return [[row[index] for row in matrix] for index in range(len(matrix[0]))] if matrix else []
            """,
        ),
        (
            """
            def transpose_matrix(matrix):
                return list(zip(*matrix))
            """,
            """
            def transpose_matrix(matrix):
                if not matrix:
                    return []
                return [[matrix[r][c] for r in range(len(matrix[0]))] for c in range(len(matrix))]
            """,
        ),
        {"matrix": "grid", "result": "columns", "col": "c", "new_row": "column", "row": "line"},
        ("new_row = []", "new_row = ["),
        ("new_row.append(row[col])", "new_row += [row[col]]"),
    ),
    _task(
        "dedupe_keep_order",
        "Write a function to remove duplicates from a list while keeping the first occurrence of each value in its original order.",
        """
        def dedupe_keep_order(items):
            seen = set()
            unique = []
            for item in items:
                if item not in seen:
                    seen.add(item)
                    unique.append(item)
            return unique
        """,
        (
            "assert dedupe_keep_order([]) == []",
            "assert dedupe_keep_order([1, 2, 3]) == [1, 2, 3]",
            "assert dedupe_keep_order([3, 1, 3, 2, 1]) == [3, 1, 2]",
            "assert dedupe_keep_order([5, 5, 5]) == [5]",
            "assert dedupe_keep_order([2, 1, 2]) == [2, 1]",
            "assert dedupe_keep_order([9, 8, 7, 9, 8]) == [9, 8, 7]",
            'assert dedupe_keep_order(["b", "a", "b", "c"]) == ["b", "a", "c"]',
            "assert dedupe_keep_order([4, 0, 4]) == [4, 0]",
            "assert dedupe_keep_order([1, 1, 2, 2]) == [1, 2]",
            "assert dedupe_keep_order([6, 2, 6, 1]) == [6, 2, 1]",
        ),
        (
            """
            def dedupe_keep_order(items):
                return list(dict.fromkeys(items))
            """,
            """
            def dedupe_keep_order(items):
                return [item for index, item in enumerate(items) if item not in items[:index]]
            """,
        ),
        (
            """
            def dedupe_keep_order(items):
                return list(set(items))
            """,
            """
            def dedupe_keep_order(items):
                return [item for index, item in enumerate(items) if item not in items[index + 1:]]
            """,
        ),
        {"items": "values", "seen": "already", "unique": "kept", "item": "value"},
        ("if item not in seen:", "if item not in seen"),
        ("if item not in seen:", "if not item in seen:"),
    ),
    _task(
        "binary_search_index",
        "Write a function to find the index of a target in a sorted list of distinct values by binary search, returning -1 if it is absent.",
        """
        def binary_search_index(items, target):
            low, high = 0, len(items) - 1
            while low <= high:
                middle = (low + high) // 2
                if items[middle] == target:
                    return middle
                if items[middle] < target:
                    low = middle + 1
                else:
                    high = middle - 1
            return -1
        """,
        (
            "assert binary_search_index([5], 5) == 0",
            "assert binary_search_index([1, 3], 3) == 1",
            "assert binary_search_index([1, 3, 5, 7, 9], 3) == 1",
            "assert binary_search_index([1, 3, 5, 7, 9], 9) == 4",
            "assert binary_search_index([2, 4, 6, 8], 8) == 3",
            "assert binary_search_index([10, 20, 30], 30) == 2",
            "assert binary_search_index([], 1) == -1",
            "assert binary_search_index([1, 3, 5], 4) == -1",
            "assert binary_search_index([2, 4, 6], 0) == -1",
            "assert binary_search_index([2, 4, 6], 7) == -1",
            "assert binary_search_index([5], 6) == -1",
            "assert binary_search_index([-9, -4, 0, 3], -5) == -1",
        ),
        (
            """
            from bisect import bisect_left

            def binary_search_index(items, target):
                position = bisect_left(items, target)
                return position if position < len(items) and items[position] == target else -1
            """,
            """
            def binary_search_index(items, target):
                def search(low, high):
                    if low > high:
                        return -1
                    middle = (low + high) // 2
                    if items[middle] == target:
                        return middle
                    if items[middle] < target:
                        return search(middle + 1, high)
                    return search(low, middle - 1)

                return search(0, len(items) - 1)
            """,
        ),
        (
            """
            def binary_search_index(items, target):
                low, high = 0, len(items) - 1
                while low < high:
                    middle = (low + high) // 2
                    if items[middle] == target:
                        return middle
                    if items[middle] < target:
                        low = middle + 1
                    else:
                        high = middle - 1
                return -1
            """,
            """
            def binary_search_index(items, target):
                low, high = 0, len(items) - 1
                while low <= high:
                    middle = (low + high) // 2
                    if items[middle] == target:
                        return middle
                    if items[middle] < target:
                        low = middle + 1
                    else:
                        high = middle - 1
                return low
            """,
        ),
        {"items": "sorted_values", "target": "wanted", "low": "left", "high": "right", "middle": "mid"},
        ("while low <= high:", "while low <= high"),
        ("middle = (low + high) // 2", "middle = low + (high - low) // 2"),
    ),
    _task(
        "caesar_shift",
        "Write a function to apply a Caesar shift to the ASCII letters of a string, keeping their case and leaving other characters unchanged.",
        """
        def caesar_shift(text, shift):
            shifted = ""
            for char in text:
                if "a" <= char <= "z":
                    shifted += chr((ord(char) - ord("a") + shift) % 26 + ord("a"))
                elif "A" <= char <= "Z":
                    shifted += chr((ord(char) - ord("A") + shift) % 26 + ord("A"))
                else:
                    shifted += char
            return shifted
        """,
        (
            'assert caesar_shift("abc", 1) == "bcd"',
            'assert caesar_shift("xyz", 3) == "abc"',
            'assert caesar_shift("Hello, World!", 5) == "Mjqqt, Btwqi!"',
            'assert caesar_shift("", 4) == ""',
            'assert caesar_shift("Zebra", 1) == "Afcsb"',
            'assert caesar_shift("abc", -1) == "zab"',
            'assert caesar_shift("Mixed Case", 26) == "Mixed Case"',
            'assert caesar_shift("123 go!", 2) == "123 iq!"',
            'assert caesar_shift("XYZ", 2) == "ZAB"',
            'assert caesar_shift("Python", 13) == "Clguba"',
            'assert caesar_shift("rot", 39) == "ebg"',
            'assert caesar_shift("ABC", 1) == "BCD"',
            'assert caesar_shift("Quiz", -3) == "Nrfw"',
        ),
        (
            """
            import string

            def caesar_shift(text, shift):
                k = shift % 26
                lower, upper = string.ascii_lowercase, string.ascii_uppercase
                table = str.maketrans(lower + upper, lower[k:] + lower[:k] + upper[k:] + upper[:k])
                return text.translate(table)
            """,
            """
            def caesar_shift(text, shift):
                def move(char):
                    if not (char.isascii() and char.isalpha()):
                        return char
                    base = ord("A") if char.isupper() else ord("a")
                    return chr((ord(char) - base + shift) % 26 + base)

                return "".join(move(char) for char in text)
            """,
        ),
        (
            """
            def caesar_shift(text, shift):
                shifted = ""
                for char in text:
                    if char.isalpha():
                        shifted += chr(ord(char) + shift)
                    else:
                        shifted += char
                return shifted
            """,
            """
            def caesar_shift(text, shift):
                shifted = ""
                for char in text:
                    if char.isalpha():
                        shifted += chr((ord(char) - ord("a") + shift) % 26 + ord("a"))
                    else:
                        shifted += char
                return shifted
            """,
        ),
        {"text": "message", "shift": "offset", "shifted": "encoded", "char": "letter"},
        ("else:", "else"),
        ("shifted += char\n", "shifted = shifted + char\n"),
    ),
    _task(
        "chunk_list",
        "Write a function to split a list into consecutive chunks of a given size, the last chunk holding whatever remains.",
        """
        def chunk_list(items, size):
            return [items[start:start + size] for start in range(0, len(items), size)]
        """,
        (
            "assert chunk_list([1, 2, 3, 4, 5], 2) == [[1, 2], [3, 4], [5]]",
            "assert chunk_list([1, 2, 3, 4], 2) == [[1, 2], [3, 4]]",
            "assert chunk_list([], 3) == []",
            "assert chunk_list([1, 2, 3], 5) == [[1, 2, 3]]",
            "assert chunk_list([1, 2, 3], 1) == [[1], [2], [3]]",
            "assert chunk_list(list(range(7)), 3) == [[0, 1, 2], [3, 4, 5], [6]]",
            'assert chunk_list(["a", "b", "c"], 2) == [["a", "b"], ["c"]]',
            "assert chunk_list([1, 2, 3, 4, 5, 6], 6) == [[1, 2, 3, 4, 5, 6]]",
            "assert chunk_list([0, 0, 0, 0, 0], 4) == [[0, 0, 0, 0], [0]]",
            "assert chunk_list([9], 1) == [[9]]",
            "assert chunk_list([1, 2, 3, 4, 5, 6, 7, 8], 3) == [[1, 2, 3], [4, 5, 6], [7, 8]]",
        ),
        (
            """
            def chunk_list(items, size):
                chunks, current = [], []
                for item in items:
                    current.append(item)
                    if len(current) == size:
                        chunks.append(current)
                        current = []
                if current:
                    chunks.append(current)
                return chunks
            """,
            """
            def chunk_list(items, size):
                if not items:
                    return []
                return [list(items[:size])] + chunk_list(items[size:], size)
            """,
        ),
        (
            """
            def chunk_list(items, size):
                return [items[start:start + size] for start in range(0, len(items) - size + 1, size)]
            """,
            """
            def chunk_list(items, size):
                return [items[start:start + size - 1] for start in range(0, len(items), size)]
            """,
        ),
        {"items": "sequence", "size": "n", "start": "offset"},
        ("range(0, len(items), size)]", "range(0, len(items), size]"),
        ("items[start:start + size]", "items[start:size + start]"),
    ),
    _task(
        "gcd_of_list",
        "Write a function to find the greatest common divisor of a non-empty list of positive integers.",
        """
        def gcd_of_list(numbers):
            result = numbers[0]
            for number in numbers[1:]:
                a, b = result, number
                while b:
                    a, b = b, a % b
                result = a
            return result
        """,
        (
            "assert gcd_of_list([12, 18]) == 6",
            "assert gcd_of_list([4, 8, 16]) == 4",
            "assert gcd_of_list([7]) == 7",
            "assert gcd_of_list([6, 10, 15]) == 1",
            "assert gcd_of_list([9, 3, 27]) == 3",
            "assert gcd_of_list([100, 10, 1000]) == 10",
            "assert gcd_of_list([2, 2, 2, 2]) == 2",
            "assert gcd_of_list([8, 12, 20, 4]) == 4",
            "assert gcd_of_list([18, 5, 36]) == 1",
            "assert gcd_of_list([30, 42, 12, 60]) == 6",
            "assert gcd_of_list([15, 25, 5, 45]) == 5",
        ),
        (
            """
            from functools import reduce
            from math import gcd

            def gcd_of_list(numbers):
                return reduce(gcd, numbers)
            """,
            """
            def gcd_of_list(numbers):
                for divisor in range(min(numbers), 0, -1):
                    if all(number % divisor == 0 for number in numbers):
                        return divisor
            """,
        ),
        (
            """
            from math import gcd

            def gcd_of_list(numbers):
                return gcd(numbers[0], numbers[-1])
            """,
            """
            def gcd_of_list(numbers):
                best = 1
                for divisor in range(1, min(numbers)):
                    if all(number % divisor == 0 for number in numbers):
                        best = divisor
                return best
            """,
        ),
        {"numbers": "values", "result": "common", "number": "value", "a": "x", "b": "y"},
        ("while b:", "while b"),
        ("while b:", "while b != 0:"),
    ),
    _task(
        "title_case_words",
        "Write a function to capitalise the first character of every space-separated word and lowercase the rest, keeping the spacing.",
        """
        def title_case_words(text):
            words = text.split(" ")
            for index, word in enumerate(words):
                words[index] = word[:1].upper() + word[1:].lower()
            return " ".join(words)
        """,
        (
            'assert title_case_words("hello world") == "Hello World"',
            'assert title_case_words("") == ""',
            'assert title_case_words("x") == "X"',
            'assert title_case_words("  two  spaces ") == "  Two  Spaces "',
            'assert title_case_words("don\'t stop") == "Don\'t Stop"',
            'assert title_case_words("hELLO wORLD") == "Hello World"',
            'assert title_case_words("it\'s 3rd time") == "It\'s 3rd Time"',
            'assert title_case_words("MIXED case") == "Mixed Case"',
            'assert title_case_words("o\'neil\'s DOG") == "O\'neil\'s Dog"',
            'assert title_case_words("rock\'n\'ROLL") == "Rock\'n\'roll"',
            'assert title_case_words("2nd PLACE") == "2nd Place"',
            'assert title_case_words("we\'re HERE") == "We\'re Here"',
        ),
        (
            """
            def title_case_words(text):
                result = []
                start_of_word = True
                for char in text:
                    result.append(char.upper() if start_of_word else char.lower())
                    start_of_word = char == " "
                return "".join(result)
            """,
            """
            import re

            def title_case_words(text):
                return re.sub(r"[^ ]+", lambda match: match.group(0).capitalize(), text)
            """,
        ),
        (
            """
            def title_case_words(text):
                return text.title()
            """,
            """
            def title_case_words(text):
                words = text.split(" ")
                for index, word in enumerate(words):
                    words[index] = word[:1].upper() + word[1:]
                return " ".join(words)
            """,
        ),
        {"text": "sentence", "words": "parts", "index": "position", "word": "token"},
        ("for index, word in enumerate(words):", "for index, word in enumerate(words)"),
        ("word[:1].upper()", "word[0:1].upper()"),
    ),
    _task(
        "longest_common_prefix",
        "Write a function to find the longest common prefix of a list of strings.",
        """
        def longest_common_prefix(words):
            if not words:
                return ""
            prefix = ""
            for index, char in enumerate(words[0]):
                if all(index < len(word) and word[index] == char for word in words[1:]):
                    prefix += char
                else:
                    break
            return prefix
        """,
        (
            'assert longest_common_prefix([]) == ""',
            'assert longest_common_prefix(["apple", "apricot", "banana"]) == ""',
            'assert longest_common_prefix(["alone"]) == "alone"',
            'assert longest_common_prefix(["dog", "racecar", "car"]) == ""',
            'assert longest_common_prefix(["flower", "flow", "flight"]) == "fl"',
            'assert longest_common_prefix(["same", "same", "same"]) == "same"',
            'assert longest_common_prefix(["ab", "abc", "a"]) == "a"',
            'assert longest_common_prefix(["prefix", "pre", "preset"]) == "pre"',
            'assert longest_common_prefix(["abcd", "abce", "abcf", "xbc"]) == ""',
            'assert longest_common_prefix(["car", "cart", "carbon", "ca"]) == "ca"',
            'assert longest_common_prefix(["test", "testing", "tester", "tea"]) == "te"',
            'assert longest_common_prefix(["go", "goal", "gone", "g"]) == "g"',
        ),
        (
            """
            def longest_common_prefix(words):
                prefix = ""
                for letters in zip(*words):
                    if len(set(letters)) != 1:
                        break
                    prefix += letters[0]
                return prefix
            """,
            """
            def longest_common_prefix(words):
                if not words:
                    return ""
                prefix = words[0]
                for word in words[1:]:
                    while not word.startswith(prefix):
                        prefix = prefix[:-1]
                return prefix
            """,
        ),
        (
            """
            def longest_common_prefix(words):
                if not words:
                    return ""
                if len(words) == 1:
                    return words[0]
                first, second = words[0], words[1]
                index = 0
                while index < min(len(first), len(second)) and first[index] == second[index]:
                    index += 1
                return first[:index]
            """,
            """
            def longest_common_prefix(words):
                if not words:
                    return ""
                shortest = min(words, key=len)
                index = 0
                while index < len(shortest) - 1 and all(word[index] == shortest[index] for word in words):
                    index += 1
                return shortest[:index]
            """,
        ),
        {"words": "strings", "prefix": "common", "index": "position", "char": "letter", "word": "candidate"},
        ("if not words:", "if not words"),
        ("if not words:", "if len(words) == 0:"),
    ),
    _task(
        "running_total",
        "Write a function to return the running totals (cumulative sums) of a list of numbers.",
        """
        def running_total(numbers):
            totals = []
            total = 0
            for number in numbers:
                total += number
                totals.append(total)
            return totals
        """,
        (
            "assert running_total([]) == []",
            "assert running_total([5]) == [5]",
            "assert running_total([1, 2, 3]) == [1, 3, 6]",
            "assert running_total([0, 0, 0]) == [0, 0, 0]",
            "assert running_total([-1, 1, -1, 1]) == [-1, 0, -1, 0]",
            "assert running_total([10, -5, 2]) == [10, 5, 7]",
            "assert running_total([1.5, 2.5]) == [1.5, 4.0]",
            "assert running_total([3, 3, 3, 3]) == [3, 6, 9, 12]",
            "assert running_total([7, 0, 0]) == [7, 7, 7]",
        ),
        (
            """
            from itertools import accumulate

            def running_total(numbers):
                return list(accumulate(numbers))
            """,
            """
            def running_total(numbers):
                return [sum(numbers[:index + 1]) for index in range(len(numbers))]
            """,
        ),
        (
            """
            def running_total(numbers):
                return [sum(numbers[:index]) for index in range(len(numbers))]
            """,
            """
            def running_total(numbers):
                totals = []
                total = 0
                for number in numbers:
                    total = number
                    totals.append(total)
                return totals
            """,
        ),
        {"numbers": "values", "totals": "sums", "total": "acc", "number": "value"},
        ("totals.append(total)", "totals.append(total"),
        ("total += number", "total = number + total"),
    ),
    _task(
        "median_of_list",
        "Write a function to find the median of a non-empty list of numbers, averaging the two middle values when the length is even.",
        """
        def median_of_list(numbers):
            ordered = sorted(numbers)
            middle = len(ordered) // 2
            if len(ordered) % 2:
                return ordered[middle]
            return (ordered[middle - 1] + ordered[middle]) / 2
        """,
        (
            "assert median_of_list([3, 1, 2]) == 2",
            "assert median_of_list([4, 1, 3, 2]) == 2.5",
            "assert median_of_list([5]) == 5",
            "assert median_of_list([1, 2]) == 1.5",
            "assert median_of_list([9, 1, 8, 2]) == 5.0",
            "assert median_of_list([-3, -1, -2]) == -2",
            "assert median_of_list([0.5, 0.25]) == 0.375",
            "assert median_of_list([2, 6, 1, 5, 3, 4]) == 3.5",
            "assert median_of_list([100, 1, 50]) == 50",
            "assert median_of_list([7, 7, 7, 7]) == 7",
            "assert median_of_list([8, 2]) == 5.0",
        ),
        (
            """
            import statistics

            def median_of_list(numbers):
                return statistics.median(numbers)
            """,
            """
            def median_of_list(numbers):
                remaining = list(numbers)
                while len(remaining) > 2:
                    remaining.remove(min(remaining))
                    remaining.remove(max(remaining))
                return sum(remaining) / len(remaining)
            """,
        ),
        (
            """
            def median_of_list(numbers):
                middle = len(numbers) // 2
                if len(numbers) % 2:
                    return numbers[middle]
                return (numbers[middle - 1] + numbers[middle]) / 2
            """,
            """
            def median_of_list(numbers):
                return sorted(numbers)[len(numbers) // 2]
            """,
        ),
        {"numbers": "values", "ordered": "sorted_values", "middle": "mid"},
        ("if len(ordered) % 2:", "if len(ordered) % 2"),
        ("if len(ordered) % 2:", "if len(ordered) % 2 == 1:"),
    ),
    _task(
        "format_duration",
        "Write a function to format a non-negative whole number of seconds as H:MM:SS.",
        """
        def format_duration(seconds):
            hours = seconds // 3600
            minutes = seconds % 3600 // 60
            rest = seconds % 60
            return "%d:%02d:%02d" % (hours, minutes, rest)
        """,
        (
            'assert format_duration(0) == "0:00:00"',
            'assert format_duration(59) == "0:00:59"',
            'assert format_duration(60) == "0:01:00"',
            'assert format_duration(600) == "0:10:00"',
            'assert format_duration(3600) == "1:00:00"',
            'assert format_duration(3661) == "1:01:01"',
            'assert format_duration(7322) == "2:02:02"',
            'assert format_duration(45296) == "12:34:56"',
            'assert format_duration(86399) == "23:59:59"',
            'assert format_duration(90061) == "25:01:01"',
        ),
        (
            """
            def format_duration(seconds):
                minutes, secs = divmod(seconds, 60)
                hours, minutes = divmod(minutes, 60)
                return f"{hours}:{minutes:02d}:{secs:02d}"
            """,
            """
            def format_duration(seconds):
                parts = [seconds // 3600, seconds // 60 % 60, seconds % 60]
                return ":".join([str(parts[0])] + [str(part).zfill(2) for part in parts[1:]])
            """,
        ),
        (
            """
            def format_duration(seconds):
                hours = seconds // 3600
                minutes = seconds // 60
                rest = seconds % 60
                return "%d:%02d:%02d" % (hours, minutes, rest)
            """,
            """
            def format_duration(seconds):
                hours = seconds // 3600
                minutes = seconds % 3600 // 60
                rest = seconds % 60
                return "%d:%d:%d" % (hours, minutes, rest)
            """,
        ),
        {"seconds": "total_seconds", "hours": "h", "minutes": "m", "rest": "s"},
        ("% (hours, minutes, rest)", "% (hours, minutes, rest"),
        ("hours = seconds // 3600", "hours = seconds // (60 * 60)"),
    ),
    _task(
        "interleave_lists",
        "Write a function to interleave two lists element by element, appending the rest of the longer list at the end.",
        """
        def interleave_lists(first, second):
            result = []
            for index in range(max(len(first), len(second))):
                if index < len(first):
                    result.append(first[index])
                if index < len(second):
                    result.append(second[index])
            return result
        """,
        (
            'assert interleave_lists([1, 2, 3], ["a", "b", "c"]) == [1, "a", 2, "b", 3, "c"]',
            "assert interleave_lists([], []) == []",
            "assert interleave_lists([1], []) == [1]",
            "assert interleave_lists([], [2, 3]) == [2, 3]",
            "assert interleave_lists([1, 2, 3, 4], [9]) == [1, 9, 2, 3, 4]",
            "assert interleave_lists([0], [5, 6, 7]) == [0, 5, 6, 7]",
            'assert interleave_lists(["x", "y"], ["p", "q"]) == ["x", "p", "y", "q"]',
            "assert interleave_lists([1, 3, 5, 7], [2, 4]) == [1, 2, 3, 4, 5, 7]",
            "assert interleave_lists([True], [False, None]) == [True, False, None]",
            "assert interleave_lists([1, 1], [2, 2]) == [1, 2, 1, 2]",
        ),
        (
            """
            def interleave_lists(first, second):
                shorter = min(len(first), len(second))
                mixed = [item for pair in zip(first, second) for item in pair]
                return mixed + first[shorter:] + second[shorter:]
            """,
            """
            from itertools import zip_longest

            _MISSING = object()

            def interleave_lists(first, second):
                return [item for pair in zip_longest(first, second, fillvalue=_MISSING) for item in pair if item is not _MISSING]
            """,
        ),
        (
            """
            def interleave_lists(first, second):
                return [item for pair in zip(first, second) for item in pair]
            """,
            """
            def interleave_lists(first, second):
                result = []
                for index in range(max(len(first), len(second))):
                    if index < len(second):
                        result.append(second[index])
                    if index < len(first):
                        result.append(first[index])
                return result
            """,
        ),
        {"first": "left", "second": "right", "result": "merged", "index": "position"},
        ("for index in range(max(len(first), len(second))):", "for index in range(max(len(first), len(second)):"),
        ("if index < len(first):", "if len(first) > index:"),
    ),
)


# The bar a model should clear on these cases (tests/test_behaviour_model.py asserts it): name -> (comparison, value).
TARGETS: dict[str, tuple[str, float]] = {
    "copy_mean": (">=", 0.6),
    "correct_over_wrong": (">=", 0.85),
    "rename_shift_mean": ("<", 0.05),
    "syntax_error_max": ("<", 0.1),
}


NEAR_COPY_TOKENS = 6  # a mistake at most this many tokens from its reference (code_distance) is a near copy of it


def is_near_copy(code: str, reference: str) -> bool:
    """Whether ``code`` differs from ``reference`` in at most :data:`NEAR_COPY_TOKENS` tokens (an edit in one
    place, as against code written another way)."""
    distance = token_distance(code, reference)
    return distance is not None and distance <= NEAR_COPY_TOKENS


def rewrites_over_mistakes(pairs) -> dict[str, tuple[int, int]]:
    """``(won, total)`` over ``(rewrite score, mistake score, mistake is a near copy)`` pairs, for all pairs and for
    near-copy and rewritten mistakes apart: the near copies a model can judge by reading the difference from the
    reference, the rewritten ones only by reading what the code does."""
    pairs = list(pairs)
    split = {"all": pairs, "near-copy mistakes": [p for p in pairs if p[2]], "rewritten mistakes": [p for p in pairs if not p[2]]}
    return {name: (sum(good > bad for good, bad, _ in chosen), len(chosen)) for name, chosen in split.items()}


def meets_target(report: dict, name: str) -> bool:
    """Whether ``report[name]`` clears ``TARGETS[name]``."""
    comparison, bar = TARGETS[name]
    return report[name] >= bar if comparison == ">=" else report[name] < bar


def counts_as_correct(variant: str) -> bool:
    """Whether ``behaviour_report`` counts a variant as correct when pairing it with the wrong ones (``equivalent`` is
    paired with the near-copy mistakes apart, so ``correct_over_wrong`` keeps its meaning)."""
    return variant.startswith("correct_") or variant == "renamed"


def behaviour_report(scorer: CodeScorer, input_format: str = "ref_nl") -> dict:
    """Score every variant of every task with one ``scorer.score`` call, then summarise.

    Returns ``input_format``, ``signature``, ``scores`` (``{task_id: {variant: score}}``) and:
    ``copy_min`` / ``copy_mean``, the score of a verbatim copy of the reference;
    ``correct_over_wrong``, the share of (correct, wrong) pairs within a task where the correct
    variant scores strictly higher, counting the ``correct`` variants and ``renamed`` as correct
    (the verbatim copy is left out: it is the easy case); ``losing_pairs``, the pairs where it does
    not, as ``(task_id, correct, wrong, correct score, wrong score)``; ``rewrites_over_mistakes``,
    :func:`rewrites_over_mistakes` of the pairs of a structurally different ``correct`` variant
    (``renamed`` left out); ``rename_shift_mean``, the
    mean ``|score(renamed) - score(copy)|``; ``equivalent_mean``, the mean score of the one-place edits that keep what
    the reference does, and ``equivalent_over_near_mistakes``, ``(won, total)`` over the pairs of such an edit and a
    near-copy mistake of its task (both one edit from the reference: a model that only marks any edit as a mistake
    loses them); and ``syntax_error_max``.
    """
    fmt = InputFormat.parse(input_format)
    rows = [(task, variant, code) for task in BEHAVIOUR_TASKS for variant, code in task.variants().items()]
    columns = {"reference": [task.reference for task, _, _ in rows], "source": [task.nl for task, _, _ in rows]}
    given = {ARGUMENT_FOR_FIELD[field]: columns[field] for field in fmt.fields if field in columns}
    result = scorer.score([code for _, _, code in rows], input_format=fmt, **given)
    scores: dict[str, dict[str, float]] = {}
    for (task, variant, _), score in zip(rows, result.codescore):
        scores.setdefault(task.task_id, {})[variant] = score
    pairs = [(task_id, good, bad, by_variant[good], by_variant[bad]) for task_id, by_variant in scores.items()
             for good in by_variant if counts_as_correct(good) for bad in by_variant if bad.startswith("wrong_")]
    copies = [by_variant["reference"] for by_variant in scores.values()]
    near = {(task.task_id, variant): is_near_copy(code, task.reference) for task, variant, code in rows if variant.startswith("wrong_")}
    rewrites = [(good_score, bad_score, near[task_id, bad]) for task_id, good, bad, good_score, bad_score in pairs
                if good.startswith("correct_")]
    equivalent_pairs = [(by_variant["equivalent"], by_variant[bad]) for task_id, by_variant in scores.items()
                        for bad in by_variant if bad.startswith("wrong_") and near[task_id, bad]]
    return {
        "input_format": fmt.value,
        "signature": result.signature,
        "scores": scores,
        "copy_min": min(copies),
        "copy_mean": mean(copies),
        "correct_over_wrong": sum(good > bad for *_, good, bad in pairs) / len(pairs),
        "losing_pairs": [pair for pair in pairs if pair[3] <= pair[4]],
        "rewrites_over_mistakes": rewrites_over_mistakes(rewrites),
        "rename_shift_mean": mean(abs(s["renamed"] - s["reference"]) for s in scores.values()),
        "equivalent_mean": mean(s["equivalent"] for s in scores.values()),
        "equivalent_over_near_mistakes": (sum(good > bad for good, bad in equivalent_pairs), len(equivalent_pairs)),
        "syntax_error_max": max(s["syntax_error"] for s in scores.values()),
    }
