"""PassRatio, Executability, Passability and the unbiased pass@k."""

import itertools
import math

import pytest

from codescore_metric.execution import ProgramResult, TestResult
from codescore_metric.execution.labels import executable, labels, mean_pass_at_k, pass_at_k, pass_ratio, passable

OK = TestResult("passed")


def result(*statuses, load="passed"):
    return ProgramResult(TestResult(load), tuple(TestResult(s) for s in statuses))


def brute_force_pass_at_k(n, c, k):
    """Share of all k-subsets of n samples (c correct) that hold at least one correct sample."""
    samples = [True] * c + [False] * (n - c)
    subsets = list(itertools.combinations(range(n), k))
    return sum(any(samples[i] for i in subset) for subset in subsets) / len(subsets)


@pytest.mark.parametrize("n", range(1, 9))
def test_pass_at_k_matches_brute_force(n):
    for c in range(n + 1):
        for k in range(1, n + 1):
            assert pass_at_k(n, c, k) == pytest.approx(brute_force_pass_at_k(n, c, k), abs=1e-12)


def test_pass_at_k_is_stable_for_large_n():
    value = pass_at_k(2000, 3, 100)
    exact = 1 - math.comb(1997, 100) / math.comb(2000, 100)
    assert value == pytest.approx(exact, rel=1e-12)


@pytest.mark.parametrize("args", [(0, 0, 1), (5, 6, 1), (5, 1, 0), (5, 1, 6), (5.0, 1, 1)])
def test_pass_at_k_rejects_bad_arguments(args):
    with pytest.raises((ValueError, TypeError)):
        pass_at_k(*args)


def test_mean_pass_at_k_needs_enough_samples():
    assert mean_pass_at_k([(2, 1), (2, 0)], 1) == pytest.approx(0.25)
    with pytest.raises(ValueError, match="at least 3 samples"):
        mean_pass_at_k([(2, 1)], 3)


def test_labels_of_a_program():
    assert labels(result("passed", "failed", "passed", "passed")) == {"pass_ratio": 0.75, "executable": 1, "all_pass": 0}
    assert labels(result("passed", "passed")) == {"pass_ratio": 1.0, "executable": 1, "all_pass": 1}
    for bad in ("error", "timeout", "crashed"):
        assert executable(result("passed", bad)) is False
    assert executable(result("error", "error", load="error")) is False
    assert pass_ratio(result("error", "error", load="error")) == 0.0 and not passable(result("failed"))
    with pytest.raises(ValueError, match="no tests"):
        pass_ratio(ProgramResult(OK, ()))
