"""`recipes/task_fold.py`: a second validation fold keeps its tasks and held-out generators out of training."""

import json

import pytest

from tests.scripts import load_script


@pytest.fixture(scope="module")
def task_fold():
    return load_script("recipes/task_fold.py")


def row(task_id, kind="generation", generator="", pass_ratio=1.0):
    return {"generated_code": f"def f():\n    return {task_id!r}\n", "golden_code": "def f():\n    return 1\n",
            "source": "Return one.", "pass_ratio": pass_ratio, "executable": 1, "all_pass": int(pass_ratio == 1.0),
            "task_id": task_id, "kind": kind, "generator": generator, "detail": "", "num_tests": 100}


def built_rows():
    rows = []
    for task in range(11, 31):  # test split
        rows += [row(str(task), generator="gpt-4"), row(str(task), generator="StarCoder", pass_ratio=0.0),
                 row(str(task), generator="StarCoder,gpt-4"), row(str(task), kind="reference"),
                 row(str(task), kind="mutant", pass_ratio=0.5)]
    rows += [row("700", generator="gpt-4"), row("701", kind="reference")]  # train split: never in a fold
    return rows


def test_fold_tasks_come_from_the_test_split_and_are_seeded(task_fold):
    rows = built_rows()
    tasks = task_fold.fold_tasks(rows, 5, seed=1)
    assert len(tasks) == 5 and all(11 <= int(task) <= 30 for task in tasks)
    assert tasks == task_fold.fold_tasks(rows, 5, seed=1)
    assert tasks != task_fold.fold_tasks(rows, 5, seed=2)
    with pytest.raises(ValueError, match="only 20 test-split tasks"):
        task_fold.fold_tasks(rows, 21, seed=1)


def test_fold_tasks_leave_training_in_every_form_and_held_out_generators_entirely(task_fold):
    rows = built_rows()
    tasks = task_fold.fold_tasks(rows, 5, seed=1)
    splits = task_fold.split_fold(rows, tasks, {"StarCoder"})
    assert not {r["task_id"] for r in splits["train"]} & tasks
    assert not any("StarCoder" in r["generator"] for r in splits["train"])
    assert len(splits["train"]) == 15 * 3 + 2  # gpt-4, reference and mutant rows of the other tasks, and 700/701
    assert {r["task_id"] for r in splits["validation"]} == tasks
    assert all(r["kind"] == "generation" and r["generator"] == "gpt-4" for r in splits["validation"])
    # a program written by a held-out and a seen model is in no split; one by held-out models only is unseen
    assert [r["generator"] for r in splits["validation_unseen"]] == ["StarCoder"] * 5


def test_script_writes_a_trainable_dataset_and_its_summary(task_fold, tmp_path):
    built = tmp_path / "built"
    built.mkdir()
    (built / "train.jsonl").write_text("".join(json.dumps(r) + "\n" for r in built_rows()))
    task_fold.main([str(built), str(tmp_path / "fold"), "--tasks", "4", "--hold-out-generators", "StarCoder"])
    summary = json.loads((tmp_path / "fold" / "fold.json").read_text())
    assert summary["rows"] == {"train": 16 * 3 + 2, "validation": 4, "validation_unseen": 4}
    assert summary["validation_unseen_by_generator"] == {"StarCoder": 4}
    import datasets

    dataset = datasets.load_from_disk(str(tmp_path / "fold" / "dataset"))
    assert dataset["validation"].num_rows == 4 and dataset["train"].num_rows == 50
    task_fold.main([str(built), str(tmp_path / "all"), "--tasks", "4"])
    assert set(datasets.load_from_disk(str(tmp_path / "all" / "dataset"))) == {"train", "validation"}
    with pytest.raises(SystemExit, match="wrote no training program"):
        task_fold.main([str(built), str(tmp_path / "other"), "--hold-out-generators", "Nobody"])
