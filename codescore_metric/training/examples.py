"""Labelled examples: load, check, encode in every input format, and batch by length or by task."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Collection
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import torch

from codescore_metric.data.mutations import rename_identifiers
from codescore_metric.encoding import SegmentEncoder, collate
from codescore_metric.formats import COLUMN_FOR_FIELD, FIELDS, LABEL_COLUMNS, InputFormat
from codescore_metric.training.grouping import GROUP_MIXES, cut_groups, spread_groups


@dataclass
class LabelledExamples:
    """Texts and labels of one split, as parallel lists."""

    texts: dict[str, list[str]]  # "prediction" / "reference" / "source" -> texts
    labels: torch.Tensor  # [N, 3]: pass_ratio, executable, all_pass
    task_ids: list[str] | None = None  # for within-task batches and within-task ranking metrics
    kinds: list[str] | None = None  # each row's candidate kind (build-data's ``kind``: generation, mutant, ...)

    def __len__(self) -> int:
        return len(self.labels)

    def per_task_sample(self, limit: int, seed: int) -> LabelledExamples:
        """At most ``limit`` examples of each task, chosen by a seeded hash (the same whatever the row order)."""
        if self.task_ids is None:
            raise ValueError("a per-task sample needs a task_id on every row")
        def rank(i: int) -> bytes:
            return hashlib.sha256(f"{seed}:{self.task_ids[i]}:{self.texts['prediction'][i]}".encode()).digest()
        by_task: dict[str, list[int]] = {}
        for index in sorted(range(len(self)), key=rank):
            by_task.setdefault(self.task_ids[index], []).append(index)
        return self.subset(sorted(i for members in by_task.values() for i in members[:limit]))

    def subset(self, kept: list[int]) -> LabelledExamples:
        """The rows at indices ``kept``, in that order."""
        return LabelledExamples({name: [texts[i] for i in kept] for name, texts in self.texts.items()}, self.labels[kept],
                                None if self.task_ids is None else [self.task_ids[i] for i in kept],
                                None if self.kinds is None else [self.kinds[i] for i in kept])

    def without_certain(self) -> tuple[LabelledExamples, int]:
        """A copy without the rows whose three scores the scorer's static checks decide (`scorer.certain_reason`:
        empty, not compiling, defining none of the reference's functions, reading an unbound name, the reference's
        own program), which a model is never asked about, and how many rows were left out."""
        from codescore_metric.scorer import certain_reason, fully_certain

        kept = [i for i, (code, reference) in enumerate(zip(self.texts["prediction"], self.texts["reference"]))
                if not fully_certain(certain_reason(code, reference, static_checks=True))]
        return self.subset(kept), len(self) - len(kept)

    def with_renamed_predictions(self, fraction: float, seed: int) -> tuple[LabelledExamples, int]:
        """A copy in which about ``fraction`` of the predictions (a seeded hash decides which) have their
        parameters and locals renamed (`mutations.rename_identifiers`; labels kept, since the program is
        the same), and how many were renamed. Predictions that do not parse or have nothing to rename stay."""
        if not 0 <= fraction <= 1:
            raise ValueError(f"the renamed fraction must be between 0 and 1; got {fraction}")
        predictions, renamed = list(self.texts["prediction"]), 0
        for index, code in enumerate(predictions):
            digest = _drawn(f"{seed}:rename:{code}", fraction)
            if digest is None:
                continue
            try:
                new = rename_identifiers(code, random.Random(digest))
            except ValueError:  # does not parse
                new = None
            if new is not None:
                predictions[index], renamed = new, renamed + 1
        return replace(self, texts={**self.texts, "prediction": predictions}), renamed

    def with_alternative_references(self, fraction: float, seed: int, kinds: Collection[str] = ()) -> tuple[LabelledExamples, int]:
        """A copy in which about ``fraction`` of the rows (of the given ``kinds``, else of all; a seeded hash decides
        which) read, in place of their reference, another program of their task that passes every test (chosen by
        the same hash among the task's all-pass predictions that differ from both the reference and the row's own
        prediction), and how many rows were changed. Labels are kept, since PassRatio does not depend on the
        reference: a model then sees correct code that looks unlike its reference, and mistakes beside a reference
        they were not made from. Rows of a task without such a program keep their reference."""
        if not 0 <= fraction <= 1:
            raise ValueError(f"the alternative-reference fraction must be between 0 and 1; got {fraction}")
        if self.task_ids is None:
            raise ValueError("alternative references need a task_id on every row")
        if kinds and self.kinds is None:
            raise ValueError("alternative references for some kinds of rows need a kind on every row (build-data's kind column)")
        predictions, references = self.texts["prediction"], list(self.texts["reference"])
        correct: dict[str, set[str]] = {}
        for code, reference, task_id, all_pass in zip(predictions, references, self.task_ids, self.labels[:, 2].tolist()):
            if all_pass >= 0.5 and code.strip() != reference.strip():
                correct.setdefault(task_id, set()).add(code)
        ordered = {task_id: sorted(programs) for task_id, programs in correct.items()}  # a seeded choice needs a fixed order
        changed = 0
        for index, (code, task_id) in enumerate(zip(predictions, self.task_ids)):
            if kinds and self.kinds[index] not in kinds:
                continue
            digest = _drawn(f"{seed}:reference:{task_id}:{code}", fraction)
            choices = [other for other in ordered.get(task_id, ()) if other != code] if digest else []
            if choices:
                references[index], changed = random.Random(digest).choice(choices), changed + 1
        return replace(self, texts={**self.texts, "reference": references}), changed


def _drawn(key: str, fraction: float) -> bytes | None:
    """The sha256 digest of ``key`` when its first 8 bytes, read as a number in [0, 1), fall below ``fraction``
    (a seeded, order-free draw of about that share of keys); None otherwise. The digest can seed what follows."""
    digest = hashlib.sha256(key.encode()).digest()
    return digest if int.from_bytes(digest[:8], "big") / 2**64 < fraction else None


def check_rows(rows: list[dict], where: str) -> LabelledExamples:
    """Validate rows with the three text columns (generated_code, golden_code, source) and the three labels."""
    texts = {field: [] for field in FIELDS}
    labels = []
    for index, row in enumerate(rows):
        for field in FIELDS:
            name = COLUMN_FOR_FIELD[field]
            value = row.get(name)
            if not isinstance(value, str):
                raise ValueError(f"{where} row {index}: field {name!r} must be a string, got {type(value).__name__}")
            texts[field].append(value)
        values = []
        for name in LABEL_COLUMNS:
            value = row.get(name)
            if isinstance(value, bool) or (isinstance(value, (int, float)) and 0 <= value <= 1):
                values.append(float(value))
            else:
                raise ValueError(f"{where} row {index}: field {name!r} must be a number in [0, 1] or a bool, got {value!r}")
        labels.append(values)
    if not labels:
        raise ValueError(f"{where} has no rows")
    task_ids = [str(row["task_id"]) for row in rows] if all(row.get("task_id") is not None for row in rows) else None
    kinds = [row["kind"] for row in rows] if all(isinstance(row.get("kind"), str) for row in rows) else None
    return LabelledExamples(texts, torch.tensor(labels, dtype=torch.float32), task_ids, kinds)


def load_split(data: str | Path, split: str) -> LabelledExamples:
    """One split from a ``datasets`` folder (``save_to_disk``) or a jsonl file (then ``split`` is only a label)."""
    path = Path(data)
    if path.is_dir():
        from datasets import load_from_disk

        dataset = load_from_disk(str(path))
        if split not in dataset:
            raise ValueError(f"{path} has splits {list(dataset)}, not {split!r}")
        return check_rows(list(dataset[split]), f"{path}[{split}]")
    from codescore_metric.labelled import Fields, load_labelled

    labelled = load_labelled(path)  # every bad row named by line, as in the meta-evaluation
    fields = Fields()
    columns = {fields.reference: labelled.references, fields.source: labelled.sources,
               fields.executable: labelled.executable, fields.all_pass: labelled.all_pass}
    missing = [name for name, column in columns.items() if column is None]
    if missing:
        raise ValueError(f"{path} has no {', '.join(missing)} field; training needs all of {', '.join(LABEL_COLUMNS)} and the three texts")
    texts = {"prediction": labelled.predictions, "reference": labelled.references, "source": labelled.sources}
    labels = torch.tensor(np.stack([labelled.pass_ratio, labelled.executable, labelled.all_pass], axis=1), dtype=torch.float32)
    task_ids = None if labelled.task_ids is None else [str(task_id) for task_id in labelled.task_ids]
    return LabelledExamples(texts, labels, task_ids)


class FormatBatches:
    """Pre-encoded inputs of every example in every format, served as length-bucketed batches."""

    def __init__(self, examples: LabelledExamples, tokenizer, spec, formats: tuple[InputFormat, ...]):
        encoder = SegmentEncoder(tokenizer, spec)
        self.pad_id, self.pad_type_id = encoder.pad_id, encoder.pad_type_id
        self.use_token_types = spec.segment_token_types
        self.labels = examples.labels
        self.task_ids = examples.task_ids
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

    def task_batches(self, batch_size: int, group_size: int, rng: random.Random, mix: str = "random") -> list[list[int]]:
        """Index batches of ``batch_size // group_size`` tasks with ``group_size`` candidates each, so that a
        within-task objective has pairs to compare. ``mix`` decides which of a task's candidates share a group:
        ``random`` (shuffled and cut; a lone last candidate joins the group before it) or ``spread`` (the
        same number of groups, each drawing one candidate from every PassRatio stratum of the task, so that
        groups hold the task's better and worse candidates side by side). Groups of similar length are
        batched together and the batches shuffled."""
        if self.task_ids is None:
            raise ValueError("task-grouped batches need a task_id on every training row")
        if not 2 <= group_size <= batch_size:
            raise ValueError(f"group_size must be between 2 and the batch size {batch_size}; got {group_size}")
        if mix not in GROUP_MIXES:
            raise ValueError(f"task group mix must be one of {', '.join(GROUP_MIXES)}; got {mix!r}")
        by_task: dict[str, list[int]] = {}
        for index, task_id in enumerate(self.task_ids):
            by_task.setdefault(task_id, []).append(index)
        groups, ratios = [], self.labels[:, 0].tolist()
        for task_id in sorted(by_task):
            members = by_task[task_id]
            rng.shuffle(members)
            groups += spread_groups(members, group_size, ratios, rng) if mix == "spread" else cut_groups(members, group_size)
        rng.shuffle(groups)
        per_batch = batch_size // group_size
        window = per_batch * 50  # groups of similar length share a batch (less padding), as in `batches`
        batches = []
        for start in range(0, len(groups), window):
            chunk = sorted(groups[start:start + window], key=lambda group: max(self._length(i) for i in group))
            batches += [[index for group in chunk[k:k + per_batch] for index in group] for k in range(0, len(chunk), per_batch)]
        rng.shuffle(batches)
        return batches

    def _length(self, index: int) -> int:
        return max(len(self.encoded[fmt][index].input_ids) for fmt in self.formats)

    def group_ids(self, indices: list[int]) -> torch.Tensor:
        """One integer per example naming its task within the batch (for the ranking loss)."""
        names: dict[str, int] = {}
        return torch.tensor([names.setdefault(self.task_ids[i], len(names)) for i in indices])

    def tensors(self, fmt: InputFormat, indices: list[int]) -> dict[str, torch.Tensor]:
        batch = collate([self.encoded[fmt][i] for i in indices], self.pad_id, self.pad_type_id)
        if not self.use_token_types:
            batch.pop("token_type_ids")
        return batch
