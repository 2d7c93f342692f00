"""Sparsemax, the layer mix, heads, and the save/load round trip."""

import json
import math

import pytest
import torch

from codescore_metric.layer_mix import LayerMix, sparsemax
from codescore_metric.modeling import UniCEConfig, UniCEModel, joint_logit
from tests.tiny_model import build_tiny_model, tiny_encoder_config


def sparsemax_by_bisection(z: torch.Tensor) -> torch.Tensor:
    """Independent check: find tau with sum(max(z - tau, 0)) = 1 by bisection."""
    low, high = float(z.min()) - 1.0, float(z.max())
    for _ in range(200):
        tau = (low + high) / 2
        if torch.clamp(z - tau, min=0).sum() > 1:
            low = tau
        else:
            high = tau
    return torch.clamp(z - (low + high) / 2, min=0)


@pytest.mark.parametrize("seed", range(6))
def test_sparsemax_is_the_simplex_projection(seed):
    z = torch.randn(13, generator=torch.Generator().manual_seed(seed), dtype=torch.float64) * 2
    weights = sparsemax(z)
    assert torch.allclose(weights, sparsemax_by_bisection(z), atol=1e-9)
    assert torch.isclose(weights.sum(), torch.tensor(1.0, dtype=torch.float64))
    assert (weights >= 0).all()


def test_sparsemax_gives_exact_zeros_and_uniform_for_ties():
    assert sparsemax(torch.tensor([0.0, 0.0, 0.0, 0.0])).tolist() == [0.25] * 4
    weights = sparsemax(torch.tensor([3.0, 0.0, -1.0]))
    assert weights.tolist() == [1.0, 0.0, 0.0]


def random_layers(batch=3, length=5, dim=4, layers=3, seed=0):
    generator = torch.Generator().manual_seed(seed)
    hidden = [torch.randn(batch, length, dim, generator=generator) * (k + 1) + k for k in range(layers)]
    mask = torch.ones(batch, length, dtype=torch.long)
    mask[0, 3:] = 0
    mask[2, 4:] = 0
    return hidden, mask


def manual_mix(mix, hidden, mask, per_sample):
    weights = sparsemax(torch.cat(list(mix.scalar_parameters)))
    out = 0
    for w, h in zip(weights, hidden):
        rows = []
        for b in range(h.shape[0]):
            tokens = h[b][mask[b].bool()] if per_sample else h[mask.bool()]
            mean, var = tokens.mean(), tokens.var(unbiased=False)
            rows.append((h[b, 0] - mean) / torch.sqrt(var + 1e-12))
        out = out + w * torch.stack(rows)
    return mix.gamma * out


@pytest.mark.parametrize("normalization", ["batch", "sample"])
def test_layer_mix_matches_a_direct_computation(normalization):
    hidden, mask = random_layers()
    mix = LayerMix(3).eval()
    with torch.no_grad():
        for k, scalar in enumerate(mix.scalar_parameters):
            scalar.fill_(0.4 * k)
        mix.gamma.fill_(1.7)
    got = mix(hidden, mask, normalization)
    assert torch.allclose(got, manual_mix(mix, hidden, mask, per_sample=normalization == "sample"), atol=1e-5)


def test_mean_pooling_averages_the_normalised_real_tokens():
    hidden, mask = random_layers()
    mix = LayerMix(3, pooling="mean").eval()
    with torch.no_grad():
        for k, scalar in enumerate(mix.scalar_parameters):
            scalar.fill_(0.3 * k)
    weights = mix.layer_weights()
    m = mask.unsqueeze(-1).float()
    expected = 0
    for weight, h in zip(weights, hidden):
        count = m.sum((1, 2)) * h.shape[-1]
        mean = (h * m).sum((1, 2)) / count
        var = (((h - mean[:, None, None]) * m) ** 2).sum((1, 2)) / count
        normalised = (h - mean[:, None, None]) / torch.sqrt(var[:, None, None] + 1e-12)
        expected = expected + weight * (normalised * m).sum(1) / m.sum(1)
    assert torch.allclose(mix(hidden, mask, "sample"), mix.gamma * expected, atol=1e-5)
    padded = [torch.cat([h, torch.randn(h.shape[0], 2, h.shape[2])], 1) for h in hidden]
    assert torch.allclose(mix(padded, torch.cat([mask, torch.zeros(mask.shape[0], 2, dtype=mask.dtype)], 1), "sample"),
                          mix(hidden, mask, "sample"), atol=1e-5)  # padding never counts
    with pytest.raises(ValueError, match="pooling must be one of"):
        LayerMix(3, pooling="max")


