"""Mark where generated code differs from its reference, so a model need not find the difference itself.

A copy of the reference and a copy with one operator changed are almost the same token sequence, and
a small encoder reading both beside the reference tends to score them alike. `mark_changes` aligns
the two programs lexeme by lexeme (words, single punctuation characters and layout markers) and
wraps every run of one that has no counterpart in the other between CHANGE_START and CHANGE_END (an
empty pair where the other program has something this one lacks). Identifiers are aligned as one
class, and a consistent renaming (``total`` -> ``acc`` everywhere) is no change: an aligned name is
marked only when it breaks the name-to-name mapping most aligned positions agree on (the wrong
variable). Keywords, builtins, attributes, numbers, strings and operators are compared as they are.
Works on `code_layout` pieces and on code that does not parse.
"""

from __future__ import annotations

import builtins
import difflib
import keyword
import re
from collections import Counter

from codescore_metric.code_layout import CHANGE_END, CHANGE_START

_LEXEME = re.compile(r"\s*(?:\w+|[^\w\s])|\s+")
_KNOWN_WORDS = frozenset(dir(builtins)) | frozenset(keyword.kwlist) | frozenset(keyword.softkwlist)
_NAME = ("name",)


def mark_changes(pieces: list[str | int], other: list[str | int]) -> list[str | int]:
    """``pieces`` (text chunks and marker ints) with the runs that differ from ``other`` wrapped in
    CHANGE_START / CHANGE_END; the text of ``pieces`` is kept character for character."""
    items, words = _lexemes(pieces)
    _other_items, other_words = _lexemes(other)
    keys, other_keys = [_key(w, words, i) for i, w in enumerate(words)], [_key(w, other_words, i) for i, w in enumerate(other_words)]
    blocks = difflib.SequenceMatcher(None, keys, other_keys, autojunk=False).get_matching_blocks()
    aligned = [(i + k, j + k) for i, j, size in blocks for k in range(size)]
    mapping = _name_mapping((words[i], other_words[j]) for i, j in aligned if keys[i] == _NAME)
    partner = dict(aligned)
    changed = [i not in partner or (keys[i] == _NAME and mapping.get(words[i]) != other_words[partner[i]])
               for i in range(len(items))]
    gaps = _gaps(blocks)
    marked: list[str | int] = []
    for index, item in enumerate(items):
        if index in gaps:
            marked += [CHANGE_START, CHANGE_END]
        opens = changed[index] and (index == 0 or not changed[index - 1])
        closes = changed[index] and (index + 1 == len(items) or not changed[index + 1])
        marked += [CHANGE_START] * opens + [item] + [CHANGE_END] * closes
    if len(items) in gaps:
        marked += [CHANGE_START, CHANGE_END]
    return _merge_text(marked)


def _lexemes(pieces: list[str | int]) -> tuple[list[str | int], list[str | int]]:
    """Items (text lexemes with their leading spaces, or markers) and what each compares as."""
    items: list[str | int] = []
    words: list[str | int] = []
    for piece in pieces:
        if isinstance(piece, int):
            items.append(piece)
            words.append(piece)
            continue
        for match in _LEXEME.finditer(piece):
            text = match.group()
            if not text.strip() and items and isinstance(items[-1], str):
                items[-1] += text  # trailing spaces belong to the lexeme before them
                continue
            items.append(text)
            words.append(text.strip())
    return items, words


def _key(word: str | int, words: list[str | int], index: int):
    """Identifiers compare as one class (their mapping is checked apart); everything else as itself."""
    is_name = (isinstance(word, str) and word.isidentifier() and word not in _KNOWN_WORDS
               and not (index > 0 and words[index - 1] == "."))
    return _NAME if is_name else word


def _name_mapping(pairs) -> dict[str, str]:
    """A one-to-one name mapping, most frequently aligned pairs first."""
    mapping: dict[str, str] = {}
    taken: set[str] = set()
    for (name, other), _ in Counter(pairs).most_common():
        if name not in mapping and other not in taken:
            mapping[name] = other
            taken.add(other)
    return mapping


def _gaps(blocks) -> set[int]:
    """Positions in this program before which the other one has lexemes with no counterpart here."""
    gaps, previous_i, previous_j = set(), 0, 0
    for i, j, size in blocks:
        if j > previous_j and i == previous_i:
            gaps.add(i)
        previous_i, previous_j = i + size, j + size
    return gaps


def _merge_text(pieces: list[str | int]) -> list[str | int]:
    """Join neighbouring text items back into chunks."""
    merged: list[str | int] = []
    for piece in pieces:
        if isinstance(piece, str) and merged and isinstance(merged[-1], str):
            merged[-1] += piece
        else:
            merged.append(piece)
    return merged
