"""Run sandbox jobs as Ray tasks: ``run_many`` with the contract of ``sandbox.run_many``, on a Ray cluster.

Each program is one Ray task (``num_cpus=1``, so a node runs as many programs at once as it has CPUs)
that runs ``sandbox.run_program`` on its worker, with the sandbox's own per-program limits. Every node
needs this package installed (``pip install 'codescore-metric[ray]'``), at the driver's version.

A task whose worker dies (killed, out of memory, its node lost) is re-run by Ray up to ``RETRIES``
times; if it still fails, the program is labelled ``crashed`` with the Ray error, so no row is lost.
Any other error (a ``SandboxError`` of a broken node, say) is raised, as on the local path.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator

from codescore_metric.execution import sandbox
from codescore_metric.execution.sandbox import Job, Limits, ProgramResult, TestResult

RETRIES = 2  # re-runs of a task whose worker died, before its program is labelled crashed
MIN_IN_FLIGHT = 64  # tasks submitted ahead even before the cluster shows CPUs (an autoscaler scales on them)


def runner(ray_address: str | None) -> Callable[..., Iterator[ProgramResult]]:
    """The ``run_many`` to use: the local sandbox pool for ``None``; else this module's on the Ray cluster
    at ``ray_address`` (``''``: start a local cluster; ``auto``: the one this node belongs to; ``ray://head:10001``)."""
    if ray_address is None:
        return sandbox.run_many
    try:  # fail before any work when Ray is missing
        import ray  # noqa: F401
    except ImportError:
        raise ValueError("--ray needs Ray: pip install 'codescore-metric[ray]' (or leave --ray out)") from None
    return functools.partial(run_many, address=ray_address)


def run_many(jobs: Iterable[Job], limits: Limits = Limits(), *, workers: int | None = None, address: str = "",
             **options) -> Iterator[ProgramResult]:
    """Run ``jobs`` as Ray tasks (``options`` as for ``sandbox.run_program``); results come back lazily, in
    input order. An already connected Ray is used as it is; otherwise this connects to ``address``, or
    with ``''`` starts a local cluster of ``workers`` CPUs (default: this machine's), and at the end
    disconnects, which stops a local cluster but not one it connected to."""
    import ray

    jobs = list(jobs)
    own = not ray.is_initialized()
    if own and address:
        ray.init(address=address)
    elif own:
        ray.init(address="local", num_cpus=workers or sandbox.default_workers(), include_dashboard=False)
    try:
        task = ray.remote(num_cpus=1, max_retries=RETRIES)(_run_job)
        window = max(MIN_IN_FLIGHT, 4 * int(ray.cluster_resources().get("CPU", 0)))
        yield from _in_order(ray, lambda job: task.remote(job, limits, options), jobs, window)
    finally:
        if own:
            ray.shutdown()


def _run_job(job: Job, limits: Limits, options: dict) -> ProgramResult:
    """The Ray task: one program in this worker's sandbox."""
    return sandbox.run_program(job, limits, **options)


def _in_order(ray, submit: Callable, jobs: list[Job], window: int) -> Iterator[ProgramResult]:
    """Submit the jobs, at most ``window`` unfinished at a time, and yield their results in input order as
    they arrive (``ray.wait``). Tasks still pending when the caller stops early are cancelled."""
    pending: dict = {}  # ObjectRef -> input position
    finished: dict[int, ProgramResult] = {}
    submitted = 0
    try:
        for index in range(len(jobs)):
            while index not in finished:
                while submitted < len(jobs) and len(pending) < window:
                    pending[submit(jobs[submitted])] = submitted
                    submitted += 1
                [ref], _ = ray.wait(list(pending), num_returns=1)
                position = pending.pop(ref)
                finished[position] = _result(ray, ref, jobs[position])
            yield finished.pop(index)
    finally:
        for ref in pending:
            ray.cancel(ref)


def _result(ray, ref, job: Job) -> ProgramResult:
    """The task's result; a program whose worker died on every try is labelled ``crashed`` with the error."""
    deaths = (ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError, ray.exceptions.LocalRayletDiedError,
              ray.exceptions.OutOfMemoryError, ray.exceptions.ObjectLostError)
    try:
        return ray.get(ref)
    except deaths as error:
        first_line = next(iter(str(error).strip().splitlines()), "")
        crash = TestResult("crashed", type(error).__name__,
                           f"the Ray worker running this program died, {RETRIES + 1} time(s): {first_line}")
        return ProgramResult(crash, tuple(crash for _ in job.tests))
