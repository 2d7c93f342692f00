"""CodeScore on CPU in fp32, bf16, int8 and int8-onnx: speed, memory and what each precision does to the scores.

On a labelled jsonl (``generated_code``, ``golden_code``, ``source``, ``pass_ratio``, as `codescore
build-data` and `codescore label` write them) and the embedded model (or ``--checkpoint``), each dtype
runs in a fresh process, so that its peak RSS is its own:
- samples/s: Ref&NL, ``--batch-size`` (32), timed after one warm-up batch; every sample counts, also the
  ones the static checks score 0 without the model (their number is in the table);
- peak RSS: ``ru_maxrss`` of that process, and its growth from just after ``import torch`` (model, activations);
- max |Δ CodeScore| against fp32, and Spearman ρ of CodeScore with the execution PassRatio (and its change).

    python benchmarks/cpu_dtypes.py work/real/mbpp/validation.jsonl --markdown /tmp/cpu_dtypes.md
    python benchmarks/cpu_dtypes.py work/real/mbpp/validation.jsonl --limit 5  # a quick check, printed only

The table is printed, and written to ``--markdown`` when given; ``benchmarks/results/cpu_dtypes.md`` collects such
tables by hand with what each measurement was for, so point ``--markdown`` elsewhere and copy the table in.

On a shared host whose speed drifts from minute to minute, ``--rounds N`` runs every dtype N times, interleaved
(fp32, int8, ..., fp32, int8, ...), and reports the median samples/s and the median of each round's ratio to that
round's fp32, with the range of those ratios.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import platform
import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from codescore_metric.formats import COLUMN_FOR_FIELD
from codescore_metric.jsonl import read_records

RESULTS = "benchmarks/results/cpu_dtypes.md"  # collected by hand from runs of this script
DTYPES = ("fp32", "bf16", "int8", "int8-onnx")
LABEL = "pass_ratio"


def add_data_arguments(parser: argparse.ArgumentParser, *, limit: int | None = None, batch_size: int = 32,
                       markdown_help: str = "write the table here as well") -> None:
    """The arguments every CPU-precision benchmark here takes: the labelled rows and how many, the model, the batch
    size, torch's threads and where to write the table."""
    parser.add_argument("data", type=Path, help="labelled jsonl: generated_code, golden_code, source, pass_ratio")
    parser.add_argument("--checkpoint", default=None, help="model folder or Hub id (default: the embedded model)")
    parser.add_argument("--limit", type=int, default=limit, help="first N rows only")
    parser.add_argument("--batch-size", type=int, default=batch_size)
    parser.add_argument("--threads", type=int, default=2, help="torch CPU threads")
    parser.add_argument("--markdown", type=Path, default=None, help=markdown_help)


def load_rows(path: Path, limit: int | None) -> list[dict]:
    """The first ``limit`` rows (all by default); each needs the three texts and ``pass_ratio``."""
    rows = [row for _, row in read_records(path)][:limit]
    needed = [*COLUMN_FOR_FIELD.values(), LABEL]
    for number, row in enumerate(rows, start=1):
        missing = [name for name in needed if name not in row]
        if missing:
            raise SystemExit(f"{path}: row {number} has no {', '.join(missing)}; a labelled jsonl needs {', '.join(needed)}")
    if not rows:
        raise SystemExit(f"{path}: no rows")
    return rows


def emit(table: str, path: Path | None) -> None:
    """Print a results table and, given a path, write it there too."""
    print(table)
    if path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(table)
        print(f"wrote {path}")


def texts(rows: list[dict]) -> dict[str, list[str]]:
    return {"predictions": [row[COLUMN_FOR_FIELD["prediction"]] for row in rows],
            "references": [row[COLUMN_FOR_FIELD["reference"]] for row in rows],
            "sources": [row[COLUMN_FOR_FIELD["source"]] for row in rows]}


def _measure(checkpoint: str | None, dtype: str, inputs: dict, batch_size: int, threads: int, queue) -> None:
    """In a fresh process: load, warm up on one batch, time the whole input; RSS from ``ru_maxrss``."""
    import torch

    torch.set_num_threads(threads)
    from codescore_metric import CodeScorer

    base_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    scorer = CodeScorer(checkpoint, device="cpu", dtype=dtype)
    load_s = time.perf_counter() - started
    warm = {name: values[:batch_size] for name, values in inputs.items()}
    scorer.score(**warm, input_format="ref_nl", batch_size=batch_size)
    started = time.perf_counter()
    result = scorer.score(**inputs, input_format="ref_nl", batch_size=batch_size)
    seconds = time.perf_counter() - started
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    queue.put({"dtype": dtype, "load_s": load_s, "seconds": seconds, "samples_per_s": len(result) / seconds,
               "peak_rss_mb": peak_kb / 1024, "rss_growth_mb": (peak_kb - base_kb) / 1024,
               "codescore": result.codescore, "certain": sum(reason is not None for reason in result.certain),
               "signature": result.signature, "threads": torch.get_num_threads()})


def measure(checkpoint: str | None, dtype: str, inputs: dict, batch_size: int = 32, threads: int = 2) -> dict:
    """One dtype's numbers, measured in a fresh (spawned) process."""
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    process = context.Process(target=_measure, args=(checkpoint, dtype, inputs, batch_size, threads, queue))
    process.start()
    try:
        result = queue.get(timeout=24 * 3600)
    finally:
        process.join()
    if process.exitcode != 0:
        raise SystemExit(f"the {dtype} run failed (exit code {process.exitcode})")
    return result


