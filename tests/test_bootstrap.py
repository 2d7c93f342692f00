"""The task bootstrap: intervals resample whole tasks, share their resamples, and reach the report."""

import numpy as np
import pytest

from codescore_metric.cli import main
from codescore_metric.correlation import correlations, roc_auc, within_task_kendall
from codescore_metric.labelled import LabelledData
from codescore_metric.metaeval import rendering
from codescore_metric.metaeval.bootstrap import task_bootstrap
from codescore_metric.metaeval.runner import MetricRun, Settings, meta_evaluate


def labelled(pass_ratio, task_ids) -> LabelledData:
    pass_ratio = np.asarray(pass_ratio, dtype=np.float64)
    return LabelledData(predictions=["x = 1\n"] * len(pass_ratio), references=None, sources=None, pass_ratio=pass_ratio,
                        executable=(pass_ratio > 0).astype(float), all_pass=(pass_ratio == 1).astype(float), extras={},
                        task_ids=list(task_ids))


def twelve_tasks(seed: int = 0):
    """12 tasks of 6 candidates; BLEU is noisy, CodeScore follows PassRatio more closely."""
    rng = np.random.default_rng(seed)
    tasks = np.repeat(np.arange(12), 6)
    pass_ratio = np.round(rng.uniform(0, 1, len(tasks)), 1)
    pass_ratio[::6], pass_ratio[1::6] = 0.0, 1.0  # every task has both classes of both heads
    bleu = pass_ratio + rng.normal(0, 0.6, len(tasks))
    codescore = pass_ratio + rng.normal(0, 0.2, len(tasks))
    probability = 1 / (1 + np.exp(-4 * (codescore - 0.5)))
    runs = [MetricRun("BLEU", "baseline", bleu, 0.1),
            MetricRun("CodeScore (Ref&NL)", "codescore", codescore, 1.0, "ref_nl", probability, probability)]
    return labelled(pass_ratio, tasks), runs


def by_key(result: dict) -> dict:
    return {(row["statistic"], row["name"], row["over"]): row for row in result["intervals"]}


def test_values_are_the_full_data_numbers_and_lie_inside_their_intervals():
    data, runs = twelve_tasks()
    rows = by_key(task_bootstrap(runs, data, n_resamples=300))
    for run in runs:
        spearman = rows[("spearman", run.name, None)]
        assert spearman["value"] == pytest.approx(correlations(run.values, data.pass_ratio)["spearman"], abs=1e-12)
        within = rows[("within_task_tau", run.name, None)]
        assert within["value"] == pytest.approx(within_task_kendall(run.values, data.pass_ratio, data.task_ids)["within_task_tau"],
                                                abs=1e-12)
        for row in (spearman, within):
            assert row["low"] < row["value"] < row["high"]
    auc = rows[("roc_auc", "Passability head (Ref&NL)", None)]
    assert auc["value"] == pytest.approx(roc_auc(runs[1].passability, data.all_pass, "all_pass"), abs=1e-12)
    lead = rows[("spearman", "CodeScore (Ref&NL)", "BLEU")]
    assert lead["value"] == pytest.approx(rows[("spearman", "CodeScore (Ref&NL)", None)]["value"] - rows[("spearman", "BLEU", None)]["value"])
    assert lead["low"] > 0  # the less noisy metric leads on every plausible resample of these tasks


def test_a_lead_interval_is_paired_the_marginal_ones_are_not():
    data, runs = twelve_tasks()
    shifted = MetricRun("CodeScore (Ref&NL)", "codescore", runs[0].values + 5.0, 1.0, "ref_nl",
                        runs[1].executability, runs[1].passability)  # BLEU plus a constant: the same ranks
    rows = by_key(task_bootstrap([runs[0], shifted], data, n_resamples=300))
    marginal = rows[("spearman", "BLEU", None)]
    assert marginal["high"] - marginal["low"] > 0.1
    for statistic in ("spearman", "within_task_tau"):
        lead = rows[(statistic, "CodeScore (Ref&NL)", "BLEU")]
        assert lead["value"] == lead["low"] == lead["high"] == 0.0  # computed on the same resample every time


