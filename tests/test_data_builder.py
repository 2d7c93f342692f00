"""Data builder: mutation operators, candidates, splits, end-to-end builds, the HumanEval guard.

Mutated programs run only in the execution sandbox, never in the test process.
"""

import ast
import json
import random
from dataclasses import replace
from pathlib import Path

import pytest

from codescore_metric.cli import main as cli_main
from codescore_metric.data import mutations
from codescore_metric.data.builder import COLUMN_TYPES, BuildConfig, build, hash_splits, mbpp_splits, to_dataset_dict
from codescore_metric.data.candidates import KINDS, Donor, make_candidates, normalise, rename_function
from codescore_metric.data.distribution import histogram, label_distribution
from codescore_metric.execution import Job, Limits, run_many
from codescore_metric.execution.labels import executable, pass_ratio
from codescore_metric.execution.tasks import Task

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
LIMITS = Limits(test_timeout=1.0, program_timeout=10.0)

CLAMP = '''def clamp_sum(xs, low):
    total = 0
    for i in range(len(xs)):
        if xs[i] < low:
            total += low
        else:
            total += xs[i]
    return total
'''
CLAMP_TESTS = ["assert clamp_sum([1, 5, 3], 2) == 10", "assert clamp_sum([], 2) == 0",
               "assert clamp_sum([7, 8], 1) == 15", "assert clamp_sum([0, 0, 9], 4) == 17",
               "assert clamp_sum([2], 2) == 2", "assert clamp_sum([3, 1], 3) == 6"]

# operator -> (program, a fragment one of its mutants must contain, tests the reference passes)
CASES = {
    "compare_swap": (CLAMP, "xs[i] > low", CLAMP_TESTS),
    "arithmetic_swap": ("def f(a, b):\n    return a + b\n", "a - b", ["assert f(2, 3) == 5"]),
    "constant_off_by_one": ("def f(a):\n    return a * 10\n", "a * 11", ["assert f(2) == 20"]),
    "range_off_by_one": ("def f(n):\n    return list(range(n))\n", "range(n - 1)", ["assert f(3) == [0, 1, 2]"]),
    "negate_condition": ("def f(a):\n    if a > 0:\n        return 1\n    return 0\n", "if not a > 0", ["assert f(5) == 1"]),
    "swap_arguments": ("def f(a, b):\n    return pow(a, b)\n", "pow(b, a)", ["assert f(2, 3) == 8"]),
    "delete_statement": (CLAMP, "for i in range(len(xs)):\n        if xs[i] < low:\n            pass", CLAMP_TESTS),
    "duplicate_statement": ("def f(xs):\n    out = []\n    out.append(xs[0])\n    return out\n",
                            "out.append(xs[0])\n    out.append(xs[0])", ["assert f([4]) == [4]"]),
    "wrong_return": ("def f(a):\n    b = a * 2\n    return b\n", "return a", ["assert f(3) == 6"]),
    "wrong_builtin": ("def f(xs):\n    return max(xs)\n", "min(xs)", ["assert f([1, 9]) == 9"]),
    "break_branch": ("def f(a):\n    if a > 0:\n        r = 1\n    else:\n        r = -1\n    return r\n",
                     "if a > 0:\n        r = -1", ["assert f(5) == 1", "assert f(-5) == -1"]),
}


def test_every_operator_has_a_case():
    assert set(CASES) == set(mutations.OPERATORS) | set(mutations.PARTIAL_OPERATORS)


@pytest.mark.parametrize("name", sorted(CASES))
def test_operator_mutants_parse_differ_and_include_the_intended_one(name):
    program, fragment, _ = CASES[name]
    operator = {**mutations.OPERATORS, **mutations.PARTIAL_OPERATORS}[name]
    found = operator(program)
    assert found, f"{name} made no mutant"
    assert len(set(found)) == len(found)
    original = ast.unparse(ast.parse(program))
    for text in found:
        ast.parse(text)
        assert text != original
    assert any(fragment in text for text in found), f"{name}: no mutant contains {fragment!r}:\n" + "\n---\n".join(found)
    assert operator(program) == found  # deterministic


def test_intended_mutants_change_behaviour_in_the_sandbox():
    jobs, names = [], []
    for name, (program, fragment, tests) in sorted(CASES.items()):
        operator = {**mutations.OPERATORS, **mutations.PARTIAL_OPERATORS}[name]
        mutant = next(text for text in operator(program) if fragment in text)
        jobs += [Job(program, tests), Job(mutant, tests)]
        names.append(name)
    results = list(run_many(jobs, LIMITS, workers=2))
    for k, name in enumerate(names):
        assert pass_ratio(results[2 * k]) == 1.0, f"{name}: the reference should pass its tests"
        assert pass_ratio(results[2 * k + 1]) < 1.0, f"{name}: the mutant should fail at least one test"


