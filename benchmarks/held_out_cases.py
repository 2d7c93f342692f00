"""Held-out hand-written cases: four invented tasks kept out of `codescore_metric/behaviour.py` (and out of CI),
so that a model chosen on the behaviour cases can be looked at on programs nobody tuned it on.

Each task has a reference, ten tests, two correct rewrites, three plausible mistakes and a syntax error. The
PassRatio of every program comes from the execution sandbox, never from the variant's name; a mistake that
passes more than half of the tests is shown but left out of the correct > wrong count, as in the behaviour
bar. Scores are Ref&NL, one column per checkpoint.

    python benchmarks/held_out_cases.py                          # the embedded default model
    python benchmarks/held_out_cases.py default work/run/model   # side by side ("default" = the embedded model)
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

_MAX_GAP = dedented("""
    def max_gap(nums):
        s = sorted(nums)
        best = 0
        for i in range(1, len(s)):
            best = max(best, s[i] - s[i - 1])
        return best
""")

_INITIALS = dedented("""
    def initials(name):
        return ''.join(word[0].upper() + '.' for word in name.split())
""")

_ROTATE_LEFT = dedented("""
    def rotate_left(items, k):
        if not items:
            return []
        k %= len(items)
        return items[k:] + items[:k]
""")

_VOWEL_WORDS = dedented("""
    def vowel_words(text):
        return sum(1 for w in text.split() if w[0].lower() in 'aeiou')
