"""`codescore.py` loaded through `evaluate.load` by path, offline, on a tiny model."""

import doctest
import inspect
import os
import pickle
import threading
from pathlib import Path

import evaluate
import pytest
from codebleu import calc_codebleu
from evaluate.loading import get_imports
from sacrebleu.metrics import BLEU

from codescore_metric import CodeScorer
from codescore_metric.quantization import INT8_SIGNATURE_NAME

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = str(ROOT / "codescore.py")

PREDS = [
    "def add(a, b):\n    return a + b\n",
    "def add(a, b):\n    return a - b\n",
    "def add(a, b)\n    return a +\n",
    "",
]
REFS = ["def add(a, b):\n    return a + b\n"] * len(PREDS)
SRCS = ["Write a function add(a, b) that returns the sum of a and b."] * len(PREDS)
INPUTS = {"ref": dict(references=REFS), "nl": dict(sources=SRCS), "ref_nl": dict(references=REFS, sources=SRCS)}
FLAT = {"codescore", "executability", "passability"}
BASELINES = {"bleu", "codebleu", "exact_match"}


def load(config=None, checkpoint=None, **kwargs):
    return evaluate.load(SCRIPT, config, checkpoint=str(checkpoint), **kwargs)


def test_offline_environment_is_set():
    for name in ("HF_HUB_OFFLINE", "HF_EVALUATE_OFFLINE", "HF_DATASETS_OFFLINE"):
        assert os.environ[name] == "1"


def test_top_level_imports_pass_evaluates_import_scan():
    imports = get_imports(SCRIPT)
    assert {(kind, name) for kind, name, _, _ in imports} == {
        ("library", "evaluate"),
        ("library", "datasets"),
        ("library", "codescore_metric"),
    }
    hints = {name: hint for _, name, hint, _ in imports}
    assert hints["codescore_metric"] == "codescore-metric"  # evaluate's "pip install ..." hint
    for _, name, _, _ in imports:
        __import__(name)  # evaluate imports each one at load time


def test_compute_has_no_var_keyword():
    metric_cls = type(evaluate.load(SCRIPT, checkpoint="unused"))
    params = inspect.signature(metric_cls._compute).parameters.values()
    assert all(p.kind is not inspect.Parameter.VAR_KEYWORD for p in params)


@pytest.mark.parametrize("config", ["ref", "nl", "ref_nl"])
def test_each_config_matches_scorer_and_baselines(config, tiny_model_dir):
    metric = load(config, tiny_model_dir)
    assert metric._scorer is None  # lazy: nothing loaded before the first compute
    result = metric.compute(predictions=PREDS, **INPUTS[config])

    direct = CodeScorer(checkpoint=tiny_model_dir).score(PREDS, input_format=config, **INPUTS[config])
    for key in FLAT:
        assert result[f"{key}_per_sample"] == pytest.approx(getattr(direct, key), abs=1e-6)
        assert result[key] == pytest.approx(sum(getattr(direct, key)) / len(PREDS), abs=1e-6)
        assert isinstance(result[key], float) and 0.0 <= result[key] <= 1.0
    assert result["signature"] == direct.signature and f"fmt:{config}" in result["signature"]
    assert result["truncated"] == direct.truncated  # the tiny model reads 64 tokens: ref_nl cuts
    assert result["certain"] == direct.certain and result["certain"][3] == "empty"
    if config != "nl":  # the copy of the reference and the syntax error are decided without the model
        assert result["certain"][0] == "same_as_reference" and result["certain"][2] == "syntax_error"
    assert result["num_truncated"] == sum(1 for t in direct.truncated if t)

    if config == "nl":  # no references: no lexical baselines
        assert not BASELINES & set(result)
        return
    assert result["bleu"] == pytest.approx(BLEU(tokenize="13a").corpus_score(PREDS, [REFS]).score / 100)
    sentence = BLEU(tokenize="13a", effective_order=True)
    assert result["bleu_per_sample"] == pytest.approx([sentence.sentence_score(p, [r]).score / 100 for p, r in zip(PREDS, REFS)])
    assert result["codebleu"] == pytest.approx(calc_codebleu(REFS, PREDS, lang="python")["codebleu"])
    assert result["codebleu_per_sample"] == pytest.approx(
        [calc_codebleu([r], [p], lang="python")["codebleu"] for p, r in zip(PREDS, REFS)]
    )
    assert result["exact_match_per_sample"] == [1.0, 0.0, 0.0, 0.0]