# rewrite -> (program, a fragment one of its rewrites must contain, tests the program passes)
REWRITE_CASES = {
    "mirror_comparison": (CLAMP, "if low > xs[i]:", CLAMP_TESTS),
    "expand_augmented_assignment": (CLAMP, "total = total + low", CLAMP_TESTS),
    "spell_out_negation": ("def f(xs, a):\n    return a not in xs\n", "not a in xs",
                           ["assert f([1], 2)", "assert not f([1, 2], 2)"]),
    "explicit_range_start": (CLAMP, "range(0, len(xs))", CLAMP_TESTS),
    "swap_if_branches": (CLAMP, "if not xs[i] < low:\n            total += xs[i]\n        else:\n            total += low",
                         CLAMP_TESTS),
    "commute_constant": ("def f(a, b):\n    return (a + 1) * b\n", "(1 + a) * b", ["assert f(2, 3) == 9", "assert f(0, 5) == 5"]),
}


def test_every_rewrite_has_a_case():
    assert set(REWRITE_CASES) == set(mutations.EQUIVALENT_REWRITES)


@pytest.mark.parametrize("name", sorted(REWRITE_CASES))
def test_rewrites_parse_differ_in_one_place_and_include_the_intended_one(name):
    program, fragment, _ = REWRITE_CASES[name]
    found = mutations.EQUIVALENT_REWRITES[name](program)
    assert found and len(set(found)) == len(found)
    original = ast.unparse(ast.parse(program))
    for text in found:
        assert text != original
        changed = [line for line in text.splitlines() if line not in original.splitlines()]
        assert len(changed) == 1, f"{name} changed more than one line:\n{text}"  # one place (swap_if: the header)
    assert any(fragment in text for text in found), f"{name}: no rewrite contains {fragment!r}:\n" + "\n---\n".join(found)
    assert mutations.EQUIVALENT_REWRITES[name](program) == found


def test_rewrites_keep_what_the_program_does_in_the_sandbox():
    jobs = [Job(text, tests) for name, (program, _, tests) in REWRITE_CASES.items()
            for text in mutations.EQUIVALENT_REWRITES[name](program)]
    assert len(jobs) == 7  # CLAMP has one site per rewrite but two augmented assignments
    assert [pass_ratio(result) for result in run_many(jobs, LIMITS, workers=2)] == [1.0] * len(jobs)


def test_rewrites_leave_programs_without_a_site_alone():
    program = "def f(a):\n    return a\n"
    assert all(rewrite(program) == [] for rewrite in mutations.EQUIVALENT_REWRITES.values())


def test_operators_leave_unmatched_programs_alone():
    assert mutations.compare_swap("def f(a):\n    return a\n") == []
    assert mutations.wrong_builtin("def max(a):\n    return a\n\ndef g(x):\n    return max(x)\n") == []
    with pytest.raises(ValueError, match="does not parse"):
        mutations.compare_swap("def f(:\n")


def test_rename_locals_keeps_parameters_and_skips_closures():
    renamed = mutations.rename_locals(CLAMP)
    assert len(renamed) == 1 and "def clamp_sum(xs, low)" in renamed[0] and "total" not in renamed[0]
    assert mutations.rename_locals("def f(a):\n    b = 1\n    return lambda: a + b\n") == []



RENAMABLE = '''import math

def scaled_total(str: str, factor=len("ab"), *rest, **options) -> str:
    total = 0  # running sum
    for item in str:
        total += math.floor(item * factor)
    squares = [x * x for x in rest]
    return total + sum(squares) + helper(width=2)

def helper(width):
    return width

class Box:
    def grow(self, size):
        bigger = size + 1
        return bigger
'''


def test_rename_identifiers_renames_parameters_and_locals_in_place_and_keeps_the_rest():
    renamed = mutations.rename_identifiers(RENAMABLE, random.Random(0))
    assert renamed is not None and renamed != RENAMABLE
    assert mutations.rename_identifiers(RENAMABLE, random.Random(0)) == renamed  # the rng decides the names
    tree = ast.parse(renamed)
    scaled = next(node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "scaled_total")
    parameters = [a.arg for a in scaled.args.args] + [scaled.args.vararg.arg, scaled.args.kwarg.arg]
    assert not {"str", "factor", "rest", "options"} & set(parameters)
    assert ast.unparse(scaled.args.args[0].annotation) == "str" and ast.unparse(scaled.returns) == "str"  # annotations, defaults: outer scope
    assert ast.unparse(scaled.args.defaults[0]) == 'len(\'ab\')'
    assert "# running sum" in renamed and "helper(width=2)" in renamed and "def helper(width):" in renamed  # passed by keyword
    assert "def grow(self," in renamed and "bigger" not in renamed and "math.floor" in renamed
    assert renamed.count("\n") == RENAMABLE.count("\n")
    assert mutations.rename_identifiers("def f():\n    return 1\n", random.Random(0)) is None
    assert mutations.rename_identifiers("def f(a):\n    return f'{a}'\n", random.Random(0)) is None  # f-strings left alone


