"""``dtype="int8-onnx"``: a UniCE model run by ONNX Runtime with dynamically quantized int8 weights (CPU).

The fp32 model is exported to ONNX (TorchScript exporter, opset 17), its BERT blocks fused by
``onnxruntime.transformers.optimizer``, and the fused graph quantized by
``onnxruntime.quantization.quantize_dynamic`` (int8 weights with one scale per output channel, uint8
activations quantized per batch). On the embedded model this halves torch int8's score error at a
higher speed (``benchmarks/results/onnx_int8.md``). The quantized graph is cached on disk under
``$CODESCORE_CACHE`` (default ``$HF_HOME/codescore``), keyed by the weights and the versions involved,
so only the first load of a model exports it. Needs ``pip install 'codescore-metric[onnx]'``.
As with torch int8, activation ranges are per batch, so a score moves a little with the batch it is in
(on 48 real programs at most 0.015 against 0.039 for torch int8; fp32 scores do not move).
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import hashlib
import json
import logging
import os
import tempfile
import warnings
from pathlib import Path

import torch

logger = logging.getLogger(__name__)

_FORMAT = "unice-onnx-int8-v1"  # changes whenever the export or quantization settings change
INSTALL_HINT = "pip install 'codescore-metric[onnx]' (onnxruntime and onnx)"


def _onnxruntime():
    try:
        import onnx  # noqa: F401  (the exporter and the fusion optimizer need it)
        import onnxruntime
    except ImportError as error:
        raise ValueError(f"dtype 'int8-onnx' needs ONNX Runtime: {INSTALL_HINT}; or use dtype='int8' (torch's "
                         f"dynamic quantization, no extra packages). Missing: {error.name}") from None
    return onnxruntime


def cache_folder() -> Path:
    """Where quantized graphs are kept: ``$CODESCORE_CACHE``, else ``$HF_HOME/codescore``."""
    if os.environ.get("CODESCORE_CACHE"):
        return Path(os.environ["CODESCORE_CACHE"]).expanduser()
    from huggingface_hub import constants

    return Path(constants.HF_HOME).expanduser() / "codescore"


class OnnxInt8Model:
    """An ONNX Runtime int8 session in the place of a UniCE model: the same call, the same logits.

    One graph per normalization ("sample" or "batch"), each exported from ``model`` on first use."""

    def __init__(self, model, threads: int | None = None):
        self._onnxruntime = _onnxruntime()  # fails early, with the install hint, when it is missing
        self.config = model.config
        self._model = model  # fp32, CPU: the source of each normalization's graph
        self._threads = threads or torch.get_num_threads()
        self._sessions: dict[str, object] = {}
        self.weights_key = _weights_key(model)

    def __call__(self, input_ids, attention_mask, token_type_ids=None, normalization: str | None = None) -> torch.Tensor:
        return run_session(self._session(normalization or self.config.normalization), self.config, input_ids, attention_mask,
                           token_type_ids)

    def parameters(self):
        """The fp32 source model's parameters (on CPU), for callers that ask where a model lives."""
        return self._model.parameters()

    def graph_path(self, normalization: str) -> Path:
        """The cached quantized graph of ``normalization`` (exported when missing)."""
        key = hashlib.sha256(f"{_FORMAT}|{self.weights_key}|{normalization}|torch {torch.__version__}|"
                             f"onnxruntime {self._onnxruntime.__version__}".encode()).hexdigest()[:32]
        path = cache_folder() / "onnx-int8" / f"{key}.onnx"
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            logger.info("dtype int8-onnx: exporting and quantizing the model (%s normalization) to %s", normalization, path)
            export_int8(self._model, normalization, path)
        return path

    def _session(self, normalization: str):
        if normalization not in self._sessions:
            self._sessions[normalization] = open_session(self.graph_path(normalization), self._threads)
        return self._sessions[normalization]


def open_session(path: Path, threads: int):
    """An ONNX Runtime CPU session on the graph at ``path`` with ``threads`` intra-op threads."""
    onnxruntime = _onnxruntime()
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    return onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def run_session(session, config, input_ids, attention_mask, token_type_ids=None) -> torch.Tensor:
    """The logits of a UniCE graph for one batch."""
    return torch.from_numpy(session.run(None, graph_feeds(config, input_ids, attention_mask, token_type_ids))[0])


