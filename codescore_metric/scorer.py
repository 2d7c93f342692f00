"""`CodeScorer`: load a UniCE model once, then score generated code in length-sorted batches."""

from __future__ import annotations

import ast
import functools
import logging
import os
import threading
import warnings
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import torch

from codescore_metric import __version__
from codescore_metric.checkpoints import CHECKPOINT_ENV, LoadedCheckpoint, downloads_disabled, load_checkpoint
from codescore_metric.code_annotations import strip_annotations
from codescore_metric.code_distance import token_distance
from codescore_metric.code_functions import drops_return_value, rejects_reference_calls, returns_other_kinds
from codescore_metric.code_names import PARSE_ERRORS
from codescore_metric.code_unbound import HARNESS_NAMES, unbound_names
from codescore_metric.devices import DTYPE_NAMES, INT8_DTYPES, free_accelerator_memory, is_out_of_memory, resolve_device, resolve_dtype
from codescore_metric.encoding import EncodedSample, SegmentEncoder, collate
from codescore_metric.formats import OUTPUT_NAMES, InputFormat
from codescore_metric.inputs import choose_format, text_list, validate_inputs
from codescore_metric.layer_mix import NORMALIZATIONS
from codescore_metric.onnx_int8 import OnnxInt8Model
from codescore_metric.quantization import INT8_SIGNATURE_NAME, is_quantized, quantize_int8

logger = logging.getLogger(__name__)

# What a sample whose scores are certain gets, by `certain_reason`: every output, or those named (the model estimates the rest).
_FAILS = dict.fromkeys(OUTPUT_NAMES, 0.0)
CERTAIN_SCORES = {
    "empty": _FAILS, "syntax_error": _FAILS, "missing_definition": _FAILS, "unbound_name": _FAILS, "wrong_arity": _FAILS,
    "no_return_value": {"codescore": 0.0, "passability": 0.0},  # whether it runs is still the model's estimate
    "other_return_kind": {"codescore": 0.0, "passability": 0.0},
    "same_as_reference": dict.fromkeys(OUTPUT_NAMES, 1.0),
}
# Batch sizes: the authors scored batches of 100 (and batch statistics depend on them); 32 otherwise.
REFERENCE_BATCH_SIZE = 100
DEFAULT_BATCH_SIZE = 32

_CACHE: dict[tuple, LoadedCheckpoint] = {}
_CACHE_LOCK = threading.Lock()


def clear_model_cache() -> None:
    """Forget every loaded model (frees its memory once no scorer holds it)."""
    with _CACHE_LOCK:
        devices = {next(loaded.model.parameters()).device for loaded in _CACHE.values()}
        _CACHE.clear()
    for device in devices:
        free_accelerator_memory(device)


@dataclass
class ScoreResult:
    """Per-sample predictions in input order.

    ``truncated[i]`` maps a field to the number of its tokens cut. ``certain[i]`` is why sample
    ``i``'s scores are certain: 0 on all three for ``"empty"``, ``"syntax_error"``, ``"missing_definition"``,
    ``"unbound_name"`` or ``"wrong_arity"``, 1 on all three for ``"same_as_reference"``, CodeScore and Passability 0 for
    ``"no_return_value"`` or ``"other_return_kind"`` (Executability estimated); else ``None`` (`CERTAIN_SCORES`).
    """

    codescore: list[float]
    executability: list[float]
    passability: list[float]
    truncated: list[dict[str, int]]
    certain: list[str | None]
    input_format: str
    signature: str

    def __len__(self) -> int:
        return len(self.codescore)

    def mean(self) -> dict[str, float]:
        """Corpus means of the three predictions (``nan`` for no samples)."""
        return {name: float(np.mean(getattr(self, name))) if len(self) else float("nan") for name in OUTPUT_NAMES}

    def records(self) -> list[dict]:
        """One dict per sample: the three predictions and, when set, ``truncated`` and ``certain``."""
        rows = []
        for index in range(len(self)):
            row = {name: getattr(self, name)[index] for name in OUTPUT_NAMES}
            if self.truncated[index]:
                row["truncated"] = self.truncated[index]
            if self.certain[index]:
                row["certain"] = self.certain[index]
            rows.append(row)
        return rows


