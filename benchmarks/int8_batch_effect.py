"""How much a CodeScore moves with the batch it is scored in, per dtype.

fp32 with sample normalisation gives a sample the same score in any batch; int8 quantizes
activations with one range per batch, so its scores move a little. On the first ``--limit`` rows of a
labelled jsonl (Ref&NL, the embedded model or ``--checkpoint``), each dtype scores the rows in batches
of ``--batch-size`` and then one at a time; the table gives the max and mean |difference|.

    python benchmarks/int8_batch_effect.py work/real/mbpp/validation.jsonl --limit 48 --markdown benchmarks/results/int8_batch_effect.md
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from cpu_dtypes import add_data_arguments, emit, load_rows, texts

from codescore_metric import CodeScorer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_data_arguments(parser, limit=48, batch_size=16)
    parser.add_argument("--dtypes", nargs="+", default=["fp32", "int8", "int8-onnx"])
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    inputs = texts(load_rows(args.data, args.limit))
    lines = [f"# Score change with the batch, by dtype\n\n{len(inputs['predictions'])} rows of `{args.data}`, Ref&NL, "
             f"batches of {args.batch_size} against one sample at a time. `python benchmarks/int8_batch_effect.py "
             f"{' '.join(sys.argv[1:])}`\n", "| dtype | max abs diff | mean abs diff |", "|---|---|---|"]
    for dtype in args.dtypes:
        scorer = CodeScorer(args.checkpoint, device="cpu", dtype=dtype)
        batched = np.array(scorer.score(**inputs, input_format="ref_nl", batch_size=args.batch_size).codescore)
        alone = np.array([scorer.score([p], references=[r], sources=[s], input_format="ref_nl").codescore[0]
                          for p, r, s in zip(inputs["predictions"], inputs["references"], inputs["sources"])])
        difference = np.abs(batched - alone)
        lines.append(f"| {dtype} | {difference.max():.4f} | {difference.mean():.4f} |")
    emit("\n".join(lines) + "\n", args.markdown)


if __name__ == "__main__":
    main()
