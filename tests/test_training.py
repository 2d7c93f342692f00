"""UniCE training: loss, learning-rate groups, data checks, and a tiny end-to-end run through the CLI."""

import json
import math

import pytest
import torch

from codescore_metric.cli import main
from codescore_metric.training.examples import check_rows
from codescore_metric.training.objective import LossWeights, unice_loss
from codescore_metric.training.optimizer import parameter_groups
from codescore_metric.training.trainer import TrainingArguments, training_rows
from tests.tiny_model import CORPUS, build_tiny_model, build_tiny_tokenizer, tiny_encoder_config


def test_loss_is_squared_error_plus_bce_on_logits():
    logits = torch.tensor([[0.0, 2.0, -1.0], [1.0, -3.0, 0.5]])
    pass_ratio, executable, all_pass = torch.tensor([0.5, 1.0]), torch.tensor([1.0, 0.0]), torch.tensor([0.0, 1.0])
    sigmoid = lambda x: 1 / (1 + math.exp(-x))
    bce = lambda z, y: -(y * math.log(sigmoid(z)) + (1 - y) * math.log(1 - sigmoid(z)))
    expected = ((sigmoid(0.0) - 0.5) ** 2 + (sigmoid(1.0) - 1.0) ** 2) / 2
    expected += (bce(2.0, 1) + bce(-3.0, 0)) / 2 + 0.5 * (bce(-1.0, 0) + bce(0.5, 1)) / 2
    got = unice_loss(logits, pass_ratio, executable, all_pass, LossWeights(1.0, 1.0, 0.5))
    assert float(got) == pytest.approx(expected, rel=1e-6)


def test_layer_decay_gives_the_top_layer_the_largest_rate_and_can_freeze_embeddings():
    model, _ = build_tiny_model()
    groups = parameter_groups(model, encoder_lr=1.0, head_lr=10.0, layer_decay=0.5, freeze_embeddings=True)
    rate = {id(p): g["lr"] for g in groups for p in g["params"]}
    named = dict(model.named_parameters())
    assert rate[id(named["encoder.encoder.layer.1.output.dense.weight"])] == 1.0
    assert rate[id(named["encoder.encoder.layer.0.output.dense.weight"])] == 0.5
    assert rate[id(named["mix.gamma"])] == 10.0
    assert not named["encoder.embeddings.word_embeddings.weight"].requires_grad
    assert id(named["encoder.embeddings.word_embeddings.weight"]) not in rate
    decay = {id(p): g["weight_decay"] for g in groups for p in g["params"]}
    assert decay[id(named["encoder.encoder.layer.0.output.dense.bias"])] == 0.0


def test_frozen_layers_freeze_the_embeddings_and_the_bottom_layers_only():
    model, _ = build_tiny_model()
    groups = parameter_groups(model, encoder_lr=1.0, head_lr=10.0, frozen_layers=1)
    trained = {id(p) for g in groups for p in g["params"]}
    named = dict(model.named_parameters())
    for name in ("encoder.embeddings.word_embeddings.weight", "encoder.encoder.layer.0.output.dense.weight"):
        assert not named[name].requires_grad and id(named[name]) not in trained
    assert named["encoder.encoder.layer.1.output.dense.weight"].requires_grad and id(named["mix.gamma"]) in trained
    with pytest.raises(ValueError, match="frozen_layers must be between 0 and"):
        parameter_groups(build_tiny_model()[0], 1.0, 1.0, frozen_layers=99)


def test_per_task_sample_keeps_at_most_n_rows_of_each_task_whatever_the_order():
    rows = make_rows(30, 0)  # tasks t0..t4, 6 rows each
    sample = check_rows(rows, "rows").per_task_sample(4, seed=1)
    assert sorted(sample.task_ids.count(t) for t in set(sample.task_ids)) == [4] * 5
    shuffled = check_rows(rows[::-1], "rows").per_task_sample(4, seed=1)
    assert sorted(zip(sample.task_ids, sample.texts["prediction"])) == sorted(zip(shuffled.task_ids, shuffled.texts["prediction"]))
    assert len(check_rows(rows, "rows").per_task_sample(10, seed=1)) == 30


def test_skip_certain_leaves_out_the_rows_the_static_checks_decide():
    reference = "import math\ndef hyp(a, b):\n    return math.sqrt(a * a + b * b)\n"
    programs = {"estimated": "def hyp(a, b):\n    return (a * a + b * b) ** 0.5\n",
                "syntax_error": "def hyp(a, b)\n    return a\n",
                "unbound_name": "def hyp(a, b):\n    return math.sqrt(a * a + b * b)\n",
                "same_as_reference": reference,
                "also estimated": "import math\ndef hyp(a, b):\n    return math.hypot(b, a)\n",
                "executability estimated": "import math\ndef hyp(a, b):\n    print(math.hypot(a, b))\n"}
    rows = [{"task_id": "t0", "generated_code": code, "golden_code": reference, "source": "Hypotenuse.", "pass_ratio": 1.0,
             "executable": True, "all_pass": True, "kind": kind} for kind, code in programs.items()]
    examples = check_rows(rows, "rows")
    kept, changed = training_rows(examples, TrainingArguments(output_dir="x", skip_certain=True))
    assert changed["certain_train_rows_skipped"] == 3
    # a function returning nothing has certain CodeScore and Passability, but the model still estimates Executability
    assert kept.kinds == ["estimated", "also estimated", "executability estimated"] and kept.task_ids == ["t0"] * 3
    assert kept.labels.shape == (3, 3) and kept.texts["source"] == ["Hypotenuse."] * 3
    assert len(training_rows(examples, TrainingArguments(output_dir="x"))[0]) == 6  # off by default


