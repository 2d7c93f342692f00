"""Score one input across the processes of a ``torchrun`` (or ``accelerate launch``) job.

Each rank scores a contiguous share of the samples on its own device (``cuda:LOCAL_RANK`` when CUDA is
available, else the CPU) and rank 0 gathers the shares back into input order, so the result is the one a
single process gives. Only per-sample layer-mix statistics (``normalization="sample"``) allow that: batch
statistics depend on which samples share a batch, hence on the split, and are refused.

    scorer = CodeScorer(device=rank_device())
    result = score_distributed(scorer, predictions, references=references, sources=sources)
    if result is not None:  # rank 0
        ...

Launched as one plain process (no ``WORLD_SIZE``, or ``WORLD_SIZE=1``) it is ``scorer.score`` itself.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from codescore_metric.formats import ARGUMENT_FOR_FIELD, InputFormat
from codescore_metric.inputs import choose_format, validate_inputs

if TYPE_CHECKING:  # torch loads on first use, so that reading the launch environment stays light
    import torch

    from codescore_metric.scorer import ScoreResult

__all__ = ["Launch", "launch_from_env", "rank_device", "score_distributed", "share"]


@dataclass(frozen=True)
class Launch:
    """Where this process stands in its job: ``rank`` of ``world_size``, ``local_rank`` on its node."""

    rank: int = 0
    world_size: int = 1
    local_rank: int = 0

    @property
    def distributed(self) -> bool:
        return self.world_size > 1


def launch_from_env(environ: Mapping[str, str] | None = None) -> Launch:
    """``RANK``, ``WORLD_SIZE`` and ``LOCAL_RANK`` as torchrun and accelerate set them (one process when unset)."""
    environ = os.environ if environ is None else environ
    values = {}
    for name, default in (("RANK", 0), ("WORLD_SIZE", 1), ("LOCAL_RANK", None)):
        text = environ.get(name)
        try:
            values[name] = default if text in (None, "") else int(text)
        except ValueError:
            raise ValueError(f"environment variable {name}={text!r} is not an integer; it is set by torchrun or accelerate launch") from None
    rank, world_size = values["RANK"], values["WORLD_SIZE"]
    local_rank = rank if values["LOCAL_RANK"] is None else values["LOCAL_RANK"]
    if world_size < 1 or not 0 <= rank < world_size or local_rank < 0:
        raise ValueError(f"RANK={rank}, WORLD_SIZE={world_size}, LOCAL_RANK={local_rank} do not fit together: "
                         "need 0 <= RANK < WORLD_SIZE and LOCAL_RANK >= 0")
    return Launch(rank, world_size, local_rank)


def rank_device(device: str | torch.device | None = None, launch: Launch | None = None) -> torch.device:
    """The device this rank scores on. In a multi-process launch: ``cuda:LOCAL_RANK`` for ``None``, ``"auto"``
    or ``"cuda"`` when CUDA is available, else (or for ``"cpu"``) the CPU. One process: ``resolve_device(device)``."""
    import torch

    from codescore_metric.devices import resolve_device

    launch = launch or launch_from_env()
    if not launch.distributed:
        return resolve_device(device)
    kind = str(device) if device is not None else "auto"
    if kind == "cpu" or (kind == "auto" and not torch.cuda.is_available()):
        return torch.device("cpu")
    if kind not in ("auto", "cuda"):
        raise ValueError(f"device {kind!r}: in a multi-process launch each rank scores on cuda:LOCAL_RANK (or the CPU); "
                         "give device 'cuda', 'cpu' or none")
    resolve_device("cuda")  # raises when CUDA is not available
    if launch.local_rank >= torch.cuda.device_count():
        raise ValueError(f"LOCAL_RANK {launch.local_rank} has no GPU: this node has {torch.cuda.device_count()}; "
                         "launch at most that many processes per node (--nproc_per_node)")
    return torch.device("cuda", launch.local_rank)


def share(total: int, rank: int, world_size: int) -> range:
    """The contiguous indices rank ``rank`` scores: sizes differ by at most one, earlier ranks get the extra ones."""
    base, extra = divmod(total, world_size)
    start = rank * base + min(rank, extra)
    return range(start, start + base + (rank < extra))


def score_distributed(
    scorer,
    predictions: list[str],
    *,
    references: list[str] | None = None,
    sources: list[str] | None = None,
    input_format: str | InputFormat | None = None,
    batch_size: int | None = None,
    progress_bar: bool = False,
    launch: Launch | None = None,
) -> ScoreResult | None:
    """``scorer.score(...)`` split across the ranks of the job: the whole `ScoreResult`, in input order, on
    rank 0; ``None`` on the other ranks.

    Every rank passes the same full inputs (each checks them, so a bad input fails on every rank at once)
    and a scorer on its own device (`rank_device`). ``torch.distributed`` is initialised from the
    environment when it is not yet (gloo on CPU, nccl on CUDA) and shut down again afterwards. A rank that
    fails re-raises its error; rank 0 also raises one naming every rank that failed.
    ``progress_bar`` shows rank 0's share.
    """
    launch = launch or launch_from_env()
    if not launch.distributed:
        return scorer.score(predictions, references=references, sources=sources, input_format=input_format,
                            batch_size=batch_size, progress_bar=progress_bar)
    if scorer.normalization == "batch":
        raise ValueError("normalization='batch' cannot be split across processes: batch statistics depend on which "
                         "samples share a batch, so the scores would depend on the number of processes; score in one "
                         "process, or use normalization='sample'")
    fmt = choose_format(input_format, references, sources, scorer.config.default_input_format)
    columns = validate_inputs(fmt, predictions, references, sources)
    mine = share(len(columns["prediction"]), launch.rank, launch.world_size)
    texts = {ARGUMENT_FOR_FIELD[field]: values[mine.start:mine.stop] for field, values in columns.items()}
    created = _init_process_group(scorer.device)
    import torch.distributed as dist

    try:
        error = None
        try:
            local = scorer.score(**texts, input_format=fmt, batch_size=batch_size, progress_bar=progress_bar and launch.rank == 0)
        except Exception as caught:  # reported to rank 0, then re-raised here
            local, error = None, caught
        gathered = [None] * launch.world_size if launch.rank == 0 else None
        dist.gather_object((None if error is None else f"{type(error).__name__}: {error}", local), gathered, dst=0)
    finally:
        if created:
            dist.destroy_process_group()
    if error is not None:
        raise error
    if launch.rank != 0:
        return None
    failed = [f"rank {rank}: {message}" for rank, (message, _) in enumerate(gathered) if message is not None]
    if failed:
        raise RuntimeError(f"{len(failed)} of {launch.world_size} ranks failed to score their share; " + "; ".join(failed))
    return _merge([result for _, result in gathered])


def _init_process_group(device: torch.device) -> bool:
    """Join the job's process group (from torchrun's environment) unless already in one; True if joined here."""
    import torch
    import torch.distributed as dist

    if not dist.is_available():
        raise ValueError("this torch build has no torch.distributed; score in one process")
    if dist.is_initialized():
        return False
    if device.type == "cuda":
        torch.cuda.set_device(device)  # nccl moves the gathered objects through the current device
        dist.init_process_group("nccl")
    elif device.type == "cpu":
        dist.init_process_group("gloo")
    else:
        raise ValueError(f"multi-process scoring runs on CPU (gloo) or CUDA (nccl), not on {device}")
    return True


def _merge(results: list[ScoreResult]) -> ScoreResult:
    from codescore_metric.scorer import ScoreResult

    signatures = {result.signature for result in results}
    if len(signatures) > 1:
        raise RuntimeError(f"the ranks scored with different settings: {sorted(signatures)}; give every rank the same scorer")
    joined = {name: [value for result in results for value in getattr(result, name)]
              for name in ("codescore", "executability", "passability", "truncated", "certain")}
    return ScoreResult(**joined, input_format=results[0].input_format, signature=results[0].signature)
