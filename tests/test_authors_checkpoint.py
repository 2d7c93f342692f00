"""A synthetic checkpoint in the authors' exact key layout loads, and scores like the forward pass spelled out here."""

from collections import OrderedDict

import numpy as np
import pytest
import torch

from codescore_metric import CodeScorer
from codescore_metric.cli import main as cli_main
from tests.test_modeling import sparsemax_by_bisection
from tests.tiny_model import build_tiny_tokenizer, tiny_encoder_config

LAYERS, HIDDEN, MAX_POSITIONS = 2, 32, 260
PREDICTIONS = ["def add(a, b):\n    return a + b\n", "def add(a, b): return a - b", "for i in range(10): print(i)", "",
               "class Stack:\n    pass", "def is_even(n): return n % 2"]
REFERENCES = ["def add(a, b):\n    return a + b\n"] * 2 + ["for i in range(10):\n    print(i)\n", "def f(): pass",
                                                       "class Stack:\n    def push(self, x):\n        self.items.append(x)\n",
                                                       "def is_even(n):\n    return n % 2 == 0\n"]
SOURCES = ["Write a function to add two numbers.", "Add two numbers.", "Print the numbers below ten.", "Nothing.",
           "A stack class with push.", "Check whether a number is even."]


def authors_state_dict(vocab_size: int, seed: int = 1):
    """Random weights under the authors' LightningModule key names (``encoder.model.*``, ``layerwise_attention.*``,
    ``estimator.ff{1,2,3}.*``), the unused extras included (pooler, ``hidden2tag``, ``wordloss``, dropout buffers)."""
    from transformers import RobertaModel

    torch.manual_seed(seed)
    roberta = RobertaModel(tiny_encoder_config(vocab_size, max_length=MAX_POSITIONS - 4, layers=LAYERS, hidden=HIDDEN), add_pooling_layer=True)
    with torch.no_grad():
        for name, parameter in roberta.named_parameters():
            if "LayerNorm" in name:
                parameter.uniform_(0.5, 1.5) if name.endswith("weight") else parameter.normal_(0.0, 0.5)
    state = OrderedDict((f"encoder.model.{key}", value) for key, value in roberta.state_dict().items())
    state["encoder.model.embeddings.position_ids"] = torch.arange(MAX_POSITIONS)[None]
    for k in range(LAYERS + 1):
        state[f"layerwise_attention.scalar_parameters.{k}"] = torch.tensor([0.5 * k - 0.2])
    state["layerwise_attention.gamma"] = torch.tensor([1.8])
    state["layerwise_attention.dropout_mask"] = torch.zeros(LAYERS + 1)
    state["layerwise_attention.dropout_fill"] = torch.full((LAYERS + 1,), -1e20)
    for head in ("ff2", "ff3", "ff1"):  # the authors' order: ff2/ff3 precede ff1
        for index, shape in ((0, (48, HIDDEN)), (3, (24, 48)), (6, (3, 24))):
            state[f"estimator.{head}.{index}.weight"] = torch.randn(shape) * 0.5
            state[f"estimator.{head}.{index}.bias"] = torch.randn(shape[0]) * 0.1
    state["hidden2tag.weight"] = torch.randn(2, HIDDEN)
    state["hidden2tag.bias"] = torch.zeros(2)
    state["wordloss.weight"] = torch.tensor([0.15, 0.85])
    return state


