"""benchmarks/int8_sensitivity.py: groups of encoder Linears put back in fp32 inside the int8 model, and back again."""

import numpy as np
import pytest

from codescore_metric import CodeScorer
from tests.scripts import load_script
from tests.test_scorer import PREDICTIONS, REFERENCES, SOURCES
from tests.tiny_model import build_tiny_model_dir

script = load_script("benchmarks/int8_sensitivity.py")
INPUTS = dict(predictions=PREDICTIONS, references=REFERENCES, sources=SOURCES)


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return build_tiny_model_dir(tmp_path_factory.mktemp("int8-sensitivity-model"))


def test_groups_cover_each_layer_and_each_role():
    names = [f"encoder.layer.{layer}.{part}" for layer in (0, 1) for part in (
        "attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense",
        "intermediate.dense", "output.dense")]
    groups = script.linear_groups(names)
    assert groups["layer 0"] == names[:6] and groups["layer 1"] == names[6:]
    assert groups["FFN output"] == ["encoder.layer.0.output.dense", "encoder.layer.1.output.dense"]
    assert groups["attention output"] == ["encoder.layer.0.attention.output.dense", "encoder.layer.1.attention.output.dense"]
    assert sorted(name for role in script.ROLES for name in groups[role]) == sorted(names)  # the roles split every Linear once


def test_every_linear_in_fp32_gives_the_fp32_scores_and_the_int8_model_comes_back(model_dir):
    fp32, _ = script.timed_scores(CodeScorer(model_dir, device="cpu"), INPUTS, batch_size=4)
    int8 = CodeScorer(model_dir, device="cpu", dtype="int8")
    quantized, _ = script.timed_scores(int8, INPUTS, batch_size=4)
    names = list(script.int8_linears(int8.model))
    assert names and np.abs(quantized - fp32).max() > 1e-6  # int8 differs from fp32 on this model
    with script.fp32_linears(int8.model, names):
        assert script.int8_linears(int8.model) == {}
        restored, _ = script.timed_scores(int8, INPUTS, batch_size=4)
    np.testing.assert_allclose(restored, fp32, atol=1e-6)
    assert list(script.int8_linears(int8.model)) == names  # every int8 module is back in place
    again, _ = script.timed_scores(int8, INPUTS, batch_size=4)
    np.testing.assert_array_equal(again, quantized)
