"""Is ONNX Runtime a better int8 engine for CodeScore on this CPU than torch's dynamic quantization?

Issue 10 asked for ONNX Runtime "if it measures better". On a labelled jsonl (as `codescore build-data`
writes it) and the embedded model (or ``--checkpoint``), Ref&NL, this compares in one process, on the
scorer's own encoding and batching (``CodeScorer.score``):
- torch fp32 and torch int8 (``dtype="int8"``);
- ONNX Runtime fp32, its BERT-fused graph (``onnxruntime.transformers.optimizer``), and int8 from
  ``onnxruntime.quantization.quantize_dynamic`` on the fused graph, per-channel and per-tensor;
- with ``--calibration N``, also static int8 (``quantize_static``, QDQ, per-channel weights, activation
  ranges fixed by MinMax calibration on the N rows after the measured ones, encoded by the scorer), on
  the plain graph: fixed ranges make a score independent of its batch, at some cost in accuracy.
For each: samples/s (every engine timed twice, interleaved, the better run kept, so a load change on a
shared machine hits all of them alike), max |Δ CodeScore| against torch fp32 and Spearman ρ with PassRatio.
The graphs are made by the steps of ``dtype="int8-onnx"`` (``codescore_metric.onnx_int8``); needs
``pip install 'codescore-metric[onnx]'``.

    python benchmarks/onnx_int8.py work/real/mbpp/validation.jsonl --limit 256 --markdown /tmp/onnx_int8.md
    python benchmarks/onnx_int8.py work/real/mbpp/validation.jsonl --limit 256 --calibration 64
"""

from __future__ import annotations

import argparse
import copy
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from cpu_dtypes import LABEL, add_data_arguments, emit, load_rows, texts

from codescore_metric import CodeScorer, onnx_int8
from codescore_metric.correlation import correlations


class OnnxModel:
    """An ONNX Runtime session on one graph file in the place of a UniCE model inside ``CodeScorer``."""

    def __init__(self, path: Path, config, threads: int):
        self.session, self.config = onnx_int8.open_session(path, threads), config

    def __call__(self, input_ids, attention_mask, token_type_ids=None, normalization=None):
        if normalization != self.config.normalization:
            raise ValueError(f"the exported graph has {self.config.normalization!r} normalization baked in, not {normalization!r}")
        return onnx_int8.run_session(self.session, self.config, input_ids, attention_mask, token_type_ids)


class RecordingModel:
    """A UniCE model that keeps every batch it is given, as ONNX feeds, for calibration."""

    def __init__(self, model):
        self.model, self.feeds = model, []

    def __call__(self, input_ids, attention_mask, token_type_ids=None, normalization=None):
        self.feeds.append(onnx_int8.graph_feeds(self.model.config, input_ids, attention_mask, token_type_ids))
        return self.model(input_ids, attention_mask, token_type_ids, normalization=normalization)


def calibration_feeds(scorer, inputs: dict, batch_size: int) -> list[dict]:
    """The batches the scorer gives its model for ``inputs``, Ref&NL, as ONNX feeds."""
    recorder = copy.copy(scorer)
    recorder.model = RecordingModel(scorer.model)
    recorder.score(**inputs, input_format="ref_nl", batch_size=batch_size)
    return recorder.model.feeds


def quantize_static(source: Path, path: Path, feeds: list[dict]) -> Path:
    """Static int8 (QDQ): int8 weights per output channel, uint8 activations with MinMax ranges from ``feeds``."""
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType
    from onnxruntime.quantization import quantize_static as quantize

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.batches = iter(feeds)

        def get_next(self):
            return next(self.batches, None)

    quantize(str(source), str(path), Reader(), quant_format=QuantFormat.QDQ, per_channel=True,
             activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8, op_types_to_quantize=["MatMul", "Gemm"])
    return path


def export(model, folder: Path) -> dict[str, Path]:
    """The model as ONNX, by the steps of ``dtype="int8-onnx"``: plain, BERT-fused, and int8 from the fused
    graph per-channel (what ``int8-onnx`` ships) and per-tensor."""
    normalization = model.config.normalization
    plain = onnx_int8.export_fp32(model, normalization, folder / "model.onnx")
    fused = onnx_int8.fuse(plain, folder / "fused.onnx", model.encoder.config)
    return {"onnx fp32": plain, "onnx fp32 fused": fused,
            "onnx int8 per-channel (dtype='int8-onnx')": onnx_int8.quantize(fused, folder / "int8_channel.onnx", per_channel=True),
            "onnx int8 per-tensor": onnx_int8.quantize(fused, folder / "int8_tensor.onnx", per_channel=False)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_data_arguments(parser)
    parser.add_argument("--calibration", type=int, default=0,
                        help="also static int8, calibrated on this many rows after the measured ones (default: none)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    every_row = load_rows(args.data, None)
    rows = every_row[:args.limit]
    calibration_rows = every_row[len(rows):len(rows) + args.calibration]
    if len(calibration_rows) < args.calibration:
        raise SystemExit(f"--calibration {args.calibration}: only {len(calibration_rows)} rows follow the {len(rows)} measured ones")
    inputs = texts(rows)
    labels = [row[LABEL] for row in rows]
    fp32 = CodeScorer(args.checkpoint)
    scorers = {"torch fp32": fp32, "torch int8 (dtype='int8')": CodeScorer(args.checkpoint, dtype="int8")}
    with tempfile.TemporaryDirectory() as folder:
        graphs = export(fp32.model, Path(folder))
        if calibration_rows:
            feeds = calibration_feeds(fp32, texts(calibration_rows), args.batch_size)
            graphs[f"onnx int8 static, calibrated on {len(calibration_rows)} rows"] = quantize_static(
                graphs["onnx fp32"], Path(folder) / "int8_static.onnx", feeds)
        for name, path in graphs.items():
            scorer = copy.copy(fp32)
            scorer.model = OnnxModel(path, fp32.config, args.threads)
            scorers[name] = scorer
        results, seconds = {}, {name: [] for name in scorers}
        for _ in range(2):
            for name, scorer in scorers.items():
                start = time.perf_counter()
                results[name] = np.array(scorer.score(**inputs, input_format="ref_nl", batch_size=args.batch_size).codescore)
                seconds[name].append(time.perf_counter() - start)
    base = min(seconds["torch fp32"])
    lines = [
        "# int8 engines for CodeScore: torch dynamic quantization against ONNX Runtime\n",
        f"{len(rows)} rows of `{args.data}` (Ref&NL, batch {args.batch_size}), model `{fp32.model_id}`, "
        f"{args.threads} thread(s), {os.cpu_count()} CPUs, load average {', '.join(f'{x:.1f}' for x in os.getloadavg())} "
        f"at the end. `python benchmarks/onnx_int8.py {' '.join(sys.argv[1:])}`\n",
        "| engine | samples/s | vs torch fp32 | max abs diff vs torch fp32 | Spearman vs PassRatio |",
        "|---|---|---|---|---|",
    ]
    for name, result in results.items():
        best = min(seconds[name])
        lines.append(f"| {name} | {len(rows) / best:.2f} | {base / best:.2f}x | {np.abs(result - results['torch fp32']).max():.4f} "
                     f"| {correlations(result, labels)['spearman']:.4f} |")
    emit("\n".join(lines) + "\n", args.markdown)


if __name__ == "__main__":
    main()
