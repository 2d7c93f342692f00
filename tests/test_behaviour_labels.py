"""The behaviour cases' labels hold by execution: correct variants pass every test, wrong ones at most half."""

import ast

import pytest

from codescore_metric.behaviour import BEHAVIOUR_TASKS, is_near_copy
from codescore_metric.execution import Job, Limits, run_many
from codescore_metric.execution.labels import pass_ratio

LIMITS = Limits(test_timeout=10.0, program_timeout=60.0)  # generous: the programs are tiny, the CPU may be busy


def _runnable_variants():
    return [(task, variant, code) for task in BEHAVIOUR_TASKS
            for variant, code in task.variants().items() if variant != "syntax_error"]


@pytest.fixture(scope="module")
def results():
    """``{(task_id, variant): ProgramResult}`` for every variant that compiles."""
    variants = _runnable_variants()
    jobs = [Job(code, task.tests, setup="") for task, _, code in variants]
    ran = run_many(jobs, LIMITS, shared_process=True)
    return {(task.task_id, variant): result for (task, variant, _), result in zip(variants, ran)}


def _entry_point(code: str) -> str:
    (name,) = [node.name for node in ast.parse(code).body if isinstance(node, ast.FunctionDef)]
    return name


def _shape(code: str) -> str:
    """The program's AST with names and parameters numbered in order of appearance: equal shapes differ only in names."""
    tree = ast.parse(code)
    numbers: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            node.id = numbers.setdefault(node.id, f"name{len(numbers)}")
        elif isinstance(node, ast.arg):
            node.arg = numbers.setdefault(node.arg, f"name{len(numbers)}")
    return ast.dump(tree)


def _first_miss(result) -> str:
    if result.load.status != "passed":
        return f"load {result.load.status}: {result.load.detail}"
    index, test = next((i, t) for i, t in enumerate(result.tests) if t.status != "passed")
    return f"test {index} {test.status}: {test.error} {test.detail}"


def test_enough_tasks_with_unique_ids():
    ids = [task.task_id for task in BEHAVIOUR_TASKS]
    assert len(ids) >= 20
    assert len(set(ids)) == len(ids)


@pytest.mark.parametrize("task", BEHAVIOUR_TASKS, ids=lambda task: task.task_id)
def test_task_shape(task):
    assert task.nl.startswith("Write a function to ") and task.nl.endswith(".")
    assert len(task.tests) >= 8 and len(set(task.tests)) == len(task.tests)
    assert len(task.correct) >= 2 and len(task.wrong) >= 2
    name = _entry_point(task.reference)
    for test in task.tests:
        (statement,) = ast.parse(test).body
        assert isinstance(statement, ast.Assert), test
        assert name in {node.id for node in ast.walk(statement) if isinstance(node, ast.Name)}, test
    for variant, code in task.variants().items():
        if variant != "syntax_error":
            assert _entry_point(code) == name, f"{task.task_id}/{variant} does not define {name}"


@pytest.mark.parametrize("task", BEHAVIOUR_TASKS, ids=lambda task: task.task_id)
def test_renamed_changes_names_only_and_correct_variants_change_structure(task):
    assert task.renamed != task.reference
    assert _shape(task.renamed) == _shape(task.reference)
    for index, code in enumerate(task.correct, 1):
        assert _shape(code) != _shape(task.reference), f"{task.task_id}/correct_{index} differs from the reference only in names"


@pytest.mark.parametrize("task", BEHAVIOUR_TASKS, ids=lambda task: task.task_id)
def test_equivalent_is_a_near_copy_that_changes_more_than_names(task):
    assert _shape(task.equivalent) != _shape(task.reference)
    assert is_near_copy(task.equivalent, task.reference), f"{task.task_id}/equivalent is more than one edit away"


@pytest.mark.parametrize("task", BEHAVIOUR_TASKS, ids=lambda task: task.task_id)
def test_syntax_error_does_not_compile(task):
    with pytest.raises(SyntaxError):
        compile(task.syntax_error, "<x>", "exec")


def test_reference_correct_and_renamed_pass_every_test(results):
    failures = [f"{task_id}/{variant}: PassRatio {pass_ratio(result):.2f}, {_first_miss(result)}"
                for (task_id, variant), result in results.items()
                if not variant.startswith("wrong_") and pass_ratio(result) < 1]
    assert not failures, "\n".join(failures)


def test_wrong_variants_fail_at_least_half_of_the_tests(results):
    failures = [f"{task_id}/{variant}: PassRatio {pass_ratio(result):.2f}"
                for (task_id, variant), result in results.items()
                if variant.startswith("wrong_") and pass_ratio(result) > 0.5]
    assert not failures, "\n".join(failures)


def test_near_copies_are_one_place_edits_and_pairs_are_counted_by_kind():
    from codescore_metric.behaviour import edit_once, rewrites_over_mistakes

    reference = "def total(values):\n    result = 0\n    for value in values:\n        result += value\n    return result\n"
    assert is_near_copy(edit_once(reference, "result = 0", "result = 1"), reference)
    assert is_near_copy(edit_once(reference, "values", "items").replace("in values", "in items"), reference)  # renaming only
    assert not is_near_copy("def total(values):\n    return sum(v for v in values if v)\n", reference)
    assert not is_near_copy("def total(values:\n", reference)  # does not tokenize: no distance, not a near copy
    counts = rewrites_over_mistakes([(0.9, 0.1, True), (0.5, 0.5, True), (0.2, 0.6, False), (0.7, 0.3, False)])
    assert counts == {"all": (2, 4), "near-copy mistakes": (1, 2), "rewritten mistakes": (1, 2)}  # a tie is not a win
    assert sum(total for name, (_, total) in counts.items() if name != "all") == counts["all"][1]