def graph_feeds(config, input_ids, attention_mask, token_type_ids=None) -> dict:
    """One batch as the inputs of a UniCE graph (token types only for models that use them)."""
    feeds = {"input_ids": input_ids.cpu().numpy(), "attention_mask": attention_mask.cpu().numpy()}
    if config.segment_token_types:
        feeds["token_type_ids"] = (torch.zeros_like(input_ids) if token_type_ids is None else token_type_ids).cpu().numpy()
    return feeds


def export_int8(model, normalization: str, path: Path) -> Path:
    """Export ``model`` (fp32, CPU) with ``normalization`` fixed, fuse it and write its int8 graph to ``path``."""
    with tempfile.TemporaryDirectory() as folder:
        plain, fused = Path(folder) / "model.onnx", Path(folder) / "fused.onnx"
        export_fp32(model, normalization, plain)
        fuse(plain, fused, model.encoder.config)
        partial = path.with_suffix(f".{os.getpid()}.partial")
        quantize(fused, partial, per_channel=True)
        partial.replace(path)  # atomic: a concurrent loader sees the whole graph or none
    return path


def export_fp32(model, normalization: str, path: Path) -> Path:
    """``model`` as an fp32 ONNX graph with ``normalization`` fixed (inputs of any batch size and length)."""
    _onnxruntime()
    exported = copy.deepcopy(model).eval()  # the TorchScript exporter leaves the module it traced altered
    exported.config.normalization = normalization
    ids = torch.randint(5, min(1000, exported.encoder.config.vocab_size), (2, 48))
    mask = torch.ones_like(ids)
    mask[1, 30:] = 0  # a padded row, so that the trace keeps the padding mask (an all-ones mask is traced away)
    names, example = ["input_ids", "attention_mask"], (ids, mask)
    if exported.config.segment_token_types:
        names.append("token_type_ids")
        example = (ids, mask, (torch.arange(48) >= 20).long().expand(2, 48).contiguous())
    with _quiet_export():
        torch.onnx.export(exported, example, str(path), input_names=names, output_names=["logits"], opset_version=17, dynamo=False,
                          dynamic_axes={**{name: {0: "batch", 1: "tokens"} for name in names}, "logits": {0: "batch"}})
    return path


def fuse(source: Path, path: Path, encoder_config) -> Path:
    """ONNX Runtime's BERT fusions (attention, GELU, skip layer norm) of the graph at ``source``."""
    from onnxruntime.transformers import optimizer

    with _quiet_export():
        optimizer.optimize_model(str(source), model_type="bert", num_heads=encoder_config.num_attention_heads,
                                 hidden_size=encoder_config.hidden_size).save_model_to_file(str(path))
    return path


def quantize(source: Path, path: Path, per_channel: bool = True) -> Path:
    """Dynamic int8 quantization of the graph at ``source``: int8 weights, one scale per output channel or per tensor."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    with _quiet_export():
        quantize_dynamic(str(source), str(path), weight_type=QuantType.QInt8, per_channel=per_channel,
                         extra_options={"DefaultTensorType": 1})  # fused ops have no inferred types: float
    return path


@contextlib.contextmanager
def _quiet_export():
    """Keep the exporter's tracer notes and the quantizer's advice (logged on the root logger) from users:
    the graph is checked against fp32 by the tests and ``benchmarks/onnx_int8.py``, not by these notes."""
    def advice(record: logging.LogRecord) -> bool:
        return record.levelno >= logging.ERROR

    root = logging.getLogger()
    root.addFilter(advice)
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", category=torch.jit.TracerWarning)
            warnings.filterwarnings("ignore", message=r"Exporting aten::index operator", category=UserWarning)
            # the TorchScript exporter (torch.export's needs onnxscript, which is not a dependency)
            warnings.filterwarnings("ignore", message=r"You are using the legacy TorchScript-based ONNX export", category=DeprecationWarning)
            warnings.filterwarnings("ignore", message=r"The feature will be removed", category=DeprecationWarning)
            yield
    finally:
        root.removeFilter(advice)


def _weights_key(model) -> str:
    """A digest of every parameter and buffer of ``model`` (names, shapes, values) and of its config."""
    digest = hashlib.sha256(json.dumps(dataclasses.asdict(model.config), sort_keys=True, default=str).encode())
    for name, tensor in model.state_dict().items():
        digest.update(name.encode())
        digest.update(str(tuple(tensor.shape)).encode())
        digest.update(tensor.detach().to("cpu", torch.float32).contiguous().numpy().tobytes())
    return digest.hexdigest()
