"""Meta-evaluation: correlation statistics, binary thresholds, and `codescore meta-eval` end to end."""

import json
import math
import warnings

import numpy as np
import pytest
from scipy import stats

from codescore_metric.cli import main
from codescore_metric.correlation import best_threshold, binary_agreement, classification, correlations, roc_auc, within_task_auc, within_task_kendall
from codescore_metric.labelled import load_labelled
from codescore_metric.metaeval import rendering
from codescore_metric.metaeval.bootstrap import default_leads
from codescore_metric.metaeval.runner import MetricRun, Settings, baselines_with_static_checks, group_indices, meta_evaluate

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


# --------------------------------------------------------------------------- correlations
def test_correlations_match_hand_computed_values():
    result = correlations([1, 2, 3], [1, 2, 4])
    assert result["tau"] == pytest.approx(1.0) and result["spearman"] == pytest.approx(1.0)
    assert result["pearson"] == pytest.approx(9 / math.sqrt(84))  # cov 3 / sqrt(2 * 42/9)
    assert result["value"] == pytest.approx(2.0) and result["n"] == 3 and result["notes"] == []


def test_kendall_is_tau_b_with_ties():
    # 4 concordant pairs, 0 discordant, one pair tied only in x, one tied only in y:
    # tau-b = 4 / sqrt((6 - 1) * (6 - 1)) = 0.8 (tau-a would be 4/6).
    result = correlations([1, 2, 2, 3], [1, 2, 3, 3])
    assert result["tau"] == pytest.approx(0.8)
    assert result["spearman"] == pytest.approx(3.75 / 4.5)  # Pearson of mid-ranks [1, 2.5, 2.5, 4] and [1, 2, 3.5, 3.5]


def test_mae_is_mean_absolute_difference_to_pass_ratio():
    assert correlations([0.1, 0.5, 0.7], [0.0, 0.5, 1.0])["mae"] == pytest.approx(0.4 / 3)


@pytest.mark.parametrize("metric, truth, phrase", [
    ([0.3, 0.3, 0.3], [0.0, 0.5, 1.0], "the metric is constant"),
    ([0.1, 0.2, 0.3], [1.0, 1.0, 1.0], "PassRatio is constant"),
    ([0.4], [1.0], "1 sample(s)"),
])
def test_undefined_correlations_are_nan_with_a_note_and_no_warning(metric, truth, phrase):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = correlations(metric, truth)
    assert all(math.isnan(result[key]) for key in ("tau", "spearman", "pearson"))
    assert len(result["notes"]) == 1 and phrase in result["notes"][0]
    assert math.isfinite(result["mae"]) and math.isfinite(result["value"])


def test_bad_arrays_are_rejected_with_a_clear_message():
    with pytest.raises(ValueError, match="same length"):
        correlations([0.1, 0.2], [0.1])
    with pytest.raises(ValueError, match="non-finite"):
        correlations([0.1, float("nan")], [0.1, 0.2])
    with pytest.raises(ValueError, match="0/1"):
        classification([1, 0], [1, 2])


# --------------------------------------------------------------------------- within-task Kendall
def test_within_task_tau_is_the_mean_over_tasks_whose_truth_varies():
    metric = [0.1, 0.2, 0.3, 0.1, 0.3, 0.2, 0.9, 0.4, 0.5, 1, 2, 2, 3]
    truth = [0.0, 0.5, 1.0, 0.0, 0.5, 1.0, 1.0, 1.0, 1.0, 1, 2, 3, 3]
    tasks = ["a"] * 3 + ["b"] * 3 + ["alone"] + ["flat"] * 2 + ["ties"] * 4
    # a: 3 concordant pairs -> 1; b: 2 concordant, 1 discordant -> 1/3; ties: tau-b 0.8 (as above);
    # "alone" (one sample) and "flat" (constant truth) are skipped.
    result = within_task_kendall(metric, truth, tasks)
    assert result["within_task_tau"] == pytest.approx((1 + 1 / 3 + 0.8) / 3)
    assert result["within_task_tasks"] == 3 and result["notes"] == []


def test_a_metric_constant_on_a_task_whose_truth_varies_counts_as_zero():
    result = within_task_kendall([0.1, 0.2, 0.7, 0.7], [0.0, 1.0, 0.0, 1.0], ["a", "a", "b", "b"])
    assert result["within_task_tau"] == pytest.approx(0.5) and result["within_task_tasks"] == 2  # (1 + 0) / 2
    assert result["notes"] == ["within-task τ: the metric is constant on 1 of 2 task(s), counted as τ = 0"]


