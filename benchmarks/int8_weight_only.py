"""Weight-only int8 on this CPU: torch's ``_weight_int8pack_mm`` against fp32 and bf16 Linears.

The error of ``dtype="int8"`` comes from quantized activations (`benchmarks/results/cpu_dtypes.md`); int8 weights
with fp32 or bf16 activations keep scores close, so the question is only speed. For each Linear shape of the
embedded MiniLM-L6 (384 -> 384, 384 -> 1,536, 1,536 -> 384) on ``--tokens`` rows (a batch of 32 programs of 256
tokens by default), the median time of fp32 ``F.linear``, bf16 ``F.linear`` and the int8-weight kernel with fp32
and with bf16 activations (weights per output channel, as a weight-only path would store them).

    python benchmarks/int8_weight_only.py --threads 2 --markdown benchmarks/results/int8_weight_only.md
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from functools import partial
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cpu_dtypes import emit

SHAPES = ((384, 384), (384, 1536), (1536, 384))  # (in, out) of the encoder's attention and FFN Linears


def median_ms(call, repeats: int) -> float:
    """Median wall time of ``call()`` in milliseconds, after one warm-up call."""
    call()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def per_channel_int8(weight: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Symmetric int8 weights with one scale per output channel."""
    scales = weight.abs().amax(dim=1).clamp(min=1e-8) / 127
    return torch.round(weight / scales[:, None]).clamp(-127, 127).to(torch.int8), scales


def measure(tokens: int, repeats: int) -> list[tuple]:
    rows = []
    for fan_in, fan_out in SHAPES:
        x, weight = torch.randn(tokens, fan_in), torch.randn(fan_out, fan_in) / fan_in ** 0.5
        q, scales = per_channel_int8(weight)
        x16, weight16 = x.bfloat16(), weight.bfloat16()
        exact = F.linear(x, weight)
        error = (torch._weight_int8pack_mm(x, q, scales) - exact).abs().max().item() / exact.abs().max().item()
        rows.append((f"{fan_in} -> {fan_out}",
                     median_ms(partial(F.linear, x, weight), repeats),
                     median_ms(partial(F.linear, x16, weight16), repeats),
                     median_ms(partial(torch._weight_int8pack_mm, x, q, scales), repeats),
                     median_ms(partial(torch._weight_int8pack_mm, x16, q, scales.bfloat16()), repeats),
                     error))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=32 * 256, help="rows of the activation (default 8,192)")
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--markdown", type=Path, default=None, help="write the table here as well")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    lines = [f"# Weight-only int8 Linears on this CPU\n\n`{' '.join(sys.argv)}` (torch {torch.__version__}, "
             f"{args.threads} threads, {args.tokens} rows, median of {args.repeats}; ms per call)\n",
             "| Linear | fp32 | bf16 | int8 weights, fp32 activations | int8 weights, bf16 activations | "
             "int8 max error / max output |", "|---|---|---|---|---|---|"]
    for name, fp32, bf16, w8, w8_bf16, error in measure(args.tokens, args.repeats):
        lines.append(f"| {name} | {fp32:.1f} | {bf16:.1f} ({fp32 / bf16:.2f}x) | {w8:.1f} ({fp32 / w8:.2f}x) | "
                     f"{w8_bf16:.1f} ({fp32 / w8_bf16:.2f}x) | {error:.4f} |")
    emit("\n".join(lines) + "\n", args.markdown)


if __name__ == "__main__":
    main()
