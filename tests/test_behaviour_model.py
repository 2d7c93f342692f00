"""The shipped (embedded default) model on the hand-written behaviour cases, Ref&NL, default scorer settings.

These are the bar a model must clear before it ships (`codescore_metric.behaviour.TARGETS`);
`python benchmarks/behaviour.py` prints every score behind them.
"""

import pytest

from codescore_metric import CodeScorer
from codescore_metric.behaviour import TARGETS, behaviour_report
from codescore_metric.checkpoints import CHECKPOINT_ENV


@pytest.fixture(scope="module")
def report():
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv(CHECKPOINT_ENV, raising=False)  # the embedded default, not an override
        return behaviour_report(CodeScorer(), "ref_nl")


def _bar(name: str) -> float:
    return TARGETS[name][1]


def _target(name: str) -> str:
    comparison, bar = TARGETS[name]
    return f"{comparison} {bar:g}"


def _lowest(report, variant: str, count: int = 5) -> str:
    scores = sorted((by_variant[variant], task_id) for task_id, by_variant in report["scores"].items())
    return ", ".join(f"{task_id}/{variant} {score:.3f}" for score, task_id in scores[:count])


def test_a_copy_of_the_reference_scores_high(report):
    assert report["copy_mean"] >= _bar("copy_mean"), (
        f"copy of the reference: mean {report['copy_mean']:.3f} (target {_target('copy_mean')}), "
        f"min {report['copy_min']:.3f}; lowest: {_lowest(report, 'reference')}")


def test_a_copy_of_the_reference_always_outranks_a_syntax_error(report):
    below = [task_id for task_id, scores in report["scores"].items() if not scores["reference"] > scores["syntax_error"]]
    assert not below, f"a verbatim copy of the reference scores no higher than a syntax error in: {below}"


# Known failure of the shipped model (issue 11): on these hand-written cases it orders correct code above plausible
# mistakes in 0.72 of the pairs (Ref&NL; the models shipped on 2026-12-02 and 2026-12-07 alike; the renamed copy wins
# its pairs by the certain same-as-reference rule, mistakes written unlike the reference lose most often), short of
# the 0.85 bar. strict=True: this test fails as soon as a model clears the bar, so the mark must go then.
@pytest.mark.xfail(strict=True, reason="the embedded model ranks correct above wrong variants in 72% of pairs; target 0.85")
def test_correct_variants_beat_wrong_ones(report):
    losing = "\n".join(f"{task_id}: {good} {good_score:.3f} <= {bad} {bad_score:.3f}"
                       for task_id, good, bad, good_score, bad_score in report["losing_pairs"])
    assert report["correct_over_wrong"] >= _bar("correct_over_wrong"), (
        f"correct > wrong in a share {report['correct_over_wrong']:.3f} of pairs (target {_target('correct_over_wrong')}); "
        f"pairs where it does not:\n{losing}")


def test_renaming_variables_barely_moves_the_score(report):
    shifts = sorted(((abs(scores["renamed"] - scores["reference"]), task_id) for task_id, scores in report["scores"].items()),
                    reverse=True)
    largest = ", ".join(f"{task_id} {shift:.3f}" for shift, task_id in shifts[:5])
    assert report["rename_shift_mean"] < _bar("rename_shift_mean"), (
        f"mean |renamed - copy| {report['rename_shift_mean']:.3f} (target {_target('rename_shift_mean')}); largest: {largest}")


def test_every_syntax_error_scores_low(report):
    high = ", ".join(f"{task_id}/syntax_error {scores['syntax_error']:.3f}" for task_id, scores in report["scores"].items()
                     if scores["syntax_error"] >= _bar("syntax_error_max"))
    assert report["syntax_error_max"] < _bar("syntax_error_max"), (
        f"a syntax error must score {_target('syntax_error_max')}; these do not: {high}")


# Not one of issue 11's bars: a guard against a model that marks every edit of the reference as a mistake, which would
# win the near-copy pairs above without reading the edit (an inverted similarity does: 9 of 19 here). The shipped
# model wins 15 of 19 while scoring these edits low overall (mean 0.39; ablations, "One-place edits").
EQUIVALENT_OVER_NEAR_MISTAKES = 0.7


def test_a_correct_one_place_edit_beats_the_near_copy_mistakes_of_its_task(report):
    won, total = report["equivalent_over_near_mistakes"]
    scores = ", ".join(f"{task_id} {by_variant['equivalent']:.3f}" for task_id, by_variant in report["scores"].items())
    assert total >= 15 and won / total >= EQUIVALENT_OVER_NEAR_MISTAKES, (
        f"correct one-place edits beat the near-copy mistakes of their task in {won}/{total} pairs "
        f"(target >= {EQUIVALENT_OVER_NEAR_MISTAKES}); their scores: {scores}")
