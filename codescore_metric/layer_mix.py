"""Sparsemax-weighted mix of all encoder hidden states, read at the first token (the authors' model,
paper §3.2), averaged over the tokens (mean pooling, as sentence encoders such as MiniLM were trained) or
averaged over the generated code's tokens alone (which have read the reference and task through attention)."""

from __future__ import annotations

import torch
from torch import nn

NORMALIZATIONS = ("batch", "sample")
POOLINGS = ("first", "mean", "prediction", "prediction+mean")
# How many hidden-size vectors each pooling puts side by side.
POOLED_VECTORS = {"first": 1, "mean": 1, "prediction": 1, "prediction+mean": 2}
TRANSFORMATIONS = ("sparsemax", "softmax")
_VARIANCE_EPS = 1e-12


def sparsemax(scores: torch.Tensor) -> torch.Tensor:
    """Euclidean projection of a 1-D tensor onto the probability simplex (Martins & Astudillo, 2016)."""
    ordered, _ = torch.sort(scores, descending=True)
    cumulative = ordered.cumsum(0)
    ranks = torch.arange(1, scores.numel() + 1, dtype=scores.dtype, device=scores.device)
    support = 1 + ranks * ordered > cumulative
    k = support.nonzero().max() + 1
    threshold = (cumulative[k - 1] - 1) / k
    return torch.clamp(scores - threshold, min=0)


class LayerMix(nn.Module):
    """gamma * sum_k w_k * pool(norm_k(h_k)) with w = sparsemax (or softmax) of one scalar per layer.

    ``pooling`` reads the first token (``"first"``), the mean of the non-padding tokens (``"mean"``), the mean
    of the tokens of the first segment, the generated code with its special tokens (``"prediction"``: the
    positions where ``prediction_mask`` is 1), or both means side by side (``"prediction+mean"``, [B, 2D]).
    ``normalization`` selects the statistics of ``norm_k``: ``"batch"`` uses one mean and variance
    over every non-padding token of the whole batch (the authors' model, so a score depends on its
    batch neighbours); ``"sample"`` uses each sequence's own tokens, so a score never depends on
    its batch.
    """

    def __init__(self, num_layers: int, transformation: str = "sparsemax", layer_norm: bool = True, layer_dropout: float = 0.1,
                 pooling: str = "first"):
        super().__init__()
        if transformation not in TRANSFORMATIONS:
            raise ValueError(f"layer_transformation must be one of {TRANSFORMATIONS}; got {transformation!r}")
        if pooling not in POOLINGS:
            raise ValueError(f"pooling must be one of {POOLINGS}; got {pooling!r}")
        self.pooling = pooling
        self.transformation = transformation
        self.layer_norm = layer_norm
        self.layer_dropout = layer_dropout
        self.scalar_parameters = nn.ParameterList([nn.Parameter(torch.zeros(1)) for _ in range(num_layers)])
        self.gamma = nn.Parameter(torch.ones(1))

    def layer_weights(self) -> torch.Tensor:
        """The mixing weights; in training each layer is dropped (weight 0) with probability ``layer_dropout``."""
        scalars = torch.cat(list(self.scalar_parameters))
        if self.training and self.layer_dropout > 0:
            dropped = torch.rand_like(scalars) < self.layer_dropout
            scalars = scalars.masked_fill(dropped, -1e20)
        if self.transformation == "sparsemax":
            return sparsemax(scalars)
        return torch.softmax(scalars, dim=0)

    def forward(self, hidden_states, attention_mask: torch.Tensor, normalization: str = "sample",
                prediction_mask: torch.Tensor | None = None) -> torch.Tensor:
        """Mix ``hidden_states`` (one [B, T, D] tensor per layer) into one [B, D] vector per sample (fp32;
        [B, 2D] for ``"prediction+mean"``, which like ``"prediction"`` needs ``prediction_mask``)."""
        if normalization not in NORMALIZATIONS:
            raise ValueError(f"normalization must be one of {NORMALIZATIONS}; got {normalization!r}")
        if len(hidden_states) != len(self.scalar_parameters):
            raise ValueError(f"expected {len(self.scalar_parameters)} hidden states, got {len(hidden_states)}")
        if self.pooling.startswith("prediction") and prediction_mask is None:
            raise ValueError(f"pooling {self.pooling!r} needs prediction_mask (the generated code's positions)")
        weights = self.layer_weights()
        mask = attention_mask.unsqueeze(-1).to(torch.float32)
        mixed = None
        for weight, hidden in zip(weights, hidden_states):
            hidden = hidden.to(torch.float32)
            pooled = self._pool(hidden, mask, prediction_mask)
            if self.layer_norm:  # the statistics are scalars per sample (or batch), so norm and pooling commute
                pooled = self._normalize(hidden, pooled, mask, normalization)
            mixed = weight * pooled if mixed is None else mixed + weight * pooled
        return self.gamma * mixed

    def _pool(self, hidden, mask, prediction_mask):
        if self.pooling == "first":
            return hidden[:, 0]
        mean = (hidden * mask).sum(1) / mask.sum(1)
        if self.pooling == "mean":
            return mean
        own = (prediction_mask * mask[..., 0]).unsqueeze(-1)
        prediction = (hidden * own).sum(1) / own.sum(1).clamp(min=1.0)
        return prediction if self.pooling == "prediction" else torch.cat([prediction, mean], dim=-1)

    @staticmethod
    def _normalize(hidden, pooled, mask, normalization):
        dims = (0, 1, 2) if normalization == "batch" else (1, 2)
        count = mask.sum(dims) * hidden.shape[-1]
        mean = (hidden * mask).sum(dims) / count
        if normalization == "sample":
            mean = mean[:, None, None]
        variance = (((hidden - mean) * mask) ** 2).sum(dims) / count
        if normalization == "sample":
            mean, variance = mean[:, :, 0], variance[:, None]
        return (pooled - mean) / torch.sqrt(variance + _VARIANCE_EPS)