@pytest.fixture(scope="module")
def authors_files(tmp_path_factory):
    """(checkpoint path, encoder folder standing in for microsoft/unixcoder-base, raw state dict)."""
    root = tmp_path_factory.mktemp("authors")
    tokenizer = build_tiny_tokenizer()
    encoder_dir = root / "unixcoder-base"
    tiny_encoder_config(len(tokenizer), max_length=MAX_POSITIONS - 4, layers=LAYERS, hidden=HIDDEN).save_pretrained(encoder_dir)
    tokenizer.save_pretrained(encoder_dir)
    state = authors_state_dict(len(tokenizer))
    path = root / "epoch=8-step=299583-val_pearson=0.739.ckpt"
    hyper_parameters = {"pretrained_model": "microsoft/unixcoder-base", "input_segments": ["mt", "ref", "src", "src_ref"],
                        "layer": "mix", "pool": "avg"}
    torch.save({"epoch": 8, "global_step": 299583, "pytorch-lightning_version": "1.9.5", "state_dict": state,
                "loops": {}, "hyper_parameters": hyper_parameters, "hparams_name": "kwargs"}, path)
    return path, encoder_dir, state


def expected_scores(state, tokenizer, samples, order, batch_size):
    """The authors' forward pass written out from the spec: encoding of each sample's segments (generated,
    reference and/or NL), batches of ``order`` (their argsort), batch statistics, ff1."""
    from transformers import RobertaModel

    vocab_size = state["encoder.model.embeddings.word_embeddings.weight"].shape[0]
    roberta = RobertaModel(tiny_encoder_config(vocab_size, max_length=MAX_POSITIONS - 4, layers=LAYERS, hidden=HIDDEN), add_pooling_layer=True)
    roberta.load_state_dict({k[len("encoder.model."):]: v for k, v in state.items() if k.startswith("encoder.model.") and "position_ids" not in k})
    roberta.eval()
    weights = sparsemax_by_bisection(torch.cat([state[f"layerwise_attention.scalar_parameters.{k}"] for k in range(LAYERS + 1)]).double()).float()

    def encode(*texts):
        segments = [tokenizer(t, add_special_tokens=False)["input_ids"] for t in texts]
        ids = [0] + [token for segment in segments for token in segment + [2, 2]][:-1]
        return ids, [0] * (len(segments[0]) + 2) + [1] * (len(ids) - len(segments[0]) - 2)

    encoded = [encode(*texts) for texts in samples]
    scores = np.zeros((len(samples), 3))
    for start in range(0, len(order), batch_size):
        rows = order[start:start + batch_size]
        width = max(len(encoded[i][0]) for i in rows)
        ids = torch.tensor([encoded[i][0] + [1] * (width - len(encoded[i][0])) for i in rows])
        types = torch.tensor([encoded[i][1] + [1] * (width - len(encoded[i][1])) for i in rows])
        mask = (torch.arange(width)[None] < torch.tensor([len(encoded[i][0]) for i in rows])[:, None]).long()
        with torch.no_grad():
            hidden = roberta(input_ids=ids, attention_mask=mask, token_type_ids=types, output_hidden_states=True).hidden_states
        mixed = 0
        for w, h in zip(weights, hidden):
            tokens = h[mask.bool()]
            mixed = mixed + w * (h[:, 0] - tokens.mean()) / torch.sqrt(tokens.var(unbiased=False) + 1e-12)
        e = state["layerwise_attention.gamma"] * mixed
        for index in (0, 3):
            e = torch.tanh(e @ state[f"estimator.ff1.{index}.weight"].T + state[f"estimator.ff1.{index}.bias"])
        out = torch.sigmoid(e @ state["estimator.ff1.6.weight"].T + state["estimator.ff1.6.bias"])
        scores[rows] = out.numpy()
    return scores


def test_authors_checkpoint_scores_match_the_spelled_out_forward(authors_files):
    path, encoder_dir, state = authors_files
    scorer = CodeScorer(path, encoder=encoder_dir)
    result = scorer.score(PREDICTIONS, references=REFERENCES, sources=SOURCES, batch_size=4)
    expected = expected_scores(state, scorer.tokenizer, list(zip(PREDICTIONS, REFERENCES, SOURCES)),
                               np.argsort([len(s) for s in SOURCES]), batch_size=4)
    got = np.array([result.codescore, result.executability, result.passability]).T
    nonempty = [i for i, p in enumerate(PREDICTIONS) if p]
    np.testing.assert_allclose(got[nonempty], expected[nonempty], atol=1e-5)
    assert result.input_format == "ref_nl"  # from the checkpoint's input_segments
    assert "profile:reference" in result.signature and "norm:batch" in result.signature and "static:off" in result.signature
    assert result.codescore[PREDICTIONS.index("")] == 0.0