class CodeScorer:
    """Scores generated code with a UniCE model: CodeScore (predicted PassRatio), Executability, Passability.

    ``checkpoint``: ``None`` (the bundled default), a folder written by ``save_pretrained``, a Hub
    repo id (``revision`` pins it), ``"dz1/CodeScore"`` or a local authors' ``.ckpt`` (their
    backbone config and tokenizer come from ``encoder``). ``normalization`` overrides the model's
    layer-mix statistics: ``"sample"`` (a score never depends on its batch) or ``"batch"`` (the
    authors' batch statistics, with their batching, for parity). Models are cached per process.
    ``dtype``: ``"fp32"`` (default), ``"bf16"``, ``"fp16"`` (the encoder's weights; the layer mix and heads
    stay fp32), ``"int8"`` on CPU only (dynamic quantization of every encoder ``nn.Linear``, the first token
    kept fp32, of a copy of the model, so fp32 scorers of the same checkpoint are unaffected; see
    ``quantization``) or ``"int8-onnx"`` on CPU only (ONNX Runtime on the model's int8 graph, exported once
    and cached on disk; ``pip install 'codescore-metric[onnx]'``).

    Predictions are whole programs (module level), not bare function bodies. With ``static_checks``
    certain facts are not estimated (`certain_reason`): a prediction that does not compile as Python (so
    also an indented body alone), one that reads a name it binds nowhere, and, given a reference, one that
    defines none of the functions and classes the reference defines at top level (it cannot pass tests
    written for the reference) or whose functions cannot be called with the reference's number of
    arguments, score 0 on all three without the model; one whose function returns
    nothing where the reference's always returns a value scores CodeScore and Passability 0 (its
    Executability is estimated); one that is the reference's program up to comments, docstrings, layout
    and the names of parameters and locals (`code_distance.token_distance` 0) scores 1 on all three, as
    the reference passes its own tests (tests call the function positionally, as MBPP's, HumanEval's and
    APPS's do). ``None`` turns the checks on, except in the authors'
    parity setting (a ``profile:reference`` model or ``normalization="batch"``), where the model
    scores such code itself.
    """

    def __init__(
        self,
        checkpoint: str | Path | None = None,
        *,
        revision: str | None = None,
        device: str | torch.device | None = None,
        dtype: str | torch.dtype | None = None,
        normalization: str | None = None,
        local_files_only: bool | None = None,
        encoder: str | Path | None = None,
        static_checks: bool | None = None,
    ):
        _check_normalization(normalization)
        self.device = resolve_device(device)
        self.dtype = resolve_dtype(dtype, self.device)
        loaded = _load_cached(checkpoint, revision, downloads_disabled(local_files_only), encoder, self.device, self.dtype)
        self.model, self.tokenizer = loaded.model, loaded.tokenizer
        self.model_id, self.revision = loaded.model_id, loaded.revision
        self._configure(normalization, static_checks)

    @classmethod
    def from_pretrained(
        cls,
        checkpoint: str | Path | None = None,
        *,
        revision: str | None = None,
        device: str | torch.device | None = None,
        dtype: str | torch.dtype | None = None,
        normalization: str | None = None,
        local_files_only: bool | None = None,
        encoder: str | Path | None = None,
        static_checks: bool | None = None,
    ) -> CodeScorer:
        """Same as ``CodeScorer(checkpoint, ...)``, in the ``from_pretrained`` spelling of transformers."""
        return cls(checkpoint, revision=revision, device=device, dtype=dtype, normalization=normalization,
                   local_files_only=local_files_only, encoder=encoder, static_checks=static_checks)

    @classmethod
    def from_model(cls, model, tokenizer, model_id: str = "unsaved", revision: str = "local", normalization: str | None = None,
                   static_checks: bool = True) -> CodeScorer:
        """Wrap a model already in memory (e.g. during training); it stays on its device and dtype, uncached."""
        _check_normalization(normalization)
        scorer = cls.__new__(cls)
        if isinstance(model, OnnxInt8Model):
            scorer.device, scorer.dtype = torch.device("cpu"), torch.quint8
        else:
            scorer.device, scorer.dtype = next(model.parameters()).device, next(model.encoder.parameters()).dtype
            if is_quantized(model):  # quantize_int8 leaves embeddings and norms fp32
                scorer.dtype = torch.qint8
        scorer.model, scorer.tokenizer, scorer.model_id, scorer.revision = model, tokenizer, model_id, revision
        scorer._configure(normalization, static_checks)
        return scorer

    def _configure(self, normalization: str | None, static_checks: bool | None) -> None:
        if static_checks is not None and not isinstance(static_checks, bool):
            raise ValueError(f"static_checks must be True, False or None; got {static_checks!r}")
        self.config = self.model.config
        self.normalization = normalization or self.config.normalization
        if static_checks is None:
            static_checks = self.normalization != "batch" and self.config.encoding_profile != "reference"
        self.static_checks = static_checks
        self.encoder = SegmentEncoder(self.tokenizer, self.config.encoding_spec)

    @property
    def _dtype_name(self) -> str:
        """The dtype as the signature shows it; torch int8 with its activation bits, on which its scores depend."""
        return INT8_SIGNATURE_NAME if self.dtype == torch.qint8 else DTYPE_NAMES[self.dtype]

    def signature(self, input_format: str | InputFormat | None = None) -> str:
        """A reproducibility string in the spirit of sacrebleu's: version, model@revision, format, profile, dtype, static checks."""
        fmt = InputFormat.parse(input_format or self.config.default_input_format).value
        return (
            f"codescore|v:{__version__}|model:{self.model_id}@{self.revision}|fmt:{fmt}"
            f"|profile:{self.config.encoding_profile}{'+nocomments' if self.config.strip_code_comments else ''}"
            f"{'+canonical' if self.config.canonical_names else ''}{'+noannotations' if self.config.strip_annotations else ''}"
            f"{'+layout' if self.config.layout_tokens else ''}{'+changes' if self.config.change_tokens else ''}"
            f"{'+distance' if self.config.distance_tokens else ''}"
            f"|len:{self.config.max_length}"
            f"|norm:{self.normalization}|dtype:{self._dtype_name}|static:{'on' if self.static_checks else 'off'}"
        )

    def score(
        self,
        predictions: list[str],
        *,
        references: list[str] | None = None,
        sources: list[str] | None = None,
        input_format: str | InputFormat | None = None,
        batch_size: int | None = None,
        progress_bar: bool = False,
        on_progress: Callable[[int, int], None] | None = None,
    ) -> ScoreResult:
        """Predict CodeScore, Executability and Passability for each prediction, in input order.

        Everything after ``predictions`` is keyword-only, so a task text can never be taken for a
        reference by position.

        ``input_format`` is ``"ref"`` (needs ``references``), ``"nl"`` (needs ``sources``, the NL
        task) or ``"ref_nl"`` (both); ``None`` infers it from what is given. An empty (or blank)
        prediction, and with ``static_checks`` one that does not compile, lacks every definition of
        the reference, reads a name it binds nowhere or cannot be called as the reference's functions are,
        scores 0 on all three without the model; one whose
        function returns nothing where the reference's always returns a value scores CodeScore and Passability
        0 (the model estimates Executability); one that is the reference's program scores 1 on all three
        (``ScoreResult.certain`` says why).
        With ``normalization="batch"`` such a sample still takes its place in the authors' batches,
        whose statistics include it, and the batches are theirs: sorted by the character length of
        ``sources`` whenever they are given (Ref-only then takes them for this order alone, as the
        authors' inference does), else of ``references``.
        ``on_progress(done, total)`` is called before the first batch and after each one (e.g. for
        a UI progress bar); samples not sent to the model count as done from the start.
        """
        fmt = choose_format(input_format, references, sources, self.config.default_input_format)
        ordering = None
        if self.normalization == "batch" and sources is not None and "source" not in fmt.fields:
            ordering, sources = text_list("sources", sources), None  # read for the batch order only
        columns = validate_inputs(fmt, predictions, references, sources)
        if ordering is not None and len(ordering) != len(columns["prediction"]):
            raise ValueError(f"sources has {len(ordering)} items but predictions has {len(columns['prediction'])}; "
                             "give one per prediction")
        if batch_size is None:
            batch_size = REFERENCE_BATCH_SIZE if self.normalization == "batch" else DEFAULT_BATCH_SIZE
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size < 1:
            raise ValueError(f"batch_size must be a positive int; got {batch_size!r}")
        total = len(columns["prediction"])
        references = columns.get("reference", [None] * total)
        certain = [certain_reason(text, reference, self.static_checks) for text, reference in zip(columns["prediction"], references)]
        estimated = [not fully_certain(reason) for reason in certain]
        # With batch statistics every sample is part of its batch; otherwise only those estimated are encoded.
        read = range(total) if self.normalization == "batch" else [i for i in range(total) if estimated[i]]
        encoded = dict(zip(read, self.encoder.encode({name: [texts[i] for i in read] for name, texts in columns.items()})))
        batches = [batch for batch in self._batches(encoded, ordering or columns.get("source") or references, batch_size)
                   if any(estimated[i] for i in batch)]
        outputs = np.zeros((total, len(OUTPUT_NAMES)), dtype=np.float64)
        from tqdm.auto import tqdm

        self._memory_limit = batch_size  # lowered for the rest of the call after an out-of-memory error
        done = total - sum(map(len, batches))
        if on_progress:
            on_progress(done, total)
        with torch.inference_mode(), tqdm(total=total, initial=done, disable=not progress_bar, desc="CodeScore", unit="sample") as bar:
            for batch in batches:
                for start in range(0, len(batch), self._memory_limit):
                    indices = batch[start:start + self._memory_limit]
                    outputs[indices] = self._predict([encoded[i] for i in indices])
                    bar.update(len(indices))
                    done += len(indices)
                    if on_progress:
                        on_progress(done, total)
        for index, reason in enumerate(certain):
            for name, value in CERTAIN_SCORES.get(reason, {}).items():
                outputs[index, OUTPUT_NAMES.index(name)] = value
        return ScoreResult(
            *(outputs[:, k].tolist() for k in range(len(OUTPUT_NAMES))),
            truncated=[encoded[i].dropped if estimated[i] else {} for i in range(total)],
            certain=certain,
            input_format=fmt.value,
            signature=self.signature(fmt),
        )

    def _batches(self, encoded: dict[int, EncodedSample], sort_texts: list[str], batch_size: int) -> list[list[int]]:
        """Batches of sample indices: the authors' (``np.argsort`` of ``sort_texts``' character lengths) with
        batch statistics, else longest inputs first."""
        if self.normalization == "batch":
            order = np.argsort([len(text) for text in sort_texts]).tolist()
        else:
            order = sorted(encoded, key=lambda i: -len(encoded[i].input_ids))
        return [order[start:start + batch_size] for start in range(0, len(order), batch_size)]

    def _predict(self, samples: list[EncodedSample]) -> np.ndarray:
        """Sigmoid outputs for one batch; on accelerator out-of-memory, retry in halves (and keep the smaller size)."""
        try:
            batch = collate(samples, self.encoder.pad_id, self.encoder.pad_type_id)
            batch = {name: tensor.to(self.device) for name, tensor in batch.items()}
            if not self.config.segment_token_types:
                batch.pop("token_type_ids")
            logits = self.model(**batch, normalization=self.normalization)
            return torch.sigmoid(logits.float()).cpu().numpy()
        except (RuntimeError, torch.OutOfMemoryError) as error:
            if not is_out_of_memory(error) or len(samples) == 1:
                raise
            free_accelerator_memory(self.device)
            half = len(samples) // 2
            self._memory_limit = min(self._memory_limit, half)
            logger.warning("out of memory on %d samples; continuing with at most %d per forward pass", len(samples), half)
            if self.normalization == "batch":
                logger.warning("smaller batches change batch-normalised scores slightly (normalization='batch')")
            return np.concatenate([self._predict(samples[start:start + half]) for start in range(0, len(samples), half)])


