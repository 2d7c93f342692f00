"""The one jsonl reader and writer: every bad line named by file and line, whole lines only."""

import json

import pytest

from codescore_metric.jsonl import format_errors, read_jsonl, read_objects, read_records, write_jsonl


def test_read_jsonl_keeps_line_numbers_and_skips_blank_lines(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_text('{"a": 1}\n\n[1, 2]\n{oops\n')
    rows, errors = read_jsonl(path)
    assert rows == [(1, {"a": 1}), (3, [1, 2])]
    assert [line for line, _ in errors] == [4] and errors[0][1].startswith("not valid JSON")


def test_read_objects_moves_values_that_are_not_objects_to_the_errors(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_text('{"a": 1}\n[1, 2]\n"text"\n{"b": 2}\n')
    rows, errors = read_objects(path)
    assert rows == [(1, {"a": 1}), (4, {"b": 2})]
    assert errors == [(2, "expected a JSON object, got list"), (3, "expected a JSON object, got str")]


def test_read_records_lists_every_bad_line_in_one_error(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_text('{"a": 1}\n{oops\n7\n{"b": 2}\n')
    with pytest.raises(ValueError) as error:
        read_records(path)
    message = str(error.value)
    assert message.startswith(f"{path}: 2 bad line(s):")
    assert f"{path}:2: not valid JSON" in message and f"{path}:3: expected a JSON object, got int" in message
    with pytest.raises(ValueError, match=r"^2 problems here:\n  a.jsonl:2: not valid JSON"):
        read_records(path, "{count} problems here", shown_as="a.jsonl")
    path.write_text('{"a": 1}\n\n{"b": 2}\n')
    assert read_records(path) == [(1, {"a": 1}), (3, {"b": 2})]


def test_format_errors_sorts_and_cuts_long_lists():
    errors = [(line, "bad") for line in range(30, 0, -1)]
    lines = format_errors("f.jsonl", errors, limit=3).splitlines()
    assert lines == ["  f.jsonl:1: bad", "  f.jsonl:2: bad", "  f.jsonl:3: bad", "  ... and 27 more"]


def test_write_jsonl_writes_appends_and_leaves_whole_lines_when_stopped(tmp_path):
    path = tmp_path / "out.jsonl"
    write_jsonl(path, [{"a": "é"}])
    write_jsonl(path, [{"b": 2}], append=True)
    assert path.read_text(encoding="utf-8") == '{"a": "é"}\n{"b": 2}\n'

    def records():
        yield {"c": 3}
        assert json.loads(path.read_text().splitlines()[-1]) == {"c": 3}  # flushed before the next record is made
        raise RuntimeError("stopped")

    with pytest.raises(RuntimeError):
        write_jsonl(path, records())
    assert path.read_text() == '{"c": 3}\n'


def test_bad_rows_message_counts_a_row_once_however_many_problems_it_has():
    from codescore_metric.jsonl import bad_rows_message

    message = bad_rows_message("f.jsonl", [(3, "missing field 'a'"), (3, "missing field 'b'"), (5, "not valid JSON")],
                               "nothing was evaluated")
    assert message.splitlines()[0] == "2 bad row(s) (3 problem(s)); nothing was evaluated:"
    assert "  f.jsonl:3: missing field 'a'" in message and "  f.jsonl:5: not valid JSON" in message
