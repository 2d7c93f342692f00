"""The held-out hand cases (`benchmarks/held_out_tasks.py`) keep their labels by execution; no model is involved."""

import pytest

from tests.scripts import load_script

ORIGINAL_TASKS = 4  # the first four tasks keep some mistakes that pass more than half the tests (shown, not counted)


@pytest.fixture(scope="module")
def held_out():
    module = load_script("benchmarks/held_out_cases.py")
    return module, module.cases()


def test_correct_programs_pass_every_test_and_syntax_errors_none(held_out):
    _, rows = held_out
    for row in rows:
        if row["case"] == "ref" or row["case"].startswith("correct"):
            assert row["pass_ratio"] == 1.0, f"{row['task']}/{row['case']} passes {row['pass_ratio']:.1f} of its tests"
        elif row["case"] == "syntax_error":
            assert row["pass_ratio"] == 0.0


def test_new_mistakes_fail_at_least_half_of_ten_distinct_tests(held_out):
    module, rows = held_out
    assert len(module.TASKS) == 20
    for task in list(module.TASKS)[ORIGINAL_TASKS:]:
        assert len(set(module.TASKS[task]["tests"])) == 10
        mistakes = [row for row in rows if row["task"] == task and row["case"].startswith("wrong")]
        assert len(mistakes) == 3
        assert all(row["pass_ratio"] <= 0.5 for row in mistakes), [(row["case"], row["pass_ratio"]) for row in mistakes]


def test_pairs_are_counted_only_for_mistakes_failing_at_least_half(held_out):
    module, rows = held_out
    counts = module.correct_over_wrong(rows, [1.0 if row["case"].startswith("correct") else 0.0 for row in rows])
    assert counts == {"all": (110, 110), "near-copy mistakes": (48, 48), "rewritten mistakes": (62, 62)}
