"""`codescore label` (labels, resume, bad input, pass@k) and `codescore extend-tests`."""

import argparse
import json

import pytest

from codescore_metric.cli import extend_tests, label
from codescore_metric.execution import Job, run_program
from codescore_metric.execution.labels import passable

PROGRAM = "def add(a, b):\n    return a + b\n"
TESTS = ["assert add(1, 2) == 3", "assert add(0, 0) == 0"]


def cli(module, argv):
    parser = argparse.ArgumentParser()
    module.register(parser.add_subparsers())
    args = parser.parse_args(argv)
    return args.func(args)


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def read_jsonl(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def generic_rows():
    return [{"task_id": "t1", "program": PROGRAM, "tests": TESTS},
            {"task_id": "t1", "program": "def add(a, b):\n    return a - b\n", "tests": TESTS},
            {"task_id": "t2", "program": "def add(a, b):\n    raise ValueError('no')\n", "tests": TESTS},
            {"task_id": "t2", "program": PROGRAM, "tests": TESTS}]


def test_label_writes_labels(tmp_path, capsys):
    source = write_jsonl(tmp_path / "in.jsonl", generic_rows())
    assert cli(label, ["label", str(source), "-o", str(tmp_path / "out.jsonl"), "--pass-at-k", "1,2"]) == 0
    out = read_jsonl(tmp_path / "out.jsonl")
    assert [(r["pass_ratio"], r["executable"], r["all_pass"]) for r in out] == [(1.0, 1, 1), (0.5, 1, 0), (0.0, 0, 0), (1.0, 1, 1)]
    assert out[2]["outcomes"] == {"error": 2} and out[2]["first_error"].startswith("error: ValueError")
    printed = capsys.readouterr().out
    assert "pass@1 = 0.5000 over 2 task(s)" in printed and "pass@2 = 1.0000" in printed
    cli(label, ["label", str(source), "-o", str(tmp_path / "shared.jsonl"), "--shared-process"])
    assert read_jsonl(tmp_path / "shared.jsonl") == out


def test_label_resumes_after_partial_output(tmp_path, capsys):
    source = write_jsonl(tmp_path / "in.jsonl", generic_rows())
    out = tmp_path / "out.jsonl"
    cli(label, ["label", str(source), "-o", str(out)])
    full = out.read_text().splitlines(keepends=True)
    sentinel = json.loads(full[0])
    sentinel["pass_ratio"] = 0.123  # a row that is skipped keeps its (here: marked) labels
    out.write_text(json.dumps(sentinel) + "\n" + full[1] + full[2][:15])  # a torn third line
    cli(label, ["label", str(source), "-o", str(out)])
    rows = read_jsonl(out)
    assert len(rows) == 4 and rows[0]["pass_ratio"] == 0.123 and rows[2]["executable"] == 0
    assert "resuming: 2 of 4" in capsys.readouterr().err


def test_label_refuses_output_of_another_input(tmp_path):
    source = write_jsonl(tmp_path / "in.jsonl", generic_rows())
    out = write_jsonl(tmp_path / "out.jsonl", [{"task_id": "other", "program": "x", "tests": []}])
    with pytest.raises(SystemExit, match="does not match input row 1"):
        cli(label, ["label", str(source), "-o", str(out)])


def test_label_bad_rows_name_line_and_field(tmp_path):
    source = write_jsonl(tmp_path / "in.jsonl", [generic_rows()[0], {"program": PROGRAM, "tests": "assert 1"}])
    with pytest.raises(ValueError, match=r"in.jsonl:2: field 'tests' must be a list of strings"):
        cli(label, ["label", str(source), "-o", str(tmp_path / "out.jsonl")])


def test_label_with_humaneval_tasks_and_completions(tmp_path):
    task = {"task_id": "Toy/0", "entry_point": "double", "prompt": "def double(x):\n",
            "canonical_solution": "    return 2 * x\n", "test": "def check(candidate):\n    assert candidate(2) == 4\n",
            "test_case_list": ["assert double(2) == 4", "assert double(0) == 0", "assert double(-1) == -2"]}
    tasks = write_jsonl(tmp_path / "he.jsonl", [task])
    samples = write_jsonl(tmp_path / "s.jsonl", [
        {"task_id": "Toy/0", "completion": "    return 2 * x\n\ndef unrelated(:\n"},
        {"task_id": "Toy/0", "completion": "    return x * x\n"},
        {"task_id": "Toy/0", "generated_code": "def double(x):\n    return x + x\nprint(double(1))\n"}])
    cli(label, ["label", str(samples), "-o", str(tmp_path / "o.jsonl"), "--tasks", str(tasks)])
    assert [r["pass_ratio"] for r in read_jsonl(tmp_path / "o.jsonl")] == [1.0, pytest.approx(2 / 3), 1.0]
    bad = write_jsonl(tmp_path / "b.jsonl", [{"task_id": "Nope/1", "completion": ""}])
    with pytest.raises(ValueError, match=r"b\.jsonl:1: field 'task_id' is 'Nope/1'"):
        cli(label, ["label", str(bad), "-o", str(tmp_path / "o2.jsonl"), "--tasks", str(tasks)])


HAND_WRITTEN = [
    {"task_id": "sum_even", "program": "def sum_even(xs, limit):\n    return sum(x for x in xs if x % 2 == 0 and x <= limit)\n",
     "tests": ["assert sum_even([1, 2, 3, 4], 10) == 6", "assert sum_even([10, 20, 7], 15) == 10"]},
    {"task_id": "mean_len", "program": "def mean_len(words, sep=' '):\n    parts = words.split(sep)\n"
     "    return sum(len(p) for p in parts) / len(parts)\n",
     "tests": ["assert mean_len('a bb ccc') == 2.0", "assert mean_len('x,yy', sep=',') == 1.5"]},
]


def test_extend_tests_on_hand_written_tasks(tmp_path, capsys):
    source = write_jsonl(tmp_path / "tasks.jsonl", HAND_WRITTEN)
    out = tmp_path / "extended.jsonl"
    assert cli(extend_tests, ["extend-tests", str(source), "-o", str(out), "--per-task", "100"]) == 0
    rows = read_jsonl(out)
    for row, task in zip(rows, HAND_WRITTEN):
        tests = row["test_case_list"]
        assert tests[:2] == task["tests"] and len(tests) == 102 and len(set(tests)) == 102
        assert row["extension"]["new"] == 100
        assert passable(run_program(Job(task["program"], tests)))
        wrong = task["program"].replace("== 0", "== 1").replace("/ len(parts)", "/ (len(parts) + 1)")
        assert not passable(run_program(Job(wrong, tests)))
    assert any("abs(mean_len(" in test and "<= 1e-06" in test for test in rows[1]["test_case_list"])
    assert any("sep=" in test for test in rows[1]["test_case_list"][2:])
    assert "2 of 2 tasks have 100 or more tests" in capsys.readouterr().err
    cli(extend_tests, ["extend-tests", str(source), "-o", str(tmp_path / "again.jsonl"), "--per-task", "100"])
    assert read_jsonl(tmp_path / "again.jsonl") == rows