def test_guessing_task_difficulty_correlates_pooled_but_does_not_rank_within_tasks():
    truth = np.array([0.0, 0.2, 0.8, 1.0, 0.4, 0.6])
    tasks = ["easy?", "easy?", "hard?", "hard?", "mid", "mid"]
    task_mean = np.array([0.1, 0.1, 0.9, 0.9, 0.5, 0.5])
    assert correlations(task_mean, truth)["spearman"] > 0.8
    assert within_task_kendall(task_mean, truth, tasks)["within_task_tau"] == 0.0
    reversed_within = task_mean - 0.01 * truth  # same task means, candidates of each task in the wrong order
    assert correlations(reversed_within, truth)["spearman"] > 0.8
    assert within_task_kendall(reversed_within, truth, tasks)["within_task_tau"] == pytest.approx(-1.0)


def test_task_ids_are_compared_by_repr_and_no_qualifying_task_gives_nan_with_a_note():
    result = within_task_kendall([0.1, 0.2], [0.0, 1.0], [1, "1"])  # two tasks of one sample each
    assert math.isnan(result["within_task_tau"]) and result["within_task_tasks"] == 0
    assert result["notes"] == ["within-task τ undefined: no task has at least 2 samples with differing PassRatio"]
    assert within_task_kendall([0.1, 0.2, 0.2, 0.1], [0.0, 1.0, 0.0, 1.0], [1, 1, "1", "1"])["within_task_tau"] == 0.0  # 1 and -1
    with pytest.raises(ValueError, match="one id per sample"):
        within_task_kendall([0.1, 0.2], [0.0, 1.0], ["a"])


# --------------------------------------------------------------------------- binary
def test_fixed_threshold_counts_and_phi_equals_the_three_correlations():
    values, labels = [0.2, 0.6, 0.5, 0.9], [0, 1, 0, 1]
    result = binary_agreement(values, labels, threshold=0.5)  # predicted [0, 1, 1, 1]: tp 2, fp 1, fn 0, tn 1
    assert result["threshold_rule"] == "fixed" and result["threshold"] == 0.5
    assert result["accuracy"] == pytest.approx(0.75) and result["precision"] == pytest.approx(2 / 3)
    assert result["recall"] == 1.0 and result["f1"] == pytest.approx(0.8) and result["positive_rate"] == 0.75
    assert result["phi"] == pytest.approx(2 / math.sqrt(12))
    predicted = [0, 1, 1, 1]
    for statistic in (stats.kendalltau(predicted, labels), stats.spearmanr(predicted, labels), stats.pearsonr(predicted, labels)):
        assert result["phi"] == pytest.approx(statistic.statistic)


def test_no_positive_prediction_gives_nan_precision_and_phi_with_notes():
    result = classification([0, 0, 0], [1, 0, 1])
    assert math.isnan(result["precision"]) and math.isnan(result["phi"]) and result["recall"] == 0.0
    assert any("nothing was predicted positive" in note for note in result["notes"])
    assert any("constant" in note for note in result["notes"])


def test_within_task_auc_ignores_which_tasks_are_hard():
    # task a: every prediction high, task b: every prediction low; within each, passing ranks above failing
    scores = [0.9, 0.8, 0.7, 0.3, 0.2, 0.1, 0.5]
    labels = [1, 0, 0, 1, 1, 0, 1]
    tasks = ["a", "a", "a", "b", "b", "b", "c"]  # c has one class only: left out
    within = within_task_auc(scores, labels, tasks)
    assert within == {"within_task_auc": 1.0, "within_task_auc_tasks": 2}
    assert roc_auc(scores, labels) < 0.6  # pooled, b's passing candidates sit below a's failing ones
    swapped = within_task_auc([0.8, 0.9, 0.7, 0.3, 0.2, 0.1, 0.5], labels, tasks)["within_task_auc"]
    assert swapped == pytest.approx((0.5 + 1.0) / 2)  # task a: its passing candidate beats one of two failing ones
    assert math.isnan(within_task_auc([0.1, 0.2], [1, 1], ["a", "a"])["within_task_auc"])
    with pytest.raises(ValueError, match="one id per sample"):
        within_task_auc([0.1, 0.2], [1, 0], ["a"])


def test_roc_auc_counts_ordered_pairs_and_ties_half():
    scores, labels = [0.9, 0.8, 0.8, 0.3, 0.1], [1, 0, 1, 0, 0]
    pairs = [(p, n) for p, lp in zip(scores, labels) if lp for n, ln in zip(scores, labels) if not ln]
    expected = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p, n in pairs) / len(pairs)
    assert roc_auc(scores, labels) == pytest.approx(expected) == pytest.approx(5.5 / 6)
    assert roc_auc([0.1, 0.2], [1, 1]) != roc_auc([0.1, 0.2], [1, 1])  # nan: one class only
    with pytest.raises(ValueError, match="only 0/1"):
        roc_auc([0.1, 0.2], [1, 2])


