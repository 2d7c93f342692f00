"""The Gradio app, in-process (gradio_client and its event handlers), and the helpers it relies on
(codescore_metric.results, codescore_metric.app_views), tested without Gradio."""

import json
import math
import re
from pathlib import Path

import pytest
from scipy import stats

from codescore_metric import CodeScorer, app_views, baselines, results
from codescore_metric.formats import OUTPUT_NAMES
from codescore_metric.jsonl import bad_rows_message

TASK = "Write a function add(a, b) that returns the sum of a and b."
REF = "def add(a, b):\n    return a + b\n"
GEN = "def add(a, b):\n    return a - b\n"
ROOT = Path(__file__).resolve().parents[1]
LABELLED = ROOT / "examples" / "labelled.jsonl"
AUTHORS_ERROR = ("Could not load the authors' weights (dz1/CodeScore): the Hugging Face Hub cannot be reached "
                 "and they are not in the local cache.")


@pytest.fixture(scope="module")
def scorer(tiny_model_dir):
    return CodeScorer(checkpoint=tiny_model_dir)


def _bar_values(html: str) -> dict:
    return {key: float(value) for key, value in re.findall(r'data-metric="(\w+)" data-value="([\d.]+)"', html)}


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
    for key in OUTPUT_NAMES:
        assert out[key] == pytest.approx(getattr(direct, key)[0])
    assert out["bleu"] == pytest.approx(baselines.sentence_bleu([GEN], [REF])[0])
    assert out["codebleu"] == pytest.approx(baselines.sentence_codebleu([GEN], [REF])[0])
    assert out["signature"] == direct.signature
    nl_only = results.score_single(scorer, GEN, "", TASK, "nl")
    assert nl_only["bleu"] is None and nl_only["codebleu"] is None
    with pytest.raises(ValueError, match=r"^Ref-only needs: reference code$"):
        results.score_single(scorer, GEN, "  ", TASK, "ref")


def test_score_records_reports_progress_per_batch(scorer, tmp_path):
    lines = [json.dumps({"generated_code": g, "golden_code": REF, "source": TASK, "id": i}) for i, g in enumerate([GEN, REF, ""])]
    path = tmp_path / "in.jsonl"
    path.write_text("\n".join(lines) + "\n\n", encoding="utf-8")
    records = results.load_records(path)
    seen = []
    scored, summary = results.score_records(scorer, records, "ref_nl", batch_size=2, on_progress=lambda d, t: seen.append((d, t)))
    assert seen == [(2, 3), (3, 3)]  # the copy of the reference and the empty prediction are done without the model
    direct = scorer.score([GEN, REF, ""], references=[REF] * 3, sources=[TASK] * 3, input_format="ref_nl")
    assert [r["codescore"] for r in scored] == pytest.approx(direct.codescore, abs=1e-6)
    assert [r["id"] for r in scored] == [0, 1, 2]  # input fields are kept, order too
    assert summary["codescore"] == pytest.approx(sum(direct.codescore) / 3, abs=1e-6)
    assert not any(k.endswith("_per_sample") for k in summary) and "certain" not in summary
    assert scored[1]["exact_match"] == 1.0 and scored[0]["exact_match"] == 0.0
    assert scored[1]["certain"] == "same_as_reference" and scored[2]["certain"] == "empty" and "certain" not in scored[0]


def test_jsonl_errors_name_the_line_and_field(scorer, tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"a": 1}\n{oops\n[1]\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"2 bad line\(s\)(.|\n)*bad.jsonl:2: not valid JSON(.|\n)*bad.jsonl:3: expected a JSON object"):
        results.load_records(path)
    with pytest.raises(ValueError, match="record 1 has no 'source' field"):
        results.score_records(scorer, [{"generated_code": GEN, "golden_code": REF}], "ref_nl")
    with pytest.raises(ValueError, match="no records"):
        results.score_records(scorer, [], "ref")


