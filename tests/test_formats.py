"""One place for the names: formats, fields, their jsonl columns and argument names, and the outputs."""

from codescore_metric.formats import ARGUMENT_FOR_FIELD, COLUMN_FOR_FIELD, FIELDS, FORMAT_LABELS, OUTPUT_NAMES, InputFormat
from tests.scripts import load_script


def test_each_format_names_its_fields_arguments_and_paper_label():
    assert [(fmt.value, fmt.fields, fmt.arguments, fmt.label) for fmt in InputFormat] == [
        ("ref", ("prediction", "reference"), ("predictions", "references"), "Ref-only"),
        ("nl", ("prediction", "source"), ("predictions", "sources"), "NL-only"),
        ("ref_nl", ("prediction", "reference", "source"), ("predictions", "references", "sources"), "Ref&NL"),
    ]
    assert set(FORMAT_LABELS) == {fmt.value for fmt in InputFormat}
    assert tuple(ARGUMENT_FOR_FIELD) == tuple(COLUMN_FOR_FIELD) == FIELDS
    assert COLUMN_FOR_FIELD == {"prediction": "generated_code", "reference": "golden_code", "source": "source"}


def test_the_metric_configs_come_from_the_formats():
    script = load_script("codescore.py")
    assert script._FIELDS == {"default": ("predictions", "references"), "ref": ("predictions", "references"),
                              "nl": ("predictions", "sources"), "ref_nl": ("predictions", "references", "sources")}


def test_the_outputs_have_one_name_everywhere():
    from codescore_metric import modeling, scorer

    assert OUTPUT_NAMES == ("codescore", "executability", "passability")
    assert modeling.OUTPUT_NAMES is scorer.OUTPUT_NAMES is OUTPUT_NAMES