def test_the_data_seed_decides_which_rows_are_trained_and_defaults_to_the_seed():
    rows = [{"task_id": f"t{index % 5}", "generated_code": f"def add(a, b):\n    total = a + b\n    return total + {index} - {index}\n",
             "golden_code": "def add(a, b):\n    return a + b\n", "source": "Add two numbers.", "pass_ratio": 1.0,
             "executable": True, "all_pass": True} for index in range(40)]
    examples = check_rows(rows, "rows")

    def trained(**seeds):
        sample, changed = training_rows(examples, TrainingArguments(output_dir="unused", max_per_task=3, rename_fraction=0.5, **seeds))
        return sample.texts["prediction"], changed["renamed_train_predictions"]

    assert len(trained(seed=1)[0]) == 15 and trained(seed=1)[1] > 0
    assert trained(seed=1, data_seed=7) == trained(seed=2, data_seed=7) == trained(seed=7)
    assert trained(seed=1) != trained(seed=2)


def test_renamed_predictions_keep_labels_tasks_and_unparsable_code():
    examples = check_rows(make_rows(30, 0), "rows")
    none, count_none = examples.with_renamed_predictions(0.0, seed=1)
    assert count_none == 0 and none.texts == examples.texts
    every, count = examples.with_renamed_predictions(1.0, seed=1)
    parsable = [code for code in examples.texts["prediction"] if code.startswith("def ")]
    assert count == len(parsable) > 0
    for before, after in zip(examples.texts["prediction"], every.texts["prediction"]):
        assert (after != before) == before.startswith("def ")  # "print(" does not parse, "class Stack: pass" has no names
        if before.startswith("def "):
            assert after.startswith("def add(") and not {"a", "b"} & set(after.split("(")[1].split(")")[0].split(", "))
    assert torch.equal(every.labels, examples.labels) and every.task_ids == examples.task_ids
    assert every.texts["reference"] == examples.texts["reference"]
    distinct = check_rows([{**row, "generated_code": f"def add(a, b):\n    return a + b + {i}\n"} for i, row in enumerate(make_rows(40, 0))], "rows")
    half, count_half = distinct.with_renamed_predictions(0.5, seed=1)
    assert 10 < count_half < 30 and half.texts == distinct.with_renamed_predictions(0.5, seed=1)[0].texts  # a seeded choice
    assert half.texts != distinct.with_renamed_predictions(0.5, seed=2)[0].texts
    with pytest.raises(ValueError, match="between 0 and 1"):
        examples.with_renamed_predictions(1.5, seed=1)
    with pytest.raises(ValueError, match=r"rename_fraction \(--rename-fraction\) must be between 0 and 1"):
        TrainingArguments(output_dir="x", rename_fraction=-0.1)