def spearman(scores, labels) -> float:
    from scipy.stats import spearmanr

    if len(set(scores)) < 2 or len(set(labels)) < 2:
        return float("nan")
    return float(spearmanr(scores, labels).statistic)


def combine_rounds(rounds: list[dict[str, dict]]) -> dict[str, dict]:
    """Each dtype's first run, with the median samples/s over the rounds and, beside fp32, ``speedups``: each
    round's samples/s over that round's fp32 (interleaved runs share the host's state of the moment)."""
    runs = {}
    for dtype, first in rounds[0].items():
        rates = [one[dtype]["samples_per_s"] for one in rounds]
        runs[dtype] = {**first, "samples_per_s": float(np.median(rates)),
                       "peak_rss_mb": max(one[dtype]["peak_rss_mb"] for one in rounds),
                       "rss_growth_mb": max(one[dtype]["rss_growth_mb"] for one in rounds)}
        if "fp32" in rounds[0]:
            runs[dtype]["speedups"] = [one[dtype]["samples_per_s"] / one["fp32"]["samples_per_s"] for one in rounds]
    return runs


def compare(runs: dict[str, dict], labels: list[float]) -> None:
    """Add ``max_abs_diff`` and ``spearman`` (and ``spearman_change``) against fp32 to each run."""
    base = runs.get("fp32")
    for run in runs.values():
        run["spearman"] = spearman(run["codescore"], labels)
        if base is None:
            run["max_abs_diff"] = run["spearman_change"] = float("nan")
        else:
            run["max_abs_diff"] = float(np.max(np.abs(np.array(run["codescore"]) - np.array(base["codescore"]))))
            run["spearman_change"] = run["spearman"] - spearman(base["codescore"], labels)


def environment(threads: int) -> str:
    import torch

    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    return (f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs (load average {load} at the end), torch "
            f"{torch.__version__} with {threads} thread(s), quantized engine {torch.backends.quantized.engine}")


def format_speedup(speedups: list[float] | None) -> str:
    """``1.70x``, or with several rounds their median and range, ``1.70x (1.52-1.81)``; ``n/a`` without fp32."""
    if not speedups:
        return "n/a"
    median = f"{float(np.median(speedups)):.2f}x"
    return median if len(speedups) == 1 else f"{median} ({min(speedups):.2f}-{max(speedups):.2f})"


def markdown(runs: dict[str, dict], args, count: int) -> str:
    signature = next(iter(runs.values()))["signature"]
    lines = [
        "# CodeScore on CPU: fp32, bf16 and int8",
        "",
        f"{count} labelled programs of `{args.data}` (Ref&NL, batch {args.batch_size}, after one warm-up batch), "
        f"model `{signature.split('|model:')[1].split('|')[0]}`; {environment(args.threads)}. "
        f"Of these, {next(iter(runs.values()))['certain']} score 0 by the static checks without the model.",
        "",
        f"`python benchmarks/cpu_dtypes.py {args.data} --dtypes {' '.join(args.dtypes)}{f' --limit {args.limit}' if args.limit else ''}"
        f" --threads {args.threads}{f' --rounds {args.rounds}' if args.rounds > 1 else ''}`"
        + (f" (samples/s: median of {args.rounds} interleaved rounds; vs fp32: median of each round's ratio, range in brackets)"
           if args.rounds > 1 else ""),
        "",
        "| dtype | samples/s | vs fp32 | load (s) | peak RSS (MB) | RSS growth (MB) | max abs diff vs fp32 | Spearman vs PassRatio "
        "| change vs fp32 |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for dtype, run in runs.items():
        speedup = format_speedup(run.get("speedups"))
        lines.append(f"| {dtype} | {run['samples_per_s']:.2f} | {speedup} | {run['load_s']:.1f} | {run['peak_rss_mb']:.0f} | "
                     f"{run['rss_growth_mb']:.0f} | {run['max_abs_diff']:.4f} | {run['spearman']:.4f} | {run['spearman_change']:+.4f} |")
    lines += ["", "RSS growth: peak RSS minus the RSS just after importing torch and `codescore_metric`, in the same process.",
              f"Signature (fp32 run): `{signature}`"]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_data_arguments(parser, markdown_help=f"also write the table here (not {RESULTS})")
    parser.add_argument("--dtypes", nargs="+", default=list(DTYPES), choices=DTYPES)
    parser.add_argument("--rounds", type=int, default=1, help="run every dtype this many times, interleaved (medians)")
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error(f"--rounds must be at least 1; got {args.rounds}")
    rows = load_rows(args.data, args.limit)
    inputs = texts(rows)
    rounds: list[dict[str, dict]] = []
    for number in range(1, args.rounds + 1):
        rounds.append({})
        for dtype in args.dtypes:
            rounds[-1][dtype] = run = measure(args.checkpoint, dtype, inputs, args.batch_size, args.threads)
            print(f"round {number}, {dtype}: {run['samples_per_s']:.2f} samples/s, peak RSS {run['peak_rss_mb']:.0f} MB", flush=True)
    runs = combine_rounds(rounds)
    compare(runs, [float(row[LABEL]) for row in rows])
    text = markdown(runs, args, len(rows))
    emit(text, args.markdown)


if __name__ == "__main__":
    main()
