"""Is ONNX Runtime a better int8 engine for CodeScore on this CPU than torch's dynamic quantization?

Issue 10 asked for ONNX Runtime "if it measures better". On a labelled jsonl (as `codescore build-data`
writes it) and the embedded model (or ``--checkpoint``), Ref&NL, this compares in one process, on the
scorer's own encoding and batching (``CodeScorer.score``):
- torch fp32 and torch int8 (``dtype="int8"``, the shipped path);
- ONNX Runtime fp32, its BERT-fused graph (``onnxruntime.transformers.optimizer``), and int8 from
  ``onnxruntime.quantization.quantize_dynamic`` on the fused graph, per-channel and per-tensor.
For each: samples/s (every engine timed twice, interleaved, the better run kept, so a load change on a
shared machine hits all of them alike), max |Δ CodeScore| against torch fp32 and Spearman ρ with PassRatio.
Needs ``pip install onnxruntime==1.32.0 onnx==1.23.2`` (not a project dependency).

    python benchmarks/onnx_int8.py work/real/mbpp/validation.jsonl --limit 256 --markdown /tmp/onnx_int8.md
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

from cpu_dtypes import LABEL, load_rows, texts

from codescore_metric import CodeScorer
from codescore_metric.correlation import correlations


class OnnxModel:
    """An ONNX Runtime session in the place of a UniCE model inside ``CodeScorer`` (same call, same outputs)."""

    def __init__(self, path: Path, config, threads: int):
        import onnxruntime

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        self.session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        self.config = config

    def __call__(self, input_ids, attention_mask, token_type_ids=None, normalization=None):
        if normalization != self.config.normalization:
            raise ValueError(f"the exported graph has {self.config.normalization!r} normalization baked in, not {normalization!r}")
        feeds = {"input_ids": input_ids.numpy(), "attention_mask": attention_mask.numpy()}
        if token_type_ids is not None:
            feeds["token_type_ids"] = token_type_ids.numpy()
        return torch.from_numpy(self.session.run(None, feeds)[0])


def export(model, folder: Path) -> dict[str, Path]:
    """The model as ONNX: plain, BERT-fused, and int8 (per-channel and per-tensor) from the fused graph."""
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from onnxruntime.transformers import optimizer

    ids = torch.randint(1000, 2000, (2, 64))
    mask = torch.ones_like(ids)
    mask[1, 40:] = 0  # a padded row, so the trace keeps the padding mask (an all-ones mask is traced away)
    names = ["input_ids", "attention_mask"]
    example = (ids, mask)
    if model.config.segment_token_types:
        names.append("token_type_ids")
        example = (ids, mask, (torch.arange(64) >= 20).long().expand(2, 64).contiguous())
    paths = {"onnx fp32": folder / "model.onnx", "onnx fp32 fused": folder / "fused.onnx",
             "onnx int8 per-channel": folder / "int8_channel.onnx", "onnx int8 per-tensor": folder / "int8_tensor.onnx"}
    # export a copy: the TorchScript exporter leaves the module it traced altered
    torch.onnx.export(copy.deepcopy(model), example, str(paths["onnx fp32"]), input_names=names, output_names=["logits"],
                      opset_version=17, dynamo=False, dynamic_axes={**{name: {0: "batch", 1: "tokens"} for name in names}, "logits": {0: "batch"}})
    encoder = model.encoder.config
    fused = optimizer.optimize_model(str(paths["onnx fp32"]), model_type="bert", num_heads=encoder.num_attention_heads,
                                     hidden_size=encoder.hidden_size)
    fused.save_model_to_file(str(paths["onnx fp32 fused"]))
    for name, per_channel in (("onnx int8 per-channel", True), ("onnx int8 per-tensor", False)):
        quantize_dynamic(str(paths["onnx fp32 fused"]), str(paths[name]), weight_type=QuantType.QInt8, per_channel=per_channel,
                         extra_options={"DefaultTensorType": 1})  # fused ops have no inferred types: float
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path, help="labelled jsonl: generated_code, golden_code, source, pass_ratio")
    parser.add_argument("--checkpoint", default=None, help="model folder or Hub id (default: the embedded model)")
    parser.add_argument("--limit", type=int, default=None, help="first N rows only")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--markdown", type=Path, default=None, help="write the table here as well")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    rows = load_rows(args.data, args.limit)
    inputs = texts(rows)
    labels = [row[LABEL] for row in rows]
    fp32 = CodeScorer(args.checkpoint)
    scorers = {"torch fp32": fp32, "torch int8 (dtype='int8')": CodeScorer(args.checkpoint, dtype="int8")}
    with tempfile.TemporaryDirectory() as folder:
        for name, path in export(fp32.model, Path(folder)).items():
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
    table = "\n".join(lines) + "\n"
    print(table)
    if args.markdown:
        args.markdown.write_text(table)


if __name__ == "__main__":
    main()