def test_renamed_programs_pass_the_same_tests_in_the_sandbox():
    programs = [CLAMP, "def sq(é, *, k=2):\n    ö = é ** k\n    return ö\n"]
    tests = [CLAMP_TESTS, ["assert sq(3) == 9", "assert sq(2, k=3) == 8"]]
    renamed = [mutations.rename_identifiers(program, random.Random(seed)) for seed, program in enumerate(programs)]
    assert all(text is not None and text != program for text, program in zip(renamed, programs))
    assert "*, k=2" in renamed[1] and "é" not in renamed[1]  # keyword-only: the tests pass it by name
    results = list(run_many([Job(text, cases) for text, cases in zip(programs + renamed, tests + tests)], LIMITS, workers=2))
    assert [pass_ratio(result) for result in results] == [1.0] * 4

def test_non_executable_variants_fail_in_the_sandbox():
    program = "import math\ndef f(a, b):\n    c = a + b\n    return math.floor(c)\n"
    tests = ["assert f(1, 2) == 3", "assert f(2.5, 1) == 3"]
    broken = mutations.syntax_error(program)
    undefined = mutations.undefined_name(program)
    assert len(broken) >= 3 and len(undefined) >= 3
    results = list(run_many([Job(text, tests) for text in broken + undefined], LIMITS, workers=2))
    for text, result in zip(broken, results):
        assert result.load.error == "SyntaxError" or result.load.error == "IndentationError", text
    for text, result in zip(undefined, results[len(broken):]):
        assert not executable(result) and pass_ratio(result) == 0, text
        assert {test.error for test in result.tests} == {"NameError"}, text


def test_candidates_are_deterministic_distinct_and_capped():
    donors = [Donor("a", CLAMP, "clamp_sum"), Donor("b", "def other(xs, k):\n    return len(xs) * k\n", "other")]
    first = make_candidates("a", CLAMP, "clamp_sum", donors, per_task=15, seed=3)
    assert first == make_candidates("a", CLAMP, "clamp_sum", donors, per_task=15, seed=3)
    assert first != make_candidates("a", CLAMP, "clamp_sum", donors, per_task=15, seed=4)
    assert len(first) == 15
    keys = [normalise(candidate.code) for candidate in first]
    assert len(set(keys)) == len(keys) and normalise(CLAMP) not in keys
    assert {candidate.kind for candidate in first} == set(KINDS)
    foreign = [candidate for candidate in first if candidate.kind == "foreign"]
    assert foreign and all("def clamp_sum(xs, k)" in candidate.code and candidate.detail == "task b" for candidate in foreign)
    assert len(make_candidates("a", "def f(a):\n    return a\n", "f", [], per_task=50)) < 50  # few sites: fewer candidates


def test_normalise_ignores_layout_and_comments():
    assert normalise("def f(a):\r\n\treturn (a)  # note\n") == normalise("def f(a):\n    return a")
    assert normalise("def f(:\n  x") == "def f(: x"


def test_rename_function_renames_definition_and_recursive_calls():
    code = rename_function("def fact(n):\n    return 1 if n < 2 else n * fact(n - 1)\n", "fact", "target")
    assert "def target(n)" in code and "target(n - 1)" in code and "fact" not in code
    assert rename_function("x = 1\n", "fact", "target") is None


def _tasks(ids):
    return {str(i): Task(str(i), "mbpp", "", ("assert True",), ("assert True",)) for i in ids}


def test_mbpp_split_is_by_task_and_standard():
    splits = mbpp_splits(_tasks(range(1, 975)))
    assert splits["train"][0] == "601" and splits["train"][-1] == "974" and len(splits["train"]) == 374
    assert splits["validation"][0] == "511" and splits["validation"][-1] == "600" and len(splits["validation"]) == 90
    assert not set(splits["train"]) & set(splits["validation"])


def test_mbpp_all_train_takes_every_task_outside_validation():
    splits = mbpp_splits(_tasks(range(1, 975)), train="all")
    assert len(splits["train"]) == 974 - 90 and {"1", "510", "601", "974"} <= set(splits["train"])
    assert splits["validation"] == [str(i) for i in range(511, 601)]
    assert not set(splits["train"]) & set(splits["validation"])


def test_mbpp_train_choice_is_checked(tmp_path):
    with pytest.raises(ValueError, match="mbpp_train must be one of standard, all"):
        BuildConfig(benchmark="mbpp", output_dir=tmp_path, input=tmp_path / "x.jsonl", mbpp_train="everything")


