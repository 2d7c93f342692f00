"""`codescore convert CKPT OUT_DIR`: save the authors' Lightning checkpoint in this package's format."""

from __future__ import annotations

import sys


def register(subparsers) -> None:
    parser = subparsers.add_parser("convert", help="convert the authors' .ckpt into a fast-loading model folder", description=__doc__)
    parser.add_argument("checkpoint", help="authors' .ckpt file (or folder holding one), or 'dz1/CodeScore'")
    parser.add_argument("output_dir", help="folder to write config.json, model.safetensors and tokenizer files into")
    parser.add_argument("--encoder", help="backbone config/tokenizer (default microsoft/unixcoder-base; a local folder works offline)")
    parser.add_argument("--revision", help="Hub revision of the checkpoint repo")
    parser.set_defaults(func=run)


def run(args) -> int:
    from pathlib import Path

    from codescore_metric.checkpoints import load_checkpoint

    loaded = load_checkpoint(args.checkpoint, revision=args.revision, encoder=args.encoder)
    if loaded.model.config.encoding_profile != "reference":
        print(f"codescore convert: {args.checkpoint} is already a CodeScore model folder; nothing to convert", file=sys.stderr)
        return 2
    loaded.model.config.provenance.update(model_id=loaded.model_id, revision=loaded.revision)
    output = loaded.model.save_pretrained(Path(args.output_dir))
    loaded.tokenizer.save_pretrained(str(output))
    print(f"wrote {output} (load it with CodeScorer({str(output)!r}))", file=sys.stderr)
    return 0
