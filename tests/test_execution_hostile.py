"""Hostile programs are contained and labelled; the labeller survives and nothing outside changes."""

import os
import signal
import time

import pytest

from codescore_metric.execution import Job, Limits, run_program
from codescore_metric.execution.sandbox import _session_members

FAST = Limits(test_timeout=1.0, program_timeout=30.0, memory_bytes=512 << 20)
GOOD_TEST = "assert f(2) == 4"
PROGRAM = "def f(x):\n    return 2 * x\n"


def run_hostile(hostile_test: str, program: str = PROGRAM):
    """Run a hostile test between two good ones, in a process per test and in one shared process:
    the good ones must still pass, and both ways must give the hostile one the same label."""
    before = _harnesses_in_this_session()
    verdicts = []
    for shared in (False, True):
        result = run_program(Job(program, [GOOD_TEST, hostile_test, GOOD_TEST]), FAST, shared_process=shared)
        assert result.tests[0].status == "passed" and result.tests[2].status == "passed", result
        assert _harnesses_in_this_session() == before
        verdicts.append(result.tests[1])
    assert verdicts[0].status == verdicts[1].status, verdicts
    return verdicts[0]


def _harnesses_in_this_session():
    """Sandbox processes (the harness's command line) left in pytest's own session: other processes
    that happen to share the session (a progress bar's thread, a test server) do not count."""
    return sorted(pid for pid in _session_members(os.getsid(0)) if _is_harness(pid))


def _is_harness(pid) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return b"execution/harness.py" in handle.read()
    except OSError:
        return False


def _stat(pid):
    with open(f"/proc/{pid}/stat", "rb") as handle:
        return handle.read().rsplit(b")", 1)[1].split()


def _no_strays_from_sandboxes():
    """Live sandbox processes (their command line is the harness's) whose harness, the leader of
    their session, has ended: what a sandbox run would leave behind. Other sandboxes running on
    the machine at the same time keep their harness alive, so they do not count."""
    strays = []
    for name in filter(str.isdigit, os.listdir("/proc")):
        if not _is_harness(name):
            continue
        try:
            state, session = _stat(name)[0], int(_stat(name)[3])
            if state != b"Z" and (not os.path.exists(f"/proc/{session}") or _stat(session)[0] == b"Z"):
                strays.append(int(name))
        except OSError:
            pass
    return strays


LABELLED = {  # hostile test -> (status, exception type) it must be labelled with
    "memory bomb": ("x = bytearray(8 << 30)", ("error", "MemoryError")),
    "sys.exit": ("import sys\nsys.exit(0)", ("error", "SystemExit")),
    "kill the parent": ("import os, signal\nos.kill(os.getppid(), signal.SIGKILL)", ("error", "PermissionError")),
    "read stdin": ("input()", ("error", "EOFError")),
    "recursion": ("def r(n):\n    return r(n + 1)\nr(0)", ("error", "RecursionError")),
    "leave the process group": ("import os\nos.setsid()", ("error", "PermissionError")),
    "spawn a subprocess": ("import subprocess\nsubprocess.run(['true'])", ("error", "PermissionError")),
    "os.system": ("import os\nos.system('sleep 100 &')", ("error", "PermissionError")),
    "ctypes": ("import ctypes", ("error", "ModuleNotFoundError")),
}


@pytest.mark.parametrize("name", sorted(LABELLED))
def test_hostile_test_is_labelled(name):
    code, expected = LABELLED[name]
    verdict = run_hostile(code)
    assert (verdict.status, verdict.error) == expected, verdict


def test_infinite_loop_times_out():
    assert run_hostile("while True:\n    pass").status == "timeout"


def test_signal_tampering_does_not_stop_the_timeout():
    test = ("import signal\nfor s in (signal.SIGALRM, signal.SIGTERM, signal.SIGXCPU, signal.SIGINT):\n"
            "    signal.signal(s, signal.SIG_IGN)\nwhile True:\n    pass")
    assert run_hostile(test).status == "timeout"


def test_fork_bomb_is_contained_and_leaves_no_process():
    verdict = run_hostile("import os\nwhile True:\n    os.fork()")
    assert verdict.status in ("error", "crashed", "timeout")
    assert _no_strays_from_sandboxes() == []


def test_os_exit_is_a_crash_not_a_pass():
    assert run_hostile("import os\nos._exit(0)").status == "crashed"


def test_killing_the_labeller_is_refused():
    test = f"import os, signal\nos.kill({os.getpid()}, signal.SIGKILL)"
    assert run_hostile(test).error == "PermissionError"


def test_segfault_is_a_crash():
    test = "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)"
    verdict = run_hostile(test)
    assert verdict.status == "crashed" and "SIGSEGV" in verdict.detail


def test_files_outside_are_untouched(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    test = (f"import os, shutil\nopen('inside.txt', 'w').write('ok')\nos.remove('inside.txt')\n"
            f"for attack in (lambda: os.remove({str(victim)!r}), lambda: open({str(victim)!r}, 'w'),\n"
            f"               lambda: shutil.rmtree({str(tmp_path)!r}), lambda: os.rename({str(victim)!r}, 'x')):\n"
            f"    try:\n        attack()\n    except PermissionError:\n        pass\n"
            f"    else:\n        raise RuntimeError('attack went through')")
    assert run_hostile(test).status == "passed"
    assert victim.read_text() == "keep me" and sorted(os.listdir(tmp_path)) == ["victim.txt"]


def test_huge_output_is_discarded():
    assert run_hostile("for _ in range(200000):\n    print('x' * 1000)").status == "passed"


def test_huge_file_is_capped():
    verdict = run_hostile("open('big', 'wb').write(b'x' * (64 << 20))")
    assert verdict.status == "error" and verdict.error in ("OSError", "MemoryError")


def test_deep_recursion_with_raised_limit_crashes_only_that_test():
    test = "import sys\nsys.setrecursionlimit(10**7)\ndef r(n):\n    return r(n + 1) + 1\nr(0)"
    assert run_hostile(test).status in ("crashed", "error", "timeout")


def test_background_child_is_killed_with_its_test():
    test = "import os, time\nif os.fork() == 0:\n    time.sleep(600)\n"
    assert run_hostile(test).status == "passed"
    time.sleep(0.1)
    assert _no_strays_from_sandboxes() == []


def test_hostile_program_top_level_costs_one_timeout():
    started = time.monotonic()
    result = run_program(Job("while True:\n    pass\n", [GOOD_TEST] * 20), FAST)
    assert {test.status for test in result.tests} == {"timeout"}
    assert time.monotonic() - started < 10


def test_labeller_survives_sigterm_tampering_of_its_own_signals():
    assert signal.getsignal(signal.SIGINT) is not signal.SIG_IGN
    run_hostile("import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)")
    assert signal.getsignal(signal.SIGINT) is not signal.SIG_IGN


@pytest.mark.skipif(os.getuid() != 0, reason="raising hard limits needs root")
def test_raising_resource_limits_is_refused():
    test = "import resource\nresource.setrlimit(resource.RLIMIT_AS, (-1, -1))"
    assert run_hostile(test).error == "PermissionError"


def test_program_budget_kill_takes_the_running_test_and_its_forks():
    limits = Limits(test_timeout=5.0, program_timeout=1.0)
    result = run_program(Job(PROGRAM, ["import os\nos.fork()\nwhile True:\n    pass"]), limits)
    assert result.tests[0].status == "timeout" and "budget" in result.tests[0].detail
    time.sleep(0.1)
    assert _no_strays_from_sandboxes() == []
