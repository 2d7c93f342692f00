"""Lexical and syntactic baselines computed in-process: BLEU, CodeBLEU and exact match.

Nothing here touches the network (loading evaluate's Hub `bleu` metric instead would download code from GitHub).

BLEU
    ``sacrebleu`` (``sacrebleu.metrics.BLEU``) with its default ``13a`` tokenizer: it splits
    punctuation and symbols (``( ) [ ] : = + - * / < > ...``) from identifiers, keeps case and
    treats newlines and indentation as plain whitespace, so ``x+1`` and ``x + 1`` tokenise alike.
    The corpus score uses sacrebleu's defaults (exponential smoothing); per-sample scores are
    sacrebleu sentence BLEU with ``effective_order=True`` (sacrebleu's recommended sentence-level
    setting). Scores are reported on a 0-1 scale (sacrebleu's 0-100 divided by 100), like the
    other CodeScore outputs. :func:`bleu_signature` gives sacrebleu's reproducibility signature.

CodeBLEU
    The ``codebleu`` package (pinned 0.7.0 with ``tree-sitter==0.22.3`` and
    ``tree-sitter-python==0.21.0``; newer grammars fail at first use). It is imported inside the
    functions, so this module (and ``codescore.py``) loads without it. Default weights are
    codebleu's (0.25 each); the CodeBLEU paper used (0.1, 0.1, 0.4, 0.4). Per-sample scores call
    ``calc_codebleu`` once per item (about 1 ms each).

    Quirk, fixed: codebleu's data-flow match numbers variables in the iteration order of Python
    sets of strings, which follows the interpreter's hash seed (microsoft/CodeXGLUE#152), so the
    same inputs score differently in different processes (CodeBLEU's Spearman on our 844 real
    validation programs read 0.226-0.234 across runs). CodeBLEU is therefore computed in a child
    interpreter started with ``PYTHONHASHSEED=0`` (``codescore_metric.codebleu_worker``; in-process
    when this one already runs with it): the same inputs give the same scores in every run.

    Quirk, reproduced as is: codebleu counts a data-flow score of 0 as 1 when combining, so an
    empty (or data-flow-free) prediction scores 0.25 with the default weights, not 0. On tiny
    corpora the data-flow term can also degenerate (codebleu logs a warning).

Exact match
    1.0 when the prediction equals a reference, else 0.0. By default both sides are compared after
    dropping trailing whitespace on every line and leading/trailing blank lines
    (``normalize_whitespace=False`` compares the raw strings).

References may be one string per prediction or, for several references, a non-empty list of
strings per prediction. Bad input raises ``ValueError`` naming the argument and index.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

__all__ = [
    "CODEBLEU_DEFAULT_WEIGHTS",
    "bleu_signature",
    "codebleu_languages",
    "corpus_and_sentence_codebleu",
    "corpus_bleu",
    "corpus_codebleu",
    "exact_match",
    "sentence_bleu",
    "sentence_codebleu",
]

CODEBLEU_DEFAULT_WEIGHTS = (0.25, 0.25, 0.25, 0.25)
BLEU_TOKENIZER = "13a"


# --------------------------------------------------------------------------- input checks
def _check_inputs(predictions, references) -> tuple[list[str], list[list[str]]]:
    """Validate and return (predictions, references as a list of reference lists)."""
    if isinstance(predictions, str) or not isinstance(predictions, Sequence):
        raise ValueError(
            f"predictions must be a list of strings, got {type(predictions).__name__}; "
            "wrap a single prediction in a list"
        )
    if isinstance(references, str) or not isinstance(references, Sequence):
        raise ValueError(
            f"references must be a list (one reference string, or a list of reference strings, "
            f"per prediction), got {type(references).__name__}"
        )
    if len(predictions) != len(references):
        raise ValueError(
            f"predictions and references must have the same length, got {len(predictions)} "
            f"predictions and {len(references)} references"
        )
    for i, p in enumerate(predictions):
        if not isinstance(p, str):
            raise ValueError(
                f"predictions[{i}] must be a str, got {type(p).__name__}; use '' for a missing "
                "prediction"
            )
    refs: list[list[str]] = []
    for i, r in enumerate(references):
        if isinstance(r, str):
            refs.append([r])
            continue
        if not isinstance(r, Sequence) or len(r) == 0:
            raise ValueError(
                f"references[{i}] must be a str or a non-empty list of str, got "
                f"{type(r).__name__ if not isinstance(r, Sequence) else 'an empty list'}"
            )
        for j, rj in enumerate(r):
            if not isinstance(rj, str):
                raise ValueError(f"references[{i}][{j}] must be a str, got {type(rj).__name__}")
        refs.append(list(r))
    return list(predictions), refs


def _transpose(refs: list[list[str]]) -> list[list[str]]:
    """sacrebleu wants one stream per reference position; all rows need the same count."""
    counts = {len(r) for r in refs}
    if len(counts) > 1:
        raise ValueError(
            "corpus BLEU needs the same number of references for every prediction, got counts "
            f"{sorted(counts)}"
        )
    n = counts.pop() if counts else 1
    return [[r[k] for r in refs] for k in range(n)]


def _clip(value) -> float:
    return min(1.0, max(0.0, float(value)))


# --------------------------------------------------------------------------- BLEU
def _bleu(effective_order: bool):
    from sacrebleu.metrics import BLEU

    return BLEU(tokenize=BLEU_TOKENIZER, effective_order=effective_order)


def corpus_bleu(predictions: Sequence[str], references: Sequence) -> float:
    """Corpus BLEU in [0, 1] (sacrebleu, 13a tokenizer, exponential smoothing)."""
    preds, refs = _check_inputs(predictions, references)
    if not preds:
        raise ValueError("corpus_bleu needs at least one prediction, got an empty list")
    return _clip(_bleu(False).corpus_score(preds, _transpose(refs)).score / 100.0)


def sentence_bleu(predictions: Sequence[str], references: Sequence) -> list[float]:
    """Per-sample sentence BLEU in [0, 1] (sacrebleu, 13a tokenizer, effective order)."""
    preds, refs = _check_inputs(predictions, references)
    metric = _bleu(True)
    return [_clip(metric.sentence_score(p, r).score / 100.0) for p, r in zip(preds, refs)]


def bleu_signature() -> str:
    """sacrebleu's signature for the corpus BLEU computed here (single reference)."""
    metric = _bleu(False)
    metric.corpus_score(["x"], [["x"]])  # the signature needs the reference count
    return str(metric.get_signature())


