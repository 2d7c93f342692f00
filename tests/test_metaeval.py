"""Meta-evaluation: correlation statistics, binary thresholds, and `codescore meta-eval` end to end."""

import json
import math
import warnings

import numpy as np
import pytest
from scipy import stats

from codescore_metric.cli import main
from codescore_metric.metaeval.correlation import best_threshold, binary_agreement, classification, correlations, roc_auc

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
    assert "| Method | Value | τ (tau-b) | r_s | r_p | MAE | Time vs BLEU |" in table
    for name in ("BLEU", "CodeBLEU", "Exact match", "cbs", "CodeScore (Ref-only)", "CodeScore (NL-only)", "CodeScore (Ref&NL)"):
        assert f"| {name} | " in table
    assert "threshold rule: fixed" in table and "| Executability head (Ref&NL) | executable |" in table

    results = json.loads(out_json.read_text())
    metrics = {m["name"]: m for m in results["metrics"]}
    pass_ratio = [row["pass_ratio"] for row in rows]
    scored = CodeScorer(tiny_model_dir).score([r["generated_code"] for r in rows], [r["golden_code"] for r in rows],
                                         [r["source"] for r in rows], input_format="ref_nl")
    expected = correlations(scored.codescore, pass_ratio)
    for key in ("value", "tau", "spearman", "pearson", "mae"):
        assert metrics["CodeScore (Ref&NL)"][key] == pytest.approx(expected[key])
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
    assert f"| Executability head (Ref&NL) | executable | 0.7500 | {exec_head['auc']:.4f} |" in table
    assert out_png.read_bytes()[:8] == PNG_MAGIC


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


@pytest.mark.parametrize("extra, message", [
    (["--checkpoint", "./nowhere/model"], "codescore meta-eval: error:"),
    (["--formats", "nl", "--checkpoint", "./nowhere/model"], "format 'nl' needs field(s) ['source']"),
    (["--no-codescore", "--binary-threshold", "half"], "--binary-threshold must be a number or 'best'"),
])
def test_clean_cli_errors(tmp_path, capsys, extra, message):
    rows = [{k: v for k, v in row.items() if k != "source"} for row in labelled_rows(4)]
    source = write(tmp_path / "labelled.jsonl", rows)
    assert main(["meta-eval", str(source), "--no-codebleu", *extra]) == 2
    assert message in capsys.readouterr().err
