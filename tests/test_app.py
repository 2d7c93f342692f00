"""The Gradio app, in-process through gradio_client, and the result helpers it relies on (codescore_metric.results)."""

import json
import math

import pytest

from codescore_metric import CodeScorer, baselines, results

TASK = "Write a function add(a, b) that returns the sum of a and b."
REF = "def add(a, b):\n    return a + b\n"
GEN = "def add(a, b):\n    return a - b\n"


@pytest.fixture(scope="module")
def scorer(tiny_model_dir):
    return CodeScorer(checkpoint=tiny_model_dir)


# --------------------------------------------------------------------------- results (no gradio)
@pytest.mark.parametrize(
    "scores, start",
    [
        ((0.9, 0.95, 0.85), "Likely correct"),
        ((0.5, 0.9, 0.2), "Partly correct"),
        ((0.1, 0.8, 0.05), "Probably wrong"),
        ((0.2, 0.3, 0.1), "Likely broken"),
        ((0.9, 0.3, 0.85), "Mixed signals"),
    ],
)
def test_reading_is_plain_language(scores, start):
    text = results.reading(*scores)
    assert text.startswith(start) and "not executed" in text
    assert f"{round(100 * scores[2])}%" in text  # passability as a percentage


def test_reading_mentions_truncation_and_rejects_bad_numbers():
    assert "12 tokens of source dropped" in results.reading(0.5, 0.9, 0.5, truncated={"source": 12})
    assert results.truncation_note([{}, {"source": 3}, {"reference": 2, "source": 1}]).startswith("2 of 3 sample(s)")
    assert results.truncation_note([{}, {}]) == ""
    with pytest.raises(ValueError, match="codescore must be a number in"):
        results.reading(float("nan"), 0.5, 0.5)


def test_reading_says_when_a_zero_was_certain_not_estimated(scorer):
    assert results.reading(0.0, 0.0, 0.0, certain="syntax_error").startswith("Certainly fails: the code does not compile")
    with pytest.raises(ValueError, match="certain must be one of"):
        results.reading(0.0, 0.0, 0.0, certain="unknown")
    out = results.score_single(scorer, "def f(:\n", "def f(x):\n    return x\n", "Return x.", "ref_nl")
    assert out["codescore"] == 0.0 and "not estimated" in out["reading"]


def test_score_single_matches_scorer_and_baselines(scorer):
    out = results.score_single(scorer, GEN, REF, TASK, "ref_nl")
    direct = scorer.score([GEN], references=[REF], sources=[TASK], input_format="ref_nl")
    for key in results.SCORE_KEYS:
        assert out[key] == pytest.approx(getattr(direct, key)[0])
    assert out["bleu"] == pytest.approx(baselines.sentence_bleu([GEN], [REF])[0])
    assert out["codebleu"] == pytest.approx(baselines.sentence_codebleu([GEN], [REF])[0])
    assert out["signature"] == direct.signature
    nl_only = results.score_single(scorer, GEN, "", TASK, "nl")
    assert nl_only["bleu"] is None and nl_only["codebleu"] is None
    with pytest.raises(ValueError, match="Enter the reference code"):
        results.score_single(scorer, GEN, "  ", TASK, "ref")


def test_score_records_reports_progress_per_batch(scorer, tmp_path):
    lines = [json.dumps({"generated_code": g, "golden_code": REF, "source": TASK, "id": i}) for i, g in enumerate([GEN, REF, ""])]
    path = tmp_path / "in.jsonl"
    path.write_text("\n".join(lines) + "\n\n", encoding="utf-8")
    records = results.load_records(path)
    seen = []
    scored, summary = results.score_records(scorer, records, "ref_nl", batch_size=2, on_progress=lambda d, t: seen.append((d, t)))
    assert seen == [(1, 3), (3, 3)]  # the empty prediction is done without the model
    direct = scorer.score([GEN, REF, ""], references=[REF] * 3, sources=[TASK] * 3, input_format="ref_nl")
    assert [r["codescore"] for r in scored] == pytest.approx(direct.codescore, abs=1e-6)
    assert [r["id"] for r in scored] == [0, 1, 2]  # input fields are kept, order too
    assert summary["codescore"] == pytest.approx(sum(direct.codescore) / 3, abs=1e-6)
    assert not any(k.endswith("_per_sample") for k in summary)
    assert scored[1]["exact_match"] == 1.0 and scored[0]["exact_match"] == 0.0