def test_alternative_references_are_other_correct_programs_of_the_same_task():
    reference = "def add(a, b):\n    return a + b\n"
    rows = [{"task_id": task, "generated_code": code, "golden_code": reference if task == "t0" else "def sub(a, b):\n    return a - b\n",
             "source": "Add two numbers.", "pass_ratio": ratio, "executable": True, "all_pass": ratio == 1.0}
            for task, code, ratio in [("t0", reference, 1.0), ("t0", "def add(x, y):\n    return y + x\n", 1.0),
                                      ("t0", "def add(a, b):\n    return sum((a, b))\n", 1.0),
                                      ("t0", "def add(a, b):\n    return a - b\n", 0.2),
                                      ("t1", "def sub(a, b):\n    return a + b\n", 0.0)]]
    examples = check_rows(rows, "rows")
    every, count = examples.with_alternative_references(1.0, seed=3)
    correct = {rows[1]["generated_code"], rows[2]["generated_code"]}
    assert count == 4  # every row of t0; t1 has no correct program but its reference
    for row, new in zip(rows, every.texts["reference"]):
        if row["task_id"] == "t1":
            assert new == row["golden_code"]
        else:
            assert new in correct and new != row["generated_code"]  # never the row's own program
    assert every.texts["prediction"] == examples.texts["prediction"] and torch.equal(every.labels, examples.labels)
    none, zero = examples.with_alternative_references(0.0, seed=3)
    assert zero == 0 and none.texts == examples.texts
    assert every.texts == examples.with_alternative_references(1.0, seed=3)[0].texts  # a seeded choice
    many = check_rows([{**rows[3], "generated_code": f"def add(a, b):\n    return a - b + {i}\n"} for i in range(60)] + rows[:3], "rows")
    count_half = many.with_alternative_references(0.5, seed=1)[1]
    assert 15 < count_half < 45
    with pytest.raises(ValueError, match="between 0 and 1"):
        examples.with_alternative_references(2.0, seed=1)
    with pytest.raises(ValueError, match=r"--alternative-references\) must be between 0 and 1"):
        TrainingArguments(output_dir="x", alternative_reference_fraction=-1)
    changed = training_rows(examples, TrainingArguments(output_dir="x", alternative_reference_fraction=1.0))[1]
    assert changed == {"certain_train_rows_skipped": 0, "alternative_train_references": 4, "renamed_train_predictions": 0}
    kinds = ["reference", "generation", "generation", "mutant", "mutant"]
    kinded = check_rows([{**row, "kind": kind} for row, kind in zip(rows, kinds)], "rows")
    only_real, count_real = kinded.with_alternative_references(1.0, seed=3, kinds=("generation",))
    assert count_real == 2 and only_real.kinds == kinds
    assert [new != row["golden_code"] for row, new in zip(rows, only_real.texts["reference"])] == [False, True, True, False, False]
    kind_of, sample = dict(zip(kinded.texts["prediction"], kinds)), kinded.per_task_sample(2, seed=1)
    assert len(sample) == 3 and sample.kinds == [kind_of[code] for code in sample.texts["prediction"]]  # kinds follow their rows
    with pytest.raises(ValueError, match="need a kind on every row"):
        examples.with_alternative_references(1.0, seed=3, kinds=("generation",))


def test_rows_are_checked_with_the_row_and_field_named():
    good = {"generated_code": "x", "golden_code": "y", "source": "z", "pass_ratio": 0.5, "executable": True, "all_pass": 0}
    assert check_rows([good], "data").labels.tolist() == [[0.5, 1.0, 0.0]]
    with pytest.raises(ValueError, match="row 1: field 'pass_ratio' must be a number in"):
        check_rows([good, {**good, "pass_ratio": 1.5}], "data")
    with pytest.raises(ValueError, match="row 0: field 'source' must be a string"):
        check_rows([{**good, "source": None}], "data")


def make_rows(count, seed):
    import random

    rng = random.Random(seed)
    rows = []
    for index in range(count):
        right = rng.random() < 0.5
        code = "def add(a, b):\n    return a + b\n" if right else rng.choice(["def add(a, b):\n    return a - b\n", "print(", "class Stack: pass"])
        ratio = 1.0 if right else rng.choice([0.0, 0.3])
        rows.append({"task_id": f"t{index % 5}", "generated_code": code, "golden_code": "def add(a, b):\n    return a + b\n",
                     "source": "Add two numbers.", "pass_ratio": ratio, "executable": code != "print(", "all_pass": right})
    return rows


@pytest.fixture
def backbone_dir(tmp_path):
    """A tiny 'pretrained' RoBERTa encoder saved the transformers way."""
    from transformers import RobertaModel

    tokenizer = build_tiny_tokenizer()
    torch.manual_seed(0)
    path = tmp_path / "backbone"
    RobertaModel(tiny_encoder_config(len(tokenizer), max_length=64)).save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


