"""dtype="int8": dynamic quantization on CPU, of a copy (the cached fp32 model stays as it was)."""

import warnings

import numpy as np
import pytest
import torch

from codescore_metric import CodeScorer, clear_model_cache
from codescore_metric.devices import resolve_dtype
from codescore_metric.quantization import ACTIVATION_BITS, INT8_SIGNATURE_NAME, FirstTokenFp32Linear, is_quantized, quantize_int8
from tests.test_scorer import PREDICTIONS, REFERENCES, SOURCES
from tests.tiny_model import build_tiny_model_dir

INPUTS = dict(references=REFERENCES, sources=SOURCES)
OUTPUTS = ("codescore", "executability", "passability")


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return build_tiny_model_dir(tmp_path_factory.mktemp("int8-model"))


def outputs(result) -> np.ndarray:
    return np.array([getattr(result, name) for name in OUTPUTS])


def linears(model) -> list[str]:
    return [name for name, module in model.named_modules() if type(module) is torch.nn.Linear]


def quantized_linear(linear: torch.nn.Linear) -> FirstTokenFp32Linear:
    model = torch.nn.Module()
    model.encoder = torch.nn.Sequential(linear)
    return quantize_int8(model).encoder[0]


def test_int8_is_close_to_fp32_and_says_so(model_dir):
    fp32 = CodeScorer(model_dir, device="cpu")
    int8 = CodeScorer(model_dir, device="cpu", dtype="int8")
    result = int8.score(PREDICTIONS, **INPUTS)
    assert f"|dtype:{INT8_SIGNATURE_NAME}|" in result.signature and "|dtype:fp32|" in fp32.signature()
    # Measured on this tiny model over all three outputs: 4e-5 with 8-bit activations, 8e-5 with 7-bit (plain
    # per-batch int8 on every Linear: 0.021); another random model or heads with halved weights differ by 0.18
    # or more, so the bound catches a broken path
    difference = np.abs(outputs(result) - outputs(fp32.score(PREDICTIONS, **INPUTS)))
    assert 0 < difference.max() < 0.002
    assert linears(int8.model.encoder) == []  # every encoder Linear is int8; the small heads stay fp32
    assert linears(int8.model) == [name for name in linears(fp32.model) if not name.startswith("encoder.")] != []
    assert is_quantized(int8.model) and not is_quantized(fp32.model)
    assert next(int8.model.encoder.parameters()).dtype == torch.float32  # embeddings and inputs stay fp32
    schemes = {module.quantized.weight().qscheme() for module in int8.model.modules() if isinstance(module, FirstTokenFp32Linear)}
    assert schemes == {torch.per_channel_affine}  # one scale per output channel, not per tensor


def test_the_cached_fp32_model_is_untouched(model_dir):
    clear_model_cache()
    first = CodeScorer(model_dir)
    before = outputs(first.score(PREDICTIONS, **INPUTS))
    names = linears(first.model)
    int8 = CodeScorer(model_dir, dtype="int8")
    assert int8.model is not first.model and CodeScorer(model_dir, dtype="int8").model is int8.model  # cached too
    second = CodeScorer(model_dir)
    assert second.model is first.model and linears(second.model) == names
    assert np.array_equal(outputs(second.score(PREDICTIONS, **INPUTS)), before)
    # quantizing a fresh load (nothing cached) gives the same int8 model as quantizing the cached copy
    copied = outputs(int8.score(PREDICTIONS, **INPUTS))
    clear_model_cache()
    fresh = CodeScorer(model_dir, dtype="int8")
    assert np.allclose(outputs(fresh.score(PREDICTIONS, **INPUTS)), copied, atol=1e-6)
    assert np.array_equal(outputs(CodeScorer(model_dir).score(PREDICTIONS, **INPUTS)), before)


