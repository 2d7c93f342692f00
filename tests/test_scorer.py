"""CodeScorer: order, batching, formats, validation, caching, dtypes, out-of-memory back-off, certain zeros."""

import warnings

import numpy as np
import pytest
import torch

from codescore_metric import CodeScorer, clear_model_cache, results
from tests.tiny_model import build_tiny_model, build_tiny_model_dir

PREDICTIONS = ["def add(a, b):\n    return a + b\n", "def add(a, b): return a * b", "print(1)", "class Stack: pass", "for i in range(3): pass"]
REFERENCES = ["def add(a, b):\n    return b + a\n"] * 2 + ["print(2)", "class Stack:\n    pass\n", "x = 1"]
SOURCES = ["Add two numbers.", "Add two numbers.", "Print two.", "A stack.", "Loop three times, doing nothing at all here."]


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return build_tiny_model_dir(tmp_path_factory.mktemp("scorer-model"))


@pytest.fixture(scope="module")
def scorer(model_dir):
    return CodeScorer(model_dir)


def test_scores_are_probabilities_in_input_order(scorer):
    result = scorer.score(PREDICTIONS, references=REFERENCES, sources=SOURCES, batch_size=2)
    one_by_one = [scorer.score([p], references=[r], sources=[s]).codescore[0] for p, r, s in zip(PREDICTIONS, REFERENCES, SOURCES)]
    assert result.codescore == pytest.approx(one_by_one, abs=1e-5)
    assert len(set(np.round(result.codescore, 6))) == len(PREDICTIONS)  # the inputs really differ
    for name in ("codescore", "executability", "passability"):
        assert all(0.0 <= value <= 1.0 for value in getattr(result, name))


def test_sample_mode_is_independent_of_batch_size_and_company(scorer):
    base = scorer.score(PREDICTIONS, references=REFERENCES, batch_size=32).codescore
    for batch_size in (1, 2, 3):
        assert scorer.score(PREDICTIONS, references=REFERENCES, batch_size=batch_size).codescore == pytest.approx(base, abs=1e-5)
    shuffled = [4, 2, 0, 3, 1]
    again = scorer.score([PREDICTIONS[i] for i in shuffled], references=[REFERENCES[i] for i in shuffled]).codescore
    assert again == pytest.approx([base[i] for i in shuffled], abs=1e-5)


def test_formats_read_different_fields(scorer):
    ref = scorer.score(PREDICTIONS, references=REFERENCES)
    nl = scorer.score(PREDICTIONS, sources=SOURCES)
    both = scorer.score(PREDICTIONS, references=REFERENCES, sources=SOURCES)
    assert (ref.input_format, nl.input_format, both.input_format) == ("ref", "nl", "ref_nl")
    assert ref.codescore != nl.codescore != both.codescore
    assert "fmt:nl" in nl.signature


def test_empty_prediction_scores_zero_and_blank_reference_is_fine(scorer):
    result = scorer.score(["", "   \n", "x = 1"], references=["a", "b", ""])
    assert result.codescore[:2] == [0.0, 0.0] and result.passability[:2] == [0.0, 0.0]
    assert result.certain == ["empty", "empty", None]
    assert 0 < result.codescore[2] < 1


def test_truncation_is_reported_per_field(scorer):
    result = scorer.score(["x = 1 + 2\n" * 100, "y = 2"], references=["z = 3", "w = 4"])
    assert result.truncated[0]["prediction"] > 0 and "reference" not in result.truncated[0]
    assert result.truncated[1] == {}
    assert result.records()[0]["truncated"] == result.truncated[0]
    assert "truncated" not in result.records()[1]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(predictions=["a", "b"], references=["a"]), r"references has 1 items but predictions has 2"),
        (dict(predictions=["a", None], references=["a", "b"]), r"predictions\[1\] is NoneType"),
        (dict(predictions=["a"], references=[3]), r"references\[0\] is int"),
        (dict(predictions="abc", references=["a"]), r"predictions must be a list of strings"),
        (dict(predictions=["a"], references=["a"], input_format="ref_nl"), r"needs sources"),
        (dict(predictions=["a"], references=["a"], input_format="nl"), r"does not read them"),
        (dict(predictions=["a"], references=["a"], input_format="python"), r"input_format 'python' is not known"),
        (dict(predictions=["a"], references=["a"], batch_size=0), r"batch_size must be a positive int"),
    ],
)
def test_bad_input_is_named(scorer, kwargs, message):
    with pytest.raises(ValueError, match=message):
        scorer.score(**kwargs)