def test_tiny_end_to_end_training_learns_and_saves_a_loadable_model(tmp_path, backbone_dir):
    for split, count, seed in (("train", 32, 0), ("validation", 16, 1)):
        (tmp_path / f"{split}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in make_rows(count, seed)))
    output = tmp_path / "model"
    args = ["train", "--train", str(tmp_path / "train.jsonl"), "--validation", str(tmp_path / "validation.jsonl"),
            "--backbone", str(backbone_dir), "--output", str(output), "--epochs", "4", "--batch-size", "8",
            "--head-hidden", "16", "--encoder-lr", "1e-3", "--head-lr", "3e-3", "--model-id", "tiny-trained", "--patience", "4"]
    assert main(args) == 0
    history = json.loads((output / "training_history.json").read_text())
    losses = [point["train_loss"] for point in history["evaluations"]]
    assert losses[-1] < losses[0]
    best = history["evaluations"][history["best_evaluation"] - 1]["validation"]
    assert set(best) == {"ref", "nl", "ref_nl"} and best["ref"]["spearman"] > 0.5

    from codescore_metric import CodeScorer

    scorer = CodeScorer(output)
    assert "model:tiny-trained@local" in scorer.signature()
    right, wrong = scorer.score(["def add(a, b):\n    return a + b\n", "print("], references=["def add(a, b):\n    return a + b\n"] * 2).codescore
    assert right > wrong

    evaluation = tmp_path / "validation.json"
    assert main(["meta-eval", str(tmp_path / "validation.jsonl"), "--checkpoint", str(output), "--no-codebleu",
                 "--json", str(evaluation), "--no-progress"]) == 0
    assert main(["model-card", str(output), "--evaluation", f"MBPP validation={evaluation}", "--notes", "tiny run"]) == 0
    card = (output / "README.md").read_text()
    assert "# tiny-trained" in card and "### Validation (best point)" in card and "### Learning curve" in card and "tiny run" in card
    assert "## MBPP validation" in card and "| CodeScore (Ref&NL) |" in card and "| BLEU |" in card
    heads = {h["name"]: h for h in json.loads(evaluation.read_text())["heads"]}
    assert "| Executability head (Ref-only) | " in card and f"| {heads['Executability head (Ref-only)']['auc']:.4f} |" in card
    assert "| AUC within task |" in card and f"| {heads['Passability head (Ref&NL)']['within_task_auc']:.4f} |" in card
    # the learning curve's head AUCs are those of the saved model: meta-eval measures the same numbers
    for fmt, label in (("ref", "Ref-only"), ("ref_nl", "Ref&NL")):
        for head, name in (("exec_auc", "Executability"), ("pass_auc", "Passability")):
            assert best[fmt][head] == pytest.approx(heads[f"{name} head ({label})"]["auc"], abs=1e-9)
    assert "| Exec AUC | Pass AUC |" in card


def test_training_is_reproducible(tmp_path, backbone_dir):
    (tmp_path / "t.jsonl").write_text("".join(json.dumps(r) + "\n" for r in make_rows(16, 0)))
    results = []
    for run in ("a", "b"):
        args = ["train", "--train", str(tmp_path / "t.jsonl"), "--validation", str(tmp_path / "t.jsonl"), "--backbone", str(backbone_dir),
                "--output", str(tmp_path / run), "--epochs", "1", "--batch-size", "8", "--head-hidden", "8", "--seed", "3"]
        assert main(args) == 0
        results.append(json.loads((tmp_path / run / "training_history.json").read_text())["evaluations"][0])
    assert results[0]["train_loss"] == results[1]["train_loss"]
    assert results[0]["validation"] == results[1]["validation"]


def test_data_arguments_are_checked(tmp_path, capsys):
    assert main(["train", "--train", "x.jsonl", "--backbone", "b", "--output", str(tmp_path)]) == 2
    assert "give either --data FOLDER or both --train and --validation" in capsys.readouterr().err


def test_pretrain_encoder_gives_a_backbone_that_train_accepts(tmp_path):
    import sysconfig
    from pathlib import Path

    from codescore_metric.training.backbone import model_from_backbone

    sources = tmp_path / "src"
    sources.mkdir()
    for name in ("textwrap.py", "bisect.py", "colorsys.py"):
        (sources / name).write_text((Path(sysconfig.get_paths()["stdlib"]) / name).read_text())
    args = ["pretrain-encoder", "--output", str(tmp_path / "encoder"), "--source-dir", str(sources), "--vocab-size", "500",
            "--layers", "1", "--hidden", "32", "--heads", "2", "--sequence-length", "64", "--batch-size", "4", "--max-steps", "3"]
    assert main(args) == 0
    model, tokenizer = model_from_backbone(str(tmp_path / "encoder"), max_length=64, head_hidden_sizes=[8])
    assert model.config.separator_tokens == 2 and model.config.segment_token_types
    assert "\n    " in tokenizer.decode(tokenizer("def f():\n    return 1")["input_ids"])  # indentation survives
    assert model.config.provenance["backbone"] == str(tmp_path / "encoder")
    named, _ = model_from_backbone(str(tmp_path / "encoder"), max_length=64, name="org/encoder", strip_code_comments=True,
                                  canonical_names=True)
    assert named.config.provenance["backbone"] == named.config.encoder["_name_or_path"] == "org/encoder"
    assert named.config.strip_code_comments and named.config.canonical_names and str(tmp_path) not in json.dumps(named.config.to_dict())


def test_masked_lm_loss_on_masked_positions_equals_the_full_head():
    from transformers import RobertaConfig, RobertaForMaskedLM

    from codescore_metric.training.pretrain import masked_lm_loss

    torch.manual_seed(0)
    model = RobertaForMaskedLM(RobertaConfig(vocab_size=50, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                                             intermediate_size=32, max_position_embeddings=40, pad_token_id=1)).eval()
    ids = torch.randint(5, 50, (3, 20))
    labels = ids.clone()
    labels[torch.rand(3, 20) > 0.3] = -100
    with torch.no_grad():
        assert float(masked_lm_loss(model, ids, labels)) == pytest.approx(float(model(input_ids=ids, labels=labels).loss), rel=1e-6)


def test_training_jsonl_errors_name_the_line(tmp_path):
    from codescore_metric.training.examples import load_split

    rows = make_rows(2, 0)
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(rows[0]) + "\n" + json.dumps({**rows[1], "pass_ratio": 2}) + "\n")
    with pytest.raises(ValueError, match=r"t.jsonl:2: field 'pass_ratio'"):
        load_split(path, "train")
    path.write_text("".join(json.dumps({k: v for k, v in row.items() if k != "all_pass"}) + "\n" for row in rows))
    with pytest.raises(ValueError, match="has no all_pass field"):
        load_split(path, "train")