def test_best_threshold_rules_and_ties():
    values, labels = [0.5, 0.6, 0.1, 0.2, 0.3], [1, 0, 0, 0, 0]
    # phi: ">= 0.5" gives tp 1, fp 1, tn 3 -> phi 3/sqrt(24), the best.
    assert best_threshold(values, labels, "phi") == 0.5
    # accuracy: "nothing positive" and ">= 0.5" both reach 0.8; the tie goes to the higher threshold.
    above = best_threshold(values, labels, "accuracy")
    assert above > 0.6 and not np.any(np.asarray(values) >= above)
    result = binary_agreement(values, labels, threshold=None)
    assert result["threshold_rule"] == "best-phi" and result["phi"] == pytest.approx(3 / math.sqrt(24))
    with pytest.raises(ValueError, match="criterion"):
        best_threshold(values, labels, "f1")


@pytest.mark.parametrize("criterion", ["phi", "accuracy"])
def test_best_threshold_agrees_with_brute_force_on_tied_values(criterion):
    rng = np.random.default_rng(0)
    values = np.round(rng.random(200), 1)
    labels = (rng.random(200) < values).astype(int)
    candidates = sorted(set(values.tolist()) | {np.nextafter(values.max(), np.inf)}, reverse=True)

    def score(t):
        result = classification(values >= t, labels)
        return result[criterion]

    scores = [score(t) for t in candidates]
    best = max(s for s in scores if not math.isnan(s))
    assert best_threshold(values, labels, criterion) == candidates[scores.index(best)]


def test_best_threshold_with_one_label_class_predicts_nothing():
    threshold = best_threshold([0.2, 0.9], [0, 0])
    assert threshold > 0.9


# --------------------------------------------------------------------------- CLI
CODES = [
    "def add(a, b):\n    return a + b\n",
    "def add(a, b):\n    return a - b\n",
    "def add(a, b):\n    print(a)\n",
    "def is_even(n):\n    return n % 2 == 0\n",
    "",
    "for i in range(10):\n    print(i)\n",
]


def labelled_rows(count=12):
    rows = []
    for index in range(count):
        ratio = [1.0, 0.25, 0.0, 0.5][index % 4]
        rows.append({
            "task_id": f"t{index % 3}", "generated_code": CODES[index % len(CODES)], "golden_code": CODES[0],
            "source": "Add two numbers.", "pass_ratio": ratio, "executable": index % 4 != 2, "all_pass": int(ratio == 1.0),
            "cbs": round(0.3 + 0.05 * index, 2), "const": 0.5,
        })
    return rows


def write(path, rows):
    path.write_text("".join((row if isinstance(row, str) else json.dumps(row)) + "\n" for row in rows))
    return path