def test_format_spellings(scorer):
    assert scorer.score(["a"], references=["b"], sources=["c"], input_format="Ref&NL").input_format == "ref_nl"
    assert scorer.score(["a"], sources=["c"], input_format="nl-only").input_format == "nl"


def test_models_are_cached_per_process(model_dir):
    first, second = CodeScorer(model_dir), CodeScorer.from_pretrained(str(model_dir))
    assert first.model is second.model
    assert CodeScorer(model_dir, dtype="bf16").model is not first.model
    clear_model_cache()
    assert CodeScorer(model_dir).model is not first.model


def test_bf16_is_close_to_fp32(model_dir):
    fp32 = CodeScorer(model_dir).score(PREDICTIONS, references=REFERENCES, sources=SOURCES)
    bf16 = CodeScorer(model_dir, dtype="bf16").score(PREDICTIONS, references=REFERENCES, sources=SOURCES)
    assert "dtype:bf16" in bf16.signature
    assert np.max(np.abs(np.array(fp32.codescore) - np.array(bf16.codescore))) < 0.02


def test_signature_names_version_model_and_settings(scorer, model_dir):
    from codescore_metric import __version__

    assert scorer.signature("ref") == (
        f"codescore|v:{__version__}|model:{model_dir.name}@local|fmt:ref|profile:clean|len:64|norm:sample|dtype:fp32|static:on"
    )


@pytest.mark.parametrize("setting, reading, same_as, marker", [
    ("strip_code_comments", 'def add(a, b):\n    """Add."""\n    # sum\n    return a + b  # done\n',
     "def add(a, b):\n    return a + b\n", "+nocomments"),
    ("canonical_names", "def add(x, y):\n    s = x + y\n    return s\n",
     "def add(a, b):\n    total = a + b\n    return total\n", "+canonical"),
    ("strip_annotations", "from typing import List\n\ndef add(a: int, b: int) -> int:\n    return a + b\n",
     "\ndef add(a, b):\n    return a + b\n", "+noannotations"),
])
def test_a_model_that_normalises_code_ignores_what_it_normalises_and_says_so(tmp_path, setting, reading, same_as, marker):
    from dataclasses import replace

    model, tokenizer = build_tiny_model()
    model.config = replace(model.config, **{setting: True})
    model.save_pretrained(tmp_path)
    tokenizer.save_pretrained(tmp_path)
    scorer = CodeScorer(tmp_path)
    normalised = scorer.score([reading], references=[reading]).codescore
    assert normalised == pytest.approx(scorer.score([same_as], references=[same_as]).codescore, abs=1e-6)
    assert f"|profile:clean{marker}|" in scorer.signature("ref")
    assert getattr(CodeScorer(tmp_path).config, setting)  # kept through save and load


def test_out_of_memory_halves_the_batch(model_dir, monkeypatch):
    scorer = CodeScorer(model_dir)
    expected = scorer.score(PREDICTIONS, references=REFERENCES).codescore
    forward = type(scorer.model).forward
    sizes = []

    def small_memory(self, input_ids, *args, **kwargs):
        sizes.append(input_ids.shape[0])
        if input_ids.shape[0] > 2:
            raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")
        return forward(self, input_ids, *args, **kwargs)

    monkeypatch.setattr(type(scorer.model), "forward", small_memory)
    assert scorer.score(PREDICTIONS, references=REFERENCES, batch_size=5).codescore == pytest.approx(expected, abs=1e-5)
    assert sizes == [5, 2, 2, 1]  # 5 fails; then at most 2 per forward for the rest of the call
    sizes.clear()
    assert scorer.score(PREDICTIONS * 2, references=REFERENCES * 2, batch_size=4).codescore == pytest.approx(expected * 2, abs=1e-5)
    assert sizes == [4, 2, 2, 2, 2, 2]