def certain_reason(prediction: str, reference: str | None, static_checks: bool) -> str | None:
    """Why ``prediction``'s scores are certain (`CERTAIN_SCORES`), or ``None`` (the model estimates them):
    ``"empty"`` for a blank one; with ``static_checks``, ``"syntax_error"`` when it does not compile as a
    Python module, ``"missing_definition"`` when it binds none of the names the reference defines at top
    level, ``"unbound_name"`` when it reads a name bound nowhere in it (`code_unbound`) that the reference does
    not read unbound too (what a reference leaves unbound, its harness provides) and ``"same_as_reference"``
    when it is the reference's program (token distance 0, also when only type annotations differ); ``"wrong_arity"`` when the functions it shares with
    the reference cannot be called as the reference's are, and ``"no_return_value"`` (CodeScore and
    Passability only) when they return nothing where the reference's always return a value, and
    ``"other_return_kind"`` (CodeScore and Passability only) when, as far as the code shows, they can only return
    values of kinds the reference's never returns, e.g. a list where it returns a tuple (`code_functions`)."""
    if not prediction.strip():
        return "empty"
    if not static_checks:
        return None
    try:
        with warnings.catch_warnings():  # e.g. SyntaxWarning on an invalid escape: it still compiles
            warnings.simplefilter("ignore")
            module = ast.parse(prediction)
            compile(module, "<prediction>", "exec", dont_inherit=True)  # e.g. 'return' outside a function
    except PARSE_ERRORS:
        return "syntax_error"
    if reference is not None:
        required = defined_names(reference)
        if required and not required & bound_names(module):
            return "missing_definition"
    if unbound_names(module) - _reference_unbound_names(reference):
        return "unbound_name"
    if reference is None:
        return None
    if _same_program(prediction, module, reference):
        return "same_as_reference"
    parsed_reference = _parsed_reference(reference)
    if parsed_reference is None:
        return None
    if rejects_reference_calls(module, parsed_reference):
        return "wrong_arity"
    if drops_return_value(module, parsed_reference):
        return "no_return_value"
    if returns_other_kinds(module, parsed_reference):
        return "other_return_kind"
    return None


