"""UniCE: a transformers encoder, a layer mix over all hidden states and PassRatio/Exec/Pass heads."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

import torch
from torch import nn

from codescore_metric.encoding import EncodingSpec
from codescore_metric.formats import OUTPUT_NAMES
from codescore_metric.layer_mix import NORMALIZATIONS, POOLED_VECTORS, POOLINGS, LayerMix

CONFIG_NAME = "config.json"
WEIGHTS_NAME = "model.safetensors"
WEIGHT_DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}
CONFIG_FORMAT_VERSION = 1
HEAD_TYPES = ("shared", "separate")
_ACTIVATIONS = {"tanh": nn.Tanh, "relu": nn.ReLU, "gelu": nn.GELU}


@dataclass
class UniCEConfig:
    """Everything needed to rebuild a UniCE model offline; saved as ``config.json``.

    ``encoder`` is the backbone's full transformers config dict (with ``model_type``), so loading
    never downloads the pretrained backbone. ``head_type="shared"`` is the authors' wiring (one MLP
    whose three sigmoid outputs are CodeScore, Executability and Passability); ``"separate"`` gives
    each output its own MLP. ``nested_passability`` makes the Passability logit that of
    sigmoid(Executability) x sigmoid(Passability head): passing every test implies running, so the
    Passability head then only learns the chance of passing given that the code runs.
    """

    encoder: dict
    encoding_profile: str = "clean"
    max_length: int = 512
    separator_tokens: int = 2
    segment_token_types: bool = True
    stripped_tokens: list[str] = field(default_factory=list)
    strip_code_comments: bool = False
    canonical_names: bool = False
    strip_annotations: bool = False
    layout_tokens: list[str] = field(default_factory=list)
    change_tokens: list[str] = field(default_factory=list)
    distance_tokens: list[str] = field(default_factory=list)
    layer_transformation: str = "sparsemax"
    layer_norm: bool = True
    layer_dropout: float = 0.1
    normalization: str = "sample"
    pooling: str = "first"
    head_type: str = "separate"
    nested_passability: bool = False
    head_hidden_sizes: list[int] = field(default_factory=lambda: [3072, 1024])
    head_activation: str = "tanh"
    dropout: float = 0.1
    default_input_format: str = "ref_nl"
    provenance: dict = field(default_factory=dict)

    def __post_init__(self):
        if not isinstance(self.encoder, dict) or "model_type" not in self.encoder:
            raise ValueError("UniCEConfig.encoder must be a transformers config dict that includes 'model_type'")
        self.encoder = json.loads(json.dumps(self.encoder))  # the form it has after a save/load round trip
        if self.normalization not in NORMALIZATIONS:
            raise ValueError(f"normalization must be one of {NORMALIZATIONS}; got {self.normalization!r}")
        if self.pooling not in POOLINGS:
            raise ValueError(f"pooling must be one of {POOLINGS}; got {self.pooling!r}")
        if self.pooling.startswith("prediction") and not self.segment_token_types:
            raise ValueError(f"pooling {self.pooling!r} finds the generated code by its token type: it needs segment_token_types=True")
        if self.head_type not in HEAD_TYPES:
            raise ValueError(f"head_type must be one of {HEAD_TYPES}; got {self.head_type!r}")
        if self.head_activation not in _ACTIVATIONS:
            raise ValueError(f"head_activation must be one of {sorted(_ACTIVATIONS)}; got {self.head_activation!r}")
        _ = self.encoding_spec  # building the spec validates the encoding fields

    @property
    def encoding_spec(self) -> EncodingSpec:
        return EncodingSpec(
            profile=self.encoding_profile,
            max_length=self.max_length,
            separator_tokens=self.separator_tokens,
            segment_token_types=self.segment_token_types,
            stripped_tokens=tuple(self.stripped_tokens),
            strip_code_comments=self.strip_code_comments,
            canonical_names=self.canonical_names,
            strip_annotations=self.strip_annotations,
            layout_tokens=tuple(self.layout_tokens),
            change_tokens=tuple(self.change_tokens),
            distance_tokens=tuple(self.distance_tokens),
        )

    def to_dict(self) -> dict:
        return {"architectures": ["UniCEModel"], "codescore_config_version": CONFIG_FORMAT_VERSION, **asdict(self)}

    @classmethod
    def from_dict(cls, data: dict) -> UniCEConfig:
        data = dict(data)
        data.pop("architectures", None)
        version = data.pop("codescore_config_version", None)
        if version != CONFIG_FORMAT_VERSION:
            raise ValueError(
                f"config.json has codescore_config_version={version!r}; this codescore-metric reads version "
                f"{CONFIG_FORMAT_VERSION}. Upgrade codescore-metric or re-save the model with it."
            )
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"config.json has unknown keys {unknown}; it was written by another version of codescore-metric")
        return cls(**data)


def build_mlp(in_dim: int, hidden_sizes: list[int], out_dim: int, activation: str, dropout: float) -> nn.Sequential:
    """Linear/activation/dropout blocks ending in a Linear to ``out_dim`` logits (indices 0, 3, 6 for two hidden layers)."""
    layers: list[nn.Module] = []
    for size in hidden_sizes:
        layers += [nn.Linear(in_dim, size), _ACTIVATIONS[activation](), nn.Dropout(dropout)]
        in_dim = size
    layers.append(nn.Linear(in_dim, out_dim))
    return nn.Sequential(*layers)


def joint_logit(first: torch.Tensor, second: torch.Tensor) -> torch.Tensor:
    """The logit of sigmoid(first) * sigmoid(second): its odds are e^(a+b) / (1 + e^a + e^b), so the logit is
    a + b - logsumexp(0, a, b), finite for finite inputs (and exportable to ONNX)."""
    stacked = torch.stack([torch.zeros_like(first), first, second], dim=-1)
    return first + second - torch.logsumexp(stacked, dim=-1)


class UniCEModel(nn.Module):
    """Encoder + `LayerMix` + heads; ``forward`` returns [B, 3] logits (CodeScore, Executability, Passability)."""

    def __init__(self, config: UniCEConfig):
        super().__init__()
        from transformers import AutoConfig

        self.config = config
        encoder_config = AutoConfig.for_model(**config.encoder)
        self.encoder = _build_encoder(encoder_config)
        hidden = encoder_config.hidden_size
        self.mix = LayerMix(encoder_config.num_hidden_layers + 1, config.layer_transformation, config.layer_norm, config.layer_dropout,
                            config.pooling)
        pooled_size = hidden * POOLED_VECTORS[config.pooling]
        mlp = lambda out_dim: build_mlp(pooled_size, config.head_hidden_sizes, out_dim, config.head_activation, config.dropout)
        if config.head_type == "shared":
            self.head = mlp(len(OUTPUT_NAMES))
        else:
            self.heads = nn.ModuleDict({name: mlp(1) for name in OUTPUT_NAMES})

    def forward(self, input_ids, attention_mask, token_type_ids=None, normalization: str | None = None) -> torch.Tensor:
        inputs = {"input_ids": input_ids, "attention_mask": attention_mask}
        if token_type_ids is not None:
            inputs["token_type_ids"] = token_type_ids
        outputs = self.encoder(**inputs, output_hidden_states=True, return_dict=True)
        # the generated code is the first segment: <s> g </s>, token type 0 (segment_token_types)
        prediction_mask = None if token_type_ids is None else (token_type_ids == 0).to(torch.float32)
        pooled = self.mix(outputs.hidden_states, attention_mask, normalization or self.config.normalization, prediction_mask)
        if self.config.head_type == "shared":
            logits = self.head(pooled)
        else:
            logits = torch.cat([self.heads[name](pooled) for name in OUTPUT_NAMES], dim=-1)
        if self.config.nested_passability:
            logits = torch.cat([logits[:, :2], joint_logit(logits[:, 1], logits[:, 2])[:, None]], dim=-1)
        return logits

    def save_pretrained(self, directory: str | Path, weights_dtype: str = "fp32") -> Path:
        """Write ``config.json`` and ``model.safetensors`` into ``directory``; ``weights_dtype`` fp16 or
        bf16 halves the file (loading casts back to the model's dtype)."""
        from safetensors.torch import save_file

        if weights_dtype not in WEIGHT_DTYPES:
            raise ValueError(f"weights_dtype must be one of {', '.join(WEIGHT_DTYPES)}; got {weights_dtype!r}")
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        (directory / CONFIG_NAME).write_text(json.dumps(self.config.to_dict(), indent=2, sort_keys=True) + "\n")
        dtype = WEIGHT_DTYPES[weights_dtype]
        state = {key: value.detach().to("cpu", dtype).contiguous() for key, value in self.state_dict().items()}
        # One metadata entry: safetensors writes a map's entries in a random order, so two would make equal
        # weights differ byte for byte from save to save.
        save_file(state, str(directory / WEIGHTS_NAME), metadata={"format": "pt"})
        return directory

    @classmethod
    def from_pretrained(cls, directory: str | Path) -> UniCEModel:
        """Build from ``config.json`` and load ``model.safetensors`` strictly (every key, every shape)."""
        from safetensors.torch import load_file

        directory = Path(directory)
        for name in (CONFIG_NAME, WEIGHTS_NAME):
            if not (directory / name).is_file():
                raise FileNotFoundError(f"{directory} has no {name}; a CodeScore model folder needs {CONFIG_NAME} and {WEIGHTS_NAME}")
        config = UniCEConfig.from_dict(json.loads((directory / CONFIG_NAME).read_text()))
        model = cls(config)
        model.load_state_dict_strict(load_file(str(directory / WEIGHTS_NAME)), source=str(directory / WEIGHTS_NAME))
        return model.eval()

    def load_state_dict_strict(self, state: dict, source: str) -> None:
        """``load_state_dict(strict=True)`` with an error that lists what is missing, extra or misshapen."""
        expected = self.state_dict()
        missing = sorted(set(expected) - set(state))
        unexpected = sorted(set(state) - set(expected))
        misshapen = [f"{k}: {tuple(state[k].shape)} != {tuple(expected[k].shape)}"
                     for k in expected if k in state and state[k].shape != expected[k].shape]
        if missing or unexpected or misshapen:
            raise ValueError(
                f"weights in {source} do not fit the model built from its config: "
                f"missing {_preview(missing)}, unexpected {_preview(unexpected)}, wrong shape {_preview(misshapen)}"
            )
        self.load_state_dict(state, strict=True)


def _build_encoder(encoder_config):
    """The backbone from its config alone (no download); the pooler is dropped because UniCE never uses it."""
    from transformers import AutoModel

    try:
        return AutoModel.from_config(encoder_config, add_pooling_layer=False)
    except TypeError:  # families without a pooler do not take the argument
        return AutoModel.from_config(encoder_config)


def _preview(items: list[str], limit: int = 8) -> str:
    if not items:
        return "none"
    shown = ", ".join(items[:limit])
    return f"[{shown}{', ...' if len(items) > limit else ''}] ({len(items)})"