# --------------------------------------------------------------------------- CodeBLEU
def codebleu_languages() -> tuple[str, ...]:
    """Languages codebleu knows (each still needs its tree-sitter grammar installed)."""
    from codebleu.codebleu import AVAILABLE_LANGS

    return tuple(AVAILABLE_LANGS)


def _calc_codebleu():
    try:
        from codebleu import calc_codebleu
    except ImportError as err:  # pragma: no cover - exercised only without codebleu
        raise ImportError(
            "CodeBLEU needs the codebleu package: pip install codebleu==0.7.0 "
            "tree-sitter==0.22.3 tree-sitter-python==0.21.0"
        ) from err
    return calc_codebleu


def _check_codebleu_args(lang: str, weights) -> tuple[float, float, float, float]:
    if not isinstance(lang, str):
        raise ValueError(f"lang must be a str such as 'python', got {type(lang).__name__}")
    langs = codebleu_languages()
    if lang not in langs:
        raise ValueError(f"lang={lang!r} is not supported by codebleu; choose one of {list(langs)}")
    weights = tuple(weights)
    if len(weights) != 4 or not all(isinstance(w, (int, float)) and w >= 0 for w in weights):
        raise ValueError(
            f"weights must be four non-negative numbers (ngram, weighted ngram, syntax, data flow), "
            f"got {weights!r}"
        )
    return weights  # type: ignore[return-value]


def _run_codebleu(calc, refs, preds, lang, weights) -> dict[str, float]:
    try:
        res = calc(refs, preds, lang=lang, weights=weights)
    except TypeError as err:
        if "integer is required" in str(err):
            raise RuntimeError(
                "codebleu failed inside tree-sitter: the installed tree-sitter grammar does not "
                "match tree-sitter 0.22; pin tree-sitter==0.22.3 and tree-sitter-python==0.21.0"
            ) from err
        raise
    # codebleu's weighted sum can exceed 1 by a rounding error (1.0000000000000004): clip.
    return {k: _clip(v) for k, v in res.items()}


