"""How far generated code is from its reference, in Python tokens, once names and layout are set aside.

A one-token mistake in a copy of the reference and a correct program written another way look alike
to a small encoder that reads both beside the reference: the first is nearly the same text. The
distance makes that explicit. Both programs lose their comments, docstrings and blank lines
(`code_text.strip_comments`) and have their functions' parameters and locals renamed in order of
first appearance (`code_names.canonical_names`); they are then read as Python tokens (indentation as
INDENT / DEDENT, whatever its width), and the distance is the number of tokens in the runs where the
two token sequences differ (difflib's opcodes, the longer side of each run).

Distance 0 means the same program as the reference up to comments, docstrings, layout and the names
of parameters and locals. `distance_bucket` turns a distance into one of `DISTANCE_BUCKETS`, which a
model can read as one reserved vocabulary entry (`encoding.EncodingSpec.distance_tokens`).
"""

from __future__ import annotations

import difflib
import functools
import io
import tokenize

from codescore_metric.code_names import canonical_names
from codescore_metric.code_text import strip_comments

# Upper bounds (inclusive) of the distance buckets; the last bucket is for code that cannot be read as tokens.
BUCKET_BOUNDS = (0, 2, 6, 15, 40, float("inf"))
DISTANCE_BUCKETS = ("same", "1-2", "3-6", "7-15", "16-40", "over-40", "unreadable")
UNREADABLE = len(DISTANCE_BUCKETS) - 1
# Programs this many tokens apart in length are in the last readable bucket without an alignment.
_FAR = BUCKET_BOUNDS[-2] + 1
_SKIPPED = frozenset({tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER})
_UNSPELLED = frozenset({tokenize.INDENT, tokenize.DEDENT, tokenize.NEWLINE})


@functools.lru_cache(maxsize=4096)  # a reference is compared with every prediction of its task
def code_tokens(code: str) -> tuple[tuple[int, str], ...] | None:
    """``code``'s Python tokens as (type, text) after the clean-up and renaming above; layout tokens carry no
    text. ``None`` when it does not tokenize (an unclosed bracket or string, an inconsistent dedent)."""
    code = canonical_names(strip_comments(code))
    try:
        return tuple((token.type, "" if token.type in _UNSPELLED else token.string)
                     for token in tokenize.generate_tokens(io.StringIO(code).readline) if token.type not in _SKIPPED)
    except (tokenize.TokenError, SyntaxError):  # IndentationError is a SyntaxError
        return None


def token_distance(prediction: str, reference: str) -> int | None:
    """Tokens in the runs where ``prediction`` and ``reference`` differ (see the module docstring); ``None``
    when either does not tokenize. Programs more than 40 tokens apart in length are not aligned and
    count as their length difference, which is already past the last bound."""
    ours, theirs = code_tokens(prediction), code_tokens(reference)
    if ours is None or theirs is None:
        return None
    if abs(len(ours) - len(theirs)) >= _FAR:
        return abs(len(ours) - len(theirs))
    matcher = difflib.SequenceMatcher(None, ours, theirs, autojunk=False)
    return sum(max(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal")


def distance_bucket(prediction: str, reference: str) -> int:
    """The index in `DISTANCE_BUCKETS` of ``prediction``'s distance from ``reference``."""
    distance = token_distance(prediction, reference)
    if distance is None:
        return UNREADABLE
    return next(index for index, bound in enumerate(BUCKET_BOUNDS) if distance <= bound)
