"""Gradio demo for CodeScore (runs locally with `python app.py` and as a Hugging Face Space).

The UI is built by `build_demo(scorer=None, models=None)`; scoring and the plain-language reading
live in `codescore_metric.results`, what the app draws (bars, table, plots, checks, messages) in
`codescore_metric.app_views`; both are tested without Gradio.
"""

from __future__ import annotations

import argparse
import logging
import os
import tempfile
from pathlib import Path

import gradio as gr

from codescore_metric import app_views, results
from codescore_metric.checkpoints import DEFAULT_MODEL_DIR
from codescore_metric.formats import OUTPUT_NAMES, InputFormat
from codescore_metric.jsonl import bad_rows_message, write_jsonl

TITLE = "CodeScore: does this code work? (estimated without running it)"
INTRO = """\
**CodeScore** estimates how functionally correct generated code is **without executing it**
([Dong et al., 2023](https://arxiv.org/abs/2301.09043)). A code model trained on real execution
results reads the generated code together with a reference solution and/or the task description
and predicts **CodeScore** (share of test cases it would pass), **Executability** (chance it runs
without an error) and **Passability** (chance it passes every test). BLEU and CodeBLEU are shown for
comparison. Scores are estimates; nothing you type is executed.
"""
FILE_HELP = """\
Upload JSON Lines with the fields `generated_code`, `golden_code` (reference) and `source` (task),
as read by `codescore score`. Each row gets `codescore`, `executability`, `passability` (and `bleu`,
`codebleu`, `exact_match` when a reference is read). Rows that also carry an execution label
(`pass_ratio`, or the authors' `score`; add one with `codescore label`) show how CodeScore agrees
with running the tests.
"""

FORMATS = [("Ref & NL", "ref_nl"), ("Ref-only", "ref"), ("NL-only", "nl")]
DEFAULT_MODELS = {
    "Embedded default model": None,
    "Authors' weights (dz1/CodeScore, needs network)": "dz1/CodeScore",
}
LABELLED_FILE = Path(__file__).with_name("examples") / "labelled.jsonl"
# One correct, one subtly wrong and one not runnable program per input format (task_id, format).
EXAMPLE_PICKS = [
    ("count_vowels/correct", "ref_nl"), ("last_n/subtly_wrong", "ref_nl"), ("word_lengths/not_runnable", "ref_nl"),
    ("running_total/correct", "ref"), ("is_leap/subtly_wrong", "ref"), ("average/not_runnable", "ref"),
    ("is_palindrome/correct", "nl"), ("second_largest/subtly_wrong", "nl"), ("initials/not_runnable", "nl"),
]
EXAMPLES = app_views.example_rows(results.load_records(LABELLED_FILE), EXAMPLE_PICKS)
EXAMPLES_BY_FORMAT = {fmt: [row for row in EXAMPLES if row["input_format"] == fmt] for _, fmt in FORMATS}
LOG = logging.getLogger(__name__)


def _user_error(message: str) -> gr.Error:
    return gr.Error(message, print_exception=False)


def _shown(value) -> dict:
    """An update that shows a component with ``value``, or hides it when ``value`` is None."""
    return gr.update(value=value, visible=value is not None)


def _field_updates(input_format: str, **values) -> tuple:
    """Updates of the reference and task boxes: shown only when the format reads them, with the
    ``reference``/``source`` in ``values`` as their new text."""
    fields = InputFormat.parse(input_format).fields
    return tuple(gr.update(visible=name in fields, **({"value": values[name]} if name in values else {}))
                 for name in ("reference", "source"))


