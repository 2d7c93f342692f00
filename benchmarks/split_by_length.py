"""Split a labelled jsonl into the rows a model cuts to its length and the rest, to meta-evaluate each on its own.

A row is long when the model's encoder, reading the row in the given format, drops tokens of any field
(`EncodedSample.dropped`); no model is run. Then, for example:

    python benchmarks/split_by_length.py work/default-model/mbpp/validation.jsonl work/by-length
    codescore meta-eval work/by-length/long.jsonl --against OTHER_MODEL --formats ref_nl --no-codebleu
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from codescore_metric import CodeScorer
from codescore_metric.formats import COLUMN_FOR_FIELD, InputFormat


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("input", help="labelled jsonl (generated_code, golden_code, source columns)")
    parser.add_argument("output", help="folder for long.jsonl and short.jsonl")
    parser.add_argument("--checkpoint", help="whose encoding decides (default: the embedded model)")
    parser.add_argument("--format", default="ref_nl", choices=[fmt.value for fmt in InputFormat])
    args = parser.parse_args()
    lines = [line for line in Path(args.input).read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = [json.loads(line) for line in lines]
    fields = InputFormat(args.format).fields
    missing = [COLUMN_FOR_FIELD[field] for field in fields if any(COLUMN_FOR_FIELD[field] not in row for row in rows)]
    if missing:
        raise SystemExit(f"{args.input}: some rows lack {missing}, which format {args.format!r} reads")
    encoder = CodeScorer(args.checkpoint).encoder
    encoded = encoder.encode({field: [row[COLUMN_FOR_FIELD[field]] for row in rows] for field in fields})
    output = Path(args.output)
    output.mkdir(parents=True, exist_ok=True)
    long_lines = [line for line, sample in zip(lines, encoded) if sample.dropped]
    short_lines = [line for line, sample in zip(lines, encoded) if not sample.dropped]
    for name, kept in (("long", long_lines), ("short", short_lines)):
        (output / f"{name}.jsonl").write_text("".join(line + "\n" for line in kept), encoding="utf-8")
    print(f"{len(long_lines)} of {len(rows)} rows cut in {args.format} -> {output / 'long.jsonl'}; "
          f"{len(short_lines)} -> {output / 'short.jsonl'}")


if __name__ == "__main__":
    main()