def test_other_runtime_errors_are_not_retried(model_dir, monkeypatch):
    scorer = CodeScorer(model_dir)

    def broken(self, *args, **kwargs):
        raise RuntimeError("shape mismatch")

    monkeypatch.setattr(type(scorer.model), "forward", broken)
    with pytest.raises(RuntimeError, match="shape mismatch"):
        scorer.score(["x = 1", "y = 2"], references=["c = 3", "d = 4"])


def test_device_and_dtype_errors(model_dir):
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="CUDA is not available"):
            CodeScorer(model_dir, device="cuda")
    with pytest.raises(ValueError, match="dtype 'int4' is not known; use 'fp32', 'bf16', 'fp16', 'int8' or 'int8-onnx'"):
        CodeScorer(model_dir, dtype="int4")
    with pytest.raises(ValueError, match="normalization"):
        CodeScorer(model_dir, normalization="layer")


def test_bert_family_encoder_with_single_separator(tmp_path):
    from transformers import BertConfig

    from codescore_metric.encoding import detect_separator_tokens
    from codescore_metric.modeling import UniCEConfig, UniCEModel
    from tests.test_encoding import word_tokenizer

    tokenizer = word_tokenizer(separators=1)
    encoder = BertConfig(vocab_size=len(tokenizer), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                         intermediate_size=32, max_position_embeddings=32, pad_token_id=1)
    config = UniCEConfig(encoder=encoder.to_dict(), max_length=32, separator_tokens=detect_separator_tokens(tokenizer),
                         head_hidden_sizes=[8])
    UniCEModel(config).save_pretrained(tmp_path)
    tokenizer.save_pretrained(tmp_path)
    scorer = CodeScorer(tmp_path, static_checks=False)  # "w1 w2 w3" is no Python
    result = scorer.score(["w1 w2 w3", "w4"], references=["w1 w2", "w5"], sources=["w9", "w8 w7"])
    assert len(scorer.model.mix.scalar_parameters) == 2 and config.separator_tokens == 1
    assert all(0 < value < 1 for value in result.codescore)


def test_no_samples_gives_an_empty_result(scorer):
    result = scorer.score([], references=[])
    assert len(result) == 0 and result.codescore == [] and np.isnan(result.mean()["codescore"])


BROKEN = ["def add(a, b)\n    return a + b\n", "    return a + b\n", "x = " + "(" * 100_000]
# Parse, but fail when compiled: a bare body without its indentation, a loop keyword outside a loop.
PARSE_BUT_DO_NOT_COMPILE = ["return a + b\n", "break\n"]


@pytest.fixture
def forward_sizes(monkeypatch):
    """Batch sizes seen by every UniCEModel forward pass during the test."""
    from codescore_metric.modeling import UniCEModel

    forward, sizes = UniCEModel.forward, []

    def counting(self, input_ids, *args, **kwargs):
        sizes.append(input_ids.shape[0])
        return forward(self, input_ids, *args, **kwargs)

    monkeypatch.setattr(UniCEModel, "forward", counting)
    return sizes


