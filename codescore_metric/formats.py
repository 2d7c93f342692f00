"""The names every part of CodeScore shares: the input formats, the per-sample fields each one reads,
the jsonl columns and argument names those fields travel under, the label columns and the outputs.

A per-sample *field* (``prediction``, ``reference``, ``source``) is this package's internal name.
In a jsonl file it is a *column* (``generated_code``, ``golden_code``, ``source``: the names of the
authors' data files, kept by ``codescore build-data``); as an argument of `CodeScorer.score` and
of the `evaluate` metric it is a plural *argument* (``predictions``, ``references``, ``sources``).
"""

from __future__ import annotations

from enum import Enum


class InputFormat(str, Enum):
    """Which texts the model reads beside the generated code (paper: Ref-only, NL-only, Ref&NL)."""

    REF = "ref"
    NL = "nl"
    REF_NL = "ref_nl"

    @property
    def fields(self) -> tuple[str, ...]:
        """Per-sample field names, in the order the segments are encoded."""
        return {
            InputFormat.REF: ("prediction", "reference"),
            InputFormat.NL: ("prediction", "source"),
            InputFormat.REF_NL: ("prediction", "reference", "source"),
        }[self]

    @property
    def arguments(self) -> tuple[str, ...]:
        """The argument names of :attr:`fields` (``predictions``, ...), in the same order."""
        return tuple(ARGUMENT_FOR_FIELD[field] for field in self.fields)

    @property
    def label(self) -> str:
        """The paper's name of the format: Ref-only, NL-only or Ref&NL."""
        return FORMAT_LABELS[self.value]

    @classmethod
    def parse(cls, value: InputFormat | str) -> InputFormat:
        """Accept an `InputFormat`, its value, or a common spelling such as 'Ref&NL' or 'nl-only'."""
        if isinstance(value, InputFormat):
            return value
        if not isinstance(value, str):
            raise ValueError(f"input_format must be one of 'ref', 'nl', 'ref_nl'; got {value!r}")
        key = value.strip().lower().replace("-", "_").replace("&", "_").replace(" ", "_")
        key = key.removesuffix("_only")
        if key in _ALIASES:
            return cls(_ALIASES[key])
        raise ValueError(
            f"input_format {value!r} is not known; use 'ref' (Ref-only), 'nl' (NL-only) or 'ref_nl' (Ref&NL)"
        )


_ALIASES = {"ref": "ref", "reference": "ref", "nl": "nl", "src": "nl", "source": "nl", "ref_nl": "ref_nl", "nl_ref": "ref_nl"}

# The paper's names of the formats (§4.1.4 and Tables 3-5), as tables and model cards print them.
FORMAT_LABELS = {"ref": "Ref-only", "nl": "NL-only", "ref_nl": "Ref&NL"}

# Every per-sample field, in encoding order (generated code, reference, NL task).
FIELDS = ("prediction", "reference", "source")

# Plural argument names used by `score()` and the metric, mapped to the per-sample field names.
ARGUMENT_FOR_FIELD = {"prediction": "predictions", "reference": "references", "source": "sources"}

# The jsonl column of each field: the authors' data files' names, read by `codescore score`,
# `codescore train`, `codescore meta-eval` and the app, and written by `codescore build-data`.
COLUMN_FOR_FIELD = {"prediction": "generated_code", "reference": "golden_code", "source": "source"}

# The fields that hold Python code (the rest is natural language).
CODE_FIELDS = ("prediction", "reference")

# The execution labels of a labelled row: PassRatio in [0, 1], runs without error (0/1), passes every test (0/1).
LABEL_COLUMNS = ("pass_ratio", "executable", "all_pass")

# What a UniCE model predicts, in its output order: CodeScore (estimated PassRatio), Executability, Passability.
OUTPUT_NAMES = ("codescore", "executability", "passability")