def test_prediction_pooling_averages_only_the_generated_codes_tokens():
    hidden, mask = random_layers()
    prediction = torch.zeros_like(mask, dtype=torch.float32)
    prediction[:, :3] = 1.0  # the first segment: <s> g </s>
    mean, own, both = (LayerMix(3, pooling=name).eval() for name in ("mean", "prediction", "prediction+mean"))
    got = own(hidden, mask, "sample", prediction)
    assert got.shape == (hidden[0].shape[0], hidden[0].shape[2])
    assert not torch.allclose(got, mean(hidden, mask, "sample"), atol=1e-4)
    # normalised with the whole sequence's statistics, averaged over the first three positions only
    weights = own.layer_weights()
    expected = 0
    m = mask.unsqueeze(-1).float()
    for weight, h in zip(weights, hidden):
        count = m.sum((1, 2)) * h.shape[-1]
        mu = (h * m).sum((1, 2)) / count
        var = (((h - mu[:, None, None]) * m) ** 2).sum((1, 2)) / count
        expected = expected + weight * (h[:, :3].mean(1) - mu[:, None]) / torch.sqrt(var[:, None] + 1e-12)
    assert torch.allclose(got, own.gamma * expected, atol=1e-5)
    assert torch.allclose(both(hidden, mask, "sample", prediction), torch.cat([got, mean(hidden, mask, "sample")], -1), atol=1e-5)
    with pytest.raises(ValueError, match="needs prediction_mask"):
        own(hidden, mask, "sample")


@pytest.mark.parametrize("pooling", ["prediction", "prediction+mean"])
def test_prediction_pooling_models_save_load_and_need_segment_types(pooling, tmp_path):
    model, _ = build_tiny_model(pooling=pooling)
    ids = torch.tensor([[1, 5, 6, 2, 7, 8, 2, 0]])
    attention = torch.tensor([[1, 1, 1, 1, 1, 1, 1, 0]])
    types = torch.tensor([[0, 0, 0, 0, 1, 1, 1, 1]])
    with torch.no_grad():
        logits = model(ids, attention, types)
        other_code = model(torch.tensor([[1, 9, 6, 2, 7, 8, 2, 0]]), attention, types)
    assert logits.shape == (1, 3) and not torch.allclose(logits, other_code)
    model.save_pretrained(tmp_path)
    with torch.no_grad():
        assert torch.allclose(UniCEModel.from_pretrained(tmp_path).eval()(ids, attention, types), logits, atol=1e-6)
    with pytest.raises(ValueError, match="segment_token_types"):
        UniCEConfig(encoder=model.config.encoder, pooling=pooling, segment_token_types=False)


def test_sample_normalization_ignores_neighbours_and_batch_normalization_does_not():
    hidden, mask = random_layers()
    mix = LayerMix(3).eval()
    alone = mix([h[:1, :3] for h in hidden], mask[:1, :3], "sample")
    assert torch.allclose(mix(hidden, mask, "sample")[:1], alone, atol=1e-6)
    assert not torch.allclose(mix(hidden, mask, "batch")[:1], mix([h[:1, :3] for h in hidden], mask[:1, :3], "batch"), atol=1e-3)


def test_layer_dropout_only_in_training():
    mix = LayerMix(13, layer_dropout=0.5)
    mix.eval()
    assert torch.equal(mix.layer_weights(), mix.layer_weights())
    mix.train()
    torch.manual_seed(0)
    draws = {tuple(mix.layer_weights().tolist()) for _ in range(20)}
    assert len(draws) > 1


@pytest.mark.parametrize("head_type", ["separate", "shared"])
def test_save_and_load_round_trip_is_exact(tmp_path, head_type):
    model, tokenizer = build_tiny_model(head_type=head_type)
    model.save_pretrained(tmp_path)
    loaded = UniCEModel.from_pretrained(tmp_path)
    assert loaded.config == model.config
    ids = torch.tensor([tokenizer("<s>def add(a, b): return a + b</s></s>x</s>")["input_ids"]])
    batch = {"input_ids": ids, "attention_mask": torch.ones_like(ids), "token_type_ids": torch.zeros_like(ids)}
    with torch.no_grad():
        assert torch.equal(model(**batch), loaded(**batch))
    assert model(**batch).shape == (1, 3)


def test_nested_passability_is_executability_times_the_passability_head_and_survives_saving(tmp_path):
    model, tokenizer = build_tiny_model(seed=3)
    ids = torch.tensor([tokenizer("<s>def add(a, b): return a + b</s></s>x</s>")["input_ids"]] * 2)
    batch = {"input_ids": ids, "attention_mask": torch.ones_like(ids), "token_type_ids": torch.zeros_like(ids)}
    model.eval()
    with torch.no_grad():
        plain = model(**batch)
        model.config.nested_passability = True
        nested = model(**batch)
    assert torch.equal(nested[:, :2], plain[:, :2])
    expected = torch.sigmoid(plain[:, 1]) * torch.sigmoid(plain[:, 2])
    assert torch.allclose(torch.sigmoid(nested[:, 2]), expected, atol=1e-6)
    assert not torch.allclose(nested[:, 2], plain[:, 2])
    model.save_pretrained(tmp_path)
    loaded = UniCEModel.from_pretrained(tmp_path)
    assert loaded.config.nested_passability
    with torch.no_grad():
        assert torch.equal(loaded(**batch), nested)
    saved = json.loads((tmp_path / "config.json").read_text())
    del saved["nested_passability"]  # a config written before the option existed reads as plain heads
    assert UniCEConfig.from_dict(saved).nested_passability is False


