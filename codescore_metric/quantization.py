"""``dtype="int8"``: dynamic int8 quantization of a UniCE model's ``nn.Linear`` layers for CPU inference.

Weights of every Linear (encoder and heads) are stored as int8 with one scale per output channel (half the
score error of one scale per tensor on the embedded model, at the same speed); activations are quantized on
the fly per batch, so inputs, embeddings, layer norms and the layer mix stay fp32. torch marks
``torch.ao.quantization`` as deprecated (torchao replaces it); its two deprecation warnings are logged
once here instead of being printed on every load, and every other warning passes through.
"""

from __future__ import annotations

import logging
import re
import warnings

import torch
from torch import nn

logger = logging.getLogger(__name__)

# The deprecation notices torch emits while quantizing (module deprecation, quantized-tensor creation).
_DEPRECATION_MESSAGES = (r"torch\.ao\.quantization is deprecated", r"torch\.quantize_per_tensor, torch\.quantize_per_channel")
_told = False


def quantize_int8(model: nn.Module, *, inplace: bool = False) -> nn.Module:
    """``model`` (fp32, on CPU) with each ``nn.Linear`` replaced by a dynamically quantized int8 one (per-channel weights).

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
        quantized = quantize_dynamic(model, {nn.Linear: per_channel}, dtype=torch.qint8, inplace=inplace)
    for warning in caught:
        if _is_deprecation_notice(warning):
            if not _told:
                logger.info("dtype int8 uses torch.ao.quantization.quantize_dynamic, which torch %s marks as deprecated: %s",
                            torch.__version__, str(warning.message).splitlines()[0])
                _told = True
        else:  # not ours to hide: re-emit where it came from
            warnings.warn_explicit(warning.message, warning.category, warning.filename, warning.lineno, source=warning.source)
    return quantized.eval()


def is_quantized(model: nn.Module) -> bool:
    """True when some Linear of ``model`` is a dynamically quantized one (as ``quantize_int8`` leaves it)."""
    return any(type(module).__module__.startswith("torch.ao.nn.quantized.dynamic") for module in model.modules())


def _is_deprecation_notice(warning: warnings.WarningMessage) -> bool:
    return issubclass(warning.category, (DeprecationWarning, UserWarning)) and any(
        re.search(pattern, str(warning.message)) for pattern in _DEPRECATION_MESSAGES)
