"""CodeScore as a Hugging Face `evaluate` metric: a thin adapter over the `codescore_metric` package."""

import datasets
import evaluate

import codescore_metric  # From: codescore-metric

_CITATION = """\
@article{dong2024codescore,
  title   = {CodeScore: Evaluating Code Generation by Learning Code Execution},
  author  = {Dong, Yihong and Ding, Jiazheng and Jiang, Xue and Li, Ge and Li, Zhuo and Jin, Zhi},
  journal = {ACM Transactions on Software Engineering and Methodology},
  year    = {2024},
  note    = {arXiv:2301.09043}
}
"""

_DESCRIPTION = """\
CodeScore estimates the functional correctness of generated code without running it. A UniCE
model (a code encoder trained on execution results) reads the generated code with a reference
solution and/or the natural-language task and predicts the share of test cases the code would pass
(CodeScore = estimated PassRatio), the probability that it runs without error (Executability) and
the probability that it passes every test (Passability). BLEU, CodeBLEU and exact match are
reported beside it. Configs choose the input format: "ref" (default: predictions + references),
"nl" (predictions + sources) and "ref_nl" (predictions + references + sources).
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions (list of str): generated code, one program per sample.
    references (list of str): reference solutions (configs "ref" and "ref_nl").
    sources (list of str): natural-language task descriptions (configs "nl" and "ref_nl").
    batch_size (int, optional): samples per forward pass; default from `evaluate.load(..., batch_size=)`.
    progress_bar (bool): show a progress bar while scoring. Default False.
    return_per_sample (bool): add the per-sample lists. Default True; pass False in
        `compute_metrics` so loggers get only flat values.
    bleu (bool): compute BLEU (sacrebleu, 13a tokenizer). Default True; needs references.
    codebleu (bool): compute CodeBLEU (codebleu package). Default True; needs references.
    lang (str): CodeBLEU language. Default "python".
    The last four can also be given to `evaluate.load(...)`, which makes them the defaults; do that
    inside `evaluate.combine`, which passes every compute keyword to every metric.
Returns:
    codescore, executability, passability (float): means over the samples, each in [0, 1].
    exact_match, bleu, codebleu (float): when references are given (corpus BLEU / CodeBLEU, 0-1).
    num_truncated (int): samples cut to the model's maximum input length.
    signature (str): model, revision, format, normalisation, dtype and static checks, for reproducibility.
    <name>_per_sample (list of float), truncated (list of dict) and certain (list of str or None: why a
        sample's scores were decided without the model, e.g. "syntax_error"): unless return_per_sample=False.
Init kwargs (through `evaluate.load`):
    checkpoint: local model directory, Hub repo id, "dz1/CodeScore" or an authors' .ckpt file;
        None = the model embedded in the package. model_revision: Hub revision (commit sha) of
        the checkpoint. device, dtype ("fp32", "bf16", "fp16", "int8": torch dynamic quantization,
        or "int8-onnx": ONNX Runtime int8, both CPU only), batch_size, normalization ("sample" or "batch"),
        local_files_only, encoder (backbone config + tokenizer for an authors' .ckpt),
        static_checks (a prediction that does not compile as a Python module, that defines none
        of the reference's top-level functions, that reads a name it never defines or imports or
        whose functions cannot take the reference's arguments scores 0 without the model; one whose
        functions return nothing where the reference's always return a value, or can only return
        values of kinds the reference's never returns (a list for a tuple, True for a message), scores
        CodeScore and Passability 0 (Executability estimated); one that is the
        reference's program up to comments, docstrings, layout, type annotations and parameter/local names scores 1;
        None = on, except for the authors' model or normalization "batch").
Examples:
    >>> import evaluate
    >>> codescore = evaluate.load("codescore.py", "ref_nl", checkpoint=checkpoint)
    >>> results = codescore.compute(
    ...     predictions=["def add(a, b):\\n    return a - b\\n"],
    ...     references=["def add(a, b):\\n    return a + b\\n"],
    ...     sources=["Return the sum of a and b."],
    ...     return_per_sample=False,
    ... )
    >>> sorted(results)
    ['bleu', 'codebleu', 'codescore', 'exact_match', 'executability', 'num_truncated', 'passability', 'signature']
"""

# Config name -> the arguments it reads: one config per input format, named by its value ('default' is 'ref').
_FIELDS = {fmt.value: fmt.arguments for fmt in codescore_metric.InputFormat}
_FIELDS["default"] = _FIELDS["ref"]


