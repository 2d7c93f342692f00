"""`codescore pretrain-encoder`: masked-language-model pretraining of a small code encoder on Python source."""

from __future__ import annotations

import json
import logging
import sys


def register(subparsers) -> None:
    parser = subparsers.add_parser("pretrain-encoder", help="MLM-pretrain a small code encoder on .py files", description=__doc__)
    parser.add_argument("--output", required=True, help="folder for the encoder and its tokenizer (a --backbone for `codescore train`)")
    parser.add_argument("--source-dir", action="append", default=[], help="folder of .py files (repeatable; default: the standard library)")
    parser.add_argument("--vocab-size", type=int, default=16000)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--sequence-length", type=int, default=256)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--learning-rate", type=float, default=5e-4)
    parser.add_argument("--minutes", type=float, default=30.0, help="wall-clock budget")
    parser.add_argument("--max-steps", type=int, help="stop after this many steps (before the budget runs out)")
    parser.add_argument("--seed", type=int, default=0)
    parser.set_defaults(func=run)


def run(args) -> int:
    from codescore_metric.training.pretrain import PretrainArguments, pretrain

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", stream=sys.stderr)
    settings = PretrainArguments(
        output_dir=args.output, source_dirs=tuple(args.source_dir), vocab_size=args.vocab_size, layers=args.layers,
        hidden=args.hidden, heads=args.heads, sequence_length=args.sequence_length, batch_size=args.batch_size,
        learning_rate=args.learning_rate, minutes=args.minutes, max_steps=args.max_steps, seed=args.seed,
    )
    print(json.dumps(pretrain(settings), indent=2))
    return 0