def fully_certain(reason: str | None) -> bool:
    """Whether a `certain_reason` decides all three outputs, so the model is not asked about the sample."""
    return reason is not None and len(CERTAIN_SCORES[reason]) == len(OUTPUT_NAMES)


@functools.lru_cache(maxsize=1024)  # a reference is shared by many predictions: parse it once
def _parsed_reference(reference: str) -> ast.Module | None:
    try:
        return ast.parse(reference)
    except PARSE_ERRORS:
        return None


def _same_program(prediction: str, module: ast.Module, reference: str) -> bool:
    """Whether ``prediction`` is the reference's program: token distance 0 (`code_distance`), or 0 once both lose
    their type annotations (`code_annotations`) if it then reads no name unbound that the reference binds, since
    ``def f(xs: List[int])`` without ``from typing import List`` raises NameError unless the harness provides it."""
    if token_distance(prediction, reference) == 0:
        return True
    if _parsed_reference(reference) is None or token_distance(strip_annotations(prediction), _unannotated(reference)) != 0:
        return False
    return not unbound_names(module, provided=frozenset()) - _reference_unbound_names(reference, provided=frozenset())


@functools.lru_cache(maxsize=1024)  # a reference is shared by many predictions: strip it once
def _unannotated(reference: str) -> str:
    return strip_annotations(reference)


