"""AdamW parameter groups with layer-wise learning-rate decay, top layer first (COMET 1.2's inversion fixed),
and the learning-rate schedule."""

from __future__ import annotations

import re

_LAYER = re.compile(r"\.layers?\.(\d+)\.")


def parameter_groups(model, encoder_lr: float, head_lr: float, layer_decay: float = 0.95, weight_decay: float = 0.01,
                     freeze_embeddings: bool = False, frozen_layers: int = 0) -> list[dict]:
    """Groups for AdamW: layer i (0-based) of L gets ``encoder_lr * decay**(L - 1 - i)``, embeddings ``decay**L``.

    The mix and heads get ``head_lr``. Biases and norm weights get no weight decay. With
    ``freeze_embeddings`` the embedding parameters stop requiring gradients; ``frozen_layers = N``
    freezes the embeddings and the first N layers too (no backward pass through them: faster).
    """
    num_layers = model.encoder.config.num_hidden_layers
    if not 0 <= frozen_layers <= num_layers:
        raise ValueError(f"frozen_layers must be between 0 and the encoder's {num_layers} layers; got {frozen_layers}")
    groups: dict[tuple[float, float], list] = {}
    for name, parameter in model.named_parameters():
        match = _LAYER.search(name) if name.startswith("encoder.") else None
        depth = int(match.group(1)) if match else (-1 if "embeddings" in name else num_layers - 1)
        if name.startswith("encoder.") and (depth < frozen_layers or ("embeddings" in name and freeze_embeddings)):
            parameter.requires_grad_(False)
        if not parameter.requires_grad:
            continue
        if name.startswith("encoder."):
            lr = encoder_lr * layer_decay ** (num_layers - 1 - depth)
        else:
            lr = head_lr
        decay = 0.0 if parameter.ndim < 2 else weight_decay
        groups.setdefault((lr, decay), []).append(parameter)
    return [{"params": params, "lr": lr, "weight_decay": decay} for (lr, decay), params in groups.items()]


def linear_schedule(optimizer, warmup_ratio: float, total_steps: int):
    """transformers' linear schedule: the first ``int(warmup_ratio * total_steps)`` optimizer steps warm
    up from 0 to the base learning rates, the rest decay linearly to 0 at ``total_steps``."""
    from transformers import get_linear_schedule_with_warmup

    return get_linear_schedule_with_warmup(optimizer, int(warmup_ratio * total_steps), total_steps)
