"""The UniCE loss, with the authors' bugs fixed (reference-notes 1.7 and 6)."""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F


@dataclass(frozen=True)
class LossWeights:
    """Paper Eqs. 4-7: L = L_C + L_E; we add the Passability term with its own weight."""

    codescore: float = 1.0
    executability: float = 1.0
    passability: float = 1.0


def unice_loss(logits: torch.Tensor, pass_ratio: torch.Tensor, executable: torch.Tensor, all_pass: torch.Tensor, weights: LossWeights = LossWeights()) -> torch.Tensor:
    """Squared error of sigmoid(score logit) against PassRatio, plus BCE on the raw Exec and Pass logits.

    ``logits`` is the model's [B, 3] output; labels are [B] float tensors in [0, 1].
    """
    logits = logits.float()
    squared_error = F.mse_loss(torch.sigmoid(logits[:, 0]), pass_ratio)
    exec_bce = F.binary_cross_entropy_with_logits(logits[:, 1], executable)
    pass_bce = F.binary_cross_entropy_with_logits(logits[:, 2], all_pass)
    return weights.codescore * squared_error + weights.executability * exec_bce + weights.passability * pass_bce
