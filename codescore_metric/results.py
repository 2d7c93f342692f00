"""Result assembly and plain-language readings shared by the `evaluate` metric and the Gradio app.

Everything here works on plain Python values and a `ScoreResult`-like object (anything with
``codescore``, ``executability``, ``passability``, ``truncated``, ``input_format`` and
``signature`` attributes), so it is tested without `evaluate`, `gradio` or a model.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path

from codescore_metric import baselines
from codescore_metric.formats import COLUMN_FOR_FIELD, OUTPUT_NAMES, InputFormat

__all__ = [
    "load_records",
    "metric_result",
    "missing_fields",
    "reading",
    "score_records",
    "score_single",
    "truncation_note",
    "truncation_summary",
]



def _mean(values: Sequence[float]) -> float:
    return float(sum(values) / len(values)) if values else float("nan")


def truncation_summary(truncated: Sequence[dict]) -> dict:
    """How many samples were cut to the model's maximum length, and per field in how many samples and by how many tokens."""
    cut = [t for t in truncated if t]
    tokens: dict[str, int] = {}
    samples: dict[str, int] = {}
    for t in cut:
        for name, n in t.items():
            tokens[name] = tokens.get(name, 0) + int(n)
            samples[name] = samples.get(name, 0) + 1
    return {"samples": len(cut), "of": len(truncated), "samples_by_field": samples, "tokens_by_field": tokens}


def truncation_note(truncated: Sequence[dict]) -> str:
    """One sentence on how many samples were cut to the model's maximum length ('' if none)."""
    summary = truncation_summary(truncated)
    if not summary["samples"]:
        return ""
    detail = ", ".join(f"{n} tokens of {name}" for name, n in sorted(summary["tokens_by_field"].items()))
    if len(truncated) == 1:
        return (
            f"The input was longer than the model's maximum and was truncated ({detail} dropped); "
            "the scores only reflect the part the model read."
        )
    return (
        f"{summary['samples']} of {summary['of']} sample(s) were longer than the model's maximum input and "
        f"were truncated ({detail} dropped); their scores only reflect the part the model read."
    )


def metric_result(
    result,
    predictions: Sequence[str],
    references: Sequence[str] | None = None,
    *,
    bleu: bool = True,
    codebleu: bool = True,
    lang: str = "python",
    return_per_sample: bool = True,
) -> dict:
    """The dictionary `CodeScore.compute` returns.

    Flat floats: ``codescore``, ``executability``, ``passability`` (means over samples) and, when
    references are given, ``exact_match``, corpus ``bleu`` and corpus ``codebleu``; ``num_truncated``
    (int) and ``signature`` (str). With ``return_per_sample`` the per-sample lists are added as
    ``<name>_per_sample`` (sentence-level BLEU/CodeBLEU) plus ``truncated`` (tokens dropped per
    field, per sample) and ``certain`` (``ScoreResult.certain``: why a sample's scores were decided
    without the model, or ``None``). An empty input gives NaN means and empty lists.
    """
    out: dict = {key: _mean(getattr(result, key)) for key in OUTPUT_NAMES}
    per_sample: dict = {f"{key}_per_sample": [float(v) for v in getattr(result, key)] for key in OUTPUT_NAMES}
    have_refs = references is not None and len(predictions) > 0
    if have_refs:
        em = baselines.exact_match(predictions, references)
        out["exact_match"] = _mean(em)
        per_sample["exact_match_per_sample"] = em
        if bleu:
            out["bleu"] = baselines.corpus_bleu(predictions, references)
            per_sample["bleu_per_sample"] = baselines.sentence_bleu(predictions, references)
        if codebleu:
            corpus, per_sample["codebleu_per_sample"] = baselines.corpus_and_sentence_codebleu(predictions, references, lang=lang)
            out["codebleu"] = corpus["codebleu"]
    out["num_truncated"] = sum(1 for t in result.truncated if t)
    if return_per_sample:
        out.update(per_sample)
        out["truncated"] = [dict(t) for t in result.truncated]
        out["certain"] = list(result.certain)
    out["signature"] = result.signature
    return out


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