# --------------------------------------------------------------------------- app views (no gradio)
def test_examples_cover_each_kind_for_each_format():
    import app

    assert len(app.EXAMPLES) == 9
    for fmt in ("ref_nl", "ref", "nl"):
        rows = app.EXAMPLES_BY_FORMAT[fmt]
        assert [row["label"].split(":")[0] for row in rows] == ["Correct", "Subtly wrong", "Not runnable"]
        assert len({row["label"] for row in rows}) == 3
    for row in app.EXAMPLES:
        assert row["generated"].lstrip().startswith(("def ", "from ")) and "def " in row["generated"]
        assert row["reference"].startswith("def ")
        assert row["source"].startswith("Write a function") and row["source"].count(". ") == 0
    assert len({row["label"].split(": ")[1] for row in app.EXAMPLES}) == 9  # nine different tasks


def test_labelled_example_labels_are_true():
    """The labels shipped in examples/labelled.jsonl are what the sandbox measures now."""
    from codescore_metric.execution import Job, run_many
    from codescore_metric.execution.labels import labels

    rows = results.load_records(LABELLED)
    measured = list(run_many([Job(row["generated_code"], row["tests"]) for row in rows], workers=2))
    for row, result in zip(rows, measured):
        assert {key: row[key] for key in ("pass_ratio", "executable", "all_pass")} == labels(result), row["task_id"]
    assert {row["pass_ratio"] for row in rows} > {0.0, 1.0}  # also partly passing rows


def test_missing_fields_are_listed_at_once():
    assert results.missing_fields("ref_nl", GEN, "", "  ") == "Ref&NL needs: reference code, task description"
    assert results.missing_fields("ref_nl", None, None, None) == "Ref&NL needs: generated code, reference code, task description"
    assert results.missing_fields("nl", GEN, "", "") == "NL-only needs: task description"
    assert results.missing_fields("ref", GEN, REF, "") is None


def test_score_bars_are_empty_before_a_run_and_show_every_number(scorer):
    empty = app_views.score_bars(None)
    assert not re.search(r"\d", empty) and "data-value" not in empty
    out = results.score_single(scorer, GEN, REF, TASK, "ref_nl")
    shown = _bar_values(app_views.score_bars(out))
    assert set(shown) == {"codescore", "executability", "passability", "bleu", "codebleu"}
    for key, value in shown.items():
        assert value == pytest.approx(out[key], abs=1e-4)
    nl_only = app_views.score_bars(results.score_single(scorer, GEN, "", TASK, "nl"))
    assert set(_bar_values(nl_only)) == set(OUTPUT_NAMES) and nl_only.count("n/a") == 2


def test_model_card_limits_come_from_the_card(tmp_path):
    from codescore_metric.checkpoints import DEFAULT_MODEL_DIR

    limits = app_views.model_card_limits(DEFAULT_MODEL_DIR / "README.md")
    assert limits.startswith("Python only.") and "##" not in limits
    card = tmp_path / "README.md"
    card.write_text("---\nlicense: x\n---\n# m\n\n## Training\n\ntext\n", encoding="utf-8")
    assert "no Limitations section" in app_views.model_card_limits(card)
    assert app_views.model_card_body(card).startswith("# m")


def test_model_errors_are_one_sentence():
    with pytest.raises(OSError) as info:
        CodeScorer(checkpoint="dz1/CodeScore")  # tests run with HF_HUB_OFFLINE=1 and an empty cache
    assert app_views.model_error_message("dz1/CodeScore", info.value) == AUTHORS_ERROR
    nested = ValueError("bad config: field x is missing. Fix it by\nTraceback (most recent call last): ...")
    assert app_views.model_error_message("my/model", nested) == "Could not load the model my/model: bad config: field x is missing."


def _write(path, rows):
    path.write_text("".join((row if isinstance(row, str) else json.dumps(row)) + "\n" for row in rows), encoding="utf-8")
    return path


def test_file_problems_lists_every_problem_as_the_cli_does(tmp_path):
    good = {"generated_code": GEN, "golden_code": REF, "source": TASK, "pass_ratio": 0.5}
    path = _write(tmp_path / "bad.jsonl", [good, "{oops", {**good, "source": 3}, {"generated_code": GEN, "golden_code": REF},
                                          [1], {**good, "pass_ratio": 1.5}])
    rows, label, problems = app_views.file_problems(path, "ref_nl")
    assert label == "pass_ratio" and len(rows) == 4
    message = bad_rows_message("bad.jsonl", problems)
    assert message.startswith("5 bad row(s) (6 problem(s)); nothing was scored:")
    for expected in ("bad.jsonl:2: not valid JSON", "bad.jsonl:3: field 'source' is int, not a string",
                     "bad.jsonl:4: missing field 'source'", "bad.jsonl:4: missing field 'pass_ratio' (other rows have it)",
                     "bad.jsonl:5: expected a JSON object, got list", "bad.jsonl:6: field 'pass_ratio' is 1.5, not a number in [0, 1]"):
        assert expected in message
    authors = _write(tmp_path / "authors.jsonl", [{"generated_code": GEN, "golden_code": REF, "score": 1.0}])
    assert app_views.file_problems(authors, "ref")[1:] == ("score", [])
    assert app_views.file_problems(authors, "ref_nl")[1] == "score"


