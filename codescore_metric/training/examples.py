"""Labelled examples: load, check, encode in every input format, and batch by length."""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from codescore_metric.encoding import SegmentEncoder, collate
from codescore_metric.formats import InputFormat

TEXT_FIELDS = {"prediction": "generated_code", "reference": "golden_code", "source": "source"}
LABEL_FIELDS = ("pass_ratio", "executable", "all_pass")


@dataclass
class LabelledExamples:
    """Texts and labels of one split, as parallel lists."""

    texts: dict[str, list[str]]  # "prediction" / "reference" / "source" -> texts
    labels: torch.Tensor  # [N, 3]: pass_ratio, executable, all_pass

    def __len__(self) -> int:
        return len(self.labels)


def check_rows(rows: list[dict], where: str) -> LabelledExamples:
    """Validate rows with generated_code, golden_code, source, pass_ratio, executable, all_pass."""
    texts = {field: [] for field in TEXT_FIELDS}
    labels = []
    for index, row in enumerate(rows):
        for field, name in TEXT_FIELDS.items():
            value = row.get(name)
            if not isinstance(value, str):
                raise ValueError(f"{where} row {index}: field {name!r} must be a string, got {type(value).__name__}")
            texts[field].append(value)
        values = []
        for name in LABEL_FIELDS:
            value = row.get(name)
            if isinstance(value, bool) or (isinstance(value, (int, float)) and 0 <= value <= 1):
                values.append(float(value))
            else:
                raise ValueError(f"{where} row {index}: field {name!r} must be a number in [0, 1] or a bool, got {value!r}")
        labels.append(values)
    if not labels:
        raise ValueError(f"{where} has no rows")
    return LabelledExamples(texts, torch.tensor(labels, dtype=torch.float32))


def load_split(data: str | Path, split: str) -> LabelledExamples:
    """One split from a ``datasets`` folder (``save_to_disk``) or a jsonl file (then ``split`` is only a label)."""
    path = Path(data)
    if path.is_dir():
        from datasets import load_from_disk

        dataset = load_from_disk(str(path))
        if split not in dataset:
            raise ValueError(f"{path} has splits {list(dataset)}, not {split!r}")
        return check_rows(list(dataset[split]), f"{path}[{split}]")
    from codescore_metric.metaeval.runner import load_labelled

    labelled = load_labelled(path)  # the meta-evaluation's reader: every bad row named by line
    columns = {"golden_code": labelled.references, "source": labelled.sources, "executable": labelled.executable, "all_pass": labelled.all_pass}
    missing = [name for name, column in columns.items() if column is None]
    if missing:
        raise ValueError(f"{path} has no {', '.join(missing)} field; training needs all of {', '.join(LABEL_FIELDS)} and the three texts")
    texts = {"prediction": labelled.predictions, "reference": labelled.references, "source": labelled.sources}
    labels = torch.tensor(np.stack([labelled.pass_ratio, labelled.executable, labelled.all_pass], axis=1), dtype=torch.float32)
    return LabelledExamples(texts, labels)


class FormatBatches:
    """Pre-encoded inputs of every example in every format, served as length-bucketed batches."""

    def __init__(self, examples: LabelledExamples, tokenizer, spec, formats: tuple[InputFormat, ...]):
        encoder = SegmentEncoder(tokenizer, spec)
        self.pad_id, self.pad_type_id = encoder.pad_id, encoder.pad_type_id
        self.use_token_types = spec.segment_token_types
        self.labels = examples.labels
        self.formats = formats
        self.encoded = {fmt: encoder.encode({field: examples.texts[field] for field in fmt.fields}) for fmt in formats}
        self.truncated = {fmt: sum(1 for sample in samples if sample.dropped) for fmt, samples in self.encoded.items()}

    def __len__(self) -> int:
        return len(self.labels)

    def batches(self, batch_size: int, rng: random.Random | None = None) -> list[list[int]]:
        """Index batches: shuffled, then sorted by length inside windows of 50 batches (less padding)."""
        order = list(range(len(self)))
        lengths = [max(len(self.encoded[fmt][i].input_ids) for fmt in self.formats) for i in order]
        if rng is None:
            order.sort(key=lambda i: -lengths[i])
            return [order[start:start + batch_size] for start in range(0, len(order), batch_size)]
        rng.shuffle(order)
        window = batch_size * 50
        batches = []
        for start in range(0, len(order), window):
            chunk = sorted(order[start:start + window], key=lambda i: lengths[i])
            batches += [chunk[k:k + batch_size] for k in range(0, len(chunk), batch_size)]
        rng.shuffle(batches)
        return batches

    def tensors(self, fmt: InputFormat, indices: list[int]) -> dict[str, torch.Tensor]:
        batch = collate([self.encoded[fmt][i] for i in indices], self.pad_id, self.pad_type_id)
        if not self.use_token_types:
            batch.pop("token_type_ids")
        return batch
