import pytest

from codescore_metric.code_layout import CAPITAL, DEDENT, INDENT, NEWLINE, layout_pieces


def test_layout_markers_follow_indentation_and_line_ends():
    assert layout_pieces("if x:\n    return 1\nreturn 2") == [
        "if x:", NEWLINE, INDENT, "return 1", NEWLINE, DEDENT, "return 2", NEWLINE]
    assert layout_pieces("if x: return 1 return 2") == ["if x: return 1 return 2", NEWLINE]


def test_tabs_crlf_blank_lines_and_nested_dedents():
    code = "def f(a):\r\n\tif a:\r\n\t\treturn a\r\n\r\n\treturn 0\r\nx = f(1)\r\n"
    assert layout_pieces(code) == ["def f(a):", NEWLINE, INDENT, "if a:", NEWLINE, INDENT, "return a", NEWLINE,
                                   DEDENT, "return 0", NEWLINE, DEDENT, "x = f(1)", NEWLINE]


def test_inconsistent_dedent_and_broken_code_still_give_markers():
    assert layout_pieces("a\n        b\n    c\n") == ["a", NEWLINE, INDENT, "b", NEWLINE, DEDENT, "c", NEWLINE]
    assert layout_pieces("def f(:\n  ))") == ["def f(:", NEWLINE, INDENT, "))", NEWLINE]


def test_capitalised_words_are_marked():
    assert layout_pieces("return True if isUpper else none") == [
        "return ", CAPITAL, "True", " if ", CAPITAL, "isUpper", " else none", NEWLINE]


@pytest.fixture
def uncased_tokenizer(tmp_path):
    from transformers import BertTokenizerFast

    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "[unused0]", "[unused1]", "[unused2]", "[unused3]",
             "if", "x", ":", "return", "1", "2", "true"]
    (tmp_path / "vocab.txt").write_text("\n".join(words) + "\n")
    return BertTokenizerFast(str(tmp_path / "vocab.txt"), do_lower_case=True)


def test_layout_tokens_tell_apart_code_an_uncased_tokenizer_merges(uncased_tokenizer):
    from codescore_metric.encoding import EncodingSpec, SegmentEncoder

    plain = SegmentEncoder(uncased_tokenizer, EncodingSpec(max_length=64, separator_tokens=1))
    layout = SegmentEncoder(uncased_tokenizer, EncodingSpec(max_length=64, separator_tokens=1,
                                                            layout_tokens=tuple(f"[unused{i}]" for i in range(4))))
    codes = ["if x:\n    return 1\nreturn 2", "if x: return 1 return 2", "return True", "return true"]
    plain_ids = [sample.input_ids for sample in plain.encode({"prediction": codes})]
    layout_ids = [sample.input_ids for sample in layout.encode({"prediction": codes})]
    assert plain_ids[0] == plain_ids[1] and plain_ids[2] == plain_ids[3]
    assert layout_ids[0] != layout_ids[1] and layout_ids[2] != layout_ids[3]
    assert uncased_tokenizer.convert_ids_to_tokens(layout_ids[0]) == [
        "[CLS]", "if", "x", ":", "[unused0]", "[unused1]", "return", "1", "[unused0]", "[unused2]", "return", "2",
        "[unused0]", "[SEP]"]
    # the NL segment is read as plain text
    both = layout.encode({"prediction": ["return 1"], "source": ["if x"]})[0]
    assert uncased_tokenizer.convert_ids_to_tokens(both.input_ids)[-3:] == ["if", "x", "[SEP]"]


def test_layout_tokens_must_exist_in_the_vocabulary(uncased_tokenizer):
    from codescore_metric.encoding import EncodingSpec, SegmentEncoder

    with pytest.raises(ValueError, match="no vocabulary entry '<nl>'"):
        SegmentEncoder(uncased_tokenizer, EncodingSpec(layout_tokens=("<nl>", "[unused1]", "[unused2]", "[unused3]")))
    with pytest.raises(ValueError, match="one token for each of newline, indent, dedent, capital"):
        EncodingSpec(layout_tokens=("[unused0]",))