def test_hash_split_is_disjoint_stable_and_complete():
    tasks = _tasks(range(200))
    splits = hash_splits(tasks, 0.2, seed=0)
    assert not set(splits["train"]) & set(splits["validation"])
    assert set(splits["train"]) | set(splits["validation"]) == set(tasks)
    assert 20 <= len(splits["validation"]) <= 60
    smaller = hash_splits(_tasks(range(100)), 0.2, seed=0)
    assert set(smaller["validation"]) == {t for t in splits["validation"] if int(t) < 100}


def test_dataset_dict_keeps_column_types_also_for_an_empty_split():
    row = {column: {"string": "x", "float64": 0.5, "bool": True, "int64": 3}[kind] for column, kind in COLUMN_TYPES.items()}
    dataset = to_dataset_dict({"train": [row], "validation": []})
    assert dataset["train"][0] == row and dataset["validation"].num_rows == 0
    assert {split: dict(part.features) for split, part in dataset.items()}["validation"] == dict(dataset["train"].features)
    with pytest.raises(KeyError, match="kind"):
        to_dataset_dict({"train": [{column: value for column, value in row.items() if column != "kind"}]})


def test_histogram_and_distribution():
    assert histogram([0.0, 0.05, 0.5, 0.99, 1.0]) == [2, 0, 0, 0, 0, 1, 0, 0, 0, 2]
    with pytest.raises(ValueError, match="pass_ratio"):
        histogram([1.5])
    dist = label_distribution([{"pass_ratio": 0.0, "executable": False, "all_pass": False, "task_id": "1", "kind": "a"},
                               {"pass_ratio": 1.0, "executable": True, "all_pass": True, "task_id": "2", "kind": "b"}])
    assert dist["count"] == 2 and dist["tasks"] == 2 and dist["mean_pass_ratio"] == 0.5 and dist["executable"] == 0.5
    assert dist["by_kind"]["a"]["zero"] == 1.0


GENERIC_TASKS = [
    {"task_id": "t1", "source": "Sum the items, raising each below low up to low.", "program": CLAMP, "tests": CLAMP_TESTS},
    {"task_id": "t2", "source": "Count the vowels of a string.",
     "program": "def count_vowels(s):\n    n = 0\n    for ch in s.lower():\n        if ch in 'aeiou':\n            n += 1\n    return n\n",
     "tests": ["assert count_vowels('hello') == 2", "assert count_vowels('') == 0", "assert count_vowels('AEIOU') == 5",
               "assert count_vowels('xyz') == 0", "assert count_vowels('banana') == 3", "assert count_vowels('Queue') == 4"]},
    {"task_id": "t3", "source": "Return the largest even number of a list, or -1.",
     "program": "def max_even(xs):\n    best = -1\n    for x in xs:\n        if x % 2 == 0 and x > best:\n            best = x\n    return best\n",
     "tests": ["assert max_even([1, 2, 4]) == 4", "assert max_even([]) == -1", "assert max_even([3, 5]) == -1",
               "assert max_even([10, 8, 7]) == 10", "assert max_even([6]) == 6", "assert max_even([0, 1]) == 0"]},
]


def _write(path, rows):
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def test_build_end_to_end_on_hand_written_tasks(tmp_path):
    import datasets

    source = _write(tmp_path / "tasks.jsonl", GENERIC_TASKS)
    config = BuildConfig("generic", tmp_path / "out", input=source, per_task=10, seed=0, workers=2,
                         validation_fraction=0.34, tests_per_task=0, limits=LIMITS, progress=False)
    report = build(config)
    loaded = datasets.load_from_disk(str(tmp_path / "out" / "dataset"))
    assert set(loaded) == {"train", "validation"}
    for split in loaded.values():
        assert set(COLUMN_TYPES) <= set(split.column_names)
    train_ids, val_ids = set(loaded["train"]["task_id"]), set(loaded["validation"]["task_id"])
    assert train_ids and val_ids and not train_ids & val_ids
    ratios = [row["pass_ratio"] for split in report.rows.values() for row in split]
    assert 0.0 in ratios and 1.0 in ratios and any(0 < ratio < 1 for ratio in ratios)
    for rows in report.rows.values():
        split_ids = {row["task_id"] for row in rows}
        for row in rows:
            if row["kind"] == "foreign":
                assert row["detail"].removeprefix("task ") in split_ids - {row["task_id"]}
            assert row["executable"] or not row["all_pass"]
    lines = (tmp_path / "out" / "validation.jsonl").read_text().splitlines()
    assert len(lines) == len(loaded["validation"]) and set(COLUMN_TYPES) <= set(json.loads(lines[0]))
    assert "pass_ratio bin" in (tmp_path / "out" / "label_distribution.md").read_text()


