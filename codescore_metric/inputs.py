"""Check the texts given to a scorer and pick the input format."""

from __future__ import annotations

from collections.abc import Sequence

from codescore_metric.formats import ARGUMENT_FOR_FIELD, InputFormat


def choose_format(input_format, references, sources, default: str) -> InputFormat:
    """The given format, else the one the given fields imply, else the model's default."""
    if input_format is not None:
        return InputFormat.parse(input_format)
    if references is not None and sources is not None:
        return InputFormat.REF_NL
    if references is not None:
        return InputFormat.REF
    if sources is not None:
        return InputFormat.NL
    return InputFormat.parse(default)


def validate_inputs(input_format: InputFormat, predictions, references=None, sources=None) -> dict[str, list[str]]:
    """Return ``{field: texts}`` in segment order; raise ``ValueError`` naming the argument and index of any problem."""
    given = {"prediction": predictions, "reference": references, "source": sources}
    needed = input_format.fields
    for field, values in given.items():
        argument = ARGUMENT_FOR_FIELD[field]
        if field in needed and values is None:
            raise ValueError(f"input_format={input_format.value!r} needs {argument}; pass {argument}=[...] or choose another input_format")
        if field not in needed and values is not None:
            readers = [f.value for f in InputFormat if field in f.fields]
            raise ValueError(
                f"{argument} were given but input_format={input_format.value!r} does not read them; "
                f"use input_format={' or '.join(map(repr, readers))}, or leave {argument} out"
            )
    columns = {field: text_list(ARGUMENT_FOR_FIELD[field], given[field]) for field in needed}
    count = len(columns["prediction"])
    for field, texts in columns.items():
        if len(texts) != count:
            raise ValueError(f"{ARGUMENT_FOR_FIELD[field]} has {len(texts)} items but predictions has {count}; give one per prediction")
    return columns


def text_list(argument: str, values) -> list[str]:
    """``values`` as a list of strings; a ``ValueError`` naming ``argument`` (and the index) otherwise."""
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        hint = " (wrap a single text in a list: [text])" if isinstance(values, str) else ""
        raise ValueError(f"{argument} must be a list of strings, one per sample, got {type(values).__name__}{hint}")
    for index, value in enumerate(values):
        if not isinstance(value, str):
            hint = "use '' for an empty text" if value is None else "convert it to str"
            raise ValueError(f"{argument}[{index}] is {type(value).__name__}, not str; {hint}")
    return list(values)
