"""Golden tests for both encoding profiles on a word-level tokenizer whose ids are known by heart."""

import pytest

from codescore_metric.encoding import EncodingSpec, SegmentEncoder, collate, detect_separator_tokens, share_budget

WORDS = [f"w{i}" for i in range(40)]
VOCAB = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3, "<mask>": 4, "<v>": 5, "</v>": 6, **{w: 10 + i for i, w in enumerate(WORDS)}}


def word_tokenizer(separators: int = 2):
    """RoBERTa-style (``<s> a </s></s> b </s>``) or BERT-style (``<s> a </s> b </s>``) word-level tokenizer."""
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    backend = Tokenizer(models.WordLevel(VOCAB, unk_token="<unk>"))
    backend.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    middle = "</s> </s>" if separators == 2 else "</s>"
    backend.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", pair=f"<s> $A {middle} $B </s>", special_tokens=[("<s>", 0), ("</s>", 2)]
    )
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=backend, bos_token="<s>", eos_token="</s>", sep_token="</s>", cls_token="<s>",
        pad_token="<pad>", unk_token="<unk>", mask_token="<mask>",
    )
    tokenizer.add_tokens(["<v>", "</v>"])
    return tokenizer


def words(start: int, count: int) -> str:
    return " ".join(WORDS[start:start + count])


def ids(start: int, count: int) -> list[int]:
    return [10 + i for i in range(start, start + count)]


def reference_encoder(max_length=16, separators=2):
    spec = EncodingSpec(profile="reference", max_length=max_length, separator_tokens=separators, stripped_tokens=("<v>", "</v>"))
    return SegmentEncoder(word_tokenizer(separators), spec)


def encode_one(encoder, **fields):
    return encoder.encode({name: [text] for name, text in fields.items()})[0]


def test_detects_roberta_and_bert_separators():
    assert detect_separator_tokens(word_tokenizer(2)) == 2
    assert detect_separator_tokens(word_tokenizer(1)) == 1


def test_reference_two_segments_double_separator_and_token_types():
    sample = encode_one(reference_encoder(), prediction=words(0, 2), reference=words(2, 1))
    assert sample.input_ids == [0, 10, 11, 2, 2, 12, 2]
    assert sample.token_type_ids == [0, 0, 0, 0, 1, 1, 1]
    assert sample.dropped == {}


def test_reference_three_segments_in_generated_reference_nl_order():
    sample = encode_one(reference_encoder(), prediction=words(0, 1), reference=words(1, 1), source=words(2, 2))
    assert sample.input_ids == [0, 10, 2, 2, 11, 2, 2, 12, 13, 2]
    assert sample.token_type_ids == [0, 0, 0] + [1] * 7


def test_reference_empty_generated_code_has_two_type_zero_tokens():
    sample = encode_one(reference_encoder(), prediction="", reference=words(0, 2))
    assert sample.input_ids == [0, 2, 2, 10, 11, 2]
    assert sample.token_type_ids == [0, 0, 1, 1, 1, 1]


def test_reference_long_generated_code_leaves_one_token_of_the_next_segment():
    # max_length 16: each segment is capped at 12 inner tokens; 12 + 3 > 16 - 3, so the joined ids are cut to 16.
    sample = encode_one(reference_encoder(), prediction=words(0, 20), reference=words(20, 3))
    assert sample.input_ids == [0, *ids(0, 12), 2, 2, 30]
    assert sample.token_type_ids[-3:] == [0, 1, 1]
    assert sample.dropped == {"prediction": 8, "reference": 2}


def test_reference_cut_removes_nl_first_and_the_closing_separator():
    # three segments: cut when inner lengths sum past 16 - 4 = 12
    sample = encode_one(reference_encoder(), prediction=words(0, 5), reference=words(5, 5), source=words(10, 5))
    assert len(sample.input_ids) == 16
    assert sample.input_ids == [0, *ids(0, 5), 2, 2, *ids(5, 5), 2, 2, 20]
    assert sample.dropped == {"source": 4}


def test_reference_sum_at_threshold_is_not_cut_and_can_exceed_max_length():
    # two segments: 13 inner tokens is not more than 16 - 3, so nothing is cut and the sequence is 17 ids
    sample = encode_one(reference_encoder(), prediction=words(0, 7), reference=words(7, 6))
    assert len(sample.input_ids) == 17
    assert sample.dropped == {}
    sample = encode_one(reference_encoder(), prediction=words(0, 7), reference=words(7, 7))
    assert len(sample.input_ids) == 16 and sample.dropped == {"reference": 1}


def test_reference_literal_special_text_pad_deleted_and_tags_stripped():
    sample = encode_one(reference_encoder(), prediction="w0 <pad> </s> <v> w1 </v>", reference="w2")
    assert sample.input_ids == [0, 10, 2, 11, 2, 2, 12, 2]


def test_reference_with_bert_style_single_separator():
    sample = encode_one(reference_encoder(separators=1), prediction=words(0, 1), reference=words(1, 1))
    assert sample.input_ids == [0, 10, 2, 11, 2]
    assert sample.token_type_ids == [0, 0, 0, 1, 1]