def test_ref_only_batches_follow_the_sources_as_the_authors_do(authors_files):
    path, encoder_dir, state = authors_files
    scorer = CodeScorer(path, encoder=encoder_dir)
    by_source, by_reference = [3, 1, 4, 2, 5, 0], [3, 0, 1, 2, 5, 4]  # batches of 4: {3,1,4,2} {5,0} / {3,0,1,2} {5,4}
    assert np.argsort([len(s) for s in SOURCES]).tolist() == by_source
    assert np.argsort([len(r) for r in REFERENCES]).tolist() == by_reference
    ref_only = list(zip(PREDICTIONS, REFERENCES))
    nonempty = [i for i, p in enumerate(PREDICTIONS) if p]
    for sources, order in ((SOURCES, by_source), (None, by_reference)):
        result = scorer.score(PREDICTIONS, references=REFERENCES, sources=sources, input_format="ref", batch_size=4)
        got = np.array([result.codescore, result.executability, result.passability]).T
        expected = expected_scores(state, scorer.tokenizer, ref_only, order, batch_size=4)
        np.testing.assert_allclose(got[nonempty], expected[nonempty], atol=1e-5)
        assert result.input_format == "ref"
    other_order = expected_scores(state, scorer.tokenizer, ref_only, by_reference, batch_size=4)
    assert np.abs(expected_scores(state, scorer.tokenizer, ref_only, by_source, 4) - other_order)[nonempty].max() > 1e-4
    with pytest.raises(ValueError, match="sources has 2 items but predictions has 6"):
        scorer.score(PREDICTIONS, references=REFERENCES, sources=SOURCES[:2], input_format="ref")
    with pytest.raises(ValueError, match="sources were given but input_format='ref' does not read them"):
        CodeScorer(path, encoder=encoder_dir, normalization="sample").score(
            PREDICTIONS, references=REFERENCES, sources=SOURCES, input_format="ref")


@pytest.mark.parametrize("input_format", ["ref", "nl", "ref_nl"])
@pytest.mark.parametrize("batch_size", [1, 4, 100])
def test_parity_for_every_format_and_batch_size(authors_files, input_format, batch_size):
    path, encoder_dir, state = authors_files
    scorer = CodeScorer(path, encoder=encoder_dir)
    columns = {"ref": (PREDICTIONS, REFERENCES), "nl": (PREDICTIONS, SOURCES), "ref_nl": (PREDICTIONS, REFERENCES, SOURCES)}
    references = None if input_format == "nl" else REFERENCES
    result = scorer.score(PREDICTIONS, references=references, sources=SOURCES, input_format=input_format, batch_size=batch_size)
    got = np.array([result.codescore, result.executability, result.passability]).T
    expected = expected_scores(state, scorer.tokenizer, list(zip(*columns[input_format])),
                               np.argsort([len(s) for s in SOURCES]), batch_size=batch_size)  # the authors sort by NL
    nonempty = [i for i, p in enumerate(PREDICTIONS) if p]
    np.testing.assert_allclose(got[nonempty], expected[nonempty], atol=1e-5)


def test_batch_statistics_make_scores_depend_on_the_batch(authors_files):
    path, encoder_dir, _ = authors_files
    scorer = CodeScorer(path, encoder=encoder_dir)
    together = scorer.score(PREDICTIONS, references=REFERENCES, sources=SOURCES, batch_size=6).codescore
    apart = scorer.score(PREDICTIONS, references=REFERENCES, sources=SOURCES, batch_size=1).codescore
    assert max(abs(a - b) for a, b in zip(together, apart)) > 1e-4
    per_sample = CodeScorer(path, encoder=encoder_dir, normalization="sample")
    assert per_sample.score(PREDICTIONS, references=REFERENCES, sources=SOURCES, batch_size=6).codescore == pytest.approx(
        per_sample.score(PREDICTIONS, references=REFERENCES, sources=SOURCES, batch_size=1).codescore, abs=1e-5)


