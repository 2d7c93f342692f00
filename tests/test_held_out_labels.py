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
        if row["case"] in ("ref", "equivalent") or row["case"].startswith("correct"):
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


def test_equivalent_edits_are_near_copies_paired_with_the_near_copy_mistakes(held_out):
    module, rows = held_out
    edits = [row for row in rows if row["case"] == "equivalent"]
    assert len(edits) == 20 and all(module.is_near_copy(row["program"], row["reference"]) for row in edits)
    scores = [1.0 if row["case"] == "equivalent" else 0.0 for row in rows]
    assert module.equivalent_over_near_mistakes(rows, scores) == (24, 24)
    assert module.equivalent_over_near_mistakes(rows, [1.0 - score for score in scores]) == (0, 24)
