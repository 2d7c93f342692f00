"""Start a UniCE model from a pretrained transformers encoder (a local folder or a Hub id)."""

from __future__ import annotations

from codescore_metric.code_distance import DISTANCE_BUCKETS
from codescore_metric.code_layout import CHANGE_MARKERS, DISTANCE_START, MARKERS
from codescore_metric.encoding import detect_separator_tokens
from codescore_metric.modeling import UniCEConfig, UniCEModel

# Families whose position ids start after the padding index, so two positions are never usable.
_OFFSET_POSITIONS = {"roberta", "xlm-roberta", "camembert", "longformer"}


def usable_length(encoder_config) -> int:
    """The longest input the backbone's position embeddings allow."""
    offset = 2 if encoder_config.model_type in _OFFSET_POSITIONS else 0
    return encoder_config.max_position_embeddings - offset


def reserved_tokens(tokenizer, start: int, count: int) -> list[str]:
    """``count`` unused BERT-style vocabulary entries from ``[unused<start>]`` on, to carry markers
    (layout: ``[unused0]``..``[unused3]``; changes: ``[unused4]``, ``[unused5]``; distance: ``[unused6]``..``[unused12]``)."""
    vocabulary = tokenizer.get_vocab()
    tokens = [f"[unused{i}]" for i in range(start, start + count)]
    if not all(token in vocabulary for token in tokens):
        raise ValueError(f"{type(tokenizer).__name__} has no reserved entries {tokens}; layout, change and distance tokens are "
                         "for WordPiece vocabularies with [unusedN] entries")
    return tokens


def model_from_backbone(
    backbone: str,
    max_length: int | None = None,
    head_type: str = "separate",
    head_hidden_sizes=(512,),
    dropout: float = 0.1,
    local_files_only: bool | None = None,
    name: str | None = None,
    layout_tokens: bool = False,
    change_tokens: bool = False,
    distance_tokens: bool = False,
    **config_overrides,
):
    """``(UniCEModel, tokenizer)`` with the backbone's pretrained weights and fresh mix and heads.

    ``name`` is what the saved config records as the backbone (default: ``backbone`` itself; give a
    Hub id when loading a local copy, so no local path ends up in a shipped model). ``layout_tokens``
    makes code layout and case visible through reserved vocabulary entries (`code_layout`), and
    ``change_tokens`` marks where the generated code and the reference differ (`code_changes`), and
    ``distance_tokens`` says how far apart they are (`code_distance`)."""
    from transformers import AutoConfig, AutoModel, AutoTokenizer

    from codescore_metric.checkpoints import downloads_disabled

    offline = downloads_disabled(local_files_only)
    try:
        encoder_config = AutoConfig.from_pretrained(backbone, local_files_only=offline)
        tokenizer = AutoTokenizer.from_pretrained(backbone, local_files_only=offline)
        try:  # UniCE never uses the pooler, so do not build (or report missing) one
            pretrained = AutoModel.from_pretrained(backbone, local_files_only=offline, add_pooling_layer=False)
        except TypeError:
            pretrained = AutoModel.from_pretrained(backbone, local_files_only=offline)
    except (OSError, ValueError) as error:
        raise OSError(f"cannot load the backbone {backbone!r} (config, tokenizer and weights are needed): {error}") from error
    limit = usable_length(encoder_config)
    if max_length is not None and max_length > limit:
        raise ValueError(f"max_length {max_length} is longer than the {limit} positions {backbone} has")
    name = str(name or backbone)
    encoder_config._name_or_path = name
    config = UniCEConfig(
        encoder=encoder_config.to_dict(),
        encoding_profile="clean",
        max_length=max_length or limit,
        separator_tokens=detect_separator_tokens(tokenizer),
        segment_token_types=getattr(encoder_config, "type_vocab_size", 0) >= 2,
        head_type=head_type,
        head_hidden_sizes=list(head_hidden_sizes),
        dropout=dropout,
        provenance={"backbone": name},
        layout_tokens=reserved_tokens(tokenizer, 0, len(MARKERS)) if layout_tokens else [],
        change_tokens=reserved_tokens(tokenizer, len(MARKERS), len(CHANGE_MARKERS)) if change_tokens else [],
        distance_tokens=reserved_tokens(tokenizer, DISTANCE_START, len(DISTANCE_BUCKETS)) if distance_tokens else [],
        **config_overrides,
    )
    model = UniCEModel(config)
    weights = {key: value for key, value in pretrained.state_dict().items() if not key.startswith("pooler.")}
    missing, unexpected = model.encoder.load_state_dict(weights, strict=False)
    if missing or unexpected:
        raise ValueError(f"the weights of {backbone} do not fit its own config: missing {missing[:5]}, unexpected {unexpected[:5]}")
    return model, tokenizer
