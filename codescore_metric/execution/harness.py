"""Child-side runner of the execution sandbox (stdlib only; run as a script, never imported by the library).

Protocol: the job (JSON) arrives on stdin; one JSON line per verdict goes to the file descriptor named
in ``argv[1]``, first ``{"load": verdict}`` for loading the program on its own, then ``{"i": index,
...verdict}`` for each test. This process never runs untrusted code: the program and its tests run in
a forked child (one per test, or one for all tests with ``shared_process``) that closes the result
descriptor first, so user code cannot write to it. The child writes a verdict line per test into its
own pipe; this process gives each test a wall-clock deadline, kills the child's process group with
SIGKILL when it passes, and starts a new child at the next test after a hang or a crash.

Inside the child, a guard refuses (with ``PermissionError``) the easy ways out of the sandbox: writing
or deleting files outside the working directory, signalling processes outside the child's process
group, leaving the process group, spawning executables, raising resource limits, ``ctypes``; forks are
counted across the whole tree and refused past a cap. The guard is a second line behind the resource
limits and the process-group kill, not a security boundary against a determined attacker.
"""

import _posixsubprocess  # imported here so that each forked child finds it loaded
import builtins
import errno
import io
import json
import mmap
import os
import random
import re
import resource
import select
import shutil
import signal
import struct
import sys
import time

_VERDICT_CAP = 1 << 20


def _set_limit(which, soft):
    _, hard = resource.getrlimit(which)
    if hard != resource.RLIM_INFINITY and soft > hard:
        soft = hard
    resource.setrlimit(which, (soft, soft))


def _count_own_tasks():
    """Threads of this user now on the machine (RLIMIT_NPROC counts them, per user)."""
    uid, total = os.getuid(), 0
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                if os.stat(f"/proc/{name}").st_uid == uid:
                    total += len(os.listdir(f"/proc/{name}/task"))
            except OSError:
                pass
    return total


def _apply_limits(limits):
    _set_limit(resource.RLIMIT_AS, limits["memory_bytes"])
    _set_limit(resource.RLIMIT_CPU, limits["cpu_seconds"])
    _set_limit(resource.RLIMIT_FSIZE, limits["file_bytes"])
    _set_limit(resource.RLIMIT_CORE, 0)
    if os.getuid() != 0:  # root ignores RLIMIT_NPROC; the fork counter and the group kill cover it
        _set_limit(resource.RLIMIT_NPROC, _count_own_tasks() + limits["processes"])


def _preimport(program):
    """Import the standard-library modules the program names once here, so each forked test reuses them."""
    for name in set(re.findall(r"^\s*(?:from|import)\s+([A-Za-z_]\w*)", program, re.M)):
        if name in sys.stdlib_module_names and name not in ("ctypes", "_ctypes", "subprocess"):
            try:
                __import__(name)
            except BaseException:
                pass


# ----------------------------------------------------------------------------------------------
# Child side: guard, then run.