CERTAIN_READINGS = {  # ScoreResult.certain -> why the score is 0 (or 1) without the model ({executability}: the estimate)
    "empty": "No code: an empty prediction scores 0 (not estimated).",
    "syntax_error": "Certainly fails: the code does not compile as Python, so it cannot run (scored 0, not estimated).",
    "missing_definition": ("Certainly fails: the code defines none of the functions the reference defines, so tests "
                           "written for the reference cannot pass (scored 0, not estimated)."),
    "unbound_name": ("Fails: the code reads a name it never defines or imports, which raises NameError on every test "
                     "that reaches that line, so it cannot pass them all (scored 0, not estimated)."),
    "wrong_arity": ("Certainly fails: its function cannot be called with the number of arguments the reference's "
                    "takes, so every test call raises TypeError (scored 0, not estimated)."),
    "no_return_value": ("Fails: the function returns nothing where the reference's always returns a value, so every "
                        "test that checks the returned value fails (CodeScore and Passability 0, not estimated). "
                        "The model gives a {executability} chance that it runs without an error."),
    "other_return_kind": ("Fails: the function returns another kind of value than the reference's (e.g. a list where "
                          "it returns a tuple, or True where it returns a string), which never compares equal, so every "
                          "test that checks the returned value fails (CodeScore and Passability 0, not estimated). The "
                          "model gives a {executability} chance that it runs without an error."),
    "same_as_reference": ("Same program as the reference up to comments, docstrings, layout, type annotations and the names "
                          "of parameters and locals, so it passes what the reference passes (scored 1, not estimated)."),
}


def reading(codescore: float, executability: float, passability: float, truncated: dict | None = None,
            certain: str | None = None) -> str:
    """A short plain-language reading of one sample's (or one mean's) three scores; ``certain`` (a
    ``ScoreResult.certain`` reason) replaces it with why the sample was scored without the model."""
    if certain is not None:
        if certain not in CERTAIN_READINGS:
            raise ValueError(f"certain must be one of {sorted(CERTAIN_READINGS)} or None, got {certain!r}")
        return CERTAIN_READINGS[certain].format(executability=_pct(executability))
    for name, value in zip(OUTPUT_NAMES, (codescore, executability, passability)):
        if not isinstance(value, (int, float)) or math.isnan(value) or not 0.0 <= value <= 1.0:
            raise ValueError(f"{name} must be a number in [0, 1], got {value!r}")
    if executability < 0.5 and codescore >= 0.5:
        verdict = (
            f"Mixed signals: the model expects it to pass about {_pct(codescore)} of the tests, but "
            f"gives only a {_pct(executability)} chance that it runs without an error; check it by hand."
        )
    elif executability < 0.5:
        verdict = (
            f"Likely broken: the model gives only a {_pct(executability)} chance that this code runs "
            "without an error, so it probably fails most tests."
        )
    elif codescore >= 0.8:
        verdict = f"Likely correct: the model expects it to pass about {_pct(codescore)} of the tests."
    elif codescore >= 0.4:
        verdict = (
            f"Partly correct: it probably runs, but the model expects it to pass only about "
            f"{_pct(codescore)} of the tests; check edge cases."
        )
    else:
        verdict = (
            f"Probably wrong: it probably runs, but the model expects it to pass only about "
            f"{_pct(codescore)} of the tests."
        )
    text = (
        f"{verdict} Chance of passing every test: {_pct(passability)}. "
        "These are estimates from a learned model; the code was not executed."
    )
    note = truncation_note([truncated]) if truncated else ""
    return f"{text} {note}" if note else text