def test_agreement_matches_scipy():
    rows = [{"codescore": c, "bleu": b, "pass_ratio": p} for c, b, p in [(0.9, 0.1, 1.0), (0.2, 0.5, 0.0), (0.6, 0.4, 0.5), (0.7, 0.9, 1.0)]]
    out = {row["metric"]: row for row in app_views.agreement(rows, "pass_ratio")}
    assert set(out) == {"CodeScore", "BLEU"}
    x, y = [r["codescore"] for r in rows], [r["pass_ratio"] for r in rows]
    assert out["CodeScore"]["spearman"] == pytest.approx(stats.spearmanr(x, y).statistic)
    assert out["CodeScore"]["kendall_tau"] == pytest.approx(stats.kendalltau(x, y).statistic)
    constant = app_views.agreement([{**row, "pass_ratio": 1.0} for row in rows], "pass_ratio")
    assert math.isnan(constant[0]["spearman"]) and "n/a" in app_views.agreement_markdown(constant, "pass_ratio")


def test_agreement_gives_the_baselines_the_static_checks_where_a_row_was_decided():
    rows = [{"codescore": c, "bleu": b, "pass_ratio": p} for c, b, p in [(0.9, 0.1, 1.0), (0.2, 0.5, 0.0), (0.6, 0.4, 0.5), (0.7, 0.9, 1.0)]]
    rows[1] = {**rows[1], "codescore": 0.0, "certain": "syntax_error"}
    out = {row["metric"]: row for row in app_views.agreement(rows, "pass_ratio")}
    assert set(out) == {"CodeScore", "BLEU", "BLEU + static checks"}
    ruled = [0.1, 0.0, 0.4, 0.9]  # BLEU, with the syntax error's certain 0
    assert out["BLEU + static checks"]["spearman"] == pytest.approx(stats.spearmanr(ruled, [r["pass_ratio"] for r in rows]).statistic)
    assert "BLEU + static checks" in app_views.agreement_markdown(list(out.values()), "pass_ratio")


def test_table_and_figures():
    scored = [{"task_id": "t/1", "generated_code": "import os\n\ndef f():\n    return 1\n", "codescore": 0.25, "executability": 0.5,
               "passability": 0.125, "pass_ratio": 1.0}]
    table = app_views.score_table(scored, [3], "pass_ratio")
    assert list(table.columns) == ["line", "task_id", "CodeScore", "Executability", "Passability", "label: pass_ratio", "generated code"]
    assert table.iloc[0].tolist() == [3, "t/1", 0.25, 0.5, 0.125, 1.0, "import os ⏎ def f(): ⏎ return 1"]
    assert app_views.histogram_figure([0.25, 0.3]).axes[0].get_title() == "CodeScore of 2 rows"
    stats_row = {"n": 2, "spearman": 1.0, "kendall_tau": float("nan")}
    title = app_views.scatter_figure([0.1, 0.2], [0.0, 1.0], "pass_ratio", stats_row).axes[0].get_title()
    assert title == "Spearman r_s = 1.000, Kendall τ = n/a (n = 2)"


# --------------------------------------------------------------------------- the app
@pytest.fixture(scope="module")
def demo(scorer):
    import app

    return app.build_demo(scorer)


@pytest.fixture(scope="module")
def client(demo):
    from gradio_client import Client

    _, url, _ = demo.launch(server_name="127.0.0.1", server_port=None, prevent_thread_lock=True, quiet=True)
    try:
        yield Client(url, verbose=False)
    finally:
        demo.close()


def _block(demo, elem_id):
    return next(block for block in demo.blocks.values() if getattr(block, "elem_id", None) == elem_id)