def test_mixed_nl_style_gives_each_candidate_the_text_or_a_docstring_prompt(tmp_path):
    source = _write(tmp_path / "tasks.jsonl", GENERIC_TASKS)
    config = BuildConfig("generic", tmp_path / "out", input=source, per_task=8, seed=0, workers=2, nl_style="mixed",
                         validation_fraction=0.34, tests_per_task=0, limits=LIMITS, progress=False)
    rows = [row for split in build(config).rows.values() for row in split]
    texts = {task["task_id"]: task["source"] for task in GENERIC_TASKS}
    styles = set()
    for row in rows:
        if row["source"] == texts[row["task_id"]]:
            styles.add("text")
        else:
            assert row["source"].startswith("def ") and f'"""{texts[row["task_id"]]}' in row["source"]
            assert ">>> " in row["source"]  # one of the task's asserts as an example
            styles.add("prompt")
    assert styles == {"text", "prompt"}


def test_nl_style_is_checked_and_never_applied_to_humaneval(tmp_path):
    with pytest.raises(ValueError, match="nl_style must be one of text, prompt, mixed"):
        BuildConfig("mbpp", tmp_path, input=tmp_path / "x.jsonl", nl_style="docstring")
    with pytest.raises(ValueError, match="already is a docstring prompt"):
        BuildConfig("humaneval", tmp_path, input=tmp_path / "x.jsonl", eval_only=True, nl_style="prompt")


HUMANEVAL_ROW = {"task_id": "HumanEval/0", "entry_point": "add",
                 "prompt": "def add(a, b):\n    \"\"\"Add two numbers.\"\"\"\n",
                 "canonical_solution": "    return a + b\n",
                 "test": "def check(candidate):\n    assert candidate(1, 2) == 3\n",
                 "test_case_list": ["assert add(1, 2) == 3", "assert add(0, 0) == 0", "assert add(-1, 5) == 4",
                                    "assert add(2, 2) == 4", "assert add(10, -3) == 7"]}


def test_humaneval_is_refused_as_training_data(tmp_path, capsys):
    source = _write(tmp_path / "he.jsonl", [HUMANEVAL_ROW])
    with pytest.raises(ValueError, match="zero-shot evaluation"):
        BuildConfig("humaneval", tmp_path / "out", input=source)
    assert cli_main(["build-data", "--benchmark", "humaneval", "--input", str(source), "-o", str(tmp_path / "out")]) == 2
    assert "zero-shot" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_humaneval_eval_only_writes_a_labelled_jsonl(tmp_path):
    source = _write(tmp_path / "he.jsonl", [HUMANEVAL_ROW])
    code = cli_main(["build-data", "--benchmark", "humaneval", "--eval-only", "--input", str(source), "-o",
                     str(tmp_path / "out"), "--candidates-per-task", "6", "--workers", "2", "--no-progress"])
    assert code == 0
    assert not (tmp_path / "out" / "dataset").exists() and not (tmp_path / "out" / "train.jsonl").exists()
    rows = [json.loads(line) for line in (tmp_path / "out" / "eval.jsonl").read_text().splitlines()]
    assert rows and all(set(COLUMN_TYPES) <= set(row) and row["num_tests"] == 5 for row in rows)
    assert rows[0]["source"] == HUMANEVAL_ROW["prompt"]
    assert rows[0]["golden_code"] == HUMANEVAL_ROW["prompt"] + HUMANEVAL_ROW["canonical_solution"]


@pytest.mark.skipif(not (SHARED_DATA / "mbpp.jsonl").exists(), reason="shared MBPP file not present")
def test_build_on_real_mbpp_tasks_with_extension(tmp_path):
    wanted = {511, 512, 602, 603}
    rows = [row for row in map(json.loads, (SHARED_DATA / "mbpp.jsonl").read_text().splitlines()) if row["task_id"] in wanted]
    source = _write(tmp_path / "mbpp.jsonl", rows)
    config = BuildConfig("mbpp", tmp_path / "out", input=source, per_task=5, workers=2, tests_per_task=8,
                         limits=LIMITS, progress=False)
    report = build(config)
    assert {row["task_id"] for row in report.rows["train"]} <= {"602", "603"}
    assert {row["task_id"] for row in report.rows["validation"]} <= {"511", "512"}
    assert all(row["num_tests"] > 3 for split in report.rows.values() for row in split)
    cache = (tmp_path / "out" / "extended_tests.jsonl").read_text().splitlines()
    assert len(cache) == 4
    build(config)  # the rerun reads the cache instead of extending again
    assert (tmp_path / "out" / "extended_tests.jsonl").read_text().splitlines() == cache


