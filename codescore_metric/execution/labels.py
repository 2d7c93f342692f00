"""Execution labels of one program (PassRatio, Executability, Passability) and the unbiased pass@k."""

from __future__ import annotations

from collections.abc import Iterable

from codescore_metric.execution.sandbox import ProgramResult

RAN_WITHOUT_ERROR = ("passed", "failed")  # an assertion failure still means the program ran


def pass_ratio(result: ProgramResult) -> float:
    """Share of tests passed (the CodeScore target). A task without tests has no PassRatio."""
    if not result.tests:
        raise ValueError("PassRatio is undefined for a program with no tests; give each task at least one test")
    return sum(test.status == "passed" for test in result.tests) / len(result.tests)


def executable(result: ProgramResult) -> bool:
    """True when the program loaded and no test ended other than by passing or failing an assertion."""
    return result.load.status == "passed" and all(test.status in RAN_WITHOUT_ERROR for test in result.tests)


def passable(result: ProgramResult) -> bool:
    """True when every test passed."""
    return bool(result.tests) and all(test.status == "passed" for test in result.tests)


def labels(result: ProgramResult) -> dict:
    """The label fields, named as everywhere in this package: ``pass_ratio``, ``executable`` (ran without an
    error) and ``all_pass`` (passed every test). The authors' files call them score, passed and pass@1."""
    return {"pass_ratio": pass_ratio(result), "executable": int(executable(result)), "all_pass": int(passable(result))}


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k from ``n`` samples of which ``c`` are correct: ``1 - C(n-c, k) / C(n, k)``.

    Computed as the product ``1 - prod_{i=n-c+1}^{n} (1 - k / i)``, which never forms large binomials.
    """
    for name, value in (("n", n), ("c", c), ("k", k)):
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(f"pass_at_k: {name} must be an int, got {value!r}")
    if n < 1 or not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass_at_k needs n >= 1, 0 <= c <= n and 1 <= k <= n; got n={n}, c={c}, k={k}")
    if n - c < k:
        return 1.0
    product = 1.0
    for i in range(n - c + 1, n + 1):
        product *= 1.0 - k / i
    return 1.0 - product


def mean_pass_at_k(counts: Iterable[tuple[int, int]], k: int) -> float:
    """Mean pass@k over tasks given ``(n, c)`` per task; every task needs ``n >= k``."""
    counts = list(counts)
    if not counts:
        raise ValueError("mean_pass_at_k needs at least one task")
    short = [n for n, _ in counts if n < k]
    if short:
        raise ValueError(f"pass@{k} needs at least {k} samples per task; {len(short)} task(s) have fewer")
    return sum(pass_at_k(n, c, k) for n, c in counts) / len(counts)
