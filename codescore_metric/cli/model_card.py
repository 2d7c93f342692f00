"""`codescore model-card MODEL_DIR`: write MODEL_DIR/README.md, a model card made from the model's config,
training history and arguments, and the `codescore meta-eval --json` files given with --evaluation."""

from __future__ import annotations

import json
import sys
from pathlib import Path


def register(subparsers) -> None:
    parser = subparsers.add_parser("model-card", help="write a trained model's README.md (model card)", description=__doc__)
    parser.add_argument("model_dir", type=Path, help="a `codescore train --output` folder")
    parser.add_argument("--evaluation", action="append", default=[], metavar="TITLE=META_EVAL.json",
                        help="a section TITLE with the tables of a `codescore meta-eval --json` file (repeatable, in order)")
    parser.add_argument("--notes", default="", help="text of a Notes section (e.g. how the model was built)")
    parser.set_defaults(func=run)


def run(args) -> int:
    from codescore_metric.training.model_card import model_card

    evaluations = {}
    for item in args.evaluation:
        title, _, path = item.partition("=")
        if not title or not path:
            raise ValueError(f"--evaluation takes TITLE=PATH, got {item!r}")
        evaluations[title] = json.loads(Path(path).read_text())
    card = args.model_dir / "README.md"
    card.write_text(model_card(args.model_dir, evaluations, args.notes))
    print(f"wrote {card}", file=sys.stderr)
    return 0
