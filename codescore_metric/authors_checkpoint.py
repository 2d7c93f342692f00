"""Load the authors' released Lightning checkpoint (``dz1/CodeScore``) without Lightning or COMET.

The file holds only weights (a weights-only PyTorch Lightning checkpoint of the authors' COMET-based
model; the Hub repo has no hparams.yaml or encoder config beside it): the encoder config and tokenizer
come from ``microsoft/unixcoder-base`` (or a local copy of it). Keys are mapped onto `UniCEModel`, shapes are
checked, and every key that is not used must be on an explicit allow-list.
"""

from __future__ import annotations

import re
from pathlib import Path

from codescore_metric.modeling import UniCEConfig, UniCEModel

DEFAULT_ENCODER = "microsoft/unixcoder-base"
AUTHORS_REPOS = {"dz1/CodeScore": "epoch=8-step=299583-val_pearson=0.739.ckpt"}
# Keys the authors' model saves but never uses for a score: the position-id buffer older transformers saved,
# the RoBERTa pooler (computed, never read), the estimator's ff2/ff3 copies (every output comes from ff1), the
# word-level tagging head and its loss weights (no part of the score), and the layer mix's training-only
# dropout buffers.
IGNORED_KEY_PATTERNS = (
    r"encoder\.model\.embeddings\.position_ids",
    r"encoder\.model\.pooler\..*",
    r"estimator\.ff[23]\..*",
    r"hidden2tag\..*",
    r"wordloss\.weight",
    r"layerwise_attention\.dropout_(mask|fill)",
)
# The authors' tokenizer had these word-level tags added; they are deleted before the model sees the ids.
WORD_LEVEL_TAGS = ["<v>", "</v>"]
_SEGMENTS_TO_FORMAT = {("mt", "ref"): "ref", ("mt", "src"): "nl"}


def map_authors_key(key: str) -> str | None:
    """Our parameter name for one of the authors' keys; ``None`` for allow-listed unused keys.

    Raises ``KeyError`` for a key that is neither used nor allow-listed.
    """
    if any(re.fullmatch(pattern, key) for pattern in IGNORED_KEY_PATTERNS):
        return None
    for prefix, replacement in (("encoder.model.", "encoder."), ("layerwise_attention.", "mix."), ("estimator.ff1.", "head.")):
        if key.startswith(prefix):
            return replacement + key[len(prefix):]
    raise KeyError(key)


def read_authors_state(path: str | Path) -> tuple[dict, dict]:
    """``(state_dict, hyper_parameters)`` from the checkpoint, read with ``torch.load(weights_only=True)``."""
    import torch

    try:
        checkpoint = torch.load(str(path), map_location="cpu", weights_only=True)
    except Exception as error:
        raise ValueError(f"cannot read {path} as a PyTorch checkpoint with weights_only=True: {error}") from error
    if not isinstance(checkpoint, dict) or "state_dict" not in checkpoint:
        raise ValueError(f"{path} is not a Lightning checkpoint: it has no 'state_dict' entry")
    hyper_parameters = checkpoint.get("hyper_parameters") or {}
    return checkpoint["state_dict"], hyper_parameters if isinstance(hyper_parameters, dict) else {}


def head_sizes(state: dict) -> tuple[list[int], int]:
    """Hidden sizes and output width of the ``estimator.ff1`` MLP, read from its weight shapes."""
    linear = sorted(
        (int(match.group(1)), tensor.shape)
        for key, tensor in state.items()
        if (match := re.fullmatch(r"estimator\.ff1\.(\d+)\.weight", key))
    )
    if not linear:
        raise ValueError("the checkpoint has no estimator.ff1.*.weight keys; it is not a CodeScore (UniCE) checkpoint")
    hidden = [shape[0] for _, shape in linear[:-1]]
    outputs = linear[-1][1][0]
    if outputs != 3:
        raise ValueError(
            f"estimator.ff1.{linear[-1][0]}.weight has {outputs} outputs; CodeScore checkpoints have 3 "
            "(PassRatio, Executability, Passability)"
        )
    return hidden, outputs


def default_input_format(hyper_parameters: dict) -> str:
    segments = tuple(hyper_parameters.get("input_segments") or ("mt", "ref"))
    return _SEGMENTS_TO_FORMAT.get(segments, "ref_nl" if {"ref", "src"} <= set(segments) else "ref")


def load_authors_checkpoint(path: str | Path, encoder: str | Path | None = None, encoder_revision: str | None = None, local_files_only: bool = False):
    """Build ``(UniCEModel, tokenizer)`` from an authors' ``.ckpt`` and the backbone's config and tokenizer."""
    from transformers import AutoConfig, AutoTokenizer

    from codescore_metric.encoding import detect_separator_tokens

    path = Path(path)
    encoder = str(encoder or DEFAULT_ENCODER)
    state, hyper_parameters = read_authors_state(path)
    try:
        encoder_config = AutoConfig.from_pretrained(encoder, revision=encoder_revision, local_files_only=local_files_only)
        tokenizer = AutoTokenizer.from_pretrained(encoder, revision=encoder_revision, local_files_only=local_files_only)
    except (OSError, ValueError) as error:
        raise OSError(
            f"the authors' checkpoint {path.name} holds weights only; its encoder config and tokenizer come from "
            f"{encoder!r}, which could not be loaded ({error}). Pass encoder=<folder with {DEFAULT_ENCODER}'s "
            f"config.json and tokenizer files>, or pre-download it with `hf download {DEFAULT_ENCODER}` while online."
        ) from error
    tokenizer.add_tokens(WORD_LEVEL_TAGS, special_tokens=False)
    hidden_sizes, _ = head_sizes(state)
    config = UniCEConfig(
        encoder=encoder_config.to_dict(),
        encoding_profile="reference",
        max_length=encoder_config.max_position_embeddings - 4,
        separator_tokens=detect_separator_tokens(tokenizer),
        segment_token_types=True,
        stripped_tokens=list(WORD_LEVEL_TAGS),
        normalization="batch",
        head_type="shared",
        head_hidden_sizes=hidden_sizes,
        head_activation="tanh",
        default_input_format=default_input_format(hyper_parameters),
        provenance={
            "converted_from": path.name,
            "encoder": encoder,
            "input_segments": list(hyper_parameters.get("input_segments") or []),
        },
    )
    model = UniCEModel(config)
    mapped, unknown = {}, []
    for key, tensor in state.items():
        try:
            target = map_authors_key(key)
        except KeyError:
            unknown.append(key)
            continue
        if target is not None:
            mapped[target] = tensor.float() if tensor.is_floating_point() else tensor
    if unknown:
        raise ValueError(f"{path.name} has keys that are neither used nor known to be unused: {sorted(unknown)[:10]}")
    model.load_state_dict_strict(mapped, source=str(path))
    return model.eval(), tokenizer