def test_real_generations_are_labelled_and_validation_holds_only_real_programs(tmp_path):
    source = _write(tmp_path / "tasks.jsonl", GENERIC_TASKS)
    generations = _write(tmp_path / "generations.jsonl", [
        # correct, but only with the harness's typing prelude (List is not imported)
        {"task_id": "t2", "program": "def count_vowels(s: List[str]) -> int:\n    return sum(c in 'aeiou' for c in s.lower())\n",
         "models": ["model-a"], "id": "a-1", "prompt_style": "p"},
        {"task_id": "t2", "program": "def count_vowels(s):\n    return sum(c in 'aeiu' for c in s)\n", "model": "model-b"},
        {"task_id": "t3", "program": "def max_even(xs):\n    return max(xs)\n", "models": ["model-a", "model-b"]},
        {"task_id": "t3", "program": "def max_even(xs:\n", "models": ["model-b"]},
        # a group whose prompt asked for another function: left out, with the reason
        {"task_id": "t1", "program": "def clamp_total(xs):\n    return sum(xs)\n", "prompt_style": "other"},
        {"task_id": "t1", "program": "def clamp_sum(xs):\n    return sum(xs)\n", "prompt_style": "other"},
    ])
    config = BuildConfig("generic", tmp_path / "out", input=source, per_task=4, seed=0, workers=2, validation_fraction=0.5,
                         tests_per_task=0, limits=LIMITS, progress=False, generations=(generations,), reference_rows=True)
    report = build(config)
    real = [row for rows in report.rows.values() for row in rows if row["kind"] == "generation"]
    by_code = {row["generated_code"]: row for row in real}
    assert len(real) == 4 and not any(row["task_id"] == "t1" for row in real)
    assert "t1 (other generations)" in report.dropped and "clamp_sum() with 2 parameter(s)" in report.dropped["t1 (other generations)"]
    typed = by_code["def count_vowels(s: List[str]) -> int:\n    return sum(c in 'aeiou' for c in s.lower())\n"]
    assert typed["pass_ratio"] == 1.0 and typed["generator"] == "model-a" and typed["detail"] == "a-1 p"
    assert 0 < by_code["def count_vowels(s):\n    return sum(c in 'aeiu' for c in s)\n"]["pass_ratio"] < 1
    assert by_code["def max_even(xs:\n"]["executable"] is False
    assert by_code["def max_even(xs):\n    return max(xs)\n"]["generator"] == "model-a,model-b"
    for split, rows in report.rows.items():
        kinds = {row["kind"] for row in rows}
        if split == "train":
            assert "reference" in kinds and any(k not in ("generation", "reference") for k in kinds)
        elif split.endswith("_synthetic"):
            assert "generation" not in kinds and "reference" not in kinds
        else:
            assert kinds == {"generation"}
    assert "generation" in (tmp_path / "out" / "label_distribution.md").read_text()


def test_generation_files_are_checked_row_by_row(tmp_path):
    from codescore_metric.data.generations import read_generations

    bad = _write(tmp_path / "bad.jsonl", [{"task_id": 1, "program": "x = 1"}, {"task_id": [1], "program": "x"},
                                          {"task_id": 2}, {"task_id": 3, "program": "y", "models": "m"}])
    with pytest.raises(ValueError) as error:
        read_generations([bad])
    message = str(error.value)
    assert "bad.jsonl:2: field 'task_id' must be an int or a string" in message and "bad.jsonl:3: field 'program'" in message
    assert "bad.jsonl:1" not in message and "bad.jsonl:4" not in message
    source = _write(tmp_path / "tasks.jsonl", GENERIC_TASKS)
    unknown = _write(tmp_path / "unknown.jsonl", [{"task_id": "t9", "program": "x = 1"}])
    with pytest.raises(ValueError, match=r"1 task id\(s\) of the generations are not in the task file"):
        build(BuildConfig("generic", tmp_path / "o", input=source, tests_per_task=0, generations=(unknown,), progress=False))