def codebleu_items(items: list[tuple[list[list[str]], list[str]]], lang: str, weights) -> list[dict[str, float]]:
    """codebleu's scores for each ``(references, predictions)`` item, with string hashing fixed (see the
    module notes); the inputs are already checked."""
    calc = _calc_codebleu()  # raises the install hint here, not in the child
    if sys.flags.hash_randomization == 0:
        return [_run_codebleu(calc, refs, preds, lang, weights) for refs, preds in items]
    package_root = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONHASHSEED": "0",
           "PYTHONPATH": os.pathsep.join(filter(None, (package_root, os.environ.get("PYTHONPATH"))))}
    payload = json.dumps({"items": items, "lang": lang, "weights": list(weights)})
    done = subprocess.run([sys.executable, "-m", "codescore_metric.codebleu_worker"], input=payload, env=env,
                          capture_output=True, text=True)
    if done.returncode != 0:
        detail = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit status {done.returncode}"
        raise RuntimeError(f"CodeBLEU failed in its fixed-hash-seed interpreter: {detail}")
    return json.loads(done.stdout)


def corpus_codebleu(
    predictions: Sequence[str],
    references: Sequence,
    lang: str = "python",
    weights: Sequence[float] = CODEBLEU_DEFAULT_WEIGHTS,
) -> dict[str, float]:
    """Corpus CodeBLEU: ``{"codebleu": ..., "ngram_match_score": ..., ...}``, all in [0, 1]."""
    preds, refs = _check_inputs(predictions, references)
    if not preds:
        raise ValueError("corpus_codebleu needs at least one prediction, got an empty list")
    w = _check_codebleu_args(lang, weights)
    return codebleu_items([(refs, preds)], lang, w)[0]


def sentence_codebleu(
    predictions: Sequence[str],
    references: Sequence,
    lang: str = "python",
    weights: Sequence[float] = CODEBLEU_DEFAULT_WEIGHTS,
) -> list[float]:
    """Per-sample CodeBLEU in [0, 1] (an empty prediction scores 0.25, see the module notes)."""
    preds, refs = _check_inputs(predictions, references)
    w = _check_codebleu_args(lang, weights)
    return [scores["codebleu"] for scores in codebleu_items([([r], [p]) for p, r in zip(preds, refs)], lang, w)]


def corpus_and_sentence_codebleu(
    predictions: Sequence[str],
    references: Sequence,
    lang: str = "python",
    weights: Sequence[float] = CODEBLEU_DEFAULT_WEIGHTS,
) -> tuple[dict[str, float], list[float]]:
    """:func:`corpus_codebleu` and :func:`sentence_codebleu` of the same inputs in one fixed-hash interpreter."""
    preds, refs = _check_inputs(predictions, references)
    if not preds:
        raise ValueError("corpus_codebleu needs at least one prediction, got an empty list")
    w = _check_codebleu_args(lang, weights)
    scores = codebleu_items([(refs, preds), *(([r], [p]) for p, r in zip(preds, refs))], lang, w)
    return scores[0], [item["codebleu"] for item in scores[1:]]


def with_static_checks(values: Sequence[float], codescores: Sequence[float], certain: Sequence[str | None]) -> list[float]:
    """A baseline's per-sample values given the scorer's static checks: the sample's CodeScore where ``certain``
    names why the checks decided it (that CodeScore is then the certain 0 or 1), else the baseline's own value."""
    return [float(score) if reason else float(value) for value, score, reason in zip(values, codescores, certain)]


# --------------------------------------------------------------------------- exact match
def _normalize(code: str) -> str:
    return "\n".join(line.rstrip() for line in code.splitlines()).strip("\n")


def exact_match(
    predictions: Sequence[str], references: Sequence, normalize_whitespace: bool = True
) -> list[float]:
    """Per-sample exact match (1.0 / 0.0); the corpus value is the mean."""
    preds, refs = _check_inputs(predictions, references)
    norm = _normalize if normalize_whitespace else (lambda s: s)
    return [float(any(norm(p) == norm(r) for r in rs)) for p, rs in zip(preds, refs)]
