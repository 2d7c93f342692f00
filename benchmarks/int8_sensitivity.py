"""Where ``dtype="int8"`` loses its fidelity: the int8 model with one group of encoder Linears put back in fp32.

On a labelled jsonl (Ref&NL, the embedded model or ``--checkpoint``), the fp32 model and the int8 model score every
row; then, for each group of encoder Linears (every Linear of one layer; every Linear of one role across the layers:
query, key, value, attention output, FFN input, FFN output), the int8 model scores them again with that group in
fp32. The table gives max / p99 / mean |Δ CodeScore| against fp32 and the speed against fp32, timed in this one
process (so only roughly: the host's speed drifts). If one group carried the error, putting it back in fp32 would
bring the max |Δ| down to bf16's level at a small cost in speed.

    python benchmarks/int8_sensitivity.py work/default-model/mbpp/validation.jsonl --markdown /tmp/int8_sensitivity.md
"""

from __future__ import annotations

import argparse
import contextlib
import re
import sys
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from cpu_dtypes import add_data_arguments, emit, load_rows, texts

from codescore_metric import CodeScorer
from codescore_metric.quantization import FirstTokenFp32Linear

# How each role's Linears end their names in a BERT / RoBERTa encoder.
ROLES = {"query": r"attention\.self\.query$", "key": r"attention\.self\.key$", "value": r"attention\.self\.value$",
         "attention output": r"attention\.output\.dense$", "FFN input": r"intermediate\.dense$",
         "FFN output": r"\.\d+\.output\.dense$"}


def int8_linears(model: nn.Module) -> dict[str, FirstTokenFp32Linear]:
    """The int8 Linears of ``model``'s encoder by their name under the encoder."""
    return {name: module for name, module in model.encoder.named_modules() if isinstance(module, FirstTokenFp32Linear)}


def linear_groups(names: list[str]) -> dict[str, list[str]]:
    """The groups the table puts back in fp32: each layer's Linears (``layer N``), then each role's across layers."""
    groups: dict[str, list[str]] = {}
    for name in names:
        layer = next((part for part in name.split(".") if part.isdigit()), None)
        if layer is not None:
            groups.setdefault(f"layer {layer}", []).append(name)
    for role, pattern in ROLES.items():
        members = [name for name in names if re.search(pattern, name)]
        if members:
            groups[role] = members
    return groups


@contextlib.contextmanager
def fp32_linears(model: nn.Module, names: list[str]):
    """``model`` with the int8 Linears ``names`` replaced by fp32 ``nn.Linear`` s of the weights they keep; the int8
    modules are back in place on exit."""
    quantized = int8_linears(model)
    for name in names:
        module = quantized[name]
        linear = nn.Linear(module.weight.shape[1], module.weight.shape[0], bias=module.bias is not None)
        linear.weight.data = module.weight
        if module.bias is not None:
            linear.bias.data = module.bias
        _swap(model.encoder, name, linear)
    try:
        yield model
    finally:
        for name in names:
            _swap(model.encoder, name, quantized[name])


def _swap(root: nn.Module, name: str, module: nn.Module) -> None:
    parent, _, child = name.rpartition(".")
    setattr(root.get_submodule(parent), child, module)


def timed_scores(scorer: CodeScorer, inputs: dict, batch_size: int) -> tuple[np.ndarray, float]:
    """Ref&NL CodeScores of ``inputs`` and the seconds they took."""
    start = time.perf_counter()
    scores = scorer.score(**inputs, input_format="ref_nl", batch_size=batch_size).codescore
    return np.array(scores), time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_data_arguments(parser)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    inputs = texts(load_rows(args.data, args.limit))
    reference, fp32_seconds = timed_scores(CodeScorer(args.checkpoint, device="cpu"), inputs, args.batch_size)
    int8 = CodeScorer(args.checkpoint, device="cpu", dtype="int8")
    lines = [f"# int8 with one group of encoder Linears in fp32\n\n{len(reference)} rows of `{args.data}`, Ref&NL, batch "
             f"{args.batch_size}, {args.threads} thread(s); speed against the fp32 run of the same process. "
             f"`python benchmarks/int8_sensitivity.py {' '.join(sys.argv[1:])}`\n",
             "| in fp32 | Linears | max \\|Δ\\| | p99 \\|Δ\\| | mean \\|Δ\\| | vs fp32 |", "|---|---|---|---|---|---|"]
    groups = {"nothing (dtype=\"int8\")": [], **linear_groups(list(int8_linears(int8.model)))}
    for group, names in groups.items():
        with fp32_linears(int8.model, names):
            scores, seconds = timed_scores(int8, inputs, args.batch_size)
        difference = np.abs(scores - reference)
        lines.append(f"| {group} | {len(names)} | {difference.max():.4f} | {np.quantile(difference, 0.99):.4f} | "
                     f"{difference.mean():.4f} | {fp32_seconds / seconds:.2f}x |")
    emit("\n".join(lines) + "\n", args.markdown)


if __name__ == "__main__":
    main()