def test_generation_mutants_are_near_misses_of_passing_real_programs_in_their_own_layout(tmp_path):
    source = _write(tmp_path / "tasks.jsonl", GENERIC_TASKS)
    correct = {  # each needs the harness's typing prelude and keeps a comment a re-printed program would lose
        "t1": "def clamp_sum(xs: List[int], low):\n    # raise to low\n    return sum(max(x, low) for x in xs)\n",
        "t2": "def count_vowels(s: str) -> int:\n    # count them\n    return sum(c in 'aeiou' for c in s.lower())\n",
        "t3": "def max_even(xs: List[int]) -> int:\n    # evens only\n    return max([x for x in xs if x % 2 == 0], default=-1)\n",
    }
    generations = _write(tmp_path / "generations.jsonl", [
        *({"task_id": task_id, "program": program, "models": ["model-a"], "id": f"{task_id}-ok"}
          for task_id, program in correct.items()),
        {"task_id": "t2", "program": "def count_vowels(s):\n    return 0\n", "models": ["model-b"]},  # fails: never mutated
    ])
    config = BuildConfig("generic", tmp_path / "out", input=source, per_task=0, seed=0, workers=2, validation_fraction=0.34,
                         tests_per_task=0, limits=LIMITS, progress=False, generations=(generations,), generation_mutants=2)
    report = build(config)
    train = report.rows["train"]
    passing = {row["task_id"]: row for row in train if row["kind"] == "generation" and row["all_pass"]}
    mutants = [row for row in train if row["kind"] == "generation_mutant"]
    assert passing and len(mutants) == len(passing)  # one passing program per task, so one mutant each
    assert not any(row["kind"] == "generation_mutant" for split, rows in report.rows.items() if split != "train" for row in rows)
    for row in mutants:
        base = passing[row["task_id"]]
        assert row["generated_code"] != base["generated_code"] and "    # " in row["generated_code"]
        assert row["detail"].endswith(f"of {base['detail']}") and row["generator"] == "model-a"
        assert row["executable"]  # it ran behind the typing prelude, as its base did
    assert any(row["pass_ratio"] < 1 for row in mutants)
    with pytest.raises(ValueError, match="generation_mutants need at least one generations file"):
        BuildConfig("generic", tmp_path / "o", input=source, generation_mutants=1)


def test_equivalent_rewrites_of_the_reference_and_of_a_passing_real_program_pass_and_read_their_base(tmp_path):
    source = _write(tmp_path / "tasks.jsonl", GENERIC_TASKS)
    real = {"t1": "def clamp_sum(xs: List[int], low):\n    # raise\n    return sum(low if x < low else x for x in xs)\n",
            "t3": "def max_even(xs):\n    # evens\n    return max([x for x in xs if x % 2 == 0], default=-1)\n"}
    generations = _write(tmp_path / "generations.jsonl", [{"task_id": t, "program": p, "models": ["m"]} for t, p in real.items()])
    config = BuildConfig("generic", tmp_path / "out", input=source, per_task=0, seed=0, workers=2, validation_fraction=0.34,
                         tests_per_task=0, limits=LIMITS, progress=False, generations=(generations,), reference_rows=True,
                         equivalent_rewrites=True)
    train = build(config).rows["train"]
    bases = {(row["task_id"], row["generated_code"]) for row in train if row["kind"] in ("reference", "generation")}
    rewrites = [row for row in train if row["kind"] == "equivalent"]
    assert rewrites and all(row["detail"] in mutations.EQUIVALENT_REWRITES for row in rewrites)
    for row in rewrites:
        assert (row["task_id"], row["golden_code"]) in bases and row["generated_code"] != row["golden_code"]
        assert row["pass_ratio"] == 1.0 and row["all_pass"]  # these rewrites keep what the code does; execution says so
    from_real = [row for row in rewrites if row["golden_code"] in real.values()]
    assert from_real and all("    # " in row["generated_code"] for row in from_real)  # in the program's own layout
    assert len(rewrites) == len(from_real) + len({row["task_id"] for row in train if row["kind"] == "reference"})
    with pytest.raises(ValueError, match="equivalent_rewrites rewrites the reference rows and real programs"):
        BuildConfig("generic", tmp_path / "o", input=source, generations=(generations,), equivalent_rewrites=True)


def test_generation_mutants_can_read_their_parent_program_as_reference(tmp_path):
    source = _write(tmp_path / "tasks.jsonl", GENERIC_TASKS)
    parents = {"t1": "def clamp_sum(xs, low):\n    # raise\n    return sum(max(x, low) for x in xs)\n",
               "t2": "def count_vowels(s):\n    # count\n    return sum(c in 'aeiou' for c in s.lower())\n",
               "t3": "def max_even(xs):\n    # evens\n    return max([x for x in xs if x % 2 == 0], default=-1)\n"}
    generations = _write(tmp_path / "generations.jsonl", [{"task_id": t, "program": p, "models": ["m"]} for t, p in parents.items()])
    mutants, references = {}, {task["task_id"]: task["program"] for task in GENERIC_TASKS}
    for reference in ("task", "parent"):
        config = BuildConfig("generic", tmp_path / reference, input=source, per_task=0, seed=0, workers=2,
                             validation_fraction=0.34, tests_per_task=0, limits=LIMITS, progress=False,
                             generations=(generations,), generation_mutants=1, generation_mutant_reference=reference)
        mutants[reference] = [row for row in build(config).rows["train"] if row["kind"] == "generation_mutant"]
    assert mutants["parent"] and len(mutants["parent"]) == len(mutants["task"])
    for by_task, by_parent in zip(mutants["task"], mutants["parent"]):
        assert by_task["golden_code"] == references[by_task["task_id"]]
        assert by_parent["golden_code"] == parents[by_parent["task_id"]] != by_parent["generated_code"]
        # the same mutant with the same labels; only the reference differs
        assert {**by_parent, "golden_code": None} == {**by_task, "golden_code": None}
    with pytest.raises(ValueError, match="generation_mutant_reference must be one of task, parent, got 'sibling'"):
        BuildConfig("generic", tmp_path / "o", input=source, generations=(generations,), generation_mutants=1,
                    generation_mutant_reference="sibling")
    with pytest.raises(ValueError, match=r"set generation_mutants .* to at least 1"):  # parent without mutants
        BuildConfig("generic", tmp_path / "o", input=source, generations=(generations,), generation_mutant_reference="parent")