def test_default_config_is_ref_and_works_in_combine(tiny_model_dir):
    metric = load(None, tiny_model_dir)
    assert metric.config_name == "default"
    assert set(metric.features) == {"predictions", "references"}
    combined = evaluate.combine([metric]).compute(predictions=PREDS, references=REFS)
    assert "fmt:ref|" in combined["signature"] and set(combined) >= FLAT


EXACT_MATCH_SCRIPT = """
import datasets
import evaluate


class ExactMatch(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(description="", citation="", inputs_description="",
                                   features=datasets.Features({"predictions": datasets.Value("string"),
                                                               "references": datasets.Value("string")}))

    def _compute(self, predictions, references):
        return {"exact_match": sum(p == r for p, r in zip(predictions, references)) / len(predictions)}
"""


def test_combine_with_another_metric_takes_codescore_options_at_load_time(tiny_model_dir, tmp_path):
    script = tmp_path / "exact_match_here.py"
    script.write_text(EXACT_MATCH_SCRIPT)
    other = evaluate.load(str(script))
    with pytest.raises(TypeError, match="codebleu"):  # combine passes compute keywords to every metric
        evaluate.combine([other, load("ref", tiny_model_dir)]).compute(predictions=PREDS, references=REFS, codebleu=False)
    quiet = load("ref", tiny_model_dir, codebleu=False, return_per_sample=False)
    combined = evaluate.combine([other, quiet]).compute(predictions=PREDS, references=REFS)
    # both report exact_match, so combine prefixes it with each module's name
    assert combined["exact_match_exact_match"] == 0.25 and combined["code_score_exact_match"] == 0.25
    assert "codebleu" not in combined and "codescore_per_sample" not in combined
    assert "bleu" in combined and "codebleu" in quiet.compute(predictions=PREDS, references=REFS, codebleu=True)


def test_add_batch_and_add_then_compute(tiny_model_dir):
    metric = load("ref_nl", tiny_model_dir)
    metric.add_batch(predictions=PREDS[:2], references=REFS[:2], sources=SRCS[:2])
    for p, r, s in zip(PREDS[2:], REFS[2:], SRCS[2:]):
        metric.add(prediction=p, reference=r, sources=s)  # evaluate keeps extra feature names plural
    result = metric.compute()
    once = load("ref_nl", tiny_model_dir).compute(predictions=PREDS, references=REFS, sources=SRCS)
    assert result["codescore_per_sample"] == pytest.approx(once["codescore_per_sample"], abs=1e-6)
    assert result["bleu"] == pytest.approx(once["bleu"])


def test_flat_results_for_compute_metrics(tiny_model_dir):
    result = load("ref", tiny_model_dir).compute(predictions=PREDS, references=REFS, return_per_sample=False)
    assert set(result) == FLAT | BASELINES | {"num_truncated", "signature"}
    assert all(isinstance(v, (float, int)) for k, v in result.items() if k != "signature")


def test_compute_kwargs_switch_baselines_off(tiny_model_dir):
    result = load("ref", tiny_model_dir).compute(
        predictions=PREDS, references=REFS, bleu=False, codebleu=False, batch_size=1, return_per_sample=False
    )
    assert "bleu" not in result and "codebleu" not in result and "codescore" in result


def test_init_kwargs_reach_the_scorer(tiny_model_dir):
    metric = load("ref", tiny_model_dir, device="cpu", dtype="bfloat16", batch_size=2, static_checks=False)
    result = metric.compute(predictions=PREDS, references=REFS, return_per_sample=False)
    assert "dtype:bf16" in result["signature"] and result["signature"].endswith("|static:off")
    assert metric._batch_size == 2 and str(metric._scorer.device) == "cpu"


def test_int8_through_the_metric(tiny_model_dir):
    result = load("ref", tiny_model_dir, device="cpu", dtype="int8").compute(
        predictions=PREDS, references=REFS, bleu=False, codebleu=False, return_per_sample=False)
    assert f"|dtype:{INT8_SIGNATURE_NAME}|" in result["signature"]
    assert result["codescore"] == pytest.approx(CodeScorer(tiny_model_dir, dtype="int8").score(PREDS, references=REFS).mean()["codescore"])


def test_model_loads_once_across_instances(tiny_model_dir):
    a, b = load("ref", tiny_model_dir), load("nl", tiny_model_dir)
    a.compute(predictions=PREDS[:1], references=REFS[:1])
    b.compute(predictions=PREDS[:1], sources=SRCS[:1])
    assert a._scorer.model is b._scorer.model