def test_meta_eval_end_to_end_table_json_and_png(tmp_path, tiny_model_dir, capsys):
    # tiny_model_dir: conftest's session-wide tests.tiny_model.build_tiny_model_dir folder
    from codescore_metric import CodeScorer

    rows = labelled_rows()
    source, out_json, out_png = write(tmp_path / "labelled.jsonl", rows), tmp_path / "out.json", tmp_path / "out.png"
    argv = ["meta-eval", str(source), "--checkpoint", str(tiny_model_dir), "--extra-metric", "cbs",
            "--json", str(out_json), "--plot", str(out_png), "--no-progress"]
    assert main(argv) == 0
    table = capsys.readouterr().out
    assert "| Method | Value | τ (tau-b) | r_s | r_p | MAE | τ within task | Time vs BLEU |" in table
    assert "over the 3 of 3 tasks" in table and "by generator" not in table  # no generator field in these rows
    for name in ("BLEU", "CodeBLEU", "Exact match", "cbs", "CodeScore (Ref-only)", "CodeScore (NL-only)", "CodeScore (Ref&NL)"):
        assert f"| {name} | " in table
    assert "threshold rule: fixed" in table and "| Executability head (Ref&NL) | executable |" in table

    results = json.loads(out_json.read_text())
    metrics = {m["name"]: m for m in results["metrics"]}
    pass_ratio = [row["pass_ratio"] for row in rows]
    scored = CodeScorer(tiny_model_dir).score([r["generated_code"] for r in rows], references=[r["golden_code"] for r in rows],
                                         sources=[r["source"] for r in rows], input_format="ref_nl")
    expected = correlations(scored.codescore, pass_ratio)
    for key in ("value", "tau", "spearman", "pearson", "mae"):
        assert metrics["CodeScore (Ref&NL)"][key] == pytest.approx(expected[key])
    within = within_task_kendall(scored.codescore, pass_ratio, [r["task_id"] for r in rows])
    assert metrics["CodeScore (Ref&NL)"]["within_task_tau"] == pytest.approx(within["within_task_tau"])
    assert {m["within_task_tasks"] for m in metrics.values()} == {3} and results["by_group"] is None
    assert metrics["cbs"]["tau"] == pytest.approx(stats.kendalltau([r["cbs"] for r in rows], pass_ratio).statistic)
    assert metrics["BLEU"]["relative_time"] == 1.0 and metrics["cbs"]["seconds"] is None
    assert metrics["CodeScore (Ref-only)"]["relative_time"] > 0
    assert results["ground_truth"] == {"n": 12, "n_tasks": 3, "avg_pass_ratio": pytest.approx(0.4375),
                                       "pass_at_1": 0.25, "executable_rate": 0.75}
    assert results["codescore"]["signatures"]["ref_nl"] == scored.signature
    assert results["settings"]["threshold"] == 0.5 and results["settings"]["extra_metrics"] == ["cbs"]
    assert {b["threshold_rule"] for b in results["binary"]} == {"fixed"} and len(results["binary"]) == len(metrics)
    heads = {h["name"]: h for h in results["heads"]}
    assert len(heads) == 6 and heads["Passability head (NL-only)"]["target"] == "all_pass"
    exec_head = heads["Executability head (Ref&NL)"]
    assert exec_head["accuracy"] == pytest.approx(classification(np.asarray(scored.executability) >= 0.5,
                                                                 [r["executable"] for r in rows])["accuracy"])
    assert exec_head["auc"] == pytest.approx(roc_auc(scored.executability, [r["executable"] for r in rows]))
    within_exec = within_task_auc(scored.executability, [r["executable"] for r in rows], [r["task_id"] for r in rows], "executable")
    assert exec_head["within_task_auc"] == pytest.approx(within_exec["within_task_auc"])
    assert f"| Executability head (Ref&NL) | executable | 0.7500 | {exec_head['auc']:.4f} | {exec_head['within_task_auc']:.4f} |" in table
    assert "AUC within task: mean ROC AUC among the candidates of one task" in table
    assert out_png.read_bytes()[:8] == PNG_MAGIC


def test_samples_cut_to_the_models_length_are_counted_per_format_and_named_in_the_notes(tmp_path, tiny_model_dir, capsys):
    from codescore_metric import CodeScorer

    rows = labelled_rows(4)
    long_program = "def add(a, b):\n" + "".join(f"    total_{i} = a + b + {i}\n" for i in range(40)) + "    return a + b\n"
    rows[1]["generated_code"] = long_program
    source, out_json = write(tmp_path / "labelled.jsonl", rows), tmp_path / "out.json"
    assert main(["meta-eval", str(source), "--checkpoint", str(tiny_model_dir), "--formats", "ref", "ref_nl",
                 "--no-codebleu", "--json", str(out_json), "--no-progress"]) == 0
    table = capsys.readouterr().out
    scorer = CodeScorer(tiny_model_dir)
    scored = scorer.score([r["generated_code"] for r in rows], references=[r["golden_code"] for r in rows],
                          sources=[r["source"] for r in rows], input_format="ref_nl")
    cut = scored.truncated[1]["prediction"]
    assert cut > 0 and not any(scored.truncated[i] for i in (0, 2, 3))
    truncation = json.loads(out_json.read_text())["codescore"]["truncation"]
    assert truncation["ref_nl"] == {"samples": 1, "of": 4, "samples_by_field": {"prediction": 1}, "tokens_by_field": {"prediction": cut}}
    assert truncation["ref"]["samples"] == 1
    assert (f"CodeScore (Ref&NL, at most {scorer.config.max_length} tokens): 1 of 4 sample(s) were longer than the model's "
            f"maximum input and were truncated ({cut} tokens of prediction dropped)") in table


def test_without_model_or_references_best_threshold_and_constant_column(tmp_path, capsys):
    rows = [{k: v for k, v in row.items() if k != "golden_code"} for row in labelled_rows()]
    source = write(tmp_path / "labelled.jsonl", rows)
    argv = ["meta-eval", str(source), "--no-codescore", "--extra-metric", "cbs", "--extra-metric", "const",
            "--binary-threshold", "best", "--json", str(tmp_path / "o.json")]
    assert main(argv) == 0
    table = capsys.readouterr().out
    assert "BLEU, CodeBLEU and exact match skipped" in table and "threshold rule: best-phi" in table
    assert "| const | 0.5000 | n/a | n/a | n/a |" in table and "const: correlation undefined: the metric is constant" in table
    results = json.loads((tmp_path / "o.json").read_text())
    assert [m["name"] for m in results["metrics"]] == ["cbs", "const"]
    assert results["metrics"][1]["tau"] is None and results["settings"]["threshold"] is None
    assert results["binary"][0]["threshold"] == best_threshold([r["cbs"] for r in rows], [r["all_pass"] for r in rows])