def _install_guard(root, max_forks):
    """Refuse the easy ways to reach outside ``root`` and the own process group (see module doc)."""
    counter = mmap.mmap(-1, 8)  # shared with every forked descendant

    def refuse(what):
        raise PermissionError(errno.EPERM, f"sandbox: {what} is not allowed")

    def resolve(path, dir_fd=None):
        if isinstance(path, int):
            return os.readlink(f"/proc/self/fd/{path}")
        path = os.fsdecode(path)
        if dir_fd is not None and not os.path.isabs(path):
            path = os.path.join(os.readlink(f"/proc/self/fd/{dir_fd}"), path)
        return os.path.realpath(path)

    def confine(path, dir_fd=None):
        full = resolve(path, dir_fd)
        if full != root and not full.startswith(root + os.sep):
            refuse(f"changing {full!r} (outside the working directory)")

    def wrap_paths(module, name, positions):
        original = getattr(module, name)

        def guarded(*args, **kwargs):
            for position in positions:
                if position < len(args):
                    side = kwargs.get("dst_dir_fd" if position else "src_dir_fd")
                    confine(args[position], side if side is not None else kwargs.get("dir_fd"))
            return original(*args, **kwargs)

        setattr(module, name, guarded)

    writing = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
    original_os_open, original_open = os.open, io.open

    def os_open(path, flags, *args, **kwargs):
        if flags & writing:
            confine(path, kwargs.get("dir_fd"))
        return original_os_open(path, flags, *args, **kwargs)

    def py_open(file, mode="r", *args, **kwargs):
        if any(flag in mode for flag in "wax+") and not isinstance(file, int):
            confine(file)
        return original_open(file, mode, *args, **kwargs)

    os.open, io.open, builtins.open = os_open, py_open, py_open
    for name in ("remove", "unlink", "rmdir", "mkdir", "truncate", "chmod", "chown", "lchown", "utime", "mkfifo", "mknod"):
        if hasattr(os, name):
            wrap_paths(os, name, (0,))
    for name in ("rename", "replace", "link", "symlink"):
        wrap_paths(os, name, (0, 1) if name != "symlink" else (1,))
    wrap_paths(shutil, "rmtree", (0,))

    own_group = os.getpgid(0)
    original_kill, original_killpg, original_fork = os.kill, os.killpg, os.fork

    def kill(pid, sig):
        try:
            inside = pid == 0 or (pid > 0 and os.getpgid(pid) == own_group) or -pid == own_group
        except OSError:
            inside = False
        if not inside:
            refuse(f"signalling process {pid}")
        return original_kill(pid, sig)

    def killpg(pgid, sig):
        if pgid not in (0, own_group):
            refuse(f"signalling process group {pgid}")
        return original_killpg(pgid, sig)

    def fork():
        forks = struct.unpack("q", counter[:8])[0] + 1
        counter[:8] = struct.pack("q", forks)
        if forks > max_forks:
            raise BlockingIOError(errno.EAGAIN, "sandbox: too many processes")
        return original_fork()

    os.kill, os.killpg, os.fork = kill, killpg, fork
    for name in ("setsid", "setpgid", "setpgrp", "forkpty", "system", "popen", "posix_spawn", "posix_spawnp",
                 "execv", "execve", "execl", "execle", "execlp", "execlpe", "execvp", "execvpe",
                 "spawnv", "spawnve", "spawnl", "spawnle", "spawnlp", "spawnlpe", "spawnvp", "spawnvpe"):
        if hasattr(os, name):
            setattr(os, name, lambda *a, _name=name, **k: refuse(f"os.{_name}"))
    for name in ("setrlimit", "prlimit"):
        if hasattr(resource, name):
            setattr(resource, name, lambda *a, _name=name, **k: refuse(f"resource.{_name}"))
    _posixsubprocess.fork_exec = lambda *a, **k: refuse("starting a subprocess")
    sys.modules["ctypes"] = sys.modules["_ctypes"] = None


def _jsonable(value, cap):
    text = json.dumps(value)
    if len(text) > cap:
        raise ValueError(f"captured value is {len(text)} characters of JSON, over the cap of {cap}")
    return value


def _child(job, indices, verdict_fd):
    """Load the program, then run the tests ``indices`` in order (none: loading is the test), writing
    one verdict line each; never return."""
    os.setpgid(0, 0)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.closerange(3, verdict_fd)
    os.closerange(verdict_fd + 1, 1 << 16)
    if len(indices) <= 1:  # in one process per test, the CPU limit is the test's own
        _set_limit(resource.RLIMIT_CPU, int(job["test_timeout"]) + 1)
    random.seed(job["random_seed"])
    _install_guard(os.path.realpath(os.getcwd()), job["limits"]["forks"])
    namespace = {"__name__": "__codescore__", "__builtins__": builtins}
    me = os.getpid()
    load_error = _execute(job["program"] + "\n", "program", namespace) or _execute(job["setup"], "setup", namespace)
    for index in indices or [None]:
        verdict = load_error or (_execute(job["tests"][index], "test", namespace) if index is not None else None)
        if os.getpid() != me:  # a fork the program made, coming back out of it: only the original reports
            os._exit(0)
        if verdict is None:
            verdict = {"status": "passed"}
            if index is not None and job["capture"]:
                try:
                    verdict["value"] = _jsonable(namespace.get(job["capture"]), job["max_value_chars"])
                except BaseException as error:
                    verdict = _error_verdict("test", error)
        os.write(verdict_fd, (json.dumps(verdict) + "\n").encode())
        if load_error or (job["fail_fast"] and verdict["status"] != "passed"):
            break
    os._exit(0)


def _execute(source, phase, namespace):
    """Run ``source``; None when it ran, else the error verdict."""
    try:
        exec(compile(source, f"<{phase}>", "exec"), namespace)
    except BaseException as error:
        return _error_verdict(phase, error)
    return None