def test_joint_logit_is_the_logit_of_the_product_and_stays_finite_with_finite_gradients():
    first = torch.tensor([-60.0, -3.0, 0.0, 2.0, 5.0, 40.0, 40.0], requires_grad=True)
    second = torch.tensor([0.0, 1.0, 0.0, -2.0, 5.0, -40.0, 40.0], requires_grad=True)
    joint = joint_logit(first, second)
    product = torch.sigmoid(first) * torch.sigmoid(second)
    assert torch.allclose(torch.sigmoid(joint[:6]), product[:6], rtol=1e-4, atol=1e-30)
    assert joint[6].item() == pytest.approx(40 - math.log(2), abs=1e-4)  # both near certain: odds e^80 / (1 + 2 e^40)
    joint.sum().backward()
    assert torch.isfinite(joint).all() and torch.isfinite(first.grad).all() and torch.isfinite(second.grad).all()
    assert joint_logit(torch.tensor([0.0]), torch.tensor([0.0])).item() == pytest.approx(-1.0986123)  # logit(1/4) = -log 3


def test_saving_the_same_weights_writes_the_same_bytes(tmp_path):
    model, _ = build_tiny_model()
    files = set()
    for attempt in range(8):  # safetensors orders a metadata map at random: 8 saves would show two entries
        model.save_pretrained(tmp_path / str(attempt))
        files.add((tmp_path / str(attempt) / "model.safetensors").read_bytes())
    assert len(files) == 1


def test_half_precision_weights_halve_the_file_and_load_as_fp32(tmp_path):
    from safetensors.torch import load_file

    model, tokenizer = build_tiny_model()
    model.save_pretrained(tmp_path / "fp32")
    model.save_pretrained(tmp_path / "fp16", weights_dtype="fp16")
    sizes = {name: (tmp_path / name / "model.safetensors").stat().st_size for name in ("fp32", "fp16")}
    assert sizes["fp16"] < 0.55 * sizes["fp32"]
    assert {tensor.dtype for tensor in load_file(str(tmp_path / "fp16" / "model.safetensors")).values()} == {torch.float16}
    loaded = UniCEModel.from_pretrained(tmp_path / "fp16")
    assert next(loaded.parameters()).dtype == torch.float32
    ids = torch.tensor([tokenizer("<s>def add(a, b): return a + b</s></s>x</s>")["input_ids"]])
    batch = {"input_ids": ids, "attention_mask": torch.ones_like(ids), "token_type_ids": torch.zeros_like(ids)}
    with torch.no_grad():
        assert torch.allclose(torch.sigmoid(model(**batch)), torch.sigmoid(loaded(**batch)), atol=2e-3)
    with pytest.raises(ValueError, match="weights_dtype must be one of fp32, fp16, bf16"):
        model.save_pretrained(tmp_path / "x", weights_dtype="int8")


def test_strict_loading_names_missing_extra_and_misshapen_keys(tmp_path):
    from safetensors.torch import load_file, save_file

    model, _ = build_tiny_model()
    model.save_pretrained(tmp_path)
    state = load_file(str(tmp_path / "model.safetensors"))
    state.pop("mix.gamma")
    state["extra.weight"] = torch.zeros(1)
    state["heads.codescore.0.bias"] = torch.zeros(7)
    save_file(state, str(tmp_path / "model.safetensors"))
    with pytest.raises(ValueError) as error:
        UniCEModel.from_pretrained(tmp_path)
    message = str(error.value)
    assert "mix.gamma" in message and "extra.weight" in message and "heads.codescore.0.bias: (7,) != (48,)" in message


def test_config_rejects_other_versions_and_unknown_keys(tmp_path):
    model, _ = build_tiny_model()
    model.save_pretrained(tmp_path)
    data = json.loads((tmp_path / "config.json").read_text())
    with pytest.raises(ValueError, match="codescore_config_version=2"):
        UniCEConfig.from_dict({**data, "codescore_config_version": 2})
    with pytest.raises(ValueError, match="unknown keys"):
        UniCEConfig.from_dict({**data, "surprise": 1})
    with pytest.raises(ValueError, match="model_type"):
        UniCEConfig(encoder={"hidden_size": 4})
    with pytest.raises(ValueError, match="normalization"):
        UniCEConfig(encoder=tiny_encoder_config(50).to_dict(), normalization="layer")


def test_missing_files_are_named(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"config\.json"):
        UniCEModel.from_pretrained(tmp_path)


def test_encoder_is_built_without_pooler_or_download():
    model, _ = build_tiny_model()
    assert getattr(model.encoder, "pooler", None) is None
    assert not any(key.startswith("encoder.pooler") for key in model.state_dict())
