"""Test extension internals: seed parsing, deterministic type-aware mutation, dropping bad inputs."""

import random

from codescore_metric.execution import Limits
from codescore_metric.execution.extend import Mutator, call_source, extend_task, seed_calls, to_source
from codescore_metric.execution.tasks import Task


def test_seed_calls_parse_literal_arguments_only():
    tests = ["assert f([1, 2], k=3) == 1", "assert set(f((1, 'a'), k={1: 2})) == {1}", "assert f(x) == 2",
             "assert f([1, 2], k=3) == 1", "not python("]
    assert seed_calls(tests, "f") == [(([1, 2],), {"k": 3}), (((1, "a"),), {"k": {1: 2}})]


def test_to_source_is_ordered_and_round_trips():
    value = [{3, 1, 2}, (1,), {"b": frozenset({"y", "x"})}, set(), -0.5]
    text = to_source(value)
    assert text == "[{1, 2, 3}, (1,), {'b': frozenset({'x', 'y'})}, set(), -0.5]"
    assert eval(text) == value
    assert call_source("f", (1, "a"), {"k": [2]}) == "f(1, 'a', k=[2])"


def test_mutation_keeps_types_and_is_deterministic():
    seeds = [(([1, 2, 3], "abc", 2.5, (1, 2), {"a": 1}, True), {})]
    draws = []
    for _ in range(2):
        mutator = Mutator(seeds, random.Random(7))
        draws.append([mutator.candidate(rounds=2) for _ in range(200)])
    assert draws[0] == draws[1]
    for args, _ in draws[0]:
        assert [type(a) for a in args] == [list, str, float, tuple, dict, bool]
        assert all(type(x) is int and x >= 0 for x in args[0])  # the seeds only show non-negative ints
    assert len({call_source("f", *draw) for draw in draws[0]}) > 150


def test_reference_failures_timeouts_and_nondeterminism_are_dropped():
    program = ("import random\ndef pick(n):\n    if n < 0:\n        raise ValueError(n)\n"
               "    if 41 <= n <= 44:\n        while True:\n            pass\n"
               "    if n % 7 == 3:\n        return list({str(i) for i in range(n + 30)})\n"
               "    if n % 11 == 5:\n        return random.randint(0, 10**9)\n    return n * 3\n")
    task = Task("t", "generic", program, ("assert pick(6) == 18",), ("assert pick(6) == 18", "assert pick(40) == 120"),
                entry_point="pick")
    extension = extend_task(task, target=30, limits=Limits(test_timeout=0.3, program_timeout=60))
    assert {"reference timeout", "reference nondeterministic"} <= set(extension.dropped)
    assert extension.new > 0 and set(extension.tests[:2]) == {"assert pick(6) == 18", "assert pick(40) == 120"}
    for test in extension.tests[2:]:
        n = int(test.split("pick(")[1].split(")")[0])
        assert n >= 0 and not 41 <= n <= 44 and n % 7 != 3 and n % 11 != 5 and test == f"assert pick({n}) == {3 * n}"


def test_task_without_literal_calls_reports_why():
    task = Task("t", "generic", "def f(x):\n    return x\n", (), ("assert f(y) == 1",), entry_point="f")
    extension = extend_task(task)
    assert extension.new == 0 and "no call with literal arguments" in next(iter(extension.dropped))