def build_demo(scorer=None, models: dict | None = None) -> gr.Blocks:
    """Build the Blocks app.

    scorer: an object with `CodeScorer.score`'s interface (tests pass a tiny model); it becomes the
        first, default model choice. models: label -> checkpoint for the model selector (default:
        the embedded model and the authors' weights); a checkpoint loads on first use, through the
        package's shared model cache.
    """
    choices: dict = {}
    if scorer is not None:
        choices[f"Loaded model ({getattr(scorer, 'model_id', 'custom')})"] = scorer
    choices.update(DEFAULT_MODELS if models is None else models)
    labels = list(choices)

    def get_scorer(label):
        if label not in choices:
            raise _user_error(f"Unknown model {label!r}; choose one of {labels}")
        value = choices[label]
        if hasattr(value, "score"):
            return value
        from codescore_metric import CodeScorer

        try:
            return CodeScorer(checkpoint=value)
        except Exception as err:  # any load failure becomes one sentence in the UI; the log keeps the details
            LOG.warning("loading model %r failed", value, exc_info=True)
            raise _user_error(app_views.model_error_message(value, err)) from err

    def score(generated, reference, source, input_format, model):
        problem = results.missing_fields(input_format, generated, reference, source)  # before any model loads
        if problem:
            raise _user_error(problem)
        fields = InputFormat.parse(input_format).fields  # a hidden box is not read, not even for BLEU
        texts = [text if field in fields else "" for field, text in (("reference", reference), ("source", source))]
        chosen = get_scorer(model)  # outside the try: a gr.Error is a ValueError too
        try:
            out = results.score_single(chosen, generated, *texts, input_format)
        except ValueError as err:  # an input the scorer rejects
            raise _user_error(str(err)) from err
        numbers = {key: out[key] for key in (*OUTPUT_NAMES, "bleu", "codebleu", "signature")}
        return app_views.score_bars(out), out["reading"], out["signature"], numbers

    def score_file(upload, input_format, model, progress=gr.Progress()):
        if upload is None:
            raise _user_error("Upload a .jsonl file first.")
        path = Path(upload)
        try:
            rows, label, problems = app_views.file_problems(path, input_format)
        except UnicodeDecodeError as err:
            raise _user_error(f"{path.name} is not UTF-8 text ({err.reason} at byte {err.start}).") from err
        if problems:  # listed in the page (a toast is too small for them); the summary carries them too
            gr.Warning(f"{path.name}: nothing was scored; the problems are listed below.")
            listing = bad_rows_message(path.name, problems)
            every = [f"{path.name}:{line}: {text}" for line, text in sorted(problems)]
            return _shown(None), {"problems": every}, f"```text\n{listing}\n```", _shown(None), _shown(None), _shown(None)
        if not rows:
            raise _user_error(f"{path.name} holds no rows; give one JSON object per line.")
        scored, summary = results.score_records(
            get_scorer(model),
            [row for _, row in rows],
            input_format,
            on_progress=lambda done, total: progress((done, total), desc="Scoring", unit="samples"),
        )
        out_path = Path(tempfile.mkdtemp(prefix="codescore-")) / f"{path.stem}.scored.jsonl"
        write_jsonl(out_path, scored)
        codescore = [row["codescore"] for row in scored]
        overview = (f"Scored **{len(scored)}** rows ({InputFormat.parse(input_format).label}): mean CodeScore "
                    f"**{summary['codescore']:.4f}**, Executability {summary['executability']:.4f}, "
                    f"Passability {summary['passability']:.4f}.")
        scatter = None
        if label:
            agreement = app_views.agreement(scored, label)
            summary = {**summary, "label": label, "agreement": agreement}
            overview += "\n\n" + app_views.agreement_markdown(agreement, label)
            scatter = app_views.scatter_figure(codescore, [row[label] for row in scored], label, agreement[0])
        else:
            overview += ("\n\nThis file has no execution labels (`pass_ratio`), so there is nothing to compare "
                         "with; label it with `codescore label` to see the agreement.")
        table = app_views.score_table(scored, [line for line, _ in rows], label)
        return (_shown(str(out_path)), summary, overview, _shown(app_views.histogram_figure(codescore)), _shown(scatter),
                _shown(table))

    with gr.Blocks(title="CodeScore") as demo:
        gr.Markdown(f"# {TITLE}\n{INTRO}")
        model = gr.Dropdown(labels, value=labels[0], label="Model")
        with gr.Tab("Score one sample"):
            gr.Markdown("### Try an example\nEach loads its input format and is scored at once.")
            example_sets = {}
            for name, fmt in FORMATS:
                rows = EXAMPLES_BY_FORMAT[fmt]
                example_sets[fmt] = gr.Dataset(
                    label=name, components=["code", "code", "textbox", "radio"], type="index", elem_id=f"examples-{fmt}",
                    samples=[[r["generated"], r["reference"], r["source"], fmt] for r in rows], sample_labels=[r["label"] for r in rows])
            input_format = gr.Radio(FORMATS, value="ref_nl", label="Input format", elem_id="input-format")
            with gr.Row():
                generated = gr.Code(label="Generated code", language="python", lines=8, max_lines=24, interactive=True)
                reference = gr.Code(label="Reference code", language="python", lines=8, max_lines=24, interactive=True)
            source = gr.Textbox(label="Task description (NL)", lines=2)
            with gr.Row():
                button = gr.Button("Score", variant="primary", elem_id="score-button")
                clear = gr.Button("Clear", elem_id="clear-button")
            with gr.Row():
                with gr.Column(scale=3):
                    bars = gr.HTML(app_views.score_bars(None), css_template=app_views.BARS_CSS, elem_id="score-bars")
                    reading = gr.Textbox(label="What this means", lines=3, interactive=False, elem_id="reading")
                    signature = gr.Textbox(label="Scorer signature (to reproduce these numbers)", interactive=False,
                                           elem_id="signature", buttons=["copy"])
                    with gr.Accordion("Raw numbers (JSON)", open=False):
                        numbers = gr.JSON(label="Scores")
                with gr.Column(scale=2):
                    gr.Markdown("### Limits\n*Embedded model, from its model card:*\n\n"
                                + app_views.model_card_limits(DEFAULT_MODEL_DIR / "README.md"), elem_id="limits")
                    with gr.Accordion("Model card of the embedded model", open=False):
                        gr.Markdown(app_views.model_card_body(DEFAULT_MODEL_DIR / "README.md"))
            shown = [bars, reading, signature, numbers]
            empty = (app_views.score_bars(None), "", "", None)
            inputs = [generated, reference, source, input_format, model]
            # registered first, so the private copies below keep off its API name; the spinner (or an
            # error badge) covers the bars only, not every result box
            button.click(score, inputs, shown, api_name="score", show_progress_on=bars)

            for fmt, dataset in example_sets.items():
                def load_example(index, fmt=fmt):
                    row = EXAMPLES_BY_FORMAT[fmt][index]
                    boxes = _field_updates(fmt, reference=row["reference"], source=row["source"])
                    return (row["generated"], *boxes, fmt, *empty)

                dataset.click(load_example, dataset, [generated, reference, source, input_format, *shown], api_visibility="private"
                              ).then(score, inputs, shown, api_visibility="private", show_progress_on=bars)
            input_format.input(lambda fmt: (*_field_updates(fmt), *empty), input_format, [reference, source, *shown],
                               api_visibility="private")
            clear.click(lambda: ("", "", "", *empty), None, [generated, reference, source, *shown], api_visibility="private")
        with gr.Tab("Score a file"):
            gr.Markdown(FILE_HELP)
            with gr.Row():
                upload = gr.File(label="Input .jsonl", file_types=[".jsonl"], type="filepath", scale=3, elem_id="upload")
                with gr.Column(scale=2):
                    gr.DownloadButton("Download the labelled example file (27 rows)", value=str(LABELLED_FILE))
                    use_example = gr.Button("Score the labelled example")
            file_format = gr.Radio(FORMATS, value="ref_nl", label="Input format")
            file_button = gr.Button("Score file", variant="primary", elem_id="score-file-button")
            overview = gr.Markdown(elem_id="file-overview")
            with gr.Row():
                histogram = gr.Plot(label="CodeScore histogram", show_label=False, format="png", elem_id="histogram", visible=False)
                scatter = gr.Plot(label="CodeScore against PassRatio", show_label=False, format="png", elem_id="scatter", visible=False)
            table = gr.Dataframe(label="Scored rows", interactive=False, elem_id="scored-rows", visible=False)
            download = gr.File(label="Scored .jsonl", interactive=False, visible=False)
            with gr.Accordion("Summary (JSON)", open=False):
                summary = gr.JSON(label="Summary")
            file_outputs = [download, summary, overview, histogram, scatter, table]
            file_button.click(score_file, [upload, file_format, model], file_outputs, api_name="score_file")
            use_example.click(lambda: str(LABELLED_FILE), None, upload, api_visibility="private").then(
                score_file, [upload, file_format, model], file_outputs, api_visibility="private")
        model.change(lambda: empty, None, shown, api_visibility="private")
    demo.queue(default_concurrency_limit=1)
    return demo


def main(argv=None):
    parser = argparse.ArgumentParser(description="Serve the CodeScore demo.")
    parser.add_argument("--checkpoint", help="model directory, Hub id or authors' .ckpt to offer first")
    parser.add_argument("--port", type=int, default=int(os.environ.get("GRADIO_SERVER_PORT", 7860)))
    args = parser.parse_args(argv)
    models = dict(DEFAULT_MODELS)
    if args.checkpoint:
        models = {f"Model at {args.checkpoint}": args.checkpoint, **models}
    build_demo(models=models).launch(
        server_name=os.environ.get("GRADIO_SERVER_NAME", "127.0.0.1"), server_port=args.port
    )


if __name__ == "__main__":
    main()