class CodeScore(evaluate.Metric):
    """CodeScore (Dong et al., 2023): learned estimate of PassRatio, Executability and Passability."""

    def __init__(
        self,
        checkpoint=None,
        model_revision=None,
        device=None,
        dtype=None,
        batch_size=None,
        normalization=None,
        local_files_only=None,
        encoder=None,
        static_checks=None,
        return_per_sample=True,
        bleu=True,
        codebleu=True,
        lang="python",
        **kwargs,
    ):
        self._scorer_args = dict(
            checkpoint=checkpoint,
            revision=model_revision,
            device=device,
            dtype=dtype,
            normalization=normalization,
            local_files_only=local_files_only,
            encoder=encoder,
            static_checks=static_checks,
        )
        self._batch_size = batch_size
        # compute()'s defaults, settable at load time, so evaluate.combine needs no CodeScore keyword
        self._compute_defaults = dict(return_per_sample=return_per_sample, bleu=bleu, codebleu=codebleu, lang=lang)
        self._scorer = None
        super().__init__(**kwargs)

    def _info(self):
        if self.config_name not in _FIELDS:
            raise ValueError(
                f"unknown CodeScore config {self.config_name!r}; use 'ref' (predictions + references, "
                "the default), 'nl' (predictions + sources) or 'ref_nl' (all three)"
            )
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({name: datasets.Value("string") for name in _FIELDS[self.config_name]}),
            homepage="https://arxiv.org/abs/2301.09043",
            codebase_urls=["https://github.com/Dingjz/CodeScore"],
            reference_urls=["https://arxiv.org/abs/2301.09043", "https://huggingface.co/dz1/CodeScore"],
            license="apache-2.0",
        )

    @property
    def input_format(self):
        return "ref" if self.config_name == "default" else self.config_name

    def compute(self, *, predictions=None, references=None, **kwargs):
        """Score the given inputs plus everything added with `add`/`add_batch` (see below).

        A missing, unread or malformed input field raises a ValueError that names it and the fix.
        """
        given = {"predictions": predictions, "references": references,
                 **{name: kwargs[name] for name in ("sources",) if name in kwargs}}
        if any(values is not None for values in given.values()):
            self._checked(given)
        elif getattr(self, "writer", None) is None:
            raise ValueError("CodeScore got no samples: pass predictions to compute() or add them with add_batch() first")
        return super().compute(predictions=predictions, references=references, **kwargs)

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Add a batch of samples (``compute`` with inputs calls this too): one list of strings per field
        of the config; a ValueError names a missing, unread or malformed field and the fix."""
        from codescore_metric.inputs import text_list

        given = {"predictions": predictions, "references": references, **kwargs}
        for name, values in self._checked(given).items():
            text_list(name, values)
        super().add_batch(predictions=predictions, references=references, **kwargs)

    def add(self, *, prediction=None, reference=None, **kwargs):
        """Add one sample: one string per field of the config (``prediction``, ``reference``, ``sources``)."""
        given = {"predictions": prediction, "references": reference, **kwargs}
        for name, value in self._checked(given).items():
            if not isinstance(value, str):
                raise ValueError(f"add() takes one sample: {name} must be a string, got {type(value).__name__}")
        super().add(prediction=prediction, reference=reference, **kwargs)

    def _checked(self, given: dict) -> dict:
        """The config's fields from ``given``, after checking that each is there and nothing else is."""
        fields = _FIELDS[self.config_name]
        missing = [name for name in fields if given.get(name) is None]
        unread = [name for name, values in given.items() if values is not None and name not in fields]
        if missing or unread:
            problem = f"missing: {', '.join(missing)}" if missing else f"it does not read {', '.join(unread)}"
            raise ValueError(
                f"CodeScore config {self.config_name!r} needs {', '.join(fields)}; {problem}. Pass every field "
                "(to compute() or add_batch()), or load the config that matches your inputs "
                "('ref': predictions + references, 'nl': predictions + sources, 'ref_nl': all three)."
            )
        return {name: given[name] for name in fields}

    def _get_scorer(self):
        if self._scorer is None:  # loads lazily, on process 0 only, through the shared model cache
            self._scorer = codescore_metric.CodeScorer(**self._scorer_args)
        return self._scorer

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_scorer"] = None  # never pickle the model; it reloads from the shared cache
        return state

    def _compute(
        self,
        predictions,
        references=None,
        sources=None,
        batch_size=None,
        progress_bar=False,
        return_per_sample=None,
        bleu=None,
        codebleu=None,
        lang=None,
    ):
        from codescore_metric.results import metric_result

        if len(predictions) == 0:
            raise ValueError("CodeScore got no samples: pass predictions to compute() or add them with add_batch() first")
        given = dict(return_per_sample=return_per_sample, bleu=bleu, codebleu=codebleu, lang=lang)
        options = {name: self._compute_defaults[name] if value is None else value for name, value in given.items()}
        result = self._get_scorer().score(
            predictions,
            references=references,
            sources=sources,
            input_format=self.input_format,
            batch_size=batch_size or self._batch_size,
            progress_bar=progress_bar,
        )
        return metric_result(result, predictions, references, **options)