def test_a_second_models_lead_is_paired_in_both_correlations_and_both_heads():
    data, runs = twelve_tasks()
    rng = np.random.default_rng(5)
    noisier = runs[1].values + rng.normal(0, 0.5, len(data.pass_ratio))
    other = MetricRun("CodeScore (Ref&NL) of other", "codescore", noisier, 1.0, "ref_nl", 1 / (1 + np.exp(-noisier)),
                      1 / (1 + np.exp(-noisier)))
    pair = ("CodeScore (Ref&NL)", "CodeScore (Ref&NL) of other")
    rows = by_key(task_bootstrap([*runs, other], data, n_resamples=300, leads=[pair]))
    assert ("spearman", "CodeScore (Ref&NL)", "BLEU") not in rows  # explicit leads replace the default ones
    for statistic in ("spearman", "within_task_tau"):
        lead = rows[(statistic, *pair)]
        assert lead["value"] == pytest.approx(rows[(statistic, pair[0], None)]["value"] - rows[(statistic, pair[1], None)]["value"])
    for head in ("Executability", "Passability"):
        names = (f"{head} head (Ref&NL)", f"{head} head (Ref&NL) of other")
        lead = rows[("roc_auc", *names)]
        assert lead["value"] == pytest.approx(rows[("roc_auc", names[0], None)]["value"] - rows[("roc_auc", names[1], None)]["value"])
        assert lead["low"] <= lead["value"] <= lead["high"]
    same = MetricRun("CodeScore (Ref&NL) of same", "codescore", runs[1].values, 1.0, "ref_nl", runs[1].executability,
                     runs[1].passability)
    rows = by_key(task_bootstrap([*runs, same], data, n_resamples=100, leads=[("CodeScore (Ref&NL)", same.name)]))
    lead = rows[("roc_auc", "Passability head (Ref&NL)", "Passability head (Ref&NL) of same")]
    assert lead["value"] == lead["low"] == lead["high"] == 0.0  # one model against itself: zero on every resample
    with pytest.raises(ValueError, match=r"not among the runs: \['nowhere'\]"):
        task_bootstrap(runs, data, n_resamples=50, leads=[("CodeScore (Ref&NL)", "nowhere")])


def test_tasks_are_resampled_whole():
    # Task a is ranked perfectly (tau 1), task b backwards (tau -1): a resample of the two tasks has a mean
    # within-task tau of -1, 0 or 1, never a value in between, and the extremes each come up about a quarter of the time.
    data = labelled([0.0, 0.5, 1.0] * 2, ["a"] * 3 + ["b"] * 3)
    metric = np.array([0.1, 0.2, 0.3, 0.3, 0.2, 0.1])
    row = by_key(task_bootstrap([MetricRun("m", "extra", metric, None)], data, n_resamples=400))[("within_task_tau", "m", None)]
    assert row["value"] == 0.0 and row["low"] == -1.0 and row["high"] == 1.0


def test_the_seed_fixes_the_resamples():
    data, runs = twelve_tasks()
    first, again = (task_bootstrap(runs, data, n_resamples=200, seed=3) for _ in range(2))
    other = task_bootstrap(runs, data, n_resamples=200, seed=4)
    assert first == again and first["seed"] == 3 and first["n_tasks"] == 12 and first["n_resamples"] == 200
    assert [row["low"] for row in first["intervals"]] != [row["low"] for row in other["intervals"]]


def test_a_constant_metric_gets_no_interval_and_bad_requests_say_why():
    data, runs = twelve_tasks()
    constant = MetricRun("Exact match", "baseline", np.zeros(len(data.pass_ratio)), 0.0)
    names = {row["name"] for row in task_bootstrap([constant, *runs], data, n_resamples=50)["intervals"]}
    assert "Exact match" not in names and "BLEU" in names
    with pytest.raises(ValueError, match="at least 2 tasks"):
        task_bootstrap(runs[:1], labelled(data.pass_ratio, ["one"] * len(data.pass_ratio)), n_resamples=50)
    with pytest.raises(ValueError, match="n_resamples must be at least 2"):
        task_bootstrap(runs, data, n_resamples=1)