def test_code_that_does_not_compile_scores_zero_without_the_model(scorer, forward_sizes):
    valid = scorer.score(PREDICTIONS[:3], references=REFERENCES[:3]).codescore
    forward_sizes.clear()
    good, bad = list(zip(PREDICTIONS[:3], REFERENCES[:3])), [(BROKEN[0], "x"), ("", "x"), (BROKEN[1], "x"), (BROKEN[2], "x")]
    predictions, references = map(list, zip(bad[0], good[0], bad[1], bad[2], good[1], bad[3], good[2]))
    result = scorer.score(predictions, references=references)
    assert sum(forward_sizes) == 3  # only the three valid programs reach the model
    assert result.certain == ["syntax_error", None, "empty", "syntax_error", None, "syntax_error", None]
    for name in ("codescore", "executability", "passability"):
        assert [getattr(result, name)[i] for i in (0, 2, 3, 5)] == [0.0] * 4
    assert [result.codescore[i] for i in (1, 4, 6)] == pytest.approx(valid, abs=1e-5)  # order kept
    assert result.records()[0]["certain"] == "syntax_error" and "certain" not in result.records()[1]


def test_all_certain_input_needs_no_model_call(scorer, forward_sizes):
    seen = []
    result = scorer.score(["", "  ", *BROKEN], references=["x"] * 5, on_progress=lambda done, total: seen.append((done, total)))
    assert forward_sizes == [] and seen == [(5, 5)]
    assert result.codescore == result.executability == result.passability == [0.0] * 5
    assert result.certain == ["empty"] * 2 + ["syntax_error"] * 3 and result.truncated == [{}] * 5


def test_the_reference_program_scores_one_without_the_model(scorer, model_dir, forward_sizes):
    reference = "def add(a, b):\n    total = a + b\n    return total\n"
    restyled = 'def add(x, y):\n  """Sum."""\n  s = x + y  # add\n\n  return s\n'
    typed = "from typing import Any\n\ndef add(x: Any, y: Any) -> Any:\n    s: Any = x + y\n    return s\n"
    one_edit = restyled.replace("x + y", "x - y")
    result = scorer.score([reference, restyled, typed, one_edit], references=[reference] * 4, sources=["Add."] * 4)
    assert sum(forward_sizes) == 1  # only the edited program reaches the model
    assert result.certain == ["same_as_reference"] * 3 + [None]
    for name in ("codescore", "executability", "passability"):
        assert getattr(result, name)[:3] == [1.0] * 3 and getattr(result, name)[3] < 1.0
    typed_edit = typed.replace("x + y", "x - y")
    unimported = typed.replace("from typing import Any\n", "")  # NameError unless the harness provides Any
    assert scorer.score([typed_edit, unimported], references=[reference] * 2, sources=["Add."] * 2).certain == [None] * 2
    typed_reference = "from typing import List\n\ndef total(xs: List[int]) -> int:\n    return sum(xs)\n"
    assert scorer.score([typed_reference.replace("from typing import List\n", "")],
                        references=[typed_reference]).certain == [None]  # it drops the import the reference needs
    assert scorer.score([reference], sources=["Add."]).certain == [None]  # NL-only: no reference to compare with
    assert CodeScorer(model_dir, static_checks=False).score([reference], references=[reference]).certain == [None]


def test_a_function_that_cannot_take_the_references_arguments_scores_zero(scorer, forward_sizes):
    reference = "def count_pairs(arr, n):\n    return n * (n - 1) // 2\n"
    predictions = ["def count_pairs(arr):\n    n = len(arr)\n    return n * (n - 1) // 2\n",  # TypeError on each test
                   "def count_pairs(arr, n=None):\n    n = len(arr)\n    return n * (n - 1) // 2\n"]
    result = scorer.score(predictions, references=[reference] * 2, sources=["Count pairs."] * 2)
    assert result.certain == ["wrong_arity", None] and sum(forward_sizes) == 1
    assert [result.codescore[0], result.executability[0], result.passability[0]] == [0.0] * 3
    assert "TypeError" in results.reading(0.0, 0.0, 0.0, certain="wrong_arity")


