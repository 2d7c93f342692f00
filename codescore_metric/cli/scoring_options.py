"""The options every command that runs a CodeScore model shares (`score`, `meta-eval`)."""

from __future__ import annotations

import argparse

# the names `devices.DTYPE_NAMES` gives; spelled out so that building the parser does not import torch
DTYPE_CHOICES = ("fp32", "bf16", "fp16", "int8", "int8-onnx")


def add_scoring_options(parser: argparse.ArgumentParser) -> None:
    """Add --device, --dtype, --normalization, --static-checks and --batch-size, named as `CodeScorer` names them."""
    parser.add_argument("--device", help="cpu, cuda, cuda:1, mps (default: best available)")
    parser.add_argument("--dtype", choices=DTYPE_CHOICES,
                        help="inference precision (default fp32); int8: torch dynamic quantization, the first token in fp32; "
                             "int8-onnx: ONNX Runtime int8 (pip install 'codescore-metric[onnx]'); both CPU only")
    parser.add_argument("--normalization", choices=["sample", "batch"], help="layer-mix statistics (default: the model's)")
    parser.add_argument("--static-checks", action=argparse.BooleanOptionalAction,
                        help="decide what the code shows for certain, without the model: code that does not compile, "
                             "defines none of the reference's functions, reads a name it never binds or cannot take the "
                             "reference's arguments scores 0; code that returns nothing or only other kinds of values than "
                             "the reference scores CodeScore and Passability 0; the reference's own program scores 1 "
                             "(default: on, except for the authors' model or batch normalization)")
    parser.add_argument("--batch-size", type=int, help="samples per batch (default 32, or 100 with batch normalization)")
