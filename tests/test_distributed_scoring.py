"""Multi-process scoring: `torchrun` or `accelerate launch ... -m codescore_metric score` and `score_distributed` give one process's result."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from codescore_metric import CodeScorer
from codescore_metric.cli import main
from codescore_metric.distributed_scoring import Launch, _merge, launch_from_env, rank_device, score_distributed, share
from tests.test_scorer import PREDICTIONS, REFERENCES, SOURCES

ROOT = Path(__file__).resolve().parents[1]
ROWS = [{"id": index, "generated_code": p, "golden_code": r, "source": s}
        for index, (p, r, s) in enumerate(zip(PREDICTIONS + ["", "def add(a, b)\n    return a"], REFERENCES * 2, SOURCES * 2))]


def write_rows(path: Path) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in ROWS))
    return path


def read_rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


LAUNCHERS = {
    "torchrun": ["-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2"],
    # accelerate's --multi_gpu goes through torch.distributed.run too; without CUDA each rank scores on the CPU (gloo)
    "accelerate": ["-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2", "--num_machines", "1",
                   "--mixed_precision", "no", "--dynamo_backend", "no"],
}


@pytest.mark.slow  # two fresh interpreters import torch: about 5 s on an idle 2-core machine
@pytest.mark.parametrize("launcher", sorted(LAUNCHERS))
def test_two_launched_processes_write_what_one_process_writes(launcher, tiny_model_dir, tmp_path, capsys):
    source = write_rows(tmp_path / "in.jsonl")
    args = ["score", str(source), "--checkpoint", str(tiny_model_dir), "--device", "cpu", "--no-progress", "--batch-size", "2"]
    assert main([*args, "-o", str(tmp_path / "one.jsonl")]) == 0
    capsys.readouterr()
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)}
    for name in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT"):
        env.pop(name, None)
    launched = subprocess.run(
        [sys.executable, *LAUNCHERS[launcher], "-m", "codescore_metric", *args, "-o", str(tmp_path / "two.jsonl")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=180,
    )
    assert launched.returncode == 0, launched.stderr[-3000:]
    assert launched.stderr.count("scored 7 samples (ref_nl)") == 1 and "in 2 processes" in launched.stderr  # rank 0 alone reports
    one, two = read_rows(tmp_path / "one.jsonl"), read_rows(tmp_path / "two.jsonl")
    assert [row["id"] for row in two] == [row["id"] for row in one] == list(range(len(ROWS)))
    for single, split in zip(one, two):
        assert split.keys() == single.keys()
        assert {key: value for key, value in split.items() if not isinstance(value, float)} == \
            {key: value for key, value in single.items() if not isinstance(value, float)}
        for name in ("codescore", "executability", "passability"):
            assert split[name] == pytest.approx(single[name], abs=1e-6)
    assert two[5]["certain"] == "empty" and two[6]["certain"] == "syntax_error"


def test_shares_are_contiguous_and_cover_every_row():
    for total in (0, 1, 5, 7, 8):
        for world_size in (1, 2, 3, 8):
            ranges = [share(total, rank, world_size) for rank in range(world_size)]
            assert [i for r in ranges for i in r] == list(range(total))
            assert max(map(len, ranges)) - min(map(len, ranges)) <= 1
    assert [list(share(7, rank, 3)) for rank in range(3)] == [[0, 1, 2], [3, 4], [5, 6]]


def test_launch_is_read_from_the_environment():
    assert launch_from_env({}) == Launch(0, 1, 0) and not launch_from_env({}).distributed
    assert launch_from_env({"RANK": "3", "WORLD_SIZE": "4", "LOCAL_RANK": "1"}) == Launch(3, 4, 1)
    assert launch_from_env({"RANK": "1", "WORLD_SIZE": "2"}) == Launch(1, 2, 1)
    with pytest.raises(ValueError, match="WORLD_SIZE='two' is not an integer"):
        launch_from_env({"WORLD_SIZE": "two"})
    with pytest.raises(ValueError, match="0 <= RANK < WORLD_SIZE"):
        launch_from_env({"RANK": "2", "WORLD_SIZE": "2"})


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the CPU fallback")
def test_each_rank_picks_its_device_without_cuda():
    launch = Launch(1, 2, 1)
    assert rank_device(None, launch) == rank_device("auto", launch) == rank_device("cpu", launch) == torch.device("cpu")
    with pytest.raises(ValueError, match="CUDA is not available"):
        rank_device("cuda", launch)
    with pytest.raises(ValueError, match="each rank scores on cuda:LOCAL_RANK"):
        rank_device("cuda:1", launch)
    assert rank_device("cpu", Launch()) == torch.device("cpu")


def test_one_process_is_plain_scoring(tiny_model_dir):
    scorer = CodeScorer(tiny_model_dir, device="cpu")
    result = score_distributed(scorer, PREDICTIONS, references=REFERENCES, sources=SOURCES, launch=Launch())
    assert result == scorer.score(PREDICTIONS, references=REFERENCES, sources=SOURCES)


def test_batch_statistics_are_refused_across_processes(tiny_model_dir, tmp_path, monkeypatch, capsys):
    scorer = CodeScorer(tiny_model_dir, device="cpu", normalization="batch")
    with pytest.raises(ValueError, match="normalization='batch' cannot be split across processes"):
        score_distributed(scorer, PREDICTIONS, references=REFERENCES, launch=Launch(0, 2, 0))
    monkeypatch.setenv("WORLD_SIZE", "2")
    monkeypatch.setenv("RANK", "0")
    source = write_rows(tmp_path / "in.jsonl")
    assert main(["score", str(source), "-o", str(tmp_path / "out.jsonl"), "--checkpoint", str(tiny_model_dir),
                 "--normalization", "batch"]) == 2
    assert "--normalization batch cannot be split across processes" in capsys.readouterr().err
    assert not (tmp_path / "out.jsonl").exists()


def test_shares_merge_in_rank_order_and_empty_shares_count_for_nothing(tiny_model_dir):
    scorer = CodeScorer(tiny_model_dir, device="cpu")
    whole = scorer.score(PREDICTIONS, references=REFERENCES)
    parts = [scorer.score(PREDICTIONS[r.start:r.stop], references=REFERENCES[r.start:r.stop], input_format="ref")
             for r in (share(5, rank, 2) for rank in range(2))]
    empty = scorer.score([], references=[], input_format="ref")  # a rank with no samples (more ranks than samples)
    merged = _merge([parts[0], empty, parts[1]])
    assert merged.codescore == pytest.approx(whole.codescore, abs=1e-6)
    assert (merged.certain, merged.truncated, merged.signature) == (whole.certain, whole.truncated, whole.signature)
    other = CodeScorer(tiny_model_dir, device="cpu", static_checks=False).score(PREDICTIONS[:1], references=REFERENCES[:1])
    with pytest.raises(RuntimeError, match="different settings"):
        _merge([parts[0], other])