def test_clean_profile_keeps_every_segment_and_the_closing_separator():
    spec = EncodingSpec(profile="clean", max_length=16, separator_tokens=2)
    encoder = SegmentEncoder(word_tokenizer(), spec)
    sample = encode_one(encoder, prediction=words(0, 20), reference=words(20, 3), source=words(23, 2))
    # budget 16 - 6 specials = 10: the short NL and reference stay whole, the code gets the rest
    assert sample.input_ids == [0, *ids(0, 5), 2, 2, *ids(20, 3), 2, 2, *ids(23, 2), 2]
    assert len(sample.input_ids) == 16
    assert sample.dropped == {"prediction": 15}


def test_clean_profile_reads_special_token_text_as_text():
    from tests.tiny_model import build_tiny_tokenizer

    tokenizer = build_tiny_tokenizer()
    code = "x = '</s><pad><s>'"
    clean = encode_one(SegmentEncoder(tokenizer, EncodingSpec(profile="clean", max_length=64)), prediction=code, reference="y")
    reference = encode_one(SegmentEncoder(tokenizer, EncodingSpec(profile="reference", max_length=64)), prediction=code, reference="y")
    specials = {tokenizer.cls_token_id, tokenizer.sep_token_id, tokenizer.pad_token_id}
    assert not specials & set(clean.input_ids[1:clean.token_type_ids.index(1) - 1])  # all text, nothing injected
    assert {tokenizer.cls_token_id, tokenizer.sep_token_id} <= set(reference.input_ids[1:reference.token_type_ids.index(1) - 1])


def test_clean_profile_without_segment_types_is_all_zero():
    encoder = SegmentEncoder(word_tokenizer(), EncodingSpec(profile="clean", max_length=16, segment_token_types=False))
    sample = encode_one(encoder, prediction="w0", reference="w1")
    assert sample.token_type_ids == [0] * len(sample.input_ids)


@pytest.mark.parametrize(
    "lengths, budget, expected",
    [([3, 4], 10, [3, 4]), ([20, 3, 2], 10, [5, 3, 2]), ([8, 8], 9, [5, 4]), ([5, 5, 5], 3, [1, 1, 1]), ([0, 9], 4, [0, 4])],
)
def test_share_budget(lengths, budget, expected):
    assert share_budget(lengths, budget) == expected


def test_share_budget_properties():
    import random

    rng = random.Random(0)
    for _ in range(300):
        lengths = [rng.randint(0, 50) for _ in range(rng.randint(1, 3))]
        budget = rng.randint(0, 120)
        kept = share_budget(lengths, budget)
        assert sum(kept) == min(sum(lengths), budget)
        assert all(0 <= k <= n for k, n in zip(kept, lengths))
        cap = max(kept)
        assert all(k == n for k, n in zip(kept, lengths) if n < cap)  # only the longest give way


def test_collate_pads_right_with_mask():
    encoder = reference_encoder()
    samples = encoder.encode({"prediction": ["w0", "w0 w1 w2"], "reference": ["w3", "w4"]})
    batch = collate(samples, encoder.pad_id, encoder.pad_type_id)
    assert batch["input_ids"].tolist()[0] == [0, 10, 2, 2, 13, 2, 1, 1]
    assert batch["attention_mask"].tolist()[0] == [1] * 6 + [0, 0]
    assert batch["token_type_ids"].tolist()[0][-2:] == [1, 1]


def test_bad_spec_is_rejected():
    with pytest.raises(ValueError, match="profile"):
        EncodingSpec(profile="fancy")
    with pytest.raises(ValueError, match="separator_tokens"):
        EncodingSpec(separator_tokens=3)


def test_strip_code_comments_cleans_code_fields_only():
    from tests.tiny_model import build_tiny_tokenizer

    tokenizer = build_tiny_tokenizer()
    code = 'def f(x):\n    """doc"""\n    return x  # note\n'
    nl = "# keep this text\n"
    fields = {"prediction": [code], "reference": [code], "source": [nl]}
    stripped = SegmentEncoder(tokenizer, EncodingSpec(max_length=128, strip_code_comments=True)).encode(fields)[0]
    expected = SegmentEncoder(tokenizer, EncodingSpec(max_length=128)).encode(
        {"prediction": ["def f(x):\n    return x\n"], "reference": ["def f(x):\n    return x\n"], "source": [nl]})[0]
    assert stripped.input_ids == expected.input_ids and stripped.token_type_ids == expected.token_type_ids


def test_canonical_names_make_a_consistent_renaming_encode_the_same_in_both_code_fields():
    from tests.tiny_model import build_tiny_tokenizer

    tokenizer = build_tiny_tokenizer()
    code, renamed = "def f(x):\n    y = x + 1\n    return y\n", "def f(n):\n    m = n + 1\n    return m\n"
    nl = ["x plus one"]
    canonical = SegmentEncoder(tokenizer, EncodingSpec(max_length=128, canonical_names=True))
    plain = SegmentEncoder(tokenizer, EncodingSpec(max_length=128))
    assert canonical.encode({"prediction": [renamed], "reference": [renamed], "source": nl})[0].input_ids == \
        canonical.encode({"prediction": [code], "reference": [code], "source": nl})[0].input_ids
    assert plain.encode({"prediction": [renamed], "reference": [code], "source": nl})[0].input_ids != \
        plain.encode({"prediction": [code], "reference": [code], "source": nl})[0].input_ids
    expected = plain.encode({"prediction": ["def f(v0):\n    v1 = v0 + 1\n    return v1\n"],
                             "reference": ["def f(v0):\n    v1 = v0 + 1\n    return v1\n"], "source": nl})[0]
    assert canonical.encode({"prediction": [renamed], "reference": [code], "source": nl})[0].input_ids == expected.input_ids
