"""The embedded default model: used with no argument by the scorer, the CLI, the metric and the app, offline."""

import json
from pathlib import Path

import pytest

from codescore_metric import CodeScorer
from codescore_metric.checkpoints import DEFAULT_MODEL_DIR
from codescore_metric.cli import main

ROOT = Path(__file__).resolve().parents[1]
CORRECT = "def add(a, b):\n    return a + b\n"
BROKEN = "def add(a, b)\n    return a +\n"


def test_default_model_is_small_safetensors_with_a_card():
    weights = DEFAULT_MODEL_DIR / "model.safetensors"
    assert weights.is_file() and weights.stat().st_size < 50 * 2**20
    card = (DEFAULT_MODEL_DIR / "README.md").read_text()
    assert "HumanEval" in card and "MBPP" in card


def test_scorer_without_arguments_uses_the_default(monkeypatch):
    monkeypatch.delenv("CODESCORE_CHECKPOINT", raising=False)
    scorer = CodeScorer()
    config = json.loads((DEFAULT_MODEL_DIR / "config.json").read_text())
    assert scorer.model_id == config["provenance"]["model_id"]
    result = scorer.score([CORRECT, BROKEN], references=[CORRECT, CORRECT], sources=["Add two numbers."] * 2)
    assert all(0 <= value <= 1 for value in result.codescore + result.executability + result.passability)


def test_cli_scores_the_example_file_with_the_default(tmp_path, monkeypatch):
    monkeypatch.delenv("CODESCORE_CHECKPOINT", raising=False)
    output = tmp_path / "scored.jsonl"
    assert main(["score", str(ROOT / "examples" / "sample.jsonl"), "--format", "ref_nl", "-o", str(output), "--no-progress"]) == 0
    rows = [json.loads(line) for line in output.read_text().splitlines()]
    assert rows and all("codescore" in row for row in rows)


def test_metric_without_checkpoint_uses_the_default(monkeypatch):
    import evaluate

    monkeypatch.delenv("CODESCORE_CHECKPOINT", raising=False)
    metric = evaluate.load(str(ROOT / "codescore.py"), "ref_nl")
    result = metric.compute(predictions=[CORRECT], references=[CORRECT], sources=["Add two numbers."], codebleu=False)
    expected = CodeScorer().score([CORRECT], references=[CORRECT], sources=["Add two numbers."])
    assert result["codescore"] == pytest.approx(expected.codescore[0])
    assert result["signature"] == expected.signature


def test_app_default_choice_is_the_embedded_model(monkeypatch):
    from gradio_client import Client

    import app

    monkeypatch.delenv("CODESCORE_CHECKPOINT", raising=False)
    demo = app.build_demo()
    _, url, _ = demo.launch(server_name="127.0.0.1", server_port=None, prevent_thread_lock=True, quiet=True)
    try:
        *_, numbers = Client(url, verbose=False).predict(CORRECT, CORRECT, "Add two numbers.", "ref_nl",
                                                          "Embedded default model", api_name="/score")
    finally:
        demo.close()
    expected = CodeScorer().score([CORRECT], references=[CORRECT], sources=["Add two numbers."]).codescore[0]
    assert numbers["codescore"] == pytest.approx(expected, abs=1e-4)