def test_within_task_ranking_loss_counts_only_ordered_pairs_of_one_task():
    import torch

    from codescore_metric.training.objective import within_task_ranking_loss

    logits = torch.tensor([2.0, 0.0, 5.0, -5.0])
    ratios = torch.tensor([1.0, 0.5, 0.0, 0.0])
    groups = torch.tensor([0, 0, 1, 1])
    # one ordered pair (0 over 1, gap 0.5); task 1 has equal ratios, and pairs across tasks never count
    expected = torch.nn.functional.softplus(torch.tensor(-2.0))
    assert torch.isclose(within_task_ranking_loss(logits, ratios, groups), expected)
    swapped = within_task_ranking_loss(torch.tensor([0.0, 2.0, 5.0, -5.0]), ratios, groups)
    assert swapped > within_task_ranking_loss(logits, ratios, groups)
    assert within_task_ranking_loss(logits, ratios, torch.tensor([0, 1, 2, 3])) == 0


def test_contrary_pairs_weigh_more_in_the_ranking_loss():
    import torch
    from torch.nn.functional import softplus

    from codescore_metric.training.objective import within_task_ranking_loss

    logits = torch.tensor([0.0, 1.0, 0.5])
    ratios = torch.tensor([1.0, 0.0, 0.5])
    groups = torch.zeros(3, dtype=torch.long)
    distance = torch.tensor([5, 1, 5])  # candidate 0 passes but is far from the reference; 1 is a failing near copy
    # pairs (better, worse, gap): (0, 1, 1.0) contrary, (0, 2, 0.5) equally far, (2, 1, 0.5) contrary
    pair = {(0, 1): softplus(torch.tensor(1.0)), (0, 2): softplus(torch.tensor(0.5)), (2, 1): softplus(torch.tensor(0.5))}
    weights = {(0, 1): 1.0 * 4, (0, 2): 0.5, (2, 1): 0.5 * 4}
    expected = sum(weights[k] * pair[k] for k in pair) / sum(weights.values())
    assert torch.isclose(within_task_ranking_loss(logits, ratios, groups, distance, 3.0), expected)
    plain = sum({(0, 1): 1.0, (0, 2): 0.5, (2, 1): 0.5}[k] * pair[k] for k in pair) / 2.0
    assert torch.isclose(within_task_ranking_loss(logits, ratios, groups, distance, 0.0), plain)
    assert torch.isclose(within_task_ranking_loss(logits, ratios, groups), plain)


def test_pairs_that_both_run_weigh_more_in_the_ranking_loss():
    import torch
    from torch.nn.functional import softplus

    from codescore_metric.training.objective import within_task_ranking_loss

    logits = torch.tensor([0.0, 1.0, 0.5])
    ratios = torch.tensor([1.0, 0.0, 0.5])
    groups = torch.zeros(3, dtype=torch.long)
    executable = torch.tensor([1.0, 0.0, 1.0])  # 1 crashes; 0 and 2 run every test, 2 failing half of them
    pair = {(0, 1): softplus(torch.tensor(1.0)), (0, 2): softplus(torch.tensor(0.5)), (2, 1): softplus(torch.tensor(0.5))}
    weights = {(0, 1): 1.0, (0, 2): 0.5 * 3, (2, 1): 0.5}  # only (0, 2) is a pair of two running programs
    expected = sum(weights[k] * pair[k] for k in pair) / sum(weights.values())
    assert torch.isclose(within_task_ranking_loss(logits, ratios, groups, executable=executable, running_weight=2.0), expected)
    plain = within_task_ranking_loss(logits, ratios, groups)
    assert torch.isclose(within_task_ranking_loss(logits, ratios, groups, executable=executable), plain)
    assert not torch.isclose(expected, plain)


@pytest.mark.parametrize("name", ["contrary_pair_weight", "running_pair_weight", "pass_ranking_weight"])
def test_ranking_pair_weights_need_the_ranking_loss_and_are_not_negative(name):
    flag = "--" + name.replace("_", "-")
    with pytest.raises(ValueError, match=rf"{name} \({flag}\) must be at least 0 and needs ranking_weight; got 1.0 with ranking_weight 0.0"):
        TrainingArguments(output_dir="x", **{name: 1.0})
    with pytest.raises(ValueError, match=rf"{name} \({flag}\) must be at least 0"):
        TrainingArguments(output_dir="x", ranking_weight=1.0, task_group_size=4, **{name: -1.0})
    assert getattr(TrainingArguments(output_dir="x", ranking_weight=1.0, task_group_size=4, **{name: 2.0}), name) == 2.0