def test_a_reference_failing_only_on_its_first_run_is_rerun_alone_and_kept(tmp_path, monkeypatch):
    # A reference whose one test fails until a marker file exists (as a slow test times out on a loaded machine
    # and passes on a quiet one); the marker appears once the first, parallel run is over. Both runs are real
    # sandbox runs: the first fails, the re-run alone passes, so the task stays.
    from codescore_metric.data import builder

    marker = tmp_path / "machine-is-quiet"
    tasks = [*GENERIC_TASKS, {"task_id": "t4", "source": "Add one.", "program": "def inc(x):\n    return x + 1\n",
                              "tests": [f"import os; assert inc(1) == 2 and os.path.exists({str(marker)!r})"]}]
    real_runner, runs = builder.runner, []

    def quiet_after_the_first_run(address):
        run = real_runner(address)

        def counted(jobs, *args, **kwargs):
            runs.append(len(jobs))
            yield from run(jobs, *args, **kwargs)
            marker.touch()
        return counted

    monkeypatch.setattr(builder, "runner", quiet_after_the_first_run)
    config = BuildConfig("generic", tmp_path / "out", input=_write(tmp_path / "tasks.jsonl", tasks), per_task=2, seed=0,
                         workers=2, validation_fraction=0.34, tests_per_task=0, limits=LIMITS, progress=False)
    report = build(config)
    assert "t4" not in report.dropped and runs[1:] == [1]  # only the failed reference ran again
    # a reference that fails every time is still dropped, and the reason says it was re-run
    marker.unlink()
    broken = [*GENERIC_TASKS, {"task_id": "t4", "source": "Add one.", "program": "def inc(x):\n    return x\n", "tests": ["assert inc(1) == 2"]}]
    config = replace(config, input=_write(tmp_path / "broken.jsonl", broken), output_dir=tmp_path / "out2")
    assert "also when re-run alone" in build(config).dropped["t4"]


def test_new_tests_are_only_those_the_reference_answers_well_within_the_labelling_timeout(tmp_path):
    # The reference takes 0.4 s on inputs above 5: within a 1 s labelling timeout, but too close to it for a test
    # (a loaded machine would fail the reference on it and drop the task). Tests are written with a quarter of it.
    from codescore_metric.data.builder import EXTENSION_MARGIN, extended_tests, extension_limits

    reference = "import time\ndef slow(n):\n    if n > 5:\n        time.sleep(0.4)\n    return n * 2\n"
    task = Task("s", "generic", reference, ("assert slow(3) == 6", "assert slow(4) == 8"), ("assert slow(3) == 6", "assert slow(4) == 8"),
                entry_point="slow")
    config = BuildConfig("generic", tmp_path / "out", input=tmp_path / "unused.jsonl", tests_per_task=12, seed=0, workers=1,
                         limits=Limits(test_timeout=1.0, program_timeout=20.0), progress=False)
    assert extension_limits(config.limits).test_timeout == 1.0 / EXTENSION_MARGIN == 0.25
    tests = extended_tests({"s": task}, tmp_path / "cache.jsonl", config)["s"]
    inputs = [int(test.split("slow(")[1].split(")")[0]) for test in tests]
    assert len(inputs) > 4 and max(inputs) <= 5  # every input above 5 took 0.4 s > 0.25 s: none became a test
    cached = json.loads((tmp_path / "cache.jsonl").read_text().splitlines()[0])
    assert cached["dropped"]["reference timeout"] >= 1
    # the cache is keyed by the margin's timeout: labelling with 2 s writes the tests anew, and then keeps slow inputs
    relaxed = extended_tests({"s": task}, tmp_path / "cache.jsonl", replace(config, limits=Limits(test_timeout=2.0, program_timeout=20.0)))["s"]
    assert max(int(test.split("slow(")[1].split(")")[0]) for test in relaxed) > 5