def test_jsonl_errors_name_the_line_and_field(scorer, tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"a": 1}\n{oops\n[1]\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"2 bad line\(s\)(.|\n)*bad.jsonl:2: not valid JSON(.|\n)*bad.jsonl:3: expected a JSON object"):
        results.load_records(path)
    with pytest.raises(ValueError, match="record 1 has no 'source' field"):
        results.score_records(scorer, [{"generated_code": GEN, "golden_code": REF}], "ref_nl")
    with pytest.raises(ValueError, match="no records"):
        results.score_records(scorer, [], "ref")


# --------------------------------------------------------------------------- the app
@pytest.fixture(scope="module")
def served(scorer):
    from gradio_client import Client

    import app

    demo = app.build_demo(scorer)
    _, url, _ = demo.launch(server_name="127.0.0.1", server_port=None, prevent_thread_lock=True, quiet=True)
    try:
        yield app, Client(url, verbose=False)
    finally:
        demo.close()


def _model_label(client):
    info = client.view_api(print_info=False, return_format="dict")
    params = {p["parameter_name"]: p for p in info["named_endpoints"]["/score"]["parameters"]}
    assert set(params) == {"generated", "reference", "source", "input_format", "model"}
    return params["model"]["parameter_default"]


def test_app_scores_each_format(served, scorer):
    app, client = served
    model = _model_label(client)
    assert model.startswith("Loaded model")
    for fmt in ("ref_nl", "ref", "nl"):
        codescore, executability, passability, bleu, codebleu, reading = client.predict(
            GEN, REF, TASK, fmt, model, api_name="/score"
        )
        expected = results.score_single(scorer, GEN, REF, TASK, fmt)
        assert codescore == pytest.approx(expected["codescore"], abs=1e-4)  # the Number shows 4 decimals
        assert executability == pytest.approx(expected["executability"], abs=1e-4)
        assert passability == pytest.approx(expected["passability"], abs=1e-4)
        assert bleu == pytest.approx(expected["bleu"], abs=1e-4)
        assert codebleu == pytest.approx(expected["codebleu"], abs=1e-4)
        assert "not executed" in reading


def test_app_examples_cover_three_cases(served):
    app, client = served
    assert len(app.EXAMPLES) == 3
    for generated, reference, source, fmt in app.EXAMPLES:
        values = client.predict(generated, reference, source, fmt, _model_label(client), api_name="/score")
        assert all(0.0 <= v <= 1.0 and not math.isnan(v) for v in values[:5])


def test_app_reports_missing_input(served):
    from gradio_client.exceptions import AppError

    _, client = served
    with pytest.raises(AppError, match="Enter the task description"):
        client.predict(GEN, REF, "", "nl", _model_label(client), api_name="/score")


def test_app_scores_an_uploaded_file(served, tmp_path, scorer):
    from gradio_client import handle_file

    _, client = served
    path = tmp_path / "gen.jsonl"
    path.write_text("".join(json.dumps({"generated_code": g, "golden_code": REF, "source": TASK}) + "\n" for g in (GEN, REF)))
    out_file, summary = client.predict(handle_file(str(path)), "ref", _model_label(client), api_name="/score_file")
    rows = [json.loads(line) for line in open(out_file, encoding="utf-8")]
    direct = scorer.score([GEN, REF], references=[REF, REF], input_format="ref")
    assert [r["codescore"] for r in rows] == pytest.approx(direct.codescore, abs=1e-6)
    assert summary["codescore"] == pytest.approx(sum(direct.codescore) / 2, abs=1e-6)
    assert "fmt:ref|" in summary["signature"]