def test_task_batches_group_candidates_of_one_task(backbone_dir):
    import random

    from transformers import AutoTokenizer

    from codescore_metric.encoding import EncodingSpec
    from codescore_metric.formats import InputFormat
    from codescore_metric.training.examples import FormatBatches, check_rows

    rows = make_rows(30, 0)  # tasks t0..t4, 6 candidates each
    data = FormatBatches(check_rows(rows, "rows"), AutoTokenizer.from_pretrained(backbone_dir), EncodingSpec(max_length=64),
                         (InputFormat.REF,))
    batches = data.task_batches(8, 4, random.Random(0))
    assert sorted(i for batch in batches for i in batch) == list(range(30))  # every example once
    for batch in batches:
        tasks = [rows[i]["task_id"] for i in batch]
        assert all(tasks.count(task) >= 2 for task in tasks)  # nobody is alone with its task
        assert data.group_ids(batch).tolist() == [sorted(set(tasks), key=tasks.index).index(t) for t in tasks]


def test_spread_task_batches_put_better_and_worse_candidates_of_a_task_together(backbone_dir):
    import random

    from transformers import AutoTokenizer

    from codescore_metric.encoding import EncodingSpec
    from codescore_metric.formats import InputFormat
    from codescore_metric.training.examples import FormatBatches, check_rows

    rows = make_rows(40, 3)  # tasks t0..t4, 8 candidates each, about half of them passing
    data = FormatBatches(check_rows(rows, "rows"), AutoTokenizer.from_pretrained(backbone_dir), EncodingSpec(max_length=64),
                         (InputFormat.REF,))
    batches = data.task_batches(8, 4, random.Random(0), mix="spread")
    assert sorted(i for batch in batches for i in batch) == list(range(40))
    for batch in batches:
        for group in (batch[:4], batch[4:]):
            task = rows[group[0]]["task_id"]
            assert all(rows[i]["task_id"] == task for i in group)
            ratios = sorted(rows[i]["pass_ratio"] for i in range(40) if rows[i]["task_id"] == task)
            # one member of each stratum: the group's lowest is in the task's bottom two, its highest in the top two
            assert min(rows[i]["pass_ratio"] for i in group) <= ratios[1] and max(rows[i]["pass_ratio"] for i in group) >= ratios[-2]
    with pytest.raises(ValueError, match="task group mix must be one of random, spread; got 'sorted'"):
        data.task_batches(8, 4, random.Random(0), mix="sorted")


def test_spread_groups_take_one_member_of_every_stratum():
    import random

    from codescore_metric.training.grouping import cut_groups, spread_groups

    ratios = [1.0] * 10 + [0.0, 0.2, 0.0, 0.5]  # four failing candidates among fourteen
    groups = spread_groups(list(range(14)), 4, ratios, random.Random(1))
    assert sorted(len(group) for group in groups) == [3, 3, 4, 4] and sorted(i for group in groups for i in group) == list(range(14))
    assert all(sum(ratios[i] < 1 for i in group) == 1 for group in groups)  # every group has a pair to rank
    assert spread_groups([7, 3], 4, {7: 1.0, 3: 0.0}, random.Random(0)) == [[3, 7]]
    assert cut_groups([1, 2, 3, 4, 5], 4) == [[1, 2, 3, 4, 5]] and cut_groups([1, 2, 3, 4, 5, 6], 4) == [[1, 2, 3, 4], [5, 6]]


def test_ranking_objective_trains_end_to_end(tmp_path, backbone_dir):
    (tmp_path / "t.jsonl").write_text("".join(json.dumps(r) + "\n" for r in make_rows(24, 0)))
    output = tmp_path / "ranked"
    args = ["train", "--train", str(tmp_path / "t.jsonl"), "--validation", str(tmp_path / "t.jsonl"), "--backbone", str(backbone_dir),
            "--output", str(output), "--epochs", "2", "--batch-size", "8", "--head-hidden", "8", "--ranking-weight", "1",
            "--task-group-size", "4", "--eval-every", "2", "--pooling", "mean", "--select-metric", "balanced", "--rename-fraction", "1",
            "--canonical-names", "--ema-decay", "0.9", "--data-seed", "5", "--task-group-mix", "spread",
            "--contrary-pair-weight", "2", "--nested-passability", "--strip-annotations", "--running-pair-weight", "1",
            "--pass-ranking-weight", "0.5"]
    assert main(args) == 0
    history = json.loads((output / "training_history.json").read_text())
    assert history["renamed_train_predictions"] == sum(row["generated_code"].startswith("def ") for row in make_rows(24, 0))
    assert [point["steps"] for point in history["evaluations"]] == [2, 4, 6]  # every 2 steps of 3 per epoch, and the last
    assert "within_task_tau" in history["evaluations"][0]["validation"]["ref_nl"]
    config = json.loads((output / "config.json").read_text())
    assert config["pooling"] == "mean" and config["canonical_names"] and config["provenance"]["best_step"] in (2, 4, 6)
    assert config["nested_passability"] is True and config["strip_annotations"] is True
    from codescore_metric.training.model_card import model_card

    saved = json.loads((output / "training_args.json").read_text())
    assert saved["ema_decay"] == 0.9 and saved["data_seed"] == 5 and saved["seed"] == 12 and saved["task_group_mix"] == "spread"
    card = model_card(output, {})
    assert saved["contrary_pair_weight"] == 2
    assert saved["running_pair_weight"] == 1 and saved["pass_ranking_weight"] == 0.5
    assert ("(batches of 4 candidates per task, each group spread over the task's PassRatios, pairs whose better "
            "candidate is the farther from the reference weighted 3x, pairs of candidates that both run weighted 2x)"
            " + 0.5 x the same loss on the Passability logit") in card
    assert "exponential moving average of the trained ones (decay 0.9 per step)" in card and "seed 12, data seed 5," in card
    assert "; Passability = Executability x the Passability head (which learns passing given running)" in card
    assert "type annotations of parameters, return values and locals dropped" in card