def test_bad_rows_are_listed_by_line_and_nothing_is_evaluated(tmp_path, capsys):
    good = labelled_rows(1)[0]
    bad = [good, "not json", {**good, "pass_ratio": 1.5}, {**good, "executable": 2},
           {k: v for k, v in good.items() if k != "generated_code"}, {**good, "cbs": "high"}]
    source = write(tmp_path / "bad.jsonl", bad)
    assert main(["meta-eval", str(source), "--no-codescore", "--extra-metric", "cbs"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    for line, message in [(2, "not valid JSON"), (3, "field 'pass_ratio' is 1.5, not a number in [0, 1]"),
                          (4, "field 'executable' is 2, not 0/1"), (5, "missing field 'generated_code' (rename with --prediction-field)"),
                          (6, "field 'cbs' is 'high', not a finite number")]:
        assert f"{source}:{line}: {message}" in captured.err


def test_against_scores_a_second_model_and_gives_paired_leads(tmp_path, tiny_model_dir, capsys):
    source, out_json = write(tmp_path / "labelled.jsonl", labelled_rows()), tmp_path / "out.json"
    assert main(["meta-eval", str(source), "--checkpoint", str(tiny_model_dir), "--against", str(tiny_model_dir),
                 "--formats", "ref_nl", "--no-codebleu", "--bootstrap", "50", "--json", str(out_json), "--no-progress"]) == 0
    table = capsys.readouterr().out
    other = f"CodeScore (Ref&NL) of {tiny_model_dir}"
    results = json.loads(out_json.read_text())
    metrics = {m["name"]: m for m in results["metrics"]}
    assert metrics[other]["spearman"] == metrics["CodeScore (Ref&NL)"]["spearman"]  # the same model, scored again
    assert {h["name"] for h in results["heads"]} >= {"Passability head (Ref&NL)", f"Passability head (Ref&NL) of {tiny_model_dir}"}
    leads = {(row["statistic"], row["name"], row["over"]): row for row in results["bootstrap"]["intervals"] if row["over"]}
    assert ("spearman", "CodeScore (Ref&NL)", "BLEU") in leads
    for key in [("spearman", "CodeScore (Ref&NL)", other),
                ("roc_auc", "Executability head (Ref&NL)", f"Executability head (Ref&NL) of {tiny_model_dir}")]:
        assert leads[key]["value"] == leads[key]["low"] == leads[key]["high"] == 0.0
    assert f"| CodeScore (Ref&NL) | {other} | 0.0000 | [0.0000, 0.0000] |" in table
    assert f"| Passability head (Ref&NL) | Passability head (Ref&NL) of {tiny_model_dir} | 0.0000 | [0.0000, 0.0000] |" in table
    assert table.count("`codescore|") == 2 and len(results["codescore"]["against"]["signatures"]) == 1


@pytest.mark.parametrize("extra, message", [
    (["--checkpoint", "./nowhere/model"], "codescore meta-eval: error:"),
    (["--formats", "nl", "--checkpoint", "./nowhere/model"], "format 'nl' needs field(s) ['source']"),
    (["--no-codescore", "--binary-threshold", "half"], "--binary-threshold must be a number or 'best'"),
    (["--no-codescore", "--against", "./other/model"], "--against compares two CodeScore models; leave out --no-codescore"),
])
def test_clean_cli_errors(tmp_path, capsys, extra, message):
    rows = [{k: v for k, v in row.items() if k != "source"} for row in labelled_rows(4)]
    source = write(tmp_path / "labelled.jsonl", rows)
    assert main(["meta-eval", str(source), "--no-codebleu", *extra]) == 2
    assert message in capsys.readouterr().err


# --------------------------------------------------------------------------- within-task tau and groups in meta_evaluate
def grouped_rows():
    generators = ["a", "a, b", "b", "", None, "c", "b,a,b", "a"]
    rows = []
    for index, generator in enumerate(generators):
        row = {"task_id": [7, "7", "x"][index % 3], "generated_code": CODES[index % len(CODES)],
               "pass_ratio": [0.0, 0.5, 1.0, 0.25][index % 4], "all_pass": int(index % 4 == 2), "m": 0.1 * ((index * 5) % 8)}
        if generator is not None:
            row["generator"] = generator
        rows.append(row)
    return rows


def test_meta_evaluate_adds_within_task_tau_and_per_group_numbers_from_sliced_values(tmp_path):
    rows = grouped_rows()
    data = load_labelled(write(tmp_path / "g.jsonl", rows), extra_metrics=("m",), group_field="generator")
    assert data.task_ids == [7, "7", "x"] * 2 + [7, "7"] and data.n_tasks == 3  # 7 and "7" are different tasks
    assert data.groups == [("a",), ("a", "b"), ("b",), ("(none)",), ("(none)",), ("c",), ("b", "a"), ("a",)]
    assert {name: list(indices) for name, indices in group_indices(data.groups).items()} == {
        "a": [0, 1, 6, 7], "b": [1, 2, 6], "c": [5], "(none)": [3, 4]}
    negated = MetricRun("negated", "extra", -data.extras["m"], None)
    results = meta_evaluate(data, [MetricRun("m", "extra", data.extras["m"], None), negated], Settings())
    truth, tasks = np.asarray([r["pass_ratio"] for r in rows]), [r["task_id"] for r in rows]
    m = np.asarray([r["m"] for r in rows])
    expected = within_task_kendall(m, truth, tasks)
    assert results["metrics"][0]["within_task_tau"] == pytest.approx(expected["within_task_tau"])
    assert results["metrics"][0]["within_task_tasks"] == expected["within_task_tasks"] == 3
    assert results["metrics"][1]["within_task_tau"] == pytest.approx(-expected["within_task_tau"])

    section = results["by_group"]
    assert section["field"] == "generator" and [g["group"] for g in section["groups"]] == ["a", "b", "(none)"]
    assert section["notes"] == ["groups overlap: 2 row(s) name several generator values (comma-separated) and count under each",
                                "left out, fewer than 2 rows: c"]
    group_a = section["groups"][0]
    rows_a = [0, 1, 6, 7]
    assert group_a["n"] == 4 and group_a["n_tasks"] == 2 and group_a["avg_pass_ratio"] == pytest.approx(np.mean(truth[rows_a]))
    pooled = correlations(m[rows_a], truth[rows_a])
    within = within_task_kendall(m[rows_a], truth[rows_a], [tasks[i] for i in rows_a])
    got = group_a["metrics"][0]
    assert got["name"] == "m" and got["n"] == 4
    for key in ("tau", "spearman", "pearson", "mae"):
        assert got[key] == pytest.approx(pooled[key])
    assert got["within_task_tau"] == pytest.approx(within["within_task_tau"]) and got["within_task_tasks"] == 2
    assert got["tau"] != pytest.approx(results["metrics"][0]["tau"])  # really computed on the slice

    text = rendering.markdown(results)
    assert "## Metrics vs PassRatio by generator" in text and "- left out, fewer than 2 rows: c" in text
    assert "### generator = a (4 samples, 2 tasks (2 for τ within task); mean PassRatio" in text
    assert f"| m | {got['value']:.4f} | {got['tau']:.4f} | {got['spearman']:.4f} | {got['pearson']:.4f} | {got['mae']:.4f} | " \
           f"{got['within_task_tau']:.4f} |" in text
    rendering.write_json(results, tmp_path / "g.json")
    written = json.loads((tmp_path / "g.json").read_text())
    assert written["by_group"]["groups"][0]["metrics"][0]["within_task_tau"] == pytest.approx(got["within_task_tau"])
    assert written["settings"]["group_field"] == "generator"


def test_the_programs_that_run_every_test_get_their_own_numbers(tmp_path):
    rows = grouped_rows()
    for index, row in enumerate(rows):
        row["executable"] = int(index not in (0, 4))  # two crash: they have PassRatio 0
    data = load_labelled(write(tmp_path / "r.jsonl", rows), extra_metrics=("m",))
    results = meta_evaluate(data, [MetricRun("m", "extra", data.extras["m"], None)], Settings(group_field=None))
    section = results["running"]
    running = [1, 2, 3, 5, 6, 7]
    truth, m = np.asarray([r["pass_ratio"] for r in rows]), np.asarray([r["m"] for r in rows])
    tasks = [rows[i]["task_id"] for i in running]
    assert section["group"] == "programs that run every test" and section["n"] == 6 and section["n_tasks"] == 3
    got = section["metrics"][0]
    assert got["spearman"] == pytest.approx(correlations(m[running], truth[running])["spearman"])
    assert got["within_task_tau"] == pytest.approx(within_task_kendall(m[running], truth[running], tasks)["within_task_tau"])
    text = rendering.markdown(results)
    assert "## Metrics vs PassRatio on the programs that run every test (6 samples, 3 tasks" in text

    def running_section(rows: list[dict], name: str):
        loaded = load_labelled(write(tmp_path / name, rows), extra_metrics=("m",))
        return meta_evaluate(loaded, [MetricRun("m", "extra", loaded.extras["m"], None)], Settings(group_field=None))["running"]

    assert running_section(grouped_rows(), "no_executable_field.jsonl") is None
    assert running_section([{**row, "executable": 1} for row in rows], "everything_runs.jsonl") is None


def test_the_rows_no_static_check_decided_get_their_own_numbers_and_head_aucs(tmp_path):
    rows = grouped_rows()
    for index, row in enumerate(rows):
        row["executable"] = int(index not in (0, 4))
    data = load_labelled(write(tmp_path / "c.jsonl", rows), extra_metrics=("m",))
    probabilities = np.linspace(0.1, 0.8, len(rows))
    certain = [None, "syntax_error", None, None, None, "same_as_reference", None, None]
    other = [None, None, None, None, "syntax_error", None, None, None]  # a second format decides one more row

    def codescore_run(name, reasons):
        return MetricRun(name, "codescore", data.extras["m"][::-1].copy(), 1.0, "ref_nl", probabilities, probabilities[::-1].copy(), reasons)

    runs = [MetricRun("m", "extra", data.extras["m"], None), codescore_run("CodeScore (Ref&NL)", certain),
            codescore_run("CodeScore (Ref-only)", other)]
    section = meta_evaluate(data, runs, Settings(group_field=None))["model_rows"]
    kept = [0, 2, 3, 6, 7]
    truth, m = np.asarray([r["pass_ratio"] for r in rows]), np.asarray([r["m"] for r in rows])
    assert section["group"] == "rows the model reads" and section["n"] == 5
    assert section["decided"] == {"syntax_error": 2, "same_as_reference": 1}
    assert section["metrics"][0]["spearman"] == pytest.approx(correlations(m[kept], truth[kept])["spearman"])
    executable = np.asarray([r["executable"] for r in rows])
    head = next(h for h in section["heads"] if h["target"] == "executable" and "Ref&NL" in h["name"])
    assert head["auc"] == pytest.approx(roc_auc(probabilities[kept], executable[kept]))
    assert section["target_rates"]["executable"] == pytest.approx(executable[kept].mean())
    text = rendering.markdown(meta_evaluate(data, runs, Settings(group_field=None)))
    assert "## Metrics vs PassRatio on the rows the model reads, static checks set aside (5 samples" in text
    assert "- left out: the 3 rows whose CodeScore the scorer's static checks decide in some CodeScore run " \
           "(syntax_error 2, same_as_reference 1)" in text

    undecided = [MetricRun("m", "extra", data.extras["m"], None), codescore_run("CodeScore (Ref&NL)", [None] * len(rows))]
    assert meta_evaluate(data, undecided, Settings(group_field=None))["model_rows"] is None
    assert meta_evaluate(data, runs[:1], Settings(group_field=None))["model_rows"] is None  # no CodeScore run


def test_baselines_get_the_scorers_certain_scores_where_its_static_checks_decide_a_row():
    values = np.array([0.2, 0.4, 0.6, 0.8])
    certain = ["syntax_error", None, "same_as_reference", "other_return_kind"]
    runs = [MetricRun("BLEU", "baseline", values, 0.1), MetricRun("Exact match", "baseline", values, 0.1),
            MetricRun("CodeScore (NL-only)", "codescore", values, 1.0, "nl", values, values, [None, "syntax_error", None, None]),
            MetricRun("CodeScore (Ref&NL)", "codescore", np.array([0.0, 0.7, 1.0, 0.0]), 1.0, "ref_nl", values, values, certain)]
    ruled = baselines_with_static_checks(runs)  # the scorer's CodeScore is the certain value where a check decides
    assert [run.name for run in ruled] == ["BLEU + static checks"]  # exact match is not a baseline CodeScore is led over
    assert ruled[0].values.tolist() == [0.0, 0.4, 1.0, 0.0] and values.tolist() == [0.2, 0.4, 0.6, 0.8]
    assert ruled[0].seconds is None  # the rules are not timed apart from the scorer
    assert ("CodeScore (Ref&NL)", "BLEU + static checks") in default_leads([*runs, *ruled])
    assert baselines_with_static_checks(runs[:3]) == []  # NL-only cannot run the reference's checks
    assert baselines_with_static_checks([*runs[:2], MetricRun("CodeScore (Ref&NL)", "codescore", values, 1.0, "ref_nl",
                                                              values, values, [None] * 4)]) == []


def test_without_a_task_id_in_every_row_or_a_group_field_the_new_parts_are_absent(tmp_path):
    rows = grouped_rows()
    del rows[2]["task_id"]
    source = write(tmp_path / "g.jsonl", rows)
    data = load_labelled(source, extra_metrics=("m",))  # no group field asked for
    assert data.task_ids is None and data.n_tasks is None and data.groups is None
    results = meta_evaluate(data, [MetricRun("m", "extra", data.extras["m"], None)], Settings(group_field=None))
    assert results["metrics"][0]["within_task_tau"] is None and results["by_group"] is None
    assert "within-task τ not computed: not every row has a task id" in results["notes"]
    text = rendering.markdown(results)
    assert "| Method | Value | τ (tau-b) | r_s | r_p | MAE | Time vs BLEU |" in text and "by generator" not in text
    assert load_labelled(source, group_field="model").groups is None  # no row has that field


@pytest.mark.parametrize("field, value, message", [
    ("task_id", 1.5, "field 'task_id' is 1.5, not a string or an integer"),
    ("task_id", True, "field 'task_id' is True, not a string or an integer"),
    ("generator", ["a", "b"], "field 'generator' is ['a', 'b'], not a string"),
])
def test_bad_task_ids_and_group_values_name_the_field(tmp_path, field, value, message):
    rows = grouped_rows()
    rows[1][field] = value
    with pytest.raises(ValueError, match="1 bad row") as error:
        load_labelled(write(tmp_path / "g.jsonl", rows), group_field="generator")
    assert f":2: {message}" in str(error.value)


def test_cli_group_field_flag(tmp_path, capsys):
    rows = [{**row, "model": row.pop("generator", "")} for row in grouped_rows()]
    source = write(tmp_path / "g.jsonl", rows)
    assert main(["meta-eval", str(source), "--no-codescore", "--extra-metric", "m", "--group-field", "model",
                 "--json", str(tmp_path / "o.json")]) == 0
    table = capsys.readouterr().out
    assert "## Metrics vs PassRatio by model" in table and "### model = b (3 samples" in table
    results = json.loads((tmp_path / "o.json").read_text())
    assert [g["group"] for g in results["by_group"]["groups"]] == ["a", "b", "(none)"]
    assert main(["meta-eval", str(source), "--no-codescore", "--extra-metric", "m", "--group-field", ""]) == 0
    assert "by model" not in capsys.readouterr().out


def test_label_output_and_the_authors_names_are_read_without_renaming_flags(tmp_path):
    ours = tmp_path / "ours.jsonl"
    ours.write_text('{"generated_code": "x", "pass_ratio": 0.5, "executable": 1, "all_pass": 0}\n'
                    '{"generated_code": "y", "pass_ratio": 1.0, "executable": 1, "all_pass": 1}\n')
    theirs = tmp_path / "theirs.jsonl"
    theirs.write_text('{"generated_code": "x", "score": 0.5, "passed": 1, "pass@1": 0}\n'
                      '{"generated_code": "y", "score": 1.0, "passed": 1, "pass@1": 1}\n')
    for path in (ours, theirs):
        data = load_labelled(path)
        assert data.pass_ratio.tolist() == [0.5, 1.0] and data.all_pass.tolist() == [0.0, 1.0]
        assert data.executable.tolist() == [1.0, 1.0]


def test_codescore_label_output_chains_into_meta_eval_with_no_flags(tmp_path, capsys):
    from codescore_metric.cli import main

    rows = [{"task_id": "t", "program": "def f(x):\n    return x + 1\n", "tests": ["assert f(1) == 2", "assert f(2) == 3"]},
            {"task_id": "t", "program": "def f(x):\n    return x\n", "tests": ["assert f(1) == 2", "assert f(2) == 2"]}]
    source = tmp_path / "programs.jsonl"
    source.write_text("".join(json.dumps(row) + "\n" for row in rows))
    assert main(["label", str(source), "-o", str(tmp_path / "labelled.jsonl")]) == 0
    assert main(["meta-eval", str(tmp_path / "labelled.jsonl"), "--no-codebleu", "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "0.75" in printed  # mean PassRatio of the two programs (1.0 and 0.5), read from label's own field names


def test_scatter_panels_share_fixed_unit_axes_and_show_within_task_tau():
    from types import SimpleNamespace

    runs = [SimpleNamespace(name="A", values=[0.2, 0.4, 0.6]), SimpleNamespace(name="B", values=[0.1, 1.4, 0.3])]
    metrics = [{"name": "A", "tau": 0.5, "spearman": 0.6, "within_task_tau": 0.25}, {"name": "B", "tau": 0.1, "spearman": 0.2}]
    figure = rendering.scatter_figure(runs, [0.0, 0.5, 1.0], metrics, columns=3)
    first, second = figure.axes
    assert first.get_xlim() == pytest.approx((-0.03, 1.03)) and first.get_ylim() == pytest.approx((-0.03, 1.03))
    assert second.get_xlim() == pytest.approx((-0.03, 1.43))  # widened for a value above 1, never cut
    assert "within-task τ 0.250" in first.get_title() and "within-task" not in second.get_title()