def test_missing_sources_for_ref_nl_is_a_clear_error(tiny_model_dir):
    metric = load("ref_nl", tiny_model_dir)
    with pytest.raises(ValueError, match=r"config 'ref_nl' needs .*missing: sources"):
        metric.compute(predictions=PREDS, references=REFS)
    with pytest.raises(ValueError, match=r"missing: references"):
        load("ref", tiny_model_dir).compute(predictions=PREDS)


def test_unknown_config_is_a_clear_error(tiny_model_dir):
    with pytest.raises(ValueError, match="unknown CodeScore config 'nl_only'"):
        load("nl_only", tiny_model_dir)


def test_bad_values_raise(tiny_model_dir):
    metric = load("ref", tiny_model_dir)
    with pytest.raises(ValueError, match="no samples"):
        metric.compute(predictions=[], references=[])
    with pytest.raises(ValueError, match="no samples"):
        metric.compute()
    with pytest.raises(ValueError, match=r"predictions\[1\] is NoneType, not str; use '' for an empty text"):
        metric.compute(predictions=["x", None], references=["x", "y"])
    with pytest.raises(ValueError, match=r"references\[0\] is int, not str; convert it to str"):
        metric.compute(predictions=["x"], references=[3])
    with pytest.raises(ValueError, match=r"predictions must be a list of strings, one per sample, got str \(wrap"):
        metric.compute(predictions="def f(): pass", references=["x"])
    with pytest.raises(ValueError, match=r"config 'ref' needs predictions, references; it does not read sources"):
        metric.compute(predictions=["x"], references=["x"], sources=["x"])


def test_add_batch_and_add_check_their_inputs(tiny_model_dir):
    metric = load("ref_nl", tiny_model_dir)
    with pytest.raises(ValueError, match=r"config 'ref_nl' needs .*missing: sources"):
        metric.add_batch(predictions=PREDS[:1], references=REFS[:1])
    with pytest.raises(ValueError, match=r"sources\[0\] is NoneType"):
        metric.add_batch(predictions=PREDS[:1], references=REFS[:1], sources=[None])
    with pytest.raises(ValueError, match="add\\(\\) takes one sample: predictions must be a string, got list"):
        metric.add(prediction=PREDS[:1], reference=REFS[0], sources=SRCS[0])
    metric.add(prediction=PREDS[0], reference=REFS[0], sources=SRCS[0])  # nothing bad was kept
    assert len(metric.compute(bleu=False, codebleu=False)["codescore_per_sample"]) == 1


def test_pickle_drops_the_model(tiny_model_dir):
    metric = load("ref", tiny_model_dir, keep_in_memory=True)
    metric.compute(predictions=PREDS[:1], references=REFS[:1])
    clone = pickle.loads(pickle.dumps(metric))
    assert clone._scorer is None
    assert clone.compute(predictions=PREDS[:1], references=REFS[:1])["codescore"] == pytest.approx(
        metric.compute(predictions=PREDS[:1], references=REFS[:1])["codescore"]
    )


def test_distributed_two_processes_only_rank_zero_scores(tiny_model_dir, tmp_path):
    metrics = [
        load("ref_nl", tiny_model_dir, num_process=2, process_id=rank, experiment_id="dist-test", cache_dir=str(tmp_path))
        for rank in (0, 1)
    ]
    halves = [slice(0, 2), slice(2, 4)]
    results, errors = [None, None], []

    def run(rank):
        try:
            m, part = metrics[rank], halves[rank]
            m.add_batch(predictions=PREDS[part], references=REFS[part], sources=SRCS[part])
            results[rank] = m.compute()
        except Exception as err:  # surfaced below
            errors.append(err)

    threads = [threading.Thread(target=run, args=(rank,)) for rank in (1, 0)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors
    assert results[1] is None and metrics[1]._scorer is None  # rank 1 never loaded the model
    single = load("ref_nl", tiny_model_dir).compute(predictions=PREDS, references=REFS, sources=SRCS)
    assert results[0]["codescore_per_sample"] == pytest.approx(single["codescore_per_sample"], abs=1e-6)


def test_kwargs_description_example_runs(tiny_model_dir, monkeypatch):
    monkeypatch.chdir(ROOT)  # the example loads "codescore.py" by relative path
    metric = load("ref", tiny_model_dir)
    docstring = metric.info.inputs_description
    test = doctest.DocTestParser().get_doctest(docstring, {"checkpoint": str(tiny_model_dir)}, "example", None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    summary = runner.summarize(verbose=False)
    assert summary.attempted >= 4 and summary.failed == 0