def test_a_function_returning_nothing_scores_zero_but_its_executability_is_estimated(scorer, forward_sizes):
    reference = "def area(w, h):\n    return w * h\n"
    predictions = ["def area(w, h):\n    print(w * h)\n",  # prints instead of returning
                   "def area(w, h):\n    return w * h + 0\n",  # returns a value: estimated
                   "def area(w, h):\n    area = w * h\n"]  # forgets the return
    result = scorer.score(predictions, references=[reference] * 3, sources=["Area of a rectangle."] * 3)
    assert result.certain == ["no_return_value", None, "no_return_value"]
    assert sum(forward_sizes) == 3  # Executability still needs the model
    assert [result.codescore[0], result.passability[0], result.codescore[2], result.passability[2]] == [0.0] * 4
    alone = scorer.score(predictions, sources=["Area of a rectangle."] * 3)  # NL-only: no reference, all estimated
    assert alone.certain == [None] * 3
    off = CodeScorer.from_model(scorer.model, scorer.tokenizer, static_checks=False)
    estimate = off.score(predictions[:1], references=[reference], sources=["Area of a rectangle."])
    assert result.executability[0] == pytest.approx(estimate.executability[0], abs=1e-6) and estimate.codescore[0] > 0.0
    reading = results.reading(0.0, 0.8, 0.0, certain="no_return_value")
    assert "returns nothing" in reading and "80%" in reading


def test_a_function_returning_another_kind_of_value_scores_zero_but_its_executability_is_estimated(scorer, forward_sizes):
    reference = "def union_elements(a, b):\n    res = tuple(set(a + b))\n    return (res)\n"
    predictions = ["def union_elements(a, b):\n    return sorted(set(a) | set(b))\n",  # a list: never equal to a tuple
                   "def union_elements(a, b):\n    return tuple(sorted(set(a) | set(b)))\n"]  # a tuple: estimated
    result = scorer.score(predictions, references=[reference] * 2, sources=["Union of two tuples."] * 2)
    assert result.certain == ["other_return_kind", None] and sum(forward_sizes) == 2
    assert [result.codescore[0], result.passability[0]] == [0.0, 0.0] and result.executability[0] > 0.0
    off = CodeScorer.from_model(scorer.model, scorer.tokenizer, static_checks=False)
    assert off.score(predictions[:1], references=[reference], sources=["Union."]).certain == [None]
    reading = results.reading(0.0, 0.8, 0.0, certain="other_return_kind")
    assert "another kind of value" in reading and "80%" in reading


def test_every_certain_reason_has_a_score_and_a_reading():
    from codescore_metric.results import CERTAIN_READINGS
    from codescore_metric.scorer import CERTAIN_SCORES

    assert set(CERTAIN_SCORES) == set(CERTAIN_READINGS)


def test_static_checks_off_lets_the_model_score_broken_code(model_dir, forward_sizes):
    scorer = CodeScorer(model_dir, static_checks=False)
    result = scorer.score(BROKEN[:2] + [""], references=["x"] * 3)
    assert sum(forward_sizes) == 2 and result.certain == [None, None, "empty"]
    assert all(0 < value < 1 for value in result.codescore[:2]) and result.codescore[2] == 0.0
    assert scorer.signature("ref").endswith("|static:off")


def test_code_with_a_syntax_warning_still_compiles(scorer):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert scorer.score(["import re\nPATTERN = re.compile('\\d+')\n"], references=["x"]).certain == [None]


def test_static_checks_defaults_off_for_the_authors_parity_setting(model_dir, tmp_path):
    assert CodeScorer(model_dir).static_checks
    assert not CodeScorer(model_dir, normalization="batch").static_checks
    assert "|norm:batch|dtype:fp32|static:off" in CodeScorer(model_dir, normalization="batch").signature()
    assert CodeScorer(model_dir, normalization="batch", static_checks=True).static_checks
    assert not CodeScorer(build_tiny_model_dir(tmp_path, profile="reference")).static_checks
    model, tokenizer = build_tiny_model(normalization="batch")
    assert CodeScorer.from_model(model, tokenizer).static_checks  # training and validation: always on
    assert not CodeScorer.from_model(model, tokenizer, static_checks=False).static_checks
    with pytest.raises(ValueError, match="static_checks must be True, False or None"):
        CodeScorer(model_dir, static_checks="no")


