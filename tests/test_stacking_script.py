"""benchmarks/stacking.py: the combination is fitted on PassRatio and the within-task order, and the rules' certain
scores stay as they are."""

import numpy as np
import pytest

from tests.scripts import load_script


@pytest.fixture(scope="module")
def script():
    return load_script("benchmarks/stacking.py")


def test_ordered_pairs_are_within_a_task_and_point_from_better_to_worse(script):
    truth = np.array([1.0, 0.0, 0.5, 0.2, 0.2])
    pairs = script.ordered_pairs(truth, ["a", "a", "a", "b", "b"])
    assert sorted(map(tuple, pairs)) == [(0, 1), (0, 2), (2, 1)]  # b's two rows tie: no pair


def test_the_ranking_term_follows_the_feature_that_orders_each_task(script):
    rng = np.random.default_rng(0)
    tasks = [task for task in range(20) for _ in range(5)]
    offset = np.repeat(rng.uniform(0, 1, 20), 5)  # task difficulty, which the first feature alone carries
    within = np.tile(np.linspace(-1, 1, 5), 20)  # the order inside each task, which the second carries
    truth = np.clip(offset + 0.2 * within, 0, 1)
    x = np.column_stack([offset * 4, within, np.ones(100)])
    for ranking_weight in (0.0, 1.0):
        weights = script.fit_combination(x, truth, tasks, ranking_weight)
        assert weights[0] > 0 and weights[1] > 0
    scored = {"values": {"a": offset * 4, "b": within}, "codescore": np.full(100, 0.5), "certain": [None] * 99 + ["syntax_error"]}
    combined = script.combined(scored, ("a", "b"), script.fit_combination(x, truth, tasks, 1.0))
    assert combined[-1] == 0.5  # a row a check decides keeps the scorer's certain value
    assert all(np.all(np.diff(combined[k * 5:k * 5 + 5]) > 0) for k in range(19))
