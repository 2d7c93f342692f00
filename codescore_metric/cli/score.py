"""`codescore score IN.jsonl -o OUT.jsonl`: add CodeScore, Executability and Passability to each row.

Under `torchrun --nproc_per_node N -m codescore_metric score ...` (or `accelerate launch`) the rows are
split across the N processes, each on its own device (cuda:LOCAL_RANK, else the CPU), and rank 0 writes
them all in input order: the same file one process writes (sample normalisation only).
"""

from __future__ import annotations

import sys

from codescore_metric.cli.scoring_options import add_scoring_options
from codescore_metric.formats import ARGUMENT_FOR_FIELD, COLUMN_FOR_FIELD, InputFormat
from codescore_metric.jsonl import bad_rows_message, read_objects, write_jsonl


def register(subparsers) -> None:
    parser = subparsers.add_parser("score", help="score a jsonl file of generated code", description=__doc__)
    parser.add_argument("input", help="jsonl file, one sample per line")
    parser.add_argument("-o", "--output", required=True, help="jsonl file to write ('-' for stdout)")
    parser.add_argument("--format", dest="input_format", choices=[f.value for f in InputFormat],
                        help="input format (default: the richest one whose fields every row has)")
    parser.add_argument("--checkpoint", help="model folder, Hub repo id, 'dz1/CodeScore' or authors' .ckpt (default: bundled model)")
    parser.add_argument("--revision", help="Hub revision (branch, tag or commit) of --checkpoint")
    parser.add_argument("--encoder", help="backbone config/tokenizer for an authors' checkpoint (default microsoft/unixcoder-base)")
    add_scoring_options(parser)
    for field, what in (("prediction", "the generated code"), ("reference", "the reference solution"),
                        ("source", "the NL task description")):
        parser.add_argument(f"--{field}-field", default=COLUMN_FOR_FIELD[field], help=f"field holding {what}")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    parser.set_defaults(func=run)


def run(args) -> int:
    from codescore_metric.distributed_scoring import launch_from_env

    launch = launch_from_env()  # every rank reads and checks the whole file; only rank 0 reports and writes
    report = print if launch.rank == 0 else lambda *_, **__: None
    rows, errors = read_objects(args.input)
    names = {"prediction": args.prediction_field, "reference": args.reference_field, "source": args.source_field}
    fmt = InputFormat.parse(args.input_format) if args.input_format else _infer_format(rows, names)
    errors += row_errors(rows, fmt, names)
    if errors:
        report(f"codescore score: {bad_rows_message(args.input, errors)}", file=sys.stderr)
        return 2
    if not rows:
        report(f"codescore score: {args.input} holds no rows; give one JSON object per line with a "
               f"{args.prediction_field!r} field", file=sys.stderr)
        return 2
    from codescore_metric.distributed_scoring import rank_device, score_distributed
    from codescore_metric.scorer import CodeScorer

    if launch.distributed and args.normalization == "batch":  # before loading the model; the model's own setting is checked later
        raise ValueError("--normalization batch cannot be split across processes (batch statistics depend on the split); "
                         "run one process, or use --normalization sample")
    device = rank_device(args.device, launch) if launch.distributed else args.device
    scorer = CodeScorer(args.checkpoint, revision=args.revision, device=device, dtype=args.dtype,
                        normalization=args.normalization, encoder=args.encoder, static_checks=args.static_checks)
    texts = {ARGUMENT_FOR_FIELD[field]: [row[names[field]] for _, row in rows] for field in fmt.fields}
    if scorer.normalization == "batch" and "source" not in fmt.fields and all(
            isinstance(row.get(names["source"]), str) for _, row in rows):
        texts["sources"] = [row[names["source"]] for _, row in rows]  # the authors' batch order, not read
    result = score_distributed(scorer, **texts, input_format=fmt, batch_size=args.batch_size,
                               progress_bar=not args.no_progress, launch=launch)
    if result is None:  # a rank other than 0: its share went to rank 0
        return 0
    write_jsonl(args.output, ({**row, **scored} for (_, row), scored in zip(rows, result.records())))
    means = result.mean()
    truncated = sum(1 for cut in result.truncated if cut)
    uncompiled = (f", {result.certain.count('syntax_error')} not compiling, {result.certain.count('missing_definition')} "
                  f"defining none of the reference's functions, {result.certain.count('unbound_name')} reading a name they "
                  f"never bind, {result.certain.count('wrong_arity')} not callable as the reference's functions, "
                  f"{result.certain.count('no_return_value')} returning nothing where the reference returns a "
                  f"value, {result.certain.count('other_return_kind')} returning another kind of value than the "
                  f"reference, {result.certain.count('same_as_reference')} the same program as the reference") if scorer.static_checks else ""
    processes = f", in {launch.world_size} processes" if launch.distributed else ""
    print(
        f"scored {len(result)} samples ({fmt.value}): CodeScore {means['codescore']:.4f} | Executability "
        f"{means['executability']:.4f} | Passability {means['passability']:.4f} | {truncated} truncated, "
        f"{result.certain.count('empty')} empty{uncompiled}{processes}\n{result.signature}",
        file=sys.stderr,
    )
    return 0


def _infer_format(rows, names) -> InputFormat:
    has = {field: bool(rows) and all(name in row for _, row in rows) for field, name in names.items()}
    if has["reference"] and has["source"]:
        return InputFormat.REF_NL
    if has["source"]:
        return InputFormat.NL
    return InputFormat.REF


def row_errors(rows, fmt: InputFormat, names) -> list[tuple[int, str]]:
    """``(line, problem)`` for every field of ``fmt`` (named by ``names``) a row lacks or holds as a non-string;
    shared with the app's file tab."""
    errors = []
    for line, row in rows:
        for field in fmt.fields:
            name = names[field]
            if name not in row:
                errors.append((line, f"missing field {name!r} (needed by --format {fmt.value}; rename with --{field}-field)"))
            elif not isinstance(row[name], str):
                errors.append((line, f"field {name!r} is {type(row[name]).__name__}, not a string"))
    return errors