def test_batch_statistics_keep_certain_samples_in_their_batch(model_dir, forward_sizes):
    scorer = CodeScorer(model_dir, normalization="batch", static_checks=True)
    result = scorer.score([BROKEN[0], "x = 1", ""], references=["a", "bb", "ccc"], batch_size=2)  # batches [0, 1], [2]
    assert forward_sizes == [2]  # the batch without an estimated sample is not run
    assert result.certain == ["syntax_error", None, "empty"] and result.codescore[0] == result.codescore[2] == 0.0
    assert 0 < result.codescore[1] < 1


def test_a_prediction_defining_none_of_the_references_functions_scores_zero(scorer, forward_sizes):
    reference = "def helper(x):\n    return x\n\ndef add(a, b):\n    return helper(a) + b\n"
    predictions = ["print(add(1, 2))\n",  # only calls it: cannot pass tests of add()
                   "def add(a, b):\n    return a + b\n",  # defines one of them: estimated
                   "from operator import add\n",  # binds the name by import: estimated
                   "add = lambda a, b: a + b\n"]  # binds it by assignment: estimated
    result = scorer.score(predictions, references=[reference] * 4)
    assert result.certain == ["missing_definition", None, None, None]
    assert [result.codescore[0], result.executability[0], result.passability[0]] == [0.0, 0.0, 0.0]
    assert sum(forward_sizes) == 3
    # NL-only has no reference to compare definitions with; that add() is never bound is still known
    assert scorer.score(predictions[:1], sources=["Add two numbers."]).certain == ["unbound_name"]
    off = CodeScorer.from_model(scorer.model, scorer.tokenizer, static_checks=False)
    assert off.score(predictions[:1], references=[reference]).certain == [None]


def test_a_prediction_reading_a_name_it_never_binds_scores_zero(scorer, forward_sizes):
    reference = "import math\n\ndef hyp(a, b):\n    return math.sqrt(a * a + b * b)\n"
    predictions = ["def hyp(a, b):\n    return math.sqrt(a * a + b * b)\n",  # the import forgotten
                   "def hyp(a, b):\n    return sqrt(a * a + b * b)\n",  # a typo'd / never-imported function
                   "from math import sqrt\ndef hyp(a, b):\n    return sqrt(a * a + b * b)\n",
                   "def hyp(a: float, b: float) -> Optional[float]:\n    return (a * a + b * b) ** 0.5\n",  # typing: harness
                   "def hyp(a, b):\n    return root(a * a + b * b)\n\ndef root(x):\n    return x ** 0.5\n"]  # bound later
    result = scorer.score(predictions, references=[reference] * 5, sources=["Hypotenuse."] * 5)
    assert result.certain == ["unbound_name", "unbound_name", None, None, None]
    assert [result.codescore[0], result.executability[0], result.passability[0]] == [0.0, 0.0, 0.0]
    assert sum(forward_sizes) == 3
    # a name the reference reads unbound too is one its tests' harness provides
    harness_math = "def hyp(a, b):\n    return math.hypot(a, b)\n"
    assert scorer.score(predictions[:1], references=[harness_math]).certain == [None]
    assert "NameError" in results.reading(0.0, 0.0, 0.0, certain="unbound_name")


def test_references_and_sources_are_keyword_only(scorer):
    # score([code], [task_text]) must not silently run Ref-only with the task text as the reference
    with pytest.raises(TypeError, match="positional argument"):
        scorer.score(["def f():\n    return 1\n"], ["Return one."])
    import inspect

    assert list(inspect.signature(CodeScorer.from_pretrained).parameters)[:2] == ["checkpoint", "revision"]


def test_code_that_parses_but_does_not_compile_also_scores_zero(scorer, forward_sizes):
    result = scorer.score(PARSE_BUT_DO_NOT_COMPILE + ["x = 1\n"], references=["y = 2"] * 3)
    assert result.certain == ["syntax_error", "syntax_error", None] and sum(forward_sizes) == 1