def test_word_level_tags_are_deleted_like_padding(authors_files):
    path, encoder_dir, _ = authors_files
    scorer = CodeScorer(path, encoder=encoder_dir, normalization="sample")
    tagged = scorer.score(["def add(a, b):<v> return</v> a + b"], references=["x"], sources=["y"]).codescore
    plain = scorer.score(["def add(a, b): return a + b"], references=["x"], sources=["y"]).codescore
    assert tagged == pytest.approx(plain, abs=1e-6)


def test_convert_writes_a_folder_that_scores_identically(authors_files, tmp_path):
    path, encoder_dir, _ = authors_files
    assert cli_main(["convert", str(path), str(tmp_path / "converted"), "--encoder", str(encoder_dir)]) == 0
    converted = CodeScorer(tmp_path / "converted")
    original = CodeScorer(path, encoder=encoder_dir)
    assert (converted.score(PREDICTIONS, references=REFERENCES, sources=SOURCES).codescore
            == original.score(PREDICTIONS, references=REFERENCES, sources=SOURCES).codescore)
    assert converted.signature("ref") == original.signature("ref")


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda s: s.__setitem__("estimator.ff4.0.weight", torch.zeros(1)), "neither used nor known to be unused"),
        (lambda s: s.pop("estimator.ff1.3.bias"), "head.3.bias"),
        (lambda s: s.__setitem__("estimator.ff1.6.weight", torch.zeros(2, 24)), "has 2 outputs"),
        (lambda s: s.__setitem__("encoder.model.encoder.layer.0.output.dense.weight", torch.zeros(3, 3)), "wrong shape"),
    ],
)
def test_bad_checkpoints_are_refused_with_the_key_named(authors_files, tmp_path, change, message):
    from codescore_metric.authors_checkpoint import load_authors_checkpoint

    _, encoder_dir, state = authors_files
    state = OrderedDict(state)
    change(state)
    path = tmp_path / "bad.ckpt"
    torch.save({"state_dict": state}, path)
    with pytest.raises(ValueError, match=message):
        load_authors_checkpoint(path, encoder_dir)


def test_not_a_lightning_checkpoint(tmp_path):
    from codescore_metric.authors_checkpoint import read_authors_state

    torch.save({"weights": {}}, tmp_path / "x.ckpt")
    with pytest.raises(ValueError, match="no 'state_dict'"):
        read_authors_state(tmp_path / "x.ckpt")


def test_missing_encoder_offline_says_how_to_get_it(authors_files):
    path, _, _ = authors_files
    with pytest.raises(OSError, match="hf download microsoft/unixcoder-base"):
        CodeScorer(path, local_files_only=True)


def test_cli_ref_only_in_batch_mode_orders_by_the_file_sources(authors_files, tmp_path):
    import json

    path, encoder_dir, _ = authors_files
    rows = [{"generated_code": p, "golden_code": r, "source": s} for p, r, s in zip(PREDICTIONS, REFERENCES, SOURCES)]
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(row) + "\n" for row in rows))
    out = tmp_path / "out.jsonl"
    assert cli_main(["score", str(source), "--checkpoint", str(path), "--encoder", str(encoder_dir), "--format", "ref",
                     "--batch-size", "4", "-o", str(out), "--no-progress"]) == 0
    written = [json.loads(line)["codescore"] for line in out.read_text().splitlines()]
    expected = CodeScorer(path, encoder=encoder_dir).score(PREDICTIONS, references=REFERENCES, sources=SOURCES,
                                                           input_format="ref", batch_size=4).codescore
    assert written == pytest.approx(expected, abs=1e-7)
