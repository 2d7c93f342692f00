"""dtype="int8-onnx": ONNX Runtime on the model's int8 graph, exported once and cached on disk; both int8 engines from the CLI."""

import json

import numpy as np
import pytest
import torch

import codescore_metric.onnx_int8 as onnx_int8
from codescore_metric import CodeScorer, clear_model_cache
from codescore_metric.cli import main
from codescore_metric.devices import resolve_dtype
from codescore_metric.quantization import INT8_SIGNATURE_NAME
from tests.test_scorer import PREDICTIONS, REFERENCES, SOURCES
from tests.tiny_model import build_tiny_model_dir

INPUTS = dict(references=REFERENCES, sources=SOURCES)
OUTPUTS = ("codescore", "executability", "passability")


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return build_tiny_model_dir(tmp_path_factory.mktemp("onnx-model"))


@pytest.fixture(autouse=True)
def graph_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("CODESCORE_CACHE", str(tmp_path / "cache"))
    clear_model_cache()
    yield tmp_path / "cache" / "onnx-int8"
    clear_model_cache()


def outputs(result) -> np.ndarray:
    return np.array([getattr(result, name) for name in OUTPUTS])


def test_onnx_int8_is_close_to_fp32_and_says_so(model_dir, graph_cache):
    fp32 = CodeScorer(model_dir, device="cpu")
    int8 = CodeScorer(model_dir, device="cpu", dtype="int8-onnx")
    result = int8.score(PREDICTIONS, **INPUTS)
    assert "|dtype:int8-onnx|" in result.signature
    # Measured on this tiny model: at most 0.052 over the three outputs (torch int8: 0.021); another random
    # model or heads with halved weights differ by 0.18 or more, so the bound catches a broken graph
    difference = np.abs(outputs(result) - outputs(fp32.score(PREDICTIONS, **INPUTS)))
    assert 0 < difference.max() < 0.1
    assert len(list(graph_cache.glob("*.onnx"))) == 1
    # activations are quantized with one range per batch, so a score moves a little with its batch
    # (measured here: 0.002; on 48 real programs at most 0.015, torch int8 0.039), unlike fp32
    alone = outputs(int8.score(PREDICTIONS[:1], references=REFERENCES[:1], sources=SOURCES[:1]))[:, 0]
    assert np.abs(alone - outputs(result)[:, 0]).max() < 0.02


def test_a_model_with_nested_passability_exports_and_keeps_its_product(tmp_path, graph_cache):
    nested_dir = build_tiny_model_dir(tmp_path / "nested", nested_passability=True)
    fp32 = CodeScorer(nested_dir, device="cpu").score(PREDICTIONS, **INPUTS)
    int8 = CodeScorer(nested_dir, device="cpu", dtype="int8-onnx").score(PREDICTIONS, **INPUTS)
    assert np.abs(outputs(int8) - outputs(fp32)).max() < 0.1
    assert all(p <= e + 1e-6 for p, e in zip(fp32.passability, fp32.executability))  # passing implies running


def test_the_graph_is_exported_once_and_keyed_by_the_weights(model_dir, graph_cache, monkeypatch, tmp_path):
    first = outputs(CodeScorer(model_dir, dtype="int8-onnx").score(PREDICTIONS, **INPUTS))
    clear_model_cache()

    def no_export(*args, **kwargs):
        raise AssertionError("exported again")

    monkeypatch.setattr(onnx_int8, "export_int8", no_export)
    again = outputs(CodeScorer(model_dir, dtype="int8-onnx").score(PREDICTIONS, **INPUTS))
    assert np.array_equal(first, again)
    other = build_tiny_model_dir(tmp_path / "other", seed=1)
    with pytest.raises(AssertionError, match="exported again"):  # other weights: another graph
        CodeScorer(other, dtype="int8-onnx").score(PREDICTIONS, **INPUTS)


def test_batch_normalization_gets_its_own_graph(model_dir, graph_cache):
    fp32 = CodeScorer(model_dir, normalization="batch")
    int8 = CodeScorer(model_dir, dtype="int8-onnx", normalization="batch")
    difference = np.abs(outputs(int8.score(PREDICTIONS, **INPUTS)) - outputs(fp32.score(PREDICTIONS, **INPUTS)))
    assert difference.max() < 0.1 and "|norm:batch|dtype:int8-onnx|" in int8.signature()
    CodeScorer(model_dir, dtype="int8-onnx").score(PREDICTIONS, **INPUTS)
    assert len(list(graph_cache.glob("*.onnx"))) == 2


def test_missing_onnxruntime_names_the_install_and_the_alternative(model_dir, monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "onnxruntime", None)
    with pytest.raises(ValueError, match=r"codescore-metric\[onnx\].*dtype='int8'"):
        CodeScorer(model_dir, dtype="int8-onnx")


def test_onnx_int8_needs_the_cpu_and_wraps(model_dir):
    with pytest.raises(ValueError, match=r"'int8-onnx'.*CPU only, not on cuda"):
        resolve_dtype("int8-onnx", torch.device("cuda"))
    assert resolve_dtype("INT8-ONNX", torch.device("cpu")) == resolve_dtype(torch.quint8, torch.device("cpu")) == torch.quint8
    int8 = CodeScorer(model_dir, dtype="int8-onnx")
    wrapped = CodeScorer.from_model(int8.model, int8.tokenizer, model_id="m")
    assert "|dtype:int8-onnx|" in wrapped.signature() and wrapped.device.type == "cpu"


@pytest.mark.parametrize(("dtype", "shown"), [("int8", INT8_SIGNATURE_NAME), ("int8-onnx", "int8-onnx")])
def test_cli_takes_both_int8_engines(dtype, shown, model_dir, tmp_path, capsys):
    rows = [{"generated_code": p, "golden_code": r, "source": s} for p, r, s in zip(PREDICTIONS, REFERENCES, SOURCES)]
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(row) + "\n" for row in rows))
    out = tmp_path / "out.jsonl"
    assert main(["score", str(source), "-o", str(out), "--checkpoint", str(model_dir), "--dtype", dtype, "--no-progress"]) == 0
    assert f"|dtype:{shown}|" in capsys.readouterr().err
    expected = CodeScorer(model_dir, dtype=dtype).score(PREDICTIONS, **INPUTS).codescore
    assert [json.loads(line)["codescore"] for line in out.read_text().splitlines()] == pytest.approx(expected, abs=1e-6)
