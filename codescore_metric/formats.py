"""The three CodeScore input formats and the text fields each one reads."""

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

    @classmethod
    def parse(cls, value: "InputFormat | str") -> "InputFormat":
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

# Plural argument names used by `score()` and the metric, mapped to the per-sample field names.
ARGUMENT_FOR_FIELD = {"prediction": "predictions", "reference": "references", "source": "sources"}

# The fields that hold Python code (the rest is natural language).
CODE_FIELDS = ("prediction", "reference")