def _error_verdict(phase, error):
    failed = phase == "test" and isinstance(error, AssertionError)
    return {"status": "failed" if failed else "error", "error": type(error).__name__,
            "detail": _describe_error(phase, error)}


def _describe_error(phase, error):
    try:
        message = str(error)[:300]
    except BaseException:
        message = ""
    return f"{phase}: {message}" if message else phase


def _describe_exit(status):
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            return f"killed by {signal.Signals(number).name}"
        except ValueError:
            return f"killed by signal {number}"
    return f"exit status {os.waitstatus_to_exitcode(status)} without a verdict"


def _judge(job, indices, result_fd, send):
    """Run ``indices`` (empty: only load the program) in one forked child and ``send(index, verdict)``
    as each verdict arrives; each test has ``test_timeout`` seconds from the previous verdict. A hang
    or a death without a verdict is the verdict of the test running then. Returns how many indices
    were judged (at least one)."""
    expected = list(indices) or [None]
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(read_end)
            os.close(result_fd)
            _child(job, list(indices), write_end)
        finally:
            os._exit(70)
    os.close(write_end)
    try:
        os.setpgid(pid, pid)
    except OSError:
        pass
    pidfd = os.pidfd_open(pid)
    judged, buffer, exited, forged = 0, b"", False, False
    deadline = time.monotonic() + job["test_timeout"]

    def consume(chunk):
        nonlocal buffer, judged, deadline, forged
        buffer += chunk
        while b"\n" in buffer and judged < len(expected) and not forged:
            line, buffer = buffer.split(b"\n", 1)
            verdict = _parse_verdict(line)
            if verdict is None:  # not what the harness writes: the program wrote into the pipe
                forged = True
                return
            send(expected[judged], verdict)
            judged += 1
            deadline = time.monotonic() + job["test_timeout"]
        if len(buffer) > _VERDICT_CAP:
            forged = True

    watching = [read_end, pidfd]
    while judged < len(expected) and not forged:
        remaining = deadline - time.monotonic()
        ready = select.select(watching, [], [], remaining)[0] if remaining > 0 else []
        if not ready:
            break
        if read_end in ready:
            chunk = os.read(read_end, 65536)
            if chunk:
                consume(chunk)
            else:
                watching.remove(read_end)
        if pidfd in ready:
            exited = True
            if read_end in watching:  # what the child wrote before it ended, without waiting for more
                os.set_blocking(read_end, False)
                try:
                    while (chunk := os.read(read_end, 65536)) and not forged:
                        consume(chunk)
                except BlockingIOError:
                    pass
            break
    try:
        os.killpg(pid, signal.SIGKILL)  # the test's leftovers (forks, a hung child) go with it
    except OSError:
        pass
    _, status = os.waitpid(pid, 0)
    os.close(read_end)
    os.close(pidfd)
    _reap()
    if judged < len(expected):
        if forged:
            verdict = {"status": "crashed", "error": "Crash", "detail": "the test wrote into the verdict channel"}
        elif exited:
            verdict = {"status": "crashed", "error": "Crash", "detail": _describe_exit(status)}
        else:
            verdict = {"status": "timeout", "error": "Timeout", "detail": f"no verdict within {job['test_timeout']:g} s"}
        send(expected[judged], verdict)
        judged += 1
    return judged


def _parse_verdict(line):
    try:
        verdict = json.loads(line)
    except ValueError:
        return None
    if isinstance(verdict, dict) and verdict.get("status") in ("passed", "failed", "error"):
        return verdict
    return None


def _reap():
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def main():
    result_fd = int(sys.argv[1])
    job = json.loads(sys.stdin.buffer.read())
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
    _apply_limits(job["limits"])
    _preimport(job["program"] + "\n" + job["setup"])

    stop = False

    def send(index, verdict):
        nonlocal stop
        os.write(result_fd, (json.dumps({"load": verdict} if index is None else {"i": index, **verdict}) + "\n").encode())
        stop = stop or (verdict["status"] != "passed" and (index is None or job["fail_fast"]))

    if job["check_load"]:
        _judge(job, [], result_fd, send)
    index, count = job["start"], len(job["tests"])
    while index < count and not stop:
        index += _judge(job, range(index, count) if job.get("shared_process") else [index], result_fd, send)


if __name__ == "__main__":
    main()
