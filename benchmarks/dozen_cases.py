"""A dozen hand-written cases to look at before calling a model done: two invented tasks, each with copies of the
reference, correct rewrites, mistakes that run and mistakes the static checks decide, labelled by the sandbox; a third
answers in words, as many MBPP tasks do, with a candidate answering True / False.

Unlike `behaviour.py` and `held_out_cases.py` (pair counts), this prints every score with the reason it was decided
without the model, in Ref&NL and Ref-only, so saturation shows: a model that scores every program that runs alike
has learnt how easy the task is, not which candidate passes.

    python benchmarks/dozen_cases.py                        # the embedded default model
    python benchmarks/dozen_cases.py default work/run/model # side by side ("default" = the embedded model)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from codescore_metric import CodeScorer
from codescore_metric.behaviour import dedented, edit_once
from codescore_metric.execution import Job, run_many
from codescore_metric.execution.labels import pass_ratio

_CLAMP = "def clamp_all(values, low, high):\n    return [min(max(v, low), high) for v in values]\n"
_SECOND = "def second_largest(nums):\n    unique = sorted(set(nums))\n    return unique[-2]\n"
_COUNT = "def count_above(nums, threshold):\n    return sum(1 for n in nums if n > threshold)\n"
_DOUBLE = dedented("""
    def has_double(word):
        for a, b in zip(word, word[1:]):
            if a == b:
                return 'Found a double!'
        return 'No double.'
