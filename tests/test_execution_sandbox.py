"""The sandbox: verdicts per test, isolation between tests, restart after a crash, determinism."""

import subprocess
import sys

import pytest

from codescore_metric.execution import Job, Limits, ProgramResult, TestResult, run_many, run_program

FAST = Limits(test_timeout=1.0, program_timeout=30.0)
PROGRAM = "def add(a, b):\n    return a + b\n"


def statuses(result: ProgramResult):
    return [test.status for test in result.tests]


def test_each_test_gets_its_own_verdict():
    tests = ["assert add(1, 2) == 3", "assert add(1, 2) == 4", "add(None, 1)", "while True: pass"]
    result = run_program(Job(PROGRAM, tests), FAST)
    assert result.load.status == "passed"
    assert statuses(result) == ["passed", "failed", "error", "timeout"]
    assert result.tests[2].error == "TypeError" and "unsupported operand" in result.tests[2].detail


@pytest.mark.parametrize("shared", [False, True])
def test_verdicts_are_the_same_in_a_shared_process(shared):
    tests = ["assert add(1, 2) == 3", "assert add(1, 2) == 4", "add(None, 1)", "while True: pass",
             "import os\nos._exit(1)", "assert add(2, 2) == 4"]
    result = run_program(Job(PROGRAM, tests), FAST, shared_process=shared)
    assert statuses(result) == ["passed", "failed", "error", "timeout", "crashed", "passed"]
    fast = run_program(Job(PROGRAM, tests), FAST, shared_process=shared, fail_fast=True)
    assert statuses(fast) == ["passed", "failed"] + ["skipped"] * 4


def test_a_shared_process_lets_tests_see_each_other():
    program = "seen = []\ndef remember(x):\n    seen.append(x)\n    return len(seen)\n"
    result = run_program(Job(program, ["assert remember(1) == 1"] * 3), FAST, shared_process=True)
    assert statuses(result) == ["passed", "failed", "failed"]


def test_tests_do_not_share_state():
    program = "seen = []\ndef remember(x):\n    seen.append(x)\n    return len(seen)\n"
    result = run_program(Job(program, ["assert remember(1) == 1"] * 3), FAST)
    assert statuses(result) == ["passed"] * 3


def test_a_crash_costs_only_that_test():
    tests = ["assert add(1, 1) == 2", "import os\nos._exit(5)", "import os, signal\nos.kill(os.getpid(), 9)",
             "assert add(2, 2) == 4"]
    result = run_program(Job(PROGRAM, tests), FAST)
    assert statuses(result) == ["passed", "crashed", "crashed", "passed"]
    assert "exit status 5" in result.tests[1].detail and "SIGKILL" in result.tests[2].detail


def test_program_that_does_not_load_fails_every_test():
    result = run_program(Job("def broken(:\n", ["assert True", "assert True"]), FAST)
    assert result.load.error == "SyntaxError"
    assert [(t.status, t.error) for t in result.tests] == [("error", "SyntaxError")] * 2


def test_setup_runs_after_the_program():
    result = run_program(Job("class Node:\n    def __init__(self, v):\n        self.v = v\n",
                             ["assert root.v == 1"], setup="root = Node(1)"), FAST)
    assert statuses(result) == ["passed"]


def test_program_time_budget_labels_the_rest_timeout():
    limits = Limits(test_timeout=0.5, program_timeout=1.2)
    result = run_program(Job(PROGRAM, ["while True: pass"] * 6), limits)
    assert set(statuses(result)) == {"timeout"}
    assert any("budget" in test.detail for test in result.tests)


def test_capture_returns_json_values():
    result = run_program(Job(PROGRAM, ["x = [add(1, 2), 'a']"]), FAST, capture="x")
    assert result.tests[0].value == [3, "a"]


def test_fail_fast_stops_at_first_failure():
    tests = ["assert add(1, 1) == 2", "assert add(1, 1) == 3", "assert add(2, 2) == 4"]
    result = run_program(Job(PROGRAM, tests), FAST, fail_fast=True)
    assert statuses(result) == ["passed", "failed", "skipped"]


def test_deterministic_across_runs_including_string_hash_order():
    program = "def order(words):\n    return list(set(words))\n"
    tests = ["x = order(['alpha', 'beta', 'gamma', 'delta', 'epsilon'])"]
    first, second = (run_program(Job(program, tests), FAST, capture="x") for _ in range(2))
    assert first == second
    other = run_program(Job(program, tests), FAST, capture="x", hash_seed=1)
    assert sorted(other.tests[0].value) == sorted(first.tests[0].value)


def test_random_is_seeded_in_the_child():
    program = "import random\ndef roll():\n    return random.random()\n"
    first, second = (run_program(Job(program, ["x = roll()"]), FAST, capture="x") for _ in range(2))
    assert first.tests[0].value == second.tests[0].value


def test_run_many_keeps_input_order():
    jobs = [Job(PROGRAM, [f"assert add({i}, 0) == {i if i % 2 else -1}"]) for i in range(8)]
    results = list(run_many(jobs, FAST, workers=3))
    assert [statuses(r)[0] for r in results] == ["failed", "passed"] * 4


def test_bad_job_and_limits_are_rejected():
    with pytest.raises(TypeError, match="tests must be a list"):
        Job(PROGRAM, "assert add(1, 1) == 2")
    with pytest.raises(TypeError, match="program must be a string"):
        Job(None, [])
    with pytest.raises(ValueError, match="test_timeout"):
        Limits(test_timeout=0)


def test_result_to_dict_drops_empty_fields():
    assert TestResult("passed").to_dict() == {"status": "passed"}


def test_execution_package_does_not_import_torch():
    code = ("import sys, codescore_metric.execution, codescore_metric.execution.extend, "
            "codescore_metric.execution.labels, codescore_metric.cli.label, codescore_metric.cli.extend_tests\n"
            "assert 'torch' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_sandbox_refuses_to_run_outside_linux(monkeypatch):
    import sys

    import pytest

    from codescore_metric.execution.sandbox import SandboxError, require_linux

    monkeypatch.setattr(sys, "platform", "darwin")
    with pytest.raises(SandboxError, match="needs Linux"):
        require_linux()