def test_moving_average_weights_each_update_by_the_decay_and_keeps_integer_buffers():
    from codescore_metric.training.trainer import _moving_average

    model, _ = build_tiny_model()
    assert _moving_average(model, 0.0) is None
    average = _moving_average(model, 0.75)
    weight = dict(model.named_parameters())["mix.gamma"]
    for value in (2.0, 6.0, 10.0):
        with torch.no_grad():
            weight.fill_(value)
        average.update_parameters(model)
    averaged = dict(average.module.named_parameters())["mix.gamma"]
    assert torch.allclose(averaged, torch.full_like(averaged, (2.0 * 0.75 + 6.0 * 0.25) * 0.75 + 10.0 * 0.25))  # the first update copies
    assert torch.equal(average.module.encoder.embeddings.position_ids, model.encoder.embeddings.position_ids)
    with pytest.raises(ValueError, match=r"ema_decay \(--ema-decay\) must be at least 0 and below 1"):
        TrainingArguments(output_dir="x", ema_decay=1.0)


def test_with_ema_the_saved_model_is_the_evaluated_average_not_the_trained_weights(tmp_path, backbone_dir):
    from codescore_metric.modeling import UniCEModel
    from codescore_metric.training.backbone import model_from_backbone
    from codescore_metric.training.trainer import evaluate, train

    examples = check_rows(make_rows(24, 0), "rows")
    torch.manual_seed(0)
    model, tokenizer = model_from_backbone(str(backbone_dir), head_hidden_sizes=[8])
    args = TrainingArguments(output_dir=str(tmp_path / "ema"), epochs=1, batch_size=8, encoder_lr=1e-3, head_lr=3e-3, ema_decay=0.5,
                             patience=5, frozen_layers=1)
    history = train(model, tokenizer, examples, examples, args)
    saved = UniCEModel.from_pretrained(tmp_path / "ema")
    trained, kept = dict(model.named_parameters()), dict(saved.named_parameters())
    assert len(history["evaluations"]) == 1  # one point, after the last of 3 steps: without EMA it would hold the trained weights
    assert not torch.equal(kept["mix.gamma"], trained["mix.gamma"])
    frozen = "encoder.embeddings.word_embeddings.weight"
    assert torch.equal(kept[frozen], trained[frozen])
    best = history["evaluations"][history["best_evaluation"] - 1]["validation"]
    assert evaluate(saved, tokenizer, examples, args.formats)["ref_nl"]["spearman"] == pytest.approx(best["ref_nl"]["spearman"])


def test_learning_rate_warms_up_from_zero_then_decays_to_zero_at_the_last_step():
    from codescore_metric.training.optimizer import linear_schedule

    optimizer = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=2.0)
    scheduler = linear_schedule(optimizer, warmup_ratio=0.25, total_steps=8)  # int(0.25 * 8) = 2 warm-up steps
    rates = []
    for _ in range(9):
        rates.append(optimizer.param_groups[0]["lr"])  # the rate of the next optimizer step
        optimizer.step()
        scheduler.step()
    # step 0 at 0, full rate at the end of warm-up (step 2), then linear decay: the last step (7) gets 1/6, after it 0
    assert rates == pytest.approx([0.0, 1.0, 2.0, 2.0 * 5 / 6, 2.0 * 4 / 6, 2.0 * 3 / 6, 2.0 * 2 / 6, 2.0 / 6, 0.0])
    # The schedule this replaced warmed up one step earlier, (step + 1) / warm-up steps (1.0, 2.0 at steps 0 and 1);
    # from the end of warm-up on the two are the same.
    old = [2.0 * min((step + 1) / 2, (8 - step) / 6) for step in range(9)]
    assert rates[2:] == pytest.approx(old[2:]) and rates[1:3] == pytest.approx(old[0:2])


