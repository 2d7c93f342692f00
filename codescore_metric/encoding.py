"""Turn (generated code, reference, NL) into token ids, token types and a truncation report.

Two profiles:

* ``reference`` reproduces the authors' encoder exactly (paper §4.1.4 gives the order "[CLS] g [SEP] r [SEP] n [SEP]";
  the authors' code joins RoBERTa-style): each segment is tokenized alone and capped at ``max_length - 4`` inner tokens,
  pad ids (and the authors' ``<v>`` tags) are deleted, segments are joined as ``<s> g </s></s> r </s></s> n </s>``, and when the inner
  lengths sum past ``max_length - 1 - n_segments`` the joined ids are cut to ``max_length``, which
  eats the last segments and the closing ``</s>`` first.
* ``clean`` is for our own models: literal special-token text in code is read as text, every
  segment keeps a share of the budget (the longest ones are cut first), the closing separator is
  always kept, and the total never exceeds ``max_length``.

Both report, per sample, how many tokens of each field were dropped. With ``strip_code_comments``
the code fields lose their comments, docstrings and blank lines first (`code_text.strip_comments`);
with ``strip_annotations`` they are read without the type annotations of their functions' parameters,
return values and local assignments (`code_annotations.strip_annotations`), also where the distance from
the reference is measured, so a typed and an untyped signature read the same;
with ``canonical_names`` their functions' parameters and locals are renamed ``v0``, ``v1``, ... in order
of first appearance (`code_names.canonical_names`), so a consistent renaming reads the same.
With ``layout_tokens`` (four reserved vocabulary entries) the code fields are read line by line, with
markers for line ends, indentation and capitalised words (`code_layout.layout_pieces`), for
tokenizers that would otherwise drop layout and case. With ``change_tokens`` (two more entries) the
generated code and the reference, when both are read, each have the runs that differ from the other
one wrapped in change markers (`code_changes.mark_changes`). With ``distance_tokens`` (one entry per
`code_distance.DISTANCE_BUCKETS`) the generated code, when read beside the reference, starts with the
entry of its token distance from the reference (`code_distance.distance_bucket`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from codescore_metric.code_annotations import strip_annotations
from codescore_metric.code_changes import mark_changes
from codescore_metric.code_distance import DISTANCE_BUCKETS, distance_bucket
from codescore_metric.code_layout import CHANGE_MARKERS, CHANGE_START, DISTANCE_START, MARKERS, layout_pieces
from codescore_metric.code_names import canonical_names
from codescore_metric.code_text import strip_comments
from codescore_metric.formats import CODE_FIELDS

PROFILES = ("reference", "clean")


@dataclass(frozen=True)
class EncodingSpec:
    """How a model expects its input; stored in the model config."""

    profile: str = "clean"
    max_length: int = 512
    separator_tokens: int = 2  # separators between two segments: 2 for RoBERTa (</s></s>), 1 for BERT
    segment_token_types: bool = True  # token type 0 for <s> g </s>, 1 after; False: all 0
    stripped_tokens: tuple[str, ...] = ()  # tokens deleted after tokenization (reference profile)
    strip_code_comments: bool = False  # drop comments, docstrings and blank lines from the code fields
    canonical_names: bool = False  # rename the code fields' parameters and locals v0, v1, ... by first appearance
    strip_annotations: bool = False  # drop type annotations of parameters, return values and local assignments
    layout_tokens: tuple[str, ...] = ()  # vocabulary entries for code_layout.MARKERS; () reads code as plain text
    change_tokens: tuple[str, ...] = ()  # vocabulary entries for code_layout.CHANGE_MARKERS; () marks no changes
    distance_tokens: tuple[str, ...] = ()  # vocabulary entries for code_distance.DISTANCE_BUCKETS; () gives no distance

    def __post_init__(self):
        for name, tokens, markers in (("layout_tokens", self.layout_tokens, MARKERS),
                                      ("change_tokens", self.change_tokens, CHANGE_MARKERS),
                                      ("distance_tokens", self.distance_tokens, DISTANCE_BUCKETS)):
            if tokens and len(tokens) != len(markers):
                raise ValueError(f"{name} needs one token for each of {', '.join(markers)}; got {list(tokens)}")
        if self.profile not in PROFILES:
            raise ValueError(f"encoding profile must be one of {PROFILES}; got {self.profile!r}")
        if self.separator_tokens not in (1, 2):
            raise ValueError(f"separator_tokens must be 1 or 2; got {self.separator_tokens!r}")
        if self.max_length < 8:
            raise ValueError(f"max_length must be at least 8; got {self.max_length!r}")


@dataclass
class EncodedSample:
    """One model input; ``dropped`` maps a field name to the number of its tokens that were cut."""

    input_ids: list[int]
    token_type_ids: list[int]
    dropped: dict[str, int] = field(default_factory=dict)


def detect_separator_tokens(tokenizer) -> int:
    """Count the separator tokens a tokenizer puts between the two texts of a pair."""
    single_a = tokenizer("a", add_special_tokens=False)["input_ids"]
    single_b = tokenizer("b", add_special_tokens=False)["input_ids"]
    pair = tokenizer("a", "b")["input_ids"]
    between = len(pair) - len(single_a) - len(single_b) - 2
    if between not in (1, 2):
        raise ValueError(
            f"cannot tell how {type(tokenizer).__name__} joins two segments (it added {between + 2} special "
            "tokens to a pair); use a BERT- or RoBERTa-style tokenizer"
        )
    return between


class SegmentEncoder:
    """Encode samples for one tokenizer and `EncodingSpec`."""

    def __init__(self, tokenizer, spec: EncodingSpec):
        missing = [name for name in ("cls_token_id", "sep_token_id", "pad_token_id") if getattr(tokenizer, name) is None]
        if missing:
            raise ValueError(f"the tokenizer has no {', '.join(missing)}; CodeScore needs <s>/</s>/<pad>-style tokens")
        self.tokenizer = tokenizer
        self.spec = spec
        self.cls_id = tokenizer.cls_token_id
        self.sep_id = tokenizer.sep_token_id
        self.pad_id = tokenizer.pad_token_id
        # Padding keeps the value of the last real position: 1 after a segment boundary (the authors pad with 1).
        self.pad_type_id = 1 if spec.segment_token_types else 0
        stripped = {self.pad_id}
        for token in spec.stripped_tokens:
            token_id = tokenizer.convert_tokens_to_ids(token)
            if token_id is not None and token_id != tokenizer.unk_token_id:
                stripped.add(token_id)
        self.stripped_ids = frozenset(stripped) if spec.profile == "reference" else frozenset()
        self.marker_ids = {marker: vocabulary_id(tokenizer, token) for marker, token in
                           [*enumerate(spec.layout_tokens), *enumerate(spec.change_tokens, start=CHANGE_START),
                            *enumerate(spec.distance_tokens, start=DISTANCE_START)]}

    def encode(self, fields: dict[str, list[str]]) -> list[EncodedSample]:
        """Encode column-wise texts; ``fields`` maps field names (in segment order) to equal-length lists."""
        names = list(fields)
        if not fields[names[0]]:
            return []
        if self.spec.strip_annotations:
            fields = {name: [strip_annotations(text) for text in texts] if name in CODE_FIELDS else texts
                      for name, texts in fields.items()}
        texts = {name: self._prepare(name, fields[name]) for name in names}
        pieces = {name: [self._pieces(text) for text in texts[name]]
                  for name in names if name in CODE_FIELDS and self.marker_ids}
        if self.spec.change_tokens and all(name in pieces for name in CODE_FIELDS):
            prediction, reference = (pieces[name] for name in CODE_FIELDS)
            pieces = dict(zip(CODE_FIELDS, ([mark_changes(p, r) for p, r in zip(prediction, reference)],
                                            [mark_changes(r, p) for p, r in zip(prediction, reference)])))
        if self.spec.distance_tokens and all(name in fields for name in CODE_FIELDS):
            distances = [DISTANCE_START + distance_bucket(p, r) for p, r in zip(*(fields[name] for name in CODE_FIELDS))]
            pieces["prediction"] = [[distance, *code] for distance, code in zip(distances, pieces["prediction"])]
        columns = [self._tokenize_pieces(pieces[name]) if name in pieces else self._tokenize(texts[name]) for name in names]
        join = self._join_reference if self.spec.profile == "reference" else self._join_clean
        return [join(names, [column[i] for column in columns]) for i in range(len(columns[0]))]

    def _pieces(self, text: str) -> list[str | int]:
        """Code as text chunks and marker ints: with layout markers, or as one chunk."""
        return layout_pieces(text) if self.spec.layout_tokens else [text]

    def _prepare(self, name: str, texts: list[str]) -> list[str]:
        if name not in CODE_FIELDS:
            return texts
        if self.spec.strip_code_comments:
            texts = [strip_comments(text) for text in texts]
        if self.spec.canonical_names:
            texts = [canonical_names(text) for text in texts]
        return texts

    def _tokenize(self, texts: list[str]) -> list[list[int]]:
        encoded = self.tokenizer(
            texts,
            add_special_tokens=False,
            split_special_tokens=self.spec.profile == "clean",
            verbose=False,
        )
        return encoded["input_ids"]

    def _tokenize_pieces(self, pieces: list[list[str | int]]) -> list[list[int]]:
        """Token ids of texts given as chunks and markers: every chunk of every text in one tokenizer call."""
        chunks = [piece for text_pieces in pieces for piece in text_pieces if isinstance(piece, str)]
        chunk_ids = iter(self._tokenize(chunks) if chunks else [])
        return [[token for piece in text_pieces
                 for token in ([self.marker_ids[piece]] if isinstance(piece, int) else next(chunk_ids))]
                for text_pieces in pieces]

    def _assemble(self, segments: list[list[int]]) -> tuple[list[int], list[int]]:
        separator = [self.sep_id] * self.spec.separator_tokens
        ids = [self.cls_id] + segments[0]
        for segment in segments[1:]:
            ids += separator + segment
        ids.append(self.sep_id)
        first_block = len(segments[0]) + 2  # <s> g </s>
        if self.spec.segment_token_types:
            types = [0] * first_block + [1] * (len(ids) - first_block)
        else:
            types = [0] * len(ids)
        return ids, types

    def _join_reference(self, names: list[str], segments: list[list[int]]) -> EncodedSample:
        max_length = self.spec.max_length
        cap = max_length - 4  # the authors tokenize each segment with max_length - 2, specials included
        inner = [[t for t in ids[:cap] if t not in self.stripped_ids] for ids in segments]
        ids, types = self._assemble(inner)
        kept = [len(segment) for segment in inner]
        if sum(kept) > max_length - (1 + len(inner)):
            ids, types = ids[:max_length], types[:max_length]
            kept = self._kept_after_cut(kept, max_length)
        dropped = {}
        for name, original, survived in zip(names, segments, kept):
            lost = sum(1 for t in original if t not in self.stripped_ids) - survived
            if lost:
                dropped[name] = lost
        return EncodedSample(ids, types, dropped)

    def _kept_after_cut(self, lengths: list[int], max_length: int) -> list[int]:
        """How many tokens of each segment survive when the joined ids are cut to ``max_length``."""
        kept, position = [], 1  # after <s>
        for index, length in enumerate(lengths):
            available = max(0, max_length - position)
            kept.append(min(length, available))
            position += length + (self.spec.separator_tokens if index < len(lengths) - 1 else 1)
        return kept

    def _join_clean(self, names: list[str], segments: list[list[int]]) -> EncodedSample:
        specials = 2 + (len(segments) - 1) * self.spec.separator_tokens
        budget = self.spec.max_length - specials
        lengths = share_budget([len(segment) for segment in segments], budget)
        ids, types = self._assemble([segment[:n] for segment, n in zip(segments, lengths)])
        dropped = {name: len(s) - n for name, s, n in zip(names, segments, lengths) if len(s) > n}
        return EncodedSample(ids, types, dropped)


def vocabulary_id(tokenizer, token: str) -> int:
    """The id of ``token`` in the tokenizer's vocabulary; a ``ValueError`` when it has none."""
    token_id = tokenizer.convert_tokens_to_ids(token)
    if token_id is None or (token_id == tokenizer.unk_token_id and token != tokenizer.unk_token):
        raise ValueError(f"the tokenizer has no vocabulary entry {token!r}; layout_tokens and change_tokens must name "
                         "existing entries (e.g. BERT's [unused0]..[unused5])")
    return token_id