""")

TASKS = {
    "clamp_all": {
        "ref": _CLAMP,
        "nl": "Write a function that clamps every number of a list to the range [low, high].",
        "tests": ["clamp_all([1, 5, 10], 2, 8) == [2, 5, 8]", "clamp_all([], 0, 1) == []", "clamp_all([0, 0], 0, 0) == [0, 0]",
                  "clamp_all([-5, 5], -1, 1) == [-1, 1]", "clamp_all([3, 4, 5], 3, 5) == [3, 4, 5]",
                  "clamp_all([2.5, 9.5], 3, 9) == [3, 9]", "clamp_all([100], 1, 50) == [50]"],
        "programs": {
            "copy": _CLAMP,
            "renamed copy": "def clamp_all(xs, lo, hi):\n    return [min(max(x, lo), hi) for x in xs]\n",
            "typed copy": ("from typing import List\n\n\ndef clamp_all(values: List[float], low: float, high: float) -> List[float]:\n"
                           "    return [min(max(v, low), high) for v in values]\n"),
            "correct: loop": dedented("""
                def clamp_all(values, low, high):
                    out = []
                    for v in values:
                        if v < low:
                            out.append(low)
                        elif v > high:
                            out.append(high)
                        else:
                            out.append(v)
                    return out
            """),
            "correct: sorted triple": "def clamp_all(values, low, high):\n    return [sorted((low, v, high))[1] for v in values]\n",
            "missing return": edit_once(_CLAMP, "return [", "["),
            "print instead of return": "def clamp_all(values, low, high):\n    print([min(max(v, low), high) for v in values])\n",
            "dropped parameter": "def clamp_all(values, low):\n    return [max(v, low) for v in values]\n",
            "off by one": edit_once(_CLAMP, "), high)", "), high - 1)"),
            "bounds swapped": edit_once(_CLAMP, "min(max(v, low), high)", "max(min(v, low), high)"),
            "returns its input": "def clamp_all(values, low, high):\n    return values\n",
            "loop, comparisons swapped": dedented("""
                def clamp_all(values, low, high):
                    out = []
                    for v in values:
                        if v > low:
                            out.append(low)
                        elif v < high:
                            out.append(high)
                        else:
                            out.append(v)
                    return out
            """),
            "syntax error": edit_once(_CLAMP, "high):", "high)"),
        },
    },
    "second_largest": {
        "ref": _SECOND,
        "nl": "Write a function to find the second largest distinct number in a list.",
        "tests": ["second_largest([1, 2, 3]) == 2", "second_largest([5, 5, 4]) == 4", "second_largest([3, 1, 3, 2]) == 2",
                  "second_largest([-1, -2]) == -2", "second_largest([10, 9, 10, 9]) == 9", "second_largest([7, 1, 7, 7, 3]) == 3"],
        "programs": {
            "correct: heapq": "import heapq\ndef second_largest(nums):\n    return heapq.nlargest(2, set(nums))[-1]\n",
            "correct: one pass": dedented("""
                def second_largest(nums):
                    first = second = None
                    for n in set(nums):
                        if first is None or n > first:
                            first, second = n, first
                        elif second is None or n > second:
                            second = n
                    return second
            """),
            "duplicates kept": "def second_largest(nums):\n    return sorted(nums)[-2]\n",
            "second smallest": edit_once(_SECOND, "[-2]", "[1]"),
            "the largest": "def second_largest(nums):\n    return max(nums)\n",
        },
    },
    "count_above": {  # an easy task (added 2026-12-07): three near-copy mistakes beside two rewritten ones
        "ref": _COUNT,
        "nl": "Write a function that counts how many numbers in a list are greater than a threshold.",
        "tests": ["count_above([1, 5, 10], 4) == 2", "count_above([], 0) == 0", "count_above([3, 3, 3], 3) == 0",
                  "count_above([-2, -1, 0], -2) == 2", "count_above([7], 6) == 1", "count_above([1, 2, 3, 4], 2) == 2",
                  "count_above([0.5, 1.5], 1) == 1"],
        "programs": {
            "copy": _COUNT,
            "correct: loop": dedented("""
                def count_above(nums, threshold):
                    count = 0
                    for n in nums:
                        if n > threshold:
                            count += 1
                    return count
            """),
            "correct: len of filter": "def count_above(nums, threshold):\n    return len([n for n in nums if n > threshold])\n",
            "off by one: >=": edit_once(_COUNT, "n > threshold", "n >= threshold"),
            "wrong operator: <": edit_once(_COUNT, "n > threshold", "n < threshold"),
            "sums instead of counts": "def count_above(nums, threshold):\n    return sum(n for n in nums if n > threshold)\n",
            "counts every number": "def count_above(nums, threshold):\n    return len(nums)\n",
            "unrelated program": "def count_above(nums, threshold):\n    return sorted(nums)[threshold] if nums else 0\n",
        },
    },
    "has_double": {  # answers in words, as many MBPP tasks do; generated code often answers True / False instead
        "ref": _DOUBLE,
        "nl": "Write a function that returns 'Found a double!' when a word has the same letter twice in a row, "
              "else 'No double.'.",
        "tests": ["has_double('letter') == 'Found a double!'", "has_double('word') == 'No double.'",
                  "has_double('') == 'No double.'", "has_double('aa') == 'Found a double!'",
                  "has_double('abca') == 'No double.'", "has_double('abcdd') == 'Found a double!'"],
        "programs": {
            "correct: any": dedented("""
                def has_double(word):
                    doubled = any(a == b for a, b in zip(word, word[1:]))
                    return 'Found a double!' if doubled else 'No double.'
            """),
            "correct: regex": "import re\ndef has_double(word):\n    return 'Found a double!' if re.search(r'(.)\\1', word) else 'No double.'\n",
            "True / False instead of the words": "def has_double(word):\n    return any(a == b for a, b in zip(word, word[1:]))\n",
            "only the first two letters": dedented("""
                def has_double(word):
                    if len(word) > 1 and word[0] == word[1]:
                        return 'Found a double!'
                    return 'No double.'
            """),
            "answers swapped": dedented("""
                def has_double(word):
                    for a, b in zip(word, word[1:]):
                        if a == b:
                            return 'No double.'
                    return 'Found a double!'
            """),
        },
    },
}
FORMATS = ("ref_nl", "ref")


def cases() -> list[dict]:
    """Every program with its task's reference, description and execution PassRatio."""
    rows = [{"task": task, "case": name, "program": code, "reference": spec["ref"],
             "nl": spec["nl"], "tests": [f"assert {test}" for test in spec["tests"]]}
            for task, spec in TASKS.items() for name, code in spec["programs"].items()]
    for row, result in zip(rows, run_many([Job(program=row["program"], tests=row["tests"]) for row in rows])):
        row["pass_ratio"] = pass_ratio(result)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("checkpoints", nargs="*", default=["default"], help="model folders or Hub ids; 'default' is the embedded model")
    args = parser.parse_args()
    rows = cases()
    columns = {}
    for checkpoint in args.checkpoints:
        scorer = CodeScorer(None if checkpoint == "default" else checkpoint)
        for fmt in FORMATS:
            result = scorer.score([row["program"] for row in rows], references=[row["reference"] for row in rows],
                                  sources=[row["nl"] for row in rows] if fmt == "ref_nl" else None, input_format=fmt)
            columns[f"{checkpoint} {fmt}"] = [f"{score:.3f}" + (f" ({why})" if why else "")
                                              for score, why in zip(result.codescore, result.certain)]
    print("| task | case | PassRatio | " + " | ".join(columns) + " |")
    print("|---|---|---|" + "---|" * len(columns))
    for i, row in enumerate(rows):
        print(f"| {row['task']} | {row['case']} | {row['pass_ratio']:.2f} | " + " | ".join(values[i] for values in columns.values()) + " |")


if __name__ == "__main__":
    main()
