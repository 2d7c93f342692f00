"""Device and dtype choice for inference."""

from __future__ import annotations

import torch

_DTYPES = {
    "fp32": torch.float32, "float32": torch.float32, "float": torch.float32,
    "bf16": torch.bfloat16, "bfloat16": torch.bfloat16,
    "fp16": torch.float16, "float16": torch.float16, "half": torch.float16,
    "int8": torch.qint8, "qint8": torch.qint8,
    "int8-onnx": torch.quint8,
}
# torch.qint8 stands for torch's dynamic int8 quantization of the encoder's Linear layers (codescore_metric.quantization);
# torch.quint8 for ONNX Runtime's dynamic int8 (int8 weights, uint8 activations per batch). Both CPU only.
DTYPE_NAMES = {torch.float32: "fp32", torch.bfloat16: "bf16", torch.float16: "fp16", torch.qint8: "int8", torch.quint8: "int8-onnx"}
INT8_DTYPES = (torch.qint8, torch.quint8)


def resolve_device(device: str | torch.device | None = None) -> torch.device:
    """``None``/``"auto"`` picks cuda, then mps, then cpu; anything else must be a valid, available device."""
    if device is None or device == "auto":
        if torch.cuda.is_available():
            return torch.device("cuda")
        if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
            return torch.device("mps")
        return torch.device("cpu")
    try:
        resolved = torch.device(device)
    except (RuntimeError, TypeError) as error:
        raise ValueError(f"device {device!r} is not a torch device; use 'cpu', 'cuda', 'cuda:1', 'mps' or None for auto") from error
    if resolved.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device {device!r} was asked for but CUDA is not available here; use device='cpu' or None")
    if resolved.type == "mps" and not torch.backends.mps.is_available():
        raise ValueError(f"device {device!r} was asked for but MPS is not available here; use device='cpu' or None")
    return resolved


def resolve_dtype(dtype: str | torch.dtype | None, device: torch.device) -> torch.dtype:
    """``None`` means fp32 (the authors' inference precision); accepts 'fp32', 'bf16', 'fp16', 'int8', 'int8-onnx'
    or a torch dtype. 'int8' (``torch.qint8``) is torch's dynamic quantization of every encoder ``nn.Linear``, 'int8-onnx'
    (``torch.quint8``) ONNX Runtime's on the exported graph; both on CPU only."""
    if dtype is None:
        return torch.float32
    if isinstance(dtype, torch.dtype):
        if dtype not in DTYPE_NAMES:
            raise ValueError(f"dtype {dtype} is not supported; use torch.float32, torch.bfloat16, torch.float16, torch.qint8 "
                             "or torch.quint8 (int8-onnx)")
        resolved = dtype
    elif isinstance(dtype, str) and dtype.lower() in _DTYPES:
        resolved = _DTYPES[dtype.lower()]
    else:
        raise ValueError(f"dtype {dtype!r} is not known; use 'fp32', 'bf16', 'fp16', 'int8' or 'int8-onnx' (int8: CPU only)")
    if resolved in INT8_DTYPES and device.type != "cpu":
        name = DTYPE_NAMES[resolved]
        raise ValueError(f"dtype {name!r} (dynamic quantization) runs on CPU only, not on {device}; use device='cpu' "
                         f"with dtype={name!r}, or dtype='fp16'/'bf16' on an accelerator")
    if resolved == torch.bfloat16 and device.type == "cuda" and not torch.cuda.is_bf16_supported():
        raise ValueError("dtype 'bf16' is not supported by this GPU; use 'fp16' or 'fp32'")
    return resolved


def is_out_of_memory(error: BaseException) -> bool:
    """True for CUDA/MPS out-of-memory errors, which a smaller batch may avoid."""
    if isinstance(error, torch.OutOfMemoryError):
        return True
    return isinstance(error, RuntimeError) and "out of memory" in str(error).lower()


def free_accelerator_memory(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.empty_cache()
    elif device.type == "mps":
        torch.mps.empty_cache()
