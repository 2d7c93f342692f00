import pytest

from codescore_metric.code_changes import mark_changes
from codescore_metric.code_layout import CHANGE_END, CHANGE_START, INDENT, NEWLINE, layout_pieces

REFERENCE = "def total(xs):\n    acc = 0\n    for x in xs:\n        acc += x\n    return acc\n"


def marked(code: str, reference: str = REFERENCE) -> list:
    return mark_changes(layout_pieces(code), layout_pieces(reference))


def spans(pieces: list) -> list[str]:
    """The text inside each change span ('' for an empty one)."""
    found, inside = [], None
    for piece in pieces:
        if piece == CHANGE_START:
            inside = ""
        elif piece == CHANGE_END:
            found.append(inside.strip())
            inside = None
        elif inside is not None and isinstance(piece, str):
            inside += piece
    return found


def text_of(pieces: list) -> str:
    return "".join(piece for piece in pieces if isinstance(piece, str))


def test_a_copy_and_a_consistent_renaming_have_no_changes():
    assert marked(REFERENCE) == layout_pieces(REFERENCE)
    renamed = REFERENCE.replace("total", "add_up").replace("acc", "s").replace("xs", "items").replace(" x", " item")
    assert spans(marked(renamed)) == []


@pytest.mark.parametrize("edit, expected", [
    (("acc = 0", "acc = 1"), ["1"]),
    (("acc += x", "acc -= x"), ["-"]),
    (("return acc", "return x"), ["x"]),  # the wrong variable breaks the name mapping
    (("for x in xs:", "for x in sorted(xs):"), ["sorted(", ")"]),
])
def test_a_small_edit_is_marked_where_it_is(edit, expected):
    pieces = marked(REFERENCE.replace(*edit))
    assert spans(pieces) == expected
    assert text_of(pieces) == text_of(layout_pieces(REFERENCE.replace(*edit)))  # the text is kept


def test_what_the_candidate_lacks_is_an_empty_span_and_the_reference_side_shows_it():
    short = "def total(xs):\n    acc = 0\n    return acc\n"
    assert spans(marked(short)) == [""]
    assert spans(mark_changes(layout_pieces(REFERENCE), layout_pieces(short))) == ["for x in xs:acc += x"]


def test_layout_markers_take_part_in_the_alignment():
    flat = "def total(xs):\n    acc = 0\n    for x in xs:\n        acc += x\n        return acc\n"  # return inside the loop
    pieces = marked(flat)
    assert CHANGE_START in pieces
    assert pieces[:3] == ["def total(xs):", NEWLINE, INDENT]


def test_broken_and_empty_code_is_marked_without_error():
    assert spans(marked("def total(:\n  ))")) != []
    assert marked("") == [CHANGE_START, CHANGE_END]
    assert mark_changes([], []) == []


def test_change_tokens_reach_the_token_ids(tmp_path):
    from transformers import BertTokenizerFast

    from codescore_metric.encoding import EncodingSpec, SegmentEncoder

    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + [f"[unused{i}]" for i in range(6)] + [
        "return", "a", "b", "+", "-"]
    (tmp_path / "vocab.txt").write_text("\n".join(words) + "\n")
    tokenizer = BertTokenizerFast(str(tmp_path / "vocab.txt"), do_lower_case=True)
    spec = EncodingSpec(max_length=64, separator_tokens=1, change_tokens=("[unused4]", "[unused5]"))
    sample = SegmentEncoder(tokenizer, spec).encode({"prediction": ["return a - b"], "reference": ["return a + b"]})[0]
    assert tokenizer.convert_ids_to_tokens(sample.input_ids) == [
        "[CLS]", "return", "a", "[unused4]", "-", "[unused5]", "b", "[SEP]",
        "return", "a", "[unused4]", "+", "[unused5]", "b", "[SEP]"]
    alone = SegmentEncoder(tokenizer, spec).encode({"prediction": ["return a - b"], "source": ["a"]})[0]
    assert "[unused4]" not in tokenizer.convert_ids_to_tokens(alone.input_ids)  # nothing to compare with
    with pytest.raises(ValueError, match="change_tokens needs one token for each of change_start, change_end"):
        EncodingSpec(change_tokens=("[unused4]",))