def share_budget(lengths: list[int], budget: int) -> list[int]:
    """Cut the longest segments first so that the lengths sum to at most ``budget``.

    Finds the largest cap ``c`` with ``sum(min(l, c)) <= budget`` and hands any remainder, one token
    each, to the still-cut segments in order, so short segments are never touched while a longer
    one can give way.
    """
    if budget < 0:
        raise ValueError(f"budget must be >= 0; got {budget}")
    if sum(lengths) <= budget:
        return list(lengths)
    low, high = 0, max(lengths)
    while low < high:  # largest cap that fits
        middle = (low + high + 1) // 2
        if sum(min(length, middle) for length in lengths) <= budget:
            low = middle
        else:
            high = middle - 1
    kept = [min(length, low) for length in lengths]
    remainder = budget - sum(kept)
    for index, length in enumerate(lengths):
        if remainder == 0:
            break
        if length > kept[index]:
            kept[index] += 1
            remainder -= 1
    return kept


def collate(samples: list[EncodedSample], pad_id: int, pad_type_id: int):
    """Right-pad a batch into ``input_ids``, ``attention_mask`` and ``token_type_ids`` tensors."""
    import torch

    width = max(len(sample.input_ids) for sample in samples)
    input_ids = torch.full((len(samples), width), pad_id, dtype=torch.long)
    token_type_ids = torch.full((len(samples), width), pad_type_id, dtype=torch.long)
    attention_mask = torch.zeros((len(samples), width), dtype=torch.long)
    for row, sample in enumerate(samples):
        length = len(sample.input_ids)
        input_ids[row, :length] = torch.tensor(sample.input_ids, dtype=torch.long)
        token_type_ids[row, :length] = torch.tensor(sample.token_type_ids, dtype=torch.long)
        attention_mask[row, :length] = 1
    return {"input_ids": input_ids, "attention_mask": attention_mask, "token_type_ids": token_type_ids}