def test_int8_needs_the_cpu(model_dir):
    with pytest.raises(ValueError, match=r"int8.*CPU only.*device='cpu'"):
        CodeScorer(model_dir, device="meta", dtype="int8")
    with pytest.raises(ValueError, match="CPU only, not on cuda"):
        resolve_dtype("int8", torch.device("cuda"))
    assert resolve_dtype(torch.qint8, torch.device("cpu")) == resolve_dtype("INT8", torch.device("cpu")) == torch.qint8
    assert resolve_dtype(None, torch.device("cpu")) == torch.float32  # not the default


def test_deprecation_notices_are_logged_other_warnings_pass(model_dir, monkeypatch, caplog):
    import codescore_metric.quantization as quantization

    clear_model_cache()
    monkeypatch.setattr(quantization, "_told", False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with caplog.at_level("INFO", logger="codescore_metric.quantization"):
            CodeScorer(model_dir, dtype="int8")
    assert not [w for w in caught if "quantiz" in str(w.message)]
    assert "marks as deprecated" in caplog.text
    quantize = torch.ao.quantization.quantize_dynamic

    def noisy(*args, **kwargs):
        warnings.warn("something else entirely", RuntimeWarning, stacklevel=2)
        return quantize(*args, **kwargs)

    monkeypatch.setattr(torch.ao.quantization, "quantize_dynamic", noisy)
    clear_model_cache()
    with pytest.warns(RuntimeWarning, match="something else entirely"):
        CodeScorer(model_dir, dtype="int8")


def test_from_model_reports_int8(model_dir):
    int8 = CodeScorer(model_dir, dtype="int8")
    wrapped = CodeScorer.from_model(int8.model, int8.tokenizer, model_id="m")
    assert f"|dtype:{INT8_SIGNATURE_NAME}|" in wrapped.signature()


def test_first_token_is_fp32_and_leaves_the_scale_of_the_rest():
    torch.manual_seed(0)
    linear = torch.nn.Linear(64, 32)
    int8 = quantized_linear(linear)
    x = torch.randn(3, 20, 64)
    x[:, 0] *= 200  # the first token's outliers, as in BERT
    before = x.clone()
    with torch.inference_mode():
        got, exact = int8(x), linear(x)
        plain = torch.ops.quantized.linear_dynamic(x, int8.quantized._packed_params._packed_params, reduce_range=int8.reduce_range)
    assert torch.equal(x, before)  # the input is put back as it was
    assert torch.allclose(got[:, 0], exact[:, 0], atol=1e-5)  # first token in fp32
    rest_error = (got[:, 1:] - exact[:, 1:]).abs().max()
    plain_error = (plain[:, 1:] - exact[:, 1:]).abs().max()
    assert rest_error < 0.05 < plain_error / 4  # a scale set by the outliers would be far coarser
    with pytest.raises(ValueError, match=r"\[batch, tokens, features\]"):
        int8(x[0])


def test_activation_bits_follow_vnni_and_are_exact():
    bits = 8 if getattr(torch.cpu, "_is_vnni_supported", lambda: False)() else 7
    assert bits == ACTIVATION_BITS
    assert INT8_SIGNATURE_NAME.endswith(f"-a{bits}")
    torch.manual_seed(1)
    linear = torch.nn.Linear(96, 48)
    linear.weight.data[:, :4] *= 20  # large products, where a saturating kernel would go wrong
    int8 = quantized_linear(linear)
    x = torch.randn(2, 30, 96)
    x[..., :4] = 5 + 3 * torch.rand(2, 30, 4)
    with torch.inference_mode():
        got = int8(x)[:, 1:]
    # the same product done in integers: uint8 activations (one scale for tokens 1..), int8 weights per channel
    rest = x[:, 1:]
    levels = 2 ** ACTIVATION_BITS - 1
    low, high = min(rest.min().item(), 0.0), max(rest.max().item(), 0.0)
    scale = (high - low) / levels
    zero = round(-low / scale)
    codes = torch.clamp(torch.round(rest / scale) + zero, 0, levels).long() - zero
    weight = int8.quantized.weight()
    products = codes @ weight.int_repr().long().t()
    expected = products.float() * scale * weight.q_per_channel_scales().float() + linear.bias.detach()
    assert torch.allclose(got, expected, atol=1e-4)
