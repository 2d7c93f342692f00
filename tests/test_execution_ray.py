"""Labelling on Ray (``execution.distributed``, ``--ray``): the labels, order and files of the local sandbox
pool, and a killed Ray worker loses no row.

Skipped when ray is missing, except in CI (CI=1), where that is a failure. One local two-CPU Ray
cluster serves the whole module.
"""

import os
import signal
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from codescore_metric.cli import build_data, label
from codescore_metric.execution import Job, Limits, distributed, run_many
from codescore_metric.execution.labels import labels
from codescore_metric.execution.sandbox import _kill_session
from tests.test_data_builder import HUMANEVAL_ROW
from tests.test_execution_cli import cli, generic_rows, write_jsonl
from tests.test_execution_hostile import FAST, GOOD_TEST, LABELLED, PROGRAM, _is_harness

MIXED = [
    Job(PROGRAM, [GOOD_TEST, "assert f(3) == 6"]),  # correct
    Job("def f(x):\n    return x + 2\n", [GOOD_TEST, "assert f(3) == 6"]),  # right on one test only
    Job("def f(x)\n    return 2 * x\n", [GOOD_TEST]),  # syntax error
    Job(PROGRAM, [GOOD_TEST, "while True:\n    pass"]),  # infinite loop
    Job(PROGRAM, [LABELLED["kill the parent"][0], GOOD_TEST]),
    Job(PROGRAM, [GOOD_TEST, LABELLED["memory bomb"][0]]),
]
SLOW_LIMITS = Limits(test_timeout=5.0, program_timeout=30.0, memory_bytes=512 << 20)
SLOW = Job(PROGRAM, [GOOD_TEST, "import time\ntime.sleep(2)", GOOD_TEST])  # the one whose worker is killed
ALL_PASS = {"pass_ratio": 1.0, "executable": 1, "all_pass": 1}


@pytest.fixture(scope="module")
def ray_cluster():
    try:
        import ray
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("the Ray tests need ray (pip install -r requirements-test.txt)")
        pytest.skip("the Ray tests need ray (pip install 'codescore-metric[ray]')")
    ray.init(address="local", num_cpus=2, include_dashboard=False)
    yield ray
    ray.shutdown()


def test_ray_gives_the_local_results_in_input_order(ray_cluster):
    local = list(run_many(MIXED, FAST, workers=2))
    on_ray = list(distributed.run_many(MIXED, FAST))
    assert [_verdicts(result) for result in on_ray] == [_verdicts(result) for result in local]
    assert [labels(result)["pass_ratio"] for result in on_ray] == [1.0, 0.5, 0.0, 0.5, 0.5, 0.5]


def test_ray_passes_the_sandbox_options_on(ray_cluster):
    job = Job("def f(x):\n    return x + 2\n", ["assert f(3) == 6", GOOD_TEST, GOOD_TEST])
    [result] = distributed.run_many([job], FAST, fail_fast=True, shared_process=True)
    assert [test.status for test in result.tests] == ["failed", "skipped", "skipped"]


def test_a_killed_worker_is_retried(ray_cluster):
    results, killed = _run_and_kill_the_slow_worker()
    assert killed and [labels(result) for result in results] == [ALL_PASS] * 3


def test_a_worker_killed_on_every_try_labels_its_program_crashed(ray_cluster, monkeypatch):
    monkeypatch.setattr(distributed, "RETRIES", 0)
    results, killed = _run_and_kill_the_slow_worker()
    assert killed and [labels(result) for result in (results[0], results[2])] == [ALL_PASS] * 2
    crashed = results[1]
    assert labels(crashed) == {"pass_ratio": 0.0, "executable": 0, "all_pass": 0}
    assert {(test.status, test.error) for test in (crashed.load, *crashed.tests)} == {("crashed", "WorkerCrashedError")}
    assert len(crashed.tests) == len(SLOW.tests) and "Ray worker" in crashed.load.detail


def test_label_cli_with_ray_writes_the_local_file_and_resumes(ray_cluster, tmp_path):
    source = write_jsonl(tmp_path / "in.jsonl", generic_rows())
    local, on_ray, resumed = tmp_path / "local.jsonl", tmp_path / "ray.jsonl", tmp_path / "resumed.jsonl"
    cli(label, ["label", str(source), "-o", str(local), "--details"])
    cli(label, ["label", str(source), "-o", str(on_ray), "--details", "--ray"])
    assert on_ray.read_text() == local.read_text()
    resumed.write_text("".join(local.read_text().splitlines(keepends=True)[:2]))
    cli(label, ["label", str(source), "-o", str(resumed), "--details", "--ray"])
    assert resumed.read_text() == local.read_text()


def test_build_data_with_ray_writes_the_local_rows(ray_cluster, tmp_path):
    source = write_jsonl(tmp_path / "he.jsonl", [HUMANEVAL_ROW])
    argv = ["build-data", "--benchmark", "humaneval", "--eval-only", "--input", str(source),
            "--candidates-per-task", "4", "--workers", "2", "--no-progress"]
    cli(build_data, [*argv, "-o", str(tmp_path / "local")])
    cli(build_data, [*argv, "-o", str(tmp_path / "ray"), "--ray"])
    assert (tmp_path / "ray" / "eval.jsonl").read_text() == (tmp_path / "local" / "eval.jsonl").read_text()


def _verdicts(result):
    """Labels, then the status and error of the load and of each test (details name pids)."""
    return labels(result), [(test.status, test.error) for test in (result.load, *result.tests)]


def _run_and_kill_the_slow_worker():
    """Run ``[fast, SLOW, fast]`` on Ray while SIGKILLing the worker that runs ``SLOW``, once."""
    jobs = [Job(PROGRAM, [GOOD_TEST]), SLOW, Job(PROGRAM, [GOOD_TEST])]
    with ThreadPoolExecutor(1) as pool:
        killer = pool.submit(_kill_a_worker_whose_sandbox_runs_for, 1.0)
        results = list(distributed.run_many(jobs, SLOW_LIMITS))
        return results, killer.result()


def _kill_a_worker_whose_sandbox_runs_for(seconds: float) -> int:
    """Wait for a sandbox harness that a Ray worker has run for ``seconds``, then SIGKILL that worker
    (and the orphaned sandbox); the worker's pid."""
    first_seen: dict[int, float] = {}
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for pid, worker in _harnesses_of_ray_workers():
            if time.monotonic() - first_seen.setdefault(pid, time.monotonic()) > seconds:
                os.kill(worker, signal.SIGKILL)
                _kill_session(pid)
                return worker
        time.sleep(0.05)
    raise AssertionError(f"no Ray worker ran a sandbox for {seconds} s")


def _harnesses_of_ray_workers() -> list[tuple[int, int]]:
    """(harness pid, Ray worker pid) of each sandbox harness run by a Ray worker of this process's own
    cluster (worker -> raylet -> this process), never of another Ray on the machine."""
    found = []
    for name in filter(str.isdigit, os.listdir("/proc")):
        try:
            worker = _parent(int(name))
            with open(f"/proc/{worker}/cmdline", "rb") as handle:
                is_worker = handle.read().startswith(b"ray::")
            ours = _parent(_parent(worker)) == os.getpid()
        except (OSError, IndexError, ValueError):
            continue
        if is_worker and ours and _is_harness(name):
            found.append((int(name), worker))
    return found


def _parent(pid: int) -> int:
    with open(f"/proc/{pid}/stat", "rb") as handle:
        return int(handle.read().rsplit(b")", 1)[1].split()[1])