def score_single(
    scorer,
    generated: str,
    reference: str = "",
    source: str = "",
    input_format: str = "ref_nl",
    *,
    lang: str = "python",
) -> dict:
    """Score one sample as the app shows it: the three estimates, BLEU and CodeBLEU (None without
    a reference), a plain-language ``reading`` and the ``signature``.

    Only the fields the format reads go to the model; BLEU/CodeBLEU use the reference whenever one
    is given. Raises ValueError with a message meant for the user on missing input.
    """
    fmt = InputFormat.parse(input_format)
    problem = missing_fields(fmt.value, generated, reference, source)
    if problem:
        raise ValueError(problem)
    result = scorer.score(
        [generated],
        references=[reference] if "reference" in fmt.fields else None,
        sources=[source] if "source" in fmt.fields else None,
        input_format=fmt.value,
    )
    has_ref = isinstance(reference, str) and bool(reference.strip())
    full = metric_result(result, [generated], [reference] if has_ref else None)
    out = {key: full[f"{key}_per_sample"][0] for key in OUTPUT_NAMES}
    out["bleu"] = full["bleu_per_sample"][0] if has_ref else None
    out["codebleu"] = full["codebleu_per_sample"][0] if has_ref else None
    out["reading"] = reading(*(out[key] for key in OUTPUT_NAMES), truncated=full["truncated"][0], certain=result.certain[0])
    out["signature"] = full["signature"]
    return out


FIELD_NAMES = {"prediction": "generated code", "reference": "reference code", "source": "task description"}


def missing_fields(input_format: str, generated: str | None, reference: str | None, source: str | None) -> str | None:
    """``None`` when every field the format reads is filled in, else one message naming all missing ones."""
    fmt = InputFormat.parse(input_format)
    texts = {"prediction": generated, "reference": reference, "source": source}
    missing = [FIELD_NAMES[field] for field in fmt.fields if not isinstance(texts[field], str) or not texts[field].strip()]
    return f"{fmt.label} needs: {', '.join(missing)}" if missing else None


# --------------------------------------------------------------------------- jsonl files
def load_records(path: str | Path) -> list[dict]:
    """Read a jsonl file of JSON objects; bad lines raise one ValueError listing ``file:line``."""
    from codescore_metric.jsonl import read_records

    return [row for _, row in read_records(path, "{count} bad line(s); nothing was scored", shown_as=Path(path).name)]


def _column(records: Sequence[dict], key: str, what: str) -> list[str]:
    values = []
    for i, record in enumerate(records):
        if key not in record:
            raise ValueError(
                f"record {i + 1} has no {key!r} field (the {what}); present fields: {sorted(record)}"
            )
        value = record[key]
        if not isinstance(value, str):
            raise ValueError(f"record {i + 1}: field {key!r} must be a string, got {type(value).__name__}")
        values.append(value)
    return values


def score_records(
    scorer,
    records: Sequence[dict],
    input_format: str,
    *,
    fields: dict[str, str] | None = None,
    bleu: bool = True,
    codebleu: bool = True,
    lang: str = "python",
    batch_size: int | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> tuple[list[dict], dict]:
    """Score records (calling ``on_progress(done, total)`` as batches finish) and return
    ``(records with scores added, summary from metric_result without per-sample lists)``; a record whose scores the
    static checks decided carries the reason as ``certain``, one cut to the model's length what was cut as ``truncated``.

    ``input_format`` is "ref", "nl" or "ref_nl"; ``fields`` maps "prediction"/"reference"/"source"
    to record keys (default: ``formats.COLUMN_FOR_FIELD``, i.e. generated_code / golden_code / source).
    """
    fmt = InputFormat.parse(input_format)
    names = {**COLUMN_FOR_FIELD, **(fields or {})}
    if not records:
        raise ValueError("the file holds no records")
    preds = _column(records, names["prediction"], "generated code")
    refs = _column(records, names["reference"], "reference code") if "reference" in fmt.fields else None
    srcs = _column(records, names["source"], "task description") if "source" in fmt.fields else None
    result = scorer.score(preds, references=refs, sources=srcs, input_format=fmt.value, batch_size=batch_size, on_progress=on_progress)
    summary = metric_result(
        result, preds, refs, bleu=bleu, codebleu=codebleu, lang=lang, return_per_sample=True
    )
    scored = []
    for i, record in enumerate(records):
        row = dict(record)
        for key in OUTPUT_NAMES + ("bleu", "codebleu", "exact_match"):
            if f"{key}_per_sample" in summary:
                row[key] = summary[f"{key}_per_sample"][i]
        for key in ("truncated", "certain"):
            if summary[key][i]:
                row[key] = summary[key][i]
        scored.append(row)
    summary = {k: v for k, v in summary.items() if not k.endswith("_per_sample") and k not in ("truncated", "certain")}
    return scored, summary