def _handler(demo, block, event):
    return next(fn for fn in demo.fns.values() if (block._id, event) in fn.targets)


def _update(output) -> tuple:
    """``(value, visible)`` of an output the app sent as a ``gr.update``."""
    assert output["__type__"] == "update"
    return output["value"], output["visible"]


def _model_label(client):
    info = client.view_api(print_info=False, return_format="dict")
    params = {p["parameter_name"]: p for p in info["named_endpoints"]["/score"]["parameters"]}
    assert set(params) == {"generated", "reference", "source", "input_format", "model"}
    return params["model"]["parameter_default"]


def test_results_are_empty_before_the_first_run(demo):
    assert _block(demo, "score-bars").value == app_views.score_bars(None)
    assert not _block(demo, "reading").value and not _block(demo, "signature").value


def test_app_scores_each_format(client, scorer):
    model = _model_label(client)
    assert model.startswith("Loaded model")
    for fmt in ("ref_nl", "ref", "nl"):
        bars, reading, signature, numbers = client.predict(GEN, REF, TASK, fmt, model, api_name="/score")
        # a box the format hides is not read, not even for BLEU
        expected = results.score_single(scorer, GEN, REF if fmt != "nl" else "", TASK if fmt != "ref" else "", fmt)
        for key in ("codescore", "executability", "passability", "bleu", "codebleu"):
            assert numbers[key] == pytest.approx(expected[key]), (fmt, key)
        assert _bar_values(bars) == pytest.approx({k: v for k, v in expected.items() if k in numbers and isinstance(v, float)}, abs=1e-4)
        assert reading == expected["reading"] and signature == expected["signature"] and f"fmt:{fmt}|" in signature


def test_app_lists_every_missing_field_at_once(client):
    from gradio_client.exceptions import AppError

    with pytest.raises(AppError, match=r"^Ref&NL needs: reference code, task description$"):
        client.predict(GEN, "", "", "ref_nl", _model_label(client), api_name="/score")
    with pytest.raises(AppError, match=r"^NL-only needs: generated code, task description$"):
        client.predict("", REF, "", "nl", _model_label(client), api_name="/score")


def test_format_switch_hides_unread_fields_and_clears_results(demo):
    switch = _handler(demo, _block(demo, "input-format"), "input")
    assert [block.label for block in switch.outputs[:2]] == ["Reference code", "Task description (NL)"]
    for fmt, shown in (("ref", (True, False)), ("nl", (False, True)), ("ref_nl", (True, True))):
        reference, source, *cleared = switch.fn(fmt)
        assert (reference["visible"], source["visible"]) == shown
        assert tuple(cleared) == (app_views.score_bars(None), "", "", None)


def test_clicking_an_example_loads_it_then_scores_it(demo, scorer):
    import app

    for fmt in ("ref_nl", "ref", "nl"):
        load = _handler(demo, _block(demo, f"examples-{fmt}"), "click")
        then = next(fn for fn in demo.fns.values() if fn.trigger_after == load._id)
        assert then.fn.__name__ == "score" and [b.label for b in then.inputs][-1] == "Model"
        for index, row in enumerate(app.EXAMPLES_BY_FORMAT[fmt]):
            generated, reference, source, loaded_fmt, *cleared = load.fn(index)
            assert (generated, reference["value"], source["value"], loaded_fmt) == (row["generated"], row["reference"], row["source"], fmt)
            assert (reference["visible"], source["visible"]) == (fmt != "nl", fmt != "ref")
            assert tuple(cleared) == (app_views.score_bars(None), "", "", None)  # old results go at once
            _bars, reading, _signature, numbers = then.fn(generated, reference["value"], source["value"], fmt, next(iter(then.inputs[-1].choices))[0])
            fields = {"ref_nl": (row["reference"], row["source"]), "ref": (row["reference"], ""), "nl": ("", row["source"])}[fmt]
            expected = results.score_single(scorer, row["generated"], *fields, fmt)
            assert numbers["codescore"] == pytest.approx(expected["codescore"]) and reading == expected["reading"]


def test_clear_empties_inputs_and_results(demo):
    clear = _handler(demo, _block(demo, "clear-button"), "click")
    assert clear.fn() == ("", "", "", app_views.score_bars(None), "", "", None)