def test_learning_rate_without_warm_up_starts_at_the_base_rate():
    from codescore_metric.training.optimizer import linear_schedule

    optimizer = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=1.0)
    scheduler = linear_schedule(optimizer, warmup_ratio=0.1, total_steps=4)  # int(0.4) = 0 warm-up steps
    rates = []
    for _ in range(4):
        rates.append(optimizer.param_groups[0]["lr"])
        optimizer.step()
        scheduler.step()
    assert rates == pytest.approx([1.0, 0.75, 0.5, 0.25])


def test_pretraining_masks_like_bert_and_never_masks_special_tokens():
    from codescore_metric.training.pretrain import masker, token_blocks

    tokenizer = build_tiny_tokenizer()
    blocks = token_blocks(CORPUS * 20, tokenizer, 32)
    before = blocks.clone()
    inputs, labels = masker(tokenizer, 0.15, seed=3)(blocks)
    assert torch.equal(blocks, before)  # the blocks are not changed in place
    chosen = labels != -100
    assert torch.equal(labels[chosen], blocks[chosen])  # a label is the original token, only where one was picked
    special = torch.isin(blocks, torch.tensor(tokenizer.all_special_ids))
    assert not (chosen & special).any() and torch.equal(inputs[~chosen], blocks[~chosen])
    assert 0.12 < chosen.sum() / (~special).sum() < 0.18
    masked = (inputs == tokenizer.mask_token_id) & chosen
    assert 0.7 < masked.sum() / chosen.sum() < 0.9  # 80% <mask>, the rest random or kept
    again, again_labels = masker(tokenizer, 0.15, seed=3)(blocks)
    assert torch.equal(again, inputs) and torch.equal(again_labels, labels)  # seeded


def test_training_does_not_import_the_meta_evaluation():
    import subprocess
    import sys

    code = ("import sys, codescore_metric.training.trainer, codescore_metric.training.examples, "
            "codescore_metric.training.model_card, codescore_metric.training.pretrain\n"
            "assert not [name for name in sys.modules if name.startswith('codescore_metric.metaeval')], sorted(sys.modules)")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_model_card_command_checks_its_evaluations(tmp_path, capsys):
    assert main(["model-card", str(tmp_path), "--evaluation", "no-equals-sign"]) == 2
    assert "--evaluation takes TITLE=PATH" in capsys.readouterr().err


def test_balanced_heads_averages_spearman_within_task_tau_and_both_heads_as_rank_correlations():
    from codescore_metric.training.selection import selection_value

    point = {"spearman": 0.6, "within_task_tau": 0.4, "exec_auc": 0.9, "pass_auc": 0.75, "mae": 0.2}
    other = dict(point, spearman=0.2, pass_auc=0.5)
    assert selection_value({"ref": point}, "balanced_heads") == pytest.approx((0.6 + 0.4 + 0.8 + 0.5) / 4)
    assert selection_value({"ref": point, "nl": other}, "balanced_heads") == pytest.approx(((0.6 + 0.4 + 0.8 + 0.5) + (0.2 + 0.4 + 0.8)) / 8)
    assert selection_value({"ref": point}, "balanced") == pytest.approx(0.5)
    assert selection_value({"ref": dict(point, pass_auc=float("nan"))}, "balanced_heads") == float("-inf")  # one class absent


def test_points_before_select_after_are_recorded_but_never_saved_and_do_not_end_the_run(tmp_path, backbone_dir):
    (tmp_path / "t.jsonl").write_text("".join(json.dumps(r) + "\n" for r in make_rows(24, 0)))
    output = tmp_path / "late"
    args = ["train", "--train", str(tmp_path / "t.jsonl"), "--validation", str(tmp_path / "t.jsonl"), "--backbone", str(backbone_dir),
            "--output", str(output), "--epochs", "2", "--batch-size", "8", "--head-hidden", "8", "--task-group-size", "4",
            "--eval-every", "1", "--patience", "1", "--select-metric", "balanced_heads", "--select-after", "4", "--seed", "3"]
    assert main(args) == 0
    history = json.loads((output / "training_history.json").read_text())
    steps = [point["steps"] for point in history["evaluations"]]
    assert steps[:4] == [1, 2, 3, 4] and steps[-1] >= 5  # patience 1 counts from step 4 on, whatever steps 1-3 did
    eligible = [point for point in history["evaluations"] if point["steps"] >= 4]
    best = history["evaluations"][history["best_evaluation"] - 1]
    assert best["steps"] >= 4 and best["selection"] == max(point["selection"] for point in eligible)
    assert json.loads((output / "config.json").read_text())["provenance"]["best_step"] == best["steps"]
    from codescore_metric.training.model_card import model_card

    assert f"best point step {best['steps']} by mean validation balanced_heads among the points from step 4 on;" in model_card(output, {})
    with pytest.raises(ValueError, match=r"select_after \(--select-after\) must be a step count"):
        TrainingArguments(output_dir="x", select_after=-1)