@functools.lru_cache(maxsize=1024)
def _reference_unbound_names(reference: str | None, provided: frozenset[str] = HARNESS_NAMES) -> frozenset[str]:
    """Names the reference reads without binding them (its tests' harness must provide them)."""
    module = _parsed_reference(reference) if reference is not None else None
    return unbound_names(module, provided) if module is not None else frozenset()


def defined_names(reference: str) -> frozenset[str]:
    """The functions and classes a reference program defines at top level (empty if it does not parse)."""
    module = _parsed_reference(reference)
    if module is None:
        return frozenset()
    return frozenset(node.name for node in module.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)))


def bound_names(module: ast.Module) -> set[str]:
    """Every name a program binds anywhere: definitions, assignment targets, imports."""
    names = set()
    for node in ast.walk(module):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
    return names


def _check_normalization(normalization: str | None) -> None:
    if normalization is not None and normalization not in NORMALIZATIONS:
        raise ValueError(f"normalization must be one of {NORMALIZATIONS} or None; got {normalization!r}")


def _load_cached(checkpoint, revision, offline, encoder, device: torch.device, dtype: torch.dtype) -> LoadedCheckpoint:
    checkpoint = checkpoint if checkpoint is not None else os.environ.get(CHECKPOINT_ENV)
    identity = str(Path(checkpoint).expanduser().resolve()) if checkpoint is not None and Path(checkpoint).expanduser().exists() else checkpoint
    key = (identity, revision, offline, str(encoder) if encoder else None, str(device), dtype)
    with _CACHE_LOCK:
        if key not in _CACHE:
            if dtype in INT8_DTYPES:
                _CACHE[key] = _quantized(key, checkpoint, revision, offline, encoder)
            else:
                loaded = load_checkpoint(checkpoint, revision=revision, local_files_only=offline, encoder=encoder)
                loaded.model.to(device)
                loaded.model.encoder.to(dtype)  # the layer mix and heads stay fp32
                _CACHE[key] = loaded
        return _CACHE[key]


def _quantized(key: tuple, checkpoint, revision, offline, encoder) -> LoadedCheckpoint:
    """The int8 model of ``key`` (CPU). torch int8: a quantized copy of the cached fp32 model when there is
    one, which other scorers keep using unchanged, else a fresh load quantized in place (no fp32 copy kept).
    ONNX int8: an ONNX Runtime session on the model's quantized graph (exported once, cached on disk)."""
    fp32 = _CACHE.get((*key[:-1], torch.float32))
    if key[-1] == torch.quint8:
        loaded = fp32 or load_checkpoint(checkpoint, revision=revision, local_files_only=offline, encoder=encoder)
        return replace(loaded, model=OnnxInt8Model(loaded.model.to("cpu").eval()))
    if fp32 is not None:
        return replace(fp32, model=quantize_int8(fp32.model, inplace=False))
    loaded = load_checkpoint(checkpoint, revision=revision, local_files_only=offline, encoder=encoder)
    return replace(loaded, model=quantize_int8(loaded.model.to("cpu"), inplace=True))
