"""`codescore score`: a jsonl file in, the same rows with predictions out; bad rows named by line."""

import json

import pytest

from codescore_metric import CodeScorer
from codescore_metric.cli import main
from tests.tiny_model import build_tiny_model_dir

ROWS = [
    {"id": 1, "generated_code": "def add(a, b):\n    return a + b\n", "golden_code": "def add(a, b):\n    return a + b\n",
     "source": "Add two numbers."},
    {"id": 2, "generated_code": "", "golden_code": "def f(): pass", "source": "Nothing."},
    {"id": 3, "generated_code": "print(1)", "golden_code": "print(2)", "source": "Print two."},
]


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return build_tiny_model_dir(tmp_path_factory.mktemp("cli-model"))


def write(path, rows):
    path.write_text("".join((row if isinstance(row, str) else json.dumps(row)) + "\n" for row in rows))
    return path


def test_scores_every_row_in_order_and_prints_a_summary(tmp_path, model_dir, capsys):
    source = write(tmp_path / "in.jsonl", ROWS)
    assert main(["score", str(source), "-o", str(tmp_path / "out.jsonl"), "--checkpoint", str(model_dir), "--no-progress"]) == 0
    out = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    predictions, references, sources = ([row[k] for row in ROWS] for k in ("generated_code", "golden_code", "source"))
    expected = CodeScorer(model_dir).score(predictions, references=references, sources=sources)
    assert [row["id"] for row in out] == [1, 2, 3]
    assert [row["codescore"] for row in out] == pytest.approx(expected.codescore)
    assert out[1]["codescore"] == 0.0 and out[0]["source"] == ROWS[0]["source"]
    err = capsys.readouterr().err
    assert "scored 3 samples (ref_nl)" in err and "1 empty, 0 not compiling" in err and expected.signature in err
    assert "1 the same program as the reference" in err
    assert out[1]["certain"] == "empty" and "certain" not in out[2]
    assert out[0]["certain"] == "same_as_reference" and out[0]["codescore"] == out[0]["passability"] == 1.0


def test_code_that_does_not_compile_scores_zero_unless_switched_off(tmp_path, model_dir, capsys):
    source = write(tmp_path / "in.jsonl", [{**ROWS[0], "generated_code": "def add(a, b)\n    return a + b\n"}])
    args = ["score", str(source), "--checkpoint", str(model_dir), "--no-progress", "-o"]
    assert main([*args, str(tmp_path / "on.jsonl")]) == 0
    assert "0 empty, 1 not compiling" in capsys.readouterr().err
    on = json.loads((tmp_path / "on.jsonl").read_text())
    assert (on["codescore"], on["executability"], on["passability"], on["certain"]) == (0.0, 0.0, 0.0, "syntax_error")
    assert main([*args, str(tmp_path / "off.jsonl"), "--no-static-checks"]) == 0
    off = json.loads((tmp_path / "off.jsonl").read_text())
    assert 0 < off["codescore"] < 1 and "certain" not in off
    err = capsys.readouterr().err
    assert "|static:off" in err and "not compiling" not in err


def test_custom_field_names_and_format(tmp_path, model_dir, capsys):
    rows = [{"completion": "x = 1", "task": "Set x."}]
    source = write(tmp_path / "in.jsonl", rows)
    args = ["score", str(source), "-o", str(tmp_path / "out.jsonl"), "--checkpoint", str(model_dir),
            "--prediction-field", "completion", "--source-field", "task", "--format", "nl", "--no-progress"]
    assert main(args) == 0
    assert "codescore" in json.loads((tmp_path / "out.jsonl").read_text())
    assert "(nl)" in capsys.readouterr().err


def test_bad_rows_are_reported_with_line_numbers_and_nothing_is_written(tmp_path, model_dir, capsys):
    source = write(tmp_path / "in.jsonl", [ROWS[0], "not json", {"generated_code": 3, "golden_code": "x", "source": "y"}, [1, 2]])
    output = tmp_path / "out.jsonl"
    assert main(["score", str(source), "-o", str(output), "--checkpoint", str(model_dir), "--format", "ref_nl"]) == 2
    err = capsys.readouterr().err
    assert f"{source}:2: not valid JSON" in err
    assert f"{source}:3: field 'generated_code' is int" in err
    assert f"{source}:4: expected a JSON object" in err
    assert not output.exists()


def test_bad_rows_are_counted_as_rows_and_an_empty_file_is_an_error(tmp_path, model_dir, capsys):
    source = write(tmp_path / "in.jsonl", [{"generated_code": 3, "golden_code": 4, "source": "y"}])
    assert main(["score", str(source), "-o", str(tmp_path / "o.jsonl"), "--checkpoint", str(model_dir), "--format", "ref_nl"]) == 2
    assert "1 bad row(s) (2 problem(s))" in capsys.readouterr().err
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    assert main(["score", str(empty), "-o", str(tmp_path / "o.jsonl"), "--checkpoint", str(model_dir)]) == 2
    assert "holds no rows" in capsys.readouterr().err and not (tmp_path / "o.jsonl").exists()


def test_missing_checkpoint_is_a_clean_error(tmp_path, capsys):
    source = write(tmp_path / "in.jsonl", ROWS)
    assert main(["score", str(source), "-o", str(tmp_path / "o.jsonl"), "--checkpoint", "./nowhere/model"]) == 2
    assert "codescore score: error:" in capsys.readouterr().err



@pytest.mark.parametrize("command", [["score", "in.jsonl", "-o", "out.jsonl"], ["meta-eval", "in.jsonl"]])
def test_scoring_commands_take_every_dtype_the_scorer_resolves_and_refuse_others(command):
    from codescore_metric.cli import build_parser
    from codescore_metric.devices import DTYPE_NAMES

    for name in DTYPE_NAMES.values():
        args = build_parser().parse_args([*command, "--dtype", name, "--no-static-checks", "--batch-size", "8"])
        assert (args.dtype, args.static_checks, args.batch_size) == (name, False, 8)
    with pytest.raises(SystemExit):
        build_parser().parse_args([*command, "--dtype", "int4"])