def test_meta_evaluate_reports_intervals_in_the_json_and_the_markdown():
    data, runs = twelve_tasks()
    results = meta_evaluate(data, runs, Settings(bootstrap=100, bootstrap_seed=1))
    assert results["bootstrap"] == task_bootstrap(runs, data, n_resamples=100, seed=1)
    text = rendering.markdown(results)
    assert "## Uncertainty: 95% intervals from resampling the 12 tasks (100 resamples, seed 1)" in text
    lead = by_key(results["bootstrap"])[("spearman", "CodeScore (Ref&NL)", "BLEU")]
    assert f"| CodeScore (Ref&NL) | BLEU | {lead['value']:.4f} | [{lead['low']:.4f}, {lead['high']:.4f}] |" in text
    assert meta_evaluate(data, runs, Settings(bootstrap=0))["bootstrap"] is None
    untasked = LabelledData(**{**data.__dict__, "task_ids": None})
    results = meta_evaluate(untasked, runs, Settings())
    assert results["bootstrap"] is None and any("confidence intervals not computed" in note for note in results["notes"])
    assert "Uncertainty" not in rendering.markdown(results)


def test_cli_bootstrap_flags(tmp_path, capsys):
    path = tmp_path / "rows.jsonl"
    rows = [f'{{"task_id": {task}, "generated_code": "x = {i}", "golden_code": "x = 1", "pass_ratio": {(i % 3) / 2}}}'
            for task in range(3) for i in range(4)]
    path.write_text("\n".join(rows) + "\n")
    assert main(["meta-eval", str(path), "--no-codescore", "--no-codebleu", "--bootstrap", "50", "--bootstrap-seed", "2"]) == 0
    assert "(50 resamples, seed 2)" in capsys.readouterr().out
    assert main(["meta-eval", str(path), "--no-codescore", "--no-codebleu", "--bootstrap", "0"]) == 0
    assert "Uncertainty" not in capsys.readouterr().out


def test_the_model_card_shows_the_intervals_where_the_file_has_them():
    from codescore_metric.training.model_card import evaluation_table

    data, runs = twelve_tasks()
    results = meta_evaluate(data, runs, Settings(bootstrap=100))
    rows = by_key(results["bootstrap"])
    table = evaluation_table(results)
    spearman, within = rows[("spearman", "BLEU", None)], rows[("within_task_tau", "BLEU", None)]
    assert f"| [{spearman['low']:.4f}, {spearman['high']:.4f}] | [{within['low']:.4f}, {within['high']:.4f}] |" in table
    auc = rows[("roc_auc", "Passability head (Ref&NL)", None)]
    assert f"| {auc['value']:.4f} | [{auc['low']:.4f}, {auc['high']:.4f}] |" in table
    assert "resampling the 12 tasks, 100 resamples" in table
    plain = evaluation_table(meta_evaluate(data, runs, Settings(bootstrap=0)))
    assert "interval" not in plain and "| method | value | τ | r_s | r_p | MAE | within-task τ |" in plain


def test_resamples_where_a_head_has_one_class_are_left_out_of_its_interval_and_counted():
    # Only task 0 has a passing candidate: every resample without it has no Passability ROC AUC.
    pass_ratio = np.array([0.0, 1.0, 0.5] + [0.0, 0.5, 0.2] * 5)
    data = labelled(pass_ratio, np.repeat(np.arange(6), 3))
    probability = np.linspace(0.1, 0.9, len(pass_ratio))
    run = MetricRun("CodeScore (Ref&NL)", "codescore", pass_ratio + 0.01 * np.arange(len(pass_ratio)), 1.0, "ref_nl",
                    probability, probability)
    rows = by_key(task_bootstrap([run], data, n_resamples=200))
    auc = rows[("roc_auc", "Passability head (Ref&NL)", None)]
    assert 0 < auc["undefined_resamples"] < 200  # (5/6)^6 of resamples miss task 0: about a third
    assert auc["low"] is not None and 0.0 <= auc["low"] <= auc["value"] <= auc["high"] <= 1.0
    defined = rows[("roc_auc", "Executability head (Ref&NL)", None)]
    assert defined["undefined_resamples"] == 0
    text = rendering.markdown(meta_evaluate(data, [run], Settings(bootstrap=200)))
    assert f"roc_auc of Passability head (Ref&NL): undefined on {auc['undefined_resamples']} resamples" in text