def test_model_load_error_is_one_clean_sentence(client):
    from gradio_client.exceptions import AppError

    with pytest.raises(AppError) as info:
        client.predict(GEN, REF, TASK, "ref_nl", "Authors' weights (dz1/CodeScore, needs network)", api_name="/score")
    assert str(info.value) == AUTHORS_ERROR


def test_app_scores_a_labelled_file_with_its_agreement(client, scorer):
    from gradio_client import handle_file

    out_file, summary, overview, histogram, scatter, table = client.predict(
        handle_file(str(LABELLED)), "ref_nl", _model_label(client), api_name="/score_file")
    (out_file, shown), (histogram, _), (scatter, _), (table, _) = map(_update, (out_file, histogram, scatter, table))
    assert shown
    rows = [json.loads(line) for line in open(out_file, encoding="utf-8")]
    labelled = results.load_records(LABELLED)
    direct = scorer.score([r["generated_code"] for r in labelled], references=[r["golden_code"] for r in labelled],
                          sources=[r["source"] for r in labelled], input_format="ref_nl")
    assert [r["codescore"] for r in rows] == pytest.approx(direct.codescore, abs=1e-6)
    codescore, truth = [r["codescore"] for r in rows], [r["pass_ratio"] for r in rows]
    agreement = {row["metric"]: row for row in summary["agreement"]}
    assert [r.get("certain") for r in rows] == direct.certain and any(direct.certain)
    assert summary["label"] == "pass_ratio" and set(agreement) == {"CodeScore", "BLEU", "CodeBLEU", "BLEU + static checks",
                                                                   "CodeBLEU + static checks"}
    ruled = [r["codescore"] if r.get("certain") else r["codebleu"] for r in rows]
    assert agreement["CodeBLEU + static checks"]["spearman"] == pytest.approx(stats.spearmanr(ruled, truth).statistic)
    assert agreement["CodeScore"]["spearman"] == pytest.approx(stats.spearmanr(codescore, truth).statistic)
    assert agreement["CodeScore"]["kendall_tau"] == pytest.approx(stats.kendalltau(codescore, truth).statistic)
    assert f"{agreement['CodeScore']['spearman']:.3f}" in overview and "Kendall" in overview
    assert histogram and scatter  # both plots drawn
    assert len(table["data"]) == 27 and table["headers"][:3] == ["line", "task_id", "CodeScore"]


def test_app_file_without_labels_has_no_scatter(client, tmp_path):
    from gradio_client import handle_file

    path = _write(tmp_path / "plain.jsonl", [{"generated_code": g, "golden_code": REF} for g in (GEN, REF)])
    _, summary, overview, histogram, scatter, table = client.predict(handle_file(str(path)), "ref", _model_label(client), api_name="/score_file")
    assert "agreement" not in summary and "no execution labels" in overview
    assert _update(histogram)[1] and _update(scatter) == (None, False) and len(_update(table)[0]["data"]) == 2
    assert "fmt:ref|" in summary["signature"]


def test_app_lists_every_problem_of_a_bad_file(client, tmp_path):
    from gradio_client import handle_file

    path = _write(tmp_path / "bad.jsonl", ["{oops", {"generated_code": GEN}, {"generated_code": 1, "golden_code": REF}])
    out_file, summary, overview, histogram, scatter, table = client.predict(
        handle_file(str(path)), "ref", _model_label(client), api_name="/score_file")
    assert [_update(output)[1] for output in (out_file, histogram, scatter, table)] == [False] * 4  # nothing stale in view
    assert [problem.split(": ")[0] for problem in summary["problems"]] == ["bad.jsonl:1", "bad.jsonl:2", "bad.jsonl:3"]
    assert "3 bad row(s) (3 problem(s)); nothing was scored:" in overview
    assert all(problem in overview for problem in summary["problems"])


def test_example_file_button_loads_the_labelled_file(demo):
    import app

    use = next(fn for fn in demo.fns.values() if fn.fn.__name__ == "<lambda>" and [b.label for b in fn.outputs] == ["Input .jsonl"])
    assert use.fn() == str(app.LABELLED_FILE)
    then = next(fn for fn in demo.fns.values() if fn.trigger_after == use._id)
    assert then.fn.__name__ == "score_file"