""")

TASKS = {  # a mistake that is one edit of the reference is written as that edit
    'max_gap': dict(
        nl=('Write a function max_gap(nums) that returns the largest difference between two neighbours of the '
            'sorted list nums, or 0 when nums has fewer than two elements.'),
        tests=[
            'max_gap([3, 9, 1]) == 6', 'max_gap([]) == 0', 'max_gap([5]) == 0', 'max_gap([1, 2, 3, 4]) == 1',
            'max_gap([10, 1, 5, 20]) == 10', 'max_gap([-5, 5]) == 10', 'max_gap([7, 7, 7]) == 0',
            'max_gap([1, 100, 50, 51]) == 49', 'max_gap([0, -10, 30, 4]) == 26', 'max_gap([2, 4, 8, 16, 32]) == 16',
        ],
        ref=_MAX_GAP,
        correct_zip=dedented("""
            def max_gap(nums):
                ordered = sorted(nums)
                return max((b - a for a, b in zip(ordered, ordered[1:])), default=0)
        """),
        correct_while=dedented("""
            def max_gap(nums):
                values = sorted(nums)
                gap = 0
                i = 0
                while i + 1 < len(values):
                    if values[i + 1] - values[i] > gap:
                        gap = values[i + 1] - values[i]
                    i += 1
                return gap
        """),
        wrong_unsorted=edit_once(_MAX_GAP, 'sorted(nums)', 'nums'),
        wrong_range=edit_once(_MAX_GAP, 'range(1, len(s))', 'range(1, len(s) - 1)'),
        wrong_span=dedented("""
            def max_gap(nums):
                if len(nums) < 2:
                    return 0
                return max(nums) - min(nums)
        """),
    ),
    'initials': dict(
        nl=('Write a function initials(name) that returns the upper-case first letter of each word of name, each '
            "followed by a dot, e.g. 'ada lovelace' gives 'A.L.'."),
        tests=[
            "initials('ada lovelace') == 'A.L.'", "initials('Alan Mathison Turing') == 'A.M.T.'",
            "initials('x') == 'X.'", "initials('') == ''", "initials('grace  hopper') == 'G.H.'",
            "initials(' edsger dijkstra ') == 'E.D.'", "initials('barbara liskov') == 'B.L.'",
            "initials('k') == 'K.'", "initials('john von neumann') == 'J.V.N.'",
            "initials('Tim Berners Lee') == 'T.B.L.'",
        ],
        ref=_INITIALS,
        correct_loop=dedented("""
            def initials(name):
                out = ''
                for part in name.split():
                    out += part[0].upper() + '.'
                return out
        """),
        correct_join=dedented("""
            def initials(name):
                letters = [w[:1].upper() for w in name.split()]
                return ''.join(letter + '.' for letter in letters)
        """),
        wrong_no_upper=edit_once(_INITIALS, 'word[0].upper()', 'word[0]'),
        wrong_last_dot=dedented("""
            def initials(name):
                return '.'.join(word[0].upper() for word in name.split())
        """),
        wrong_split_space=edit_once(_INITIALS, 'name.split()', "name.split(' ')"),
    ),
    'rotate_left': dict(
        nl=('Write a function rotate_left(items, k) that returns a new list with the elements of items rotated k '
            'places to the left; k may be larger than the list, and an empty list gives an empty list.'),
        tests=[
            'rotate_left([1, 2, 3, 4], 1) == [2, 3, 4, 1]', 'rotate_left([1, 2, 3, 4], 0) == [1, 2, 3, 4]',
            'rotate_left([], 3) == []', 'rotate_left([1, 2, 3], 4) == [2, 3, 1]',
            'rotate_left([1, 2, 3], 3) == [1, 2, 3]', "rotate_left(['a', 'b'], 1) == ['b', 'a']",
            'rotate_left([5], 10) == [5]', 'rotate_left([1, 2, 3, 4, 5], 2) == [3, 4, 5, 1, 2]',
            'rotate_left([1, 2, 3, 4, 5], 7) == [3, 4, 5, 1, 2]', 'rotate_left([9, 8, 7], 2) == [7, 9, 8]',
        ],
        ref=_ROTATE_LEFT,
        correct_deque=dedented("""
            from collections import deque

            def rotate_left(items, k):
                d = deque(items)
                d.rotate(-k)
                return list(d)
        """),
        correct_loop=dedented("""
            def rotate_left(items, k):
                result = list(items)
                for _ in range(k % len(result) if result else 0):
                    result.append(result.pop(0))
                return result
        """),
        wrong_right=edit_once(_ROTATE_LEFT, 'items[k:] + items[:k]', 'items[-k:] + items[:-k]'),
        wrong_no_mod=edit_once(_ROTATE_LEFT, '    k %= len(items)\n', ''),
        wrong_no_empty=edit_once(_ROTATE_LEFT, '    if not items:\n        return []\n', ''),
    ),
    'vowel_words': dict(
        nl=('Write a function vowel_words(text) that counts the words of text that start with a vowel, upper or '
            'lower case.'),
        tests=[
            "vowel_words('an apple a day') == 3", "vowel_words('') == 0", "vowel_words('Every Other Umbrella') == 3",
            "vowel_words('the cat sat') == 0", "vowel_words('Ice cream') == 1",
            "vowel_words('one two three four') == 1", "vowel_words('under  over') == 2",
            "vowel_words('I am here') == 2", "vowel_words('xyz Abc') == 1", "vowel_words('eagle owl ibis emu') == 4",
        ],
        ref=_VOWEL_WORDS,
        correct_loop=dedented("""
            def vowel_words(text):
                count = 0
                for word in text.split():
                    if word[0] in 'aeiouAEIOU':
                        count += 1
                return count
        """),
        correct_filter=dedented("""
            def vowel_words(text):
                return len([w for w in text.lower().split() if w.startswith(('a', 'e', 'i', 'o', 'u'))])
        """),
        wrong_case=edit_once(_VOWEL_WORDS, 'w[0].lower()', 'w[0]'),
        wrong_contains=dedented("""
            def vowel_words(text):
                return sum(1 for w in text.split() if any(c in 'aeiou' for c in w.lower()))
        """),
        wrong_last=edit_once(_VOWEL_WORDS, 'w[0]', 'w[-1]'),
    ),
}


def cases() -> list[dict]:
    """Every program of every task with its execution PassRatio (the syntax error is labelled 0 by the sandbox too)."""
    rows = []
    for task, spec in TASKS.items():
        programs = {name: code for name, code in spec.items() if name not in ("nl", "tests")}
        programs["syntax_error"] = edit_once(spec["ref"], "):", ")")
        for name, code in programs.items():
            rows.append({"task": task, "case": name, "program": code, "reference": spec["ref"], "nl": spec["nl"],
                         "tests": [f"assert {test}" for test in spec["tests"]]})
    results = run_many([Job(program=row["program"], tests=row["tests"]) for row in rows])
    for row, result in zip(rows, results):
        row["pass_ratio"] = pass_ratio(result)
    return rows


def correct_over_wrong(rows: list[dict], scores: list[float]) -> tuple[int, int]:
    """Pairs (won, total) of a correct rewrite against a mistake that fails at least half the tests, within a task."""
    won = total = 0
    for task in TASKS:
        mine = [(row, score) for row, score in zip(rows, scores) if row["task"] == task]
        good = [score for row, score in mine if row["case"].startswith("correct")]
        bad = [score for row, score in mine if row["case"].startswith("wrong") and row["pass_ratio"] <= 0.5]
        won += sum(g > b for g in good for b in bad)
        total += len(good) * len(bad)
    return won, total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("checkpoints", nargs="*", default=["default"],
                        help="model folders or Hub ids; 'default' is the embedded model")
    args = parser.parse_args()
    rows = cases()
    scores = {}
    for checkpoint in args.checkpoints:
        scorer = CodeScorer(None if checkpoint == "default" else checkpoint)
        result = scorer.score([row["program"] for row in rows], references=[row["reference"] for row in rows],
                              sources=[row["nl"] for row in rows], input_format="ref_nl")
        scores[checkpoint] = result.codescore
    print("| task | case | PassRatio | " + " | ".join(scores) + " |")
    print("|---|---|---|" + "---|" * len(scores))
    for i, row in enumerate(rows):
        print(f"| {row['task']} | {row['case']} | {row['pass_ratio']:.2f} | "
              + " | ".join(f"{values[i]:.3f}" for values in scores.values()) + " |")
    print()
    for checkpoint, values in scores.items():
        won, total = correct_over_wrong(rows, values)
        print(f"{checkpoint}: correct > wrong (mistakes failing at least half the tests) {won}/{total}")


if __name__ == "__main__":
    main()
