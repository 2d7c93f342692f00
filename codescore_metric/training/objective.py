"""The UniCE loss (paper Eqs. 4-7, with the Passability term added) and a within-task ranking loss."""

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


def unice_loss(
    logits: torch.Tensor,
    pass_ratio: torch.Tensor,
    executable: torch.Tensor,
    all_pass: torch.Tensor,
    weights: LossWeights = LossWeights(),
) -> torch.Tensor:
    """Squared error of sigmoid(score logit) against PassRatio, plus BCE on the raw Exec and Pass logits.

    ``logits`` is the model's [B, 3] output; labels are [B] float tensors in [0, 1].
    """
    logits = logits.float()
    squared_error = F.mse_loss(torch.sigmoid(logits[:, 0]), pass_ratio)
    exec_bce = F.binary_cross_entropy_with_logits(logits[:, 1], executable)
    pass_bce = F.binary_cross_entropy_with_logits(logits[:, 2], all_pass)
    return weights.codescore * squared_error + weights.executability * exec_bce + weights.passability * pass_bce


def within_task_ranking_loss(score_logits: torch.Tensor, pass_ratio: torch.Tensor, groups: torch.Tensor,
                             distance: torch.Tensor | None = None, contrary_weight: float = 0.0,
                             executable: torch.Tensor | None = None, running_weight: float = 0.0) -> torch.Tensor:
    """RankNet-style pairwise loss over candidates of the same task: for each pair where one candidate has
    the higher PassRatio, ``softplus(-(z_better - z_worse))`` weighted by the PassRatio gap. L_Uni alone
    only asks each score to be near its label, which a model can meet by guessing the task's difficulty;
    this term asks it to order candidates of one task. 0 when the batch has no such pair.

    With ``distance`` (each candidate's distance bucket from the reference) and ``contrary_weight`` > 0, a
    pair whose better candidate is the farther from the reference weighs ``1 + contrary_weight`` times more:
    the pairs that nearness to the reference (what BLEU measures) orders wrongly.

    With ``executable`` (each candidate's Executability label) and ``running_weight`` > 0, a pair of two
    candidates that both run every test without an error weighs ``1 + running_weight`` times more: the pairs
    that knowing which programs crash cannot order, only reading their logic can."""
    logits = score_logits.float()
    better = (pass_ratio[:, None] - pass_ratio[None, :]).clamp(min=0) * (groups[:, None] == groups[None, :])
    if not torch.any(better > 0):
        return logits.sum() * 0.0
    if distance is not None and contrary_weight:
        better = better * (1 + contrary_weight * (distance[:, None] > distance[None, :]))
    if executable is not None and running_weight:
        runs = executable > 0.5
        better = better * (1 + running_weight * (runs[:, None] & runs[None, :]))
    pair_loss = F.softplus(-(logits[:, None] - logits[None, :]))
    return (better * pair_loss).sum() / better.sum()
