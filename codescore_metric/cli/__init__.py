"""The `codescore` command line: one sub-command per module in this package."""

import argparse
import importlib
import sys

from codescore_metric import __version__

# Each module defines `register(subparsers)`, which adds its sub-command and sets `func`.
COMMAND_MODULES = (
    "codescore_metric.cli.score",
    "codescore_metric.cli.convert",
    "codescore_metric.cli.build_data",
    "codescore_metric.cli.meta_eval",
    "codescore_metric.cli.train",
    "codescore_metric.cli.model_card",
    "codescore_metric.cli.pretrain",
    "codescore_metric.cli.label",
    "codescore_metric.cli.extend_tests",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="codescore",
        description="Estimate the functional correctness of generated code (CodeScore / UniCE).",
    )
    parser.add_argument("--version", action="version", version=f"codescore-metric {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module_name in COMMAND_MODULES:
        importlib.import_module(module_name).register(subparsers)
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args) or 0
    except (ValueError, OSError, ConnectionError) as error:
        print(f"codescore {args.command}: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
