"""``dtype="int8"``: dynamic int8 quantization of a UniCE encoder's ``nn.Linear`` layers for CPU inference.

Weights of every encoder Linear are stored as int8 with one scale per output channel; activations are quantized
on the fly, one scale per batch, except the first token's: in this BERT the first token's hidden state carries
outliers 2-4x larger than any other token's (up to 28 against 11 at the FFN input), and a batch scale stretched to
them loses most of the other tokens' precision. So each int8 Linear computes the first token in fp32 and the
rest in int8 with a scale set by the rest (``FirstTokenFp32Linear``, which keeps the fp32 weights for that row,
so int8 is about speed, not memory). Activations use 8 bits where the CPU has
VNNI (exact there) and 7 bits elsewhere, where torch's x86 kernels need the reduced range to avoid overflow
(``ACTIVATION_BITS``, shown in the signature). Embeddings, layer norms, the layer mix and the small heads stay
fp32. torch marks ``torch.ao.quantization`` as deprecated (torchao replaces it); its two deprecation warnings are
logged once here instead of being printed on every load, and every other warning passes through.
"""

from __future__ import annotations

import copy
import logging
import re
import warnings

import torch
from torch import nn

logger = logging.getLogger(__name__)

# The deprecation notices torch emits while quantizing (module deprecation, quantized-tensor creation).
_DEPRECATION_MESSAGES = (r"torch\.ao\.quantization is deprecated", r"torch\.quantize_per_tensor, torch\.quantize_per_channel")
_told = False


def _has_vnni() -> bool:
    check = getattr(torch.cpu, "_is_vnni_supported", None)  # private in torch 2.x; absent means "assume not"
    return bool(check and check())


# 8-bit activations are exact with VNNI's int32 accumulation; without it torch's u8 x s8 kernels can saturate.
ACTIVATION_BITS = 8 if _has_vnni() else 7
# How dtype="int8" appears in the signature: its scores differ with the activation bits.
INT8_SIGNATURE_NAME = f"int8-a{ACTIVATION_BITS}"


class FirstTokenFp32Linear(nn.Module):
    """A dynamically quantized Linear whose activation scale leaves out the first token, computed in fp32.

    The first token's row is zeroed in the input for the int8 product and put back before returning (the
    input is unchanged afterwards), so no copy of the activations is made.
    """

    def __init__(self, linear: nn.Linear, quantized: nn.Module, activation_bits: int = ACTIVATION_BITS):
        super().__init__()
        self.register_buffer("weight", linear.weight.detach())
        self.register_buffer("bias", None if linear.bias is None else linear.bias.detach())
        self.quantized = quantized
        self.reduce_range = activation_bits == 7

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.dim() != 3:
            raise ValueError(f"FirstTokenFp32Linear takes [batch, tokens, features]; got shape {tuple(x.shape)}")
        first = x[:, 0].clone()
        x[:, 0] = 0
        try:
            out = torch.ops.quantized.linear_dynamic(x, self.quantized._packed_params._packed_params, reduce_range=self.reduce_range)
        finally:
            x[:, 0] = first
        out[:, 0] = nn.functional.linear(first, self.weight, self.bias)
        return out


def quantize_int8(model: nn.Module, *, inplace: bool = False) -> nn.Module:
    """``model`` (a UniCE model, fp32, on CPU) with each ``nn.Linear`` of its encoder replaced by a
    ``FirstTokenFp32Linear`` (per-channel int8 weights).

    ``inplace=False`` quantizes a deep copy and leaves ``model`` as it was.
    """
    global _told
    try:
        quantize_dynamic = torch.ao.quantization.quantize_dynamic
        per_channel = torch.ao.quantization.per_channel_dynamic_qconfig
    except AttributeError as error:  # removed in some future torch
        raise ValueError(f"dtype 'int8' needs torch.ao.quantization.quantize_dynamic, which torch {torch.__version__} "
                         "does not have; use dtype='fp32' or 'bf16'") from error
    devices = {parameter.device.type for parameter in model.parameters()}
    if devices - {"cpu"}:
        raise ValueError(f"int8 quantization needs the model on CPU; it is on {', '.join(sorted(devices))}")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = model if inplace else copy.deepcopy(model)
        linears = {name: module for name, module in model.encoder.named_modules() if type(module) is nn.Linear}
        # in place on a list of the Linears: no copy of their weights, which stay in the model's encoder until swapped below
        quantized = quantize_dynamic(nn.ModuleList(linears.values()), {nn.Linear: per_channel}, dtype=torch.qint8, inplace=True)
    for warning in caught:
        if _is_deprecation_notice(warning):
            if not _told:
                logger.info("dtype int8 uses torch.ao.quantization.quantize_dynamic, which torch %s marks as deprecated: %s",
                            torch.__version__, str(warning.message).splitlines()[0])
                _told = True
        else:  # not ours to hide: re-emit where it came from
            warnings.warn_explicit(warning.message, warning.category, warning.filename, warning.lineno, source=warning.source)
    for (name, linear), int8 in zip(linears.items(), quantized):
        parent, _, child = name.rpartition(".")
        setattr(model.encoder.get_submodule(parent), child, FirstTokenFp32Linear(linear, int8))
    return model.eval()


def is_quantized(model: nn.Module) -> bool:
    """True when some Linear of ``model`` is a dynamically quantized one (as ``quantize_int8`` leaves it)."""
    return any(type(module).__module__.startswith("torch.ao.nn.quantized.dynamic") for module in model.modules())


def _is_deprecation_notice(warning: warnings.WarningMessage) -> bool:
    return issubclass(warning.category, (DeprecationWarning, UserWarning)) and any(
        re.search(pattern, str(warning.message)) for pattern in _DEPRECATION_MESSAGES)
