import pytest

from codescore_metric.code_distance import DISTANCE_BUCKETS, UNREADABLE, code_tokens, distance_bucket, token_distance

REFERENCE = "def total(xs):\n    acc = 0\n    for x in xs:\n        acc += x\n    return acc\n"


def test_comments_docstrings_layout_and_local_names_are_no_distance():
    restyled = ('def total(items):\n  """Add them up."""\n  # running sum\n  s = 0\n\n  for item in items:  # each\n'
                '      s += item\n  return (s)\n')
    assert token_distance(restyled, REFERENCE) == 2  # the parentheses around the returned value are tokens
    assert token_distance(restyled.replace("return (s)", "return s"), REFERENCE) == 0


@pytest.mark.parametrize("edit, distance", [
    (("acc = 0", "acc = 1"), 1),
    (("acc += x", "acc -= x"), 1),
    (("for x in xs:", "for x in sorted(xs):"), 3),
    (("    return acc\n", ""), 3),  # return, acc and the NEWLINE token
])
def test_an_edit_counts_the_tokens_it_changes(edit, distance):
    edited = REFERENCE.replace(*edit)
    assert token_distance(edited, REFERENCE) == distance == token_distance(REFERENCE, edited)


def test_the_function_name_and_a_keyword_passed_parameter_are_kept():
    assert token_distance(REFERENCE.replace("total", "add_up"), REFERENCE) == 1
    caller = "def f(a, b):\n    return a - b\n\nx = f(b=1, a=2)\n"
    assert token_distance(caller.replace("a", "c"), caller) == 3  # keyword-passed, so not renamed


def test_buckets_and_code_that_does_not_tokenize():
    assert DISTANCE_BUCKETS[distance_bucket(REFERENCE, REFERENCE)] == "same"
    assert DISTANCE_BUCKETS[distance_bucket(REFERENCE.replace("acc = 0", "acc = 1"), REFERENCE)] == "1-2"
    assert DISTANCE_BUCKETS[distance_bucket(REFERENCE.replace("for x in xs:", "for x in sorted(xs):"), REFERENCE)] == "3-6"
    assert DISTANCE_BUCKETS[distance_bucket("def total(xs):\n    acc = sum(xs)\n    return acc\n", REFERENCE)] == "7-15"
    assert DISTANCE_BUCKETS[distance_bucket("def total(xs):\n    return sum(xs)\n", REFERENCE)] == "16-40"
    long = REFERENCE + "".join(f"\ny{i} = total([{i}, {i + 1}])" for i in range(20))
    assert token_distance(long, REFERENCE) > 40 and DISTANCE_BUCKETS[distance_bucket(long, REFERENCE)] == "over-40"
    assert token_distance("def total(xs:\n", REFERENCE) is None
    assert distance_bucket("def total(xs:\n", REFERENCE) == distance_bucket(REFERENCE, "x = '''") == UNREADABLE


def test_far_apart_lengths_are_not_aligned_but_still_over_the_last_bound():
    junk = "x = 1\n" * 5000
    assert len(code_tokens(junk)) == 4 * 5000  # x, =, 1 and NEWLINE on each line
    assert token_distance(junk, REFERENCE) == 4 * 5000 - len(code_tokens(REFERENCE))


def test_distance_tokens_start_the_generated_code_when_a_reference_is_read(tmp_path):
    from transformers import BertTokenizerFast

    from codescore_metric.encoding import EncodingSpec, SegmentEncoder

    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + [f"[unused{i}]" for i in range(13)] + ["return", "a", "b", "+", "-"]
    (tmp_path / "vocab.txt").write_text("\n".join(words) + "\n")
    tokenizer = BertTokenizerFast(str(tmp_path / "vocab.txt"), do_lower_case=True)
    spec = EncodingSpec(max_length=64, separator_tokens=1, distance_tokens=tuple(f"[unused{i}]" for i in range(6, 13)))
    encoder = SegmentEncoder(tokenizer, spec)
    one_edit = encoder.encode({"prediction": ["return a - b"], "reference": ["return a + b"], "source": ["a"]})[0]
    assert tokenizer.convert_ids_to_tokens(one_edit.input_ids) == [
        "[CLS]", "[unused7]", "return", "a", "-", "b", "[SEP]", "return", "a", "+", "b", "[SEP]", "a", "[SEP]"]
    same = encoder.encode({"prediction": ["return a + b"], "reference": ["return a + b"]})[0]
    assert tokenizer.convert_ids_to_tokens(same.input_ids)[1] == "[unused6]"
    broken = encoder.encode({"prediction": ["return (a"], "reference": ["return a + b"]})[0]
    assert tokenizer.convert_ids_to_tokens(broken.input_ids)[1] == "[unused12]"
    alone = encoder.encode({"prediction": ["return a - b"], "source": ["a"]})[0]
    assert tokenizer.convert_ids_to_tokens(alone.input_ids)[:2] == ["[CLS]", "return"]  # nothing to measure against
    with pytest.raises(ValueError, match="distance_tokens needs one token for each of same, 1-2"):
        EncodingSpec(distance_tokens=("[unused6]",))


def test_a_model_trained_with_distance_tokens_keeps_them_through_save_and_load(tmp_path):
    from transformers import BertConfig, BertModel, BertTokenizerFast

    from codescore_metric import CodeScorer
    from codescore_metric.training.backbone import model_from_backbone

    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + [f"[unused{i}]" for i in range(13)] + ["def", "f", "return", "a", "+", "-", "(", ")"]
    backbone = tmp_path / "backbone"
    backbone.mkdir()
    (backbone / "vocab.txt").write_text("\n".join(words) + "\n")
    BertTokenizerFast(str(backbone / "vocab.txt"), do_lower_case=True).save_pretrained(backbone)
    BertModel(BertConfig(vocab_size=len(words), hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=32,
                         max_position_embeddings=64)).save_pretrained(backbone)
    model, tokenizer = model_from_backbone(str(backbone), max_length=64, head_hidden_sizes=[8], layout_tokens=True, distance_tokens=True)
    assert model.config.distance_tokens == [f"[unused{i}]" for i in range(6, 13)]
    model.save_pretrained(tmp_path / "model")
    tokenizer.save_pretrained(tmp_path / "model")
    scorer = CodeScorer(tmp_path / "model")
    assert scorer.config.encoding_spec.distance_tokens == tuple(model.config.distance_tokens)
    assert "+layout+distance|" in scorer.signature("ref")
    result = scorer.score(["def f(a):\n    return a - 1\n"], references=["def f(a):\n    return a + 1\n"])
    assert result.certain == [None] and 0 < result.codescore[0] < 1
