"""Gradio demo for CodeScore (runs locally with `python app.py` and as a Hugging Face Space).

The UI is built by `build_demo(scorer=None)`; scoring, result assembly and the plain-language
reading live in `codescore_metric.results`, where they are tested without Gradio.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

import gradio as gr

from codescore_metric import results
from codescore_metric.jsonl import write_jsonl

TITLE = "CodeScore: does this code work? (estimated without running it)"
INTRO = """\
**CodeScore** estimates how functionally correct generated code is **without executing it**
([Dong et al., 2023](https://arxiv.org/abs/2301.09043)). A code model trained on real execution
results reads the generated code together with a reference solution and/or the task description
and predicts:
**CodeScore** (share of test cases it would pass), **Executability** (chance it runs without an
error) and **Passability** (chance it passes every test). BLEU and CodeBLEU are shown for comparison.
Scores are estimates; nothing you type is executed.
"""

FORMATS = [("Ref & NL", "ref_nl"), ("Ref-only", "ref"), ("NL-only", "nl")]
DEFAULT_MODELS = {
    "Embedded default model": None,
    "Authors' weights (dz1/CodeScore, needs network)": "dz1/CodeScore",
}

# Correct, subtly wrong (starts from 0, so an all-negative list gives 0) and not executable.
EXAMPLES_FILE = Path(__file__).with_name("examples") / "sample.jsonl"
_ROWS = results.load_records(EXAMPLES_FILE)[:3]
EXAMPLES = [[row["generated_code"], row["golden_code"], row["source"], "ref_nl"] for row in _ROWS]
EXAMPLE_LABELS = [row["task_id"].split("/")[-1].replace("_", " ").capitalize() for row in _ROWS]


def _user_error(err: Exception) -> gr.Error:
    return gr.Error(str(err), print_exception=False)


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
            raise gr.Error(f"Unknown model {label!r}; choose one of {labels}", print_exception=False)
        value = choices[label]
        if hasattr(value, "score"):
            return value
        from codescore_metric import CodeScorer

        try:
            return CodeScorer(checkpoint=value)
        except (OSError, ValueError, RuntimeError) as err:
            raise gr.Error(f"Could not load {label}: {err}", print_exception=False) from err

    def score(generated, reference, source, input_format, model):
        try:
            out = results.score_single(get_scorer(model), generated or "", reference or "", source or "", input_format)
        except ValueError as err:
            raise _user_error(err) from err
        return (out["codescore"], out["executability"], out["passability"], out["bleu"], out["codebleu"], out["reading"])

    def score_file(upload, input_format, model, progress=gr.Progress()):
        if upload is None:
            raise gr.Error("Upload a .jsonl file first.", print_exception=False)
        path = Path(upload)
        try:
            records = results.load_records(path)
            scored, summary = results.score_records(
                get_scorer(model),
                records,
                input_format,
                on_progress=lambda done, total: progress((done, total), desc="Scoring", unit="samples"),
            )
        except (ValueError, UnicodeDecodeError) as err:
            raise _user_error(err) from err
        out_dir = Path(tempfile.mkdtemp(prefix="codescore-"))
        out_path = out_dir / f"{path.stem}.scored.jsonl"
        write_jsonl(out_path, scored)
        return str(out_path), summary

    def toggle(input_format):
        return (
            gr.update(interactive=input_format != "nl"),
            gr.update(interactive=input_format != "ref"),
        )

    with gr.Blocks(title="CodeScore") as demo:
        gr.Markdown(f"# {TITLE}\n{INTRO}")
        with gr.Row():
            model = gr.Dropdown(labels, value=labels[0], label="Model")
        with gr.Tab("Score one sample"):
            with gr.Row():
                generated = gr.Code(label="Generated code", language="python", lines=12, interactive=True)
                reference = gr.Code(label="Reference code", language="python", lines=12, interactive=True)
            source = gr.Textbox(label="Task description (NL)", lines=3)
            with gr.Row():
                input_format = gr.Radio(FORMATS, value="ref_nl", label="Input format")
                button = gr.Button("Score", variant="primary", elem_id="score-button")
            with gr.Row():
                outputs = [
                    gr.Number(label=name, precision=4, interactive=False)
                    for name in ("CodeScore", "Executability", "Passability", "BLEU", "CodeBLEU")
                ]
            reading = gr.Textbox(label="What this means", lines=3, interactive=False, elem_id="reading")
            gr.Examples(
                EXAMPLES,
                inputs=[generated, reference, source, input_format],
                example_labels=EXAMPLE_LABELS,
                cache_examples=False,
            )
            input_format.change(toggle, input_format, [reference, source], api_visibility="private")
            button.click(
                score, [generated, reference, source, input_format, model], [*outputs, reading], api_name="score"
            )
        with gr.Tab("Score a file"):
            gr.Markdown(
                "Upload JSON Lines with the fields `generated_code`, `golden_code` (reference) and "
                "`source` (task), as read by `codescore score`. The result adds `codescore`, "
                "`executability`, `passability` (and `bleu`, `codebleu`, `exact_match` when a "
                "reference is read) to every record."
            )
            upload = gr.File(label="Input .jsonl", file_types=[".jsonl"], type="filepath")
            file_format = gr.Radio(FORMATS, value="ref_nl", label="Input format")
            file_button = gr.Button("Score file", variant="primary")
            download = gr.File(label="Scored .jsonl", interactive=False)
            summary = gr.JSON(label="Summary")
            file_button.click(score_file, [upload, file_format, model], [download, summary], api_name="score_file")
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
