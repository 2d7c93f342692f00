"""Test extension: from a task's reference solution and its few asserts, write 100+ new asserts.

The call arguments are parsed out of the existing asserts, mutated type-aware (ints, floats, bools,
strings, lists, tuples, sets, dicts, nested) with sizes and edge values varied, and the reference is
run in the sandbox on each new input, twice with different hash seeds. Inputs on which the reference
fails, times out or gives different outputs are dropped, the rest deduplicated, and each becomes an
``assert entry(args) == expected`` (a tolerance when the output is a float).
"""

from __future__ import annotations

import ast
import copy
import hashlib
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from codescore_metric.execution.sandbox import Job, Limits, run_program
from codescore_metric.execution.tasks import Task, named_calls

_VALUE = "__codescore_value__"
_ENCODER = '''
def __codescore_encode__(value):
    text = repr(value)
    try:
        same = eval(text) == value and type(eval(text)) is type(value)
    except Exception:
        same = False
    return [text, type(value) is float, same]
'''
DEFAULT_LIMITS = Limits(test_timeout=2.0, program_timeout=120.0)
MAX_SOURCE_CHARS = 2000  # longer inputs or outputs make unreadable tests; they are dropped
_CHUNK = 60  # inputs per reference run
_MAX_TIMEOUTS = 6  # after this many timeouts, inputs at least as long as the shortest of them are skipped


@dataclass(frozen=True)
class Extension:
    """The extended tests of one task and how they were obtained."""

    task_id: str
    tests: tuple[str, ...]
    new: int
    candidates: int
    dropped: dict = field(default_factory=dict)


def seed_calls(tests, entry_point: str) -> list[tuple[tuple, dict]]:
    """``(args, kwargs)`` of each call to ``entry_point`` whose arguments are all literals."""
    calls, seen = [], set()
    for node in named_calls(tests):
        if node.func.id != entry_point:
            continue
        try:
            args = tuple(ast.literal_eval(arg) for arg in node.args)
            kwargs = {kw.arg: ast.literal_eval(kw.value) for kw in node.keywords if kw.arg}
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            continue
        key = call_source(entry_point, args, kwargs)
        if len(kwargs) == len(node.keywords) and key not in seen:
            seen.add(key)
            calls.append((args, kwargs))
    return calls


def to_source(value: Any) -> str:
    """Python source for a literal value, with sets written in a fixed (sorted) order."""
    if isinstance(value, (set, frozenset)):
        if not value:
            return "set()" if isinstance(value, set) else "frozenset()"
        body = "{" + ", ".join(sorted(to_source(item) for item in value)) + "}"
        return body if isinstance(value, set) else f"frozenset({body})"
    if isinstance(value, list):
        return "[" + ", ".join(to_source(item) for item in value) + "]"
    if isinstance(value, tuple):
        inner = ", ".join(to_source(item) for item in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{to_source(k)}: {to_source(v)}" for k, v in value.items()) + "}"
    return repr(value)


def call_source(entry_point: str, args: tuple, kwargs: dict) -> str:
    """``entry(arg, ..., key=value)`` as source."""
    parts = [to_source(arg) for arg in args] + [f"{key}={to_source(value)}" for key, value in kwargs.items()]
    return f"{entry_point}({', '.join(parts)})"


class _Domain:
    """What the seeds show about one argument: the range of its numbers, the characters of its strings."""

    def __init__(self, values):
        self.ints, self.floats, self.chars, self.words, self.lengths = [], [], set(), set(), [0]
        for value in values:
            self._collect(value)
        self.nonnegative = all(number >= 0 for number in self.ints + self.floats)
        self.alphabet = sorted(self.chars) or list("abcxyz")
        self.vocabulary = sorted(self.words)

    def _collect(self, value):
        if isinstance(value, bool):
            return
        if isinstance(value, int):
            self.ints.append(value)
        elif isinstance(value, float):
            self.floats.append(value)
        elif isinstance(value, str):
            self.chars.update(value)
            self.words.update(value.split())
            self.lengths.append(len(value))
        elif isinstance(value, (list, tuple, set, frozenset)):
            self.lengths.append(len(value))
            for item in (sorted(value, key=to_source) if isinstance(value, (set, frozenset)) else value):
                self._collect(item)
        elif isinstance(value, dict):
            self.lengths.append(len(value))
            for key, item in value.items():
                self._collect(key)
                self._collect(item)


class Mutator:
    """Type-aware mutation of call arguments, deterministic for a given ``random.Random``."""

    def __init__(self, seeds: list[tuple[tuple, dict]], rng: random.Random):
        self.seeds, self.rng, self.spread = seeds, rng, 1
        arity = max(len(args) for args, _ in seeds)
        self.domains = [_Domain([args[i] for args, _ in seeds if i < len(args)]) for i in range(arity)]
        keys = sorted({key for _, kwargs in seeds for key in kwargs})
        self.kw_domains = {key: _Domain([kwargs[key] for _, kwargs in seeds if key in kwargs]) for key in keys}

    def candidate(self, rounds: int) -> tuple[tuple, dict]:
        """A new input: a seed with one or more of its arguments mutated ``rounds`` times."""
        args, kwargs = copy.deepcopy(self.rng.choice(self.seeds))
        args = list(args)
        slots = [("a", i) for i in range(len(args))] + [("k", key) for key in sorted(kwargs)]
        if not slots:
            return tuple(args), kwargs
        chosen = [slot for slot in slots if self.rng.random() < 0.5] or [self.rng.choice(slots)]
        for kind, key in chosen:
            domain = self.domains[key] if kind == "a" else self.kw_domains[key]
            value = args[key] if kind == "a" else kwargs[key]
            for _ in range(rounds):
                value = self.mutate(value, domain, depth=0)
            if kind == "a":
                args[key] = value
            else:
                kwargs[key] = value
        return tuple(args), kwargs

    def mutate(self, value, domain: _Domain, depth: int):
        """One mutation of ``value`` that keeps its type."""
        if isinstance(value, bool):
            return not value if self.rng.random() < 0.5 else value
        if isinstance(value, int):
            return self._int(value, domain)
        if isinstance(value, float):
            return self._float(value, domain)
        if isinstance(value, str):
            return self._str(value, domain)
        if isinstance(value, (list, tuple)):
            return type(value)(self._sequence(list(value), domain, depth, fixed_size=isinstance(value, tuple)))
        if isinstance(value, (set, frozenset)):
            return type(value)(self._sequence(sorted(value, key=to_source), domain, depth, fixed_size=False))
        if isinstance(value, dict):
            return self._dict(dict(value), domain, depth)
        return value

    def _int(self, value: int, domain: _Domain) -> int:
        rng = self.rng
        low, high = min(domain.ints, default=0), max(domain.ints, default=10)
        span = max(high - low, 5) * self.spread
        choice = rng.randrange(8)
        new = (value + 1, value - 1, value + rng.randint(-5, 5), value * 2, value // 2, -value,
               rng.randint(low - span, high + span), rng.choice((0, 1, high, low)))[choice]
        return abs(new) if domain.nonnegative else new

    def _float(self, value: float, domain: _Domain) -> float:
        rng = self.rng
        scale = max((abs(x) for x in domain.floats + domain.ints), default=1.0) or 1.0
        choice = rng.randrange(5)
        new = (value + rng.uniform(-1, 1) * scale / 4, value * rng.uniform(0.5, 2.0), round(value, 1),
               float(round(value)), round(rng.uniform(-scale, scale) * 2, 2))[choice]
        return abs(new) if domain.nonnegative else new

    def _str(self, value: str, domain: _Domain) -> str:
        rng, alphabet = self.rng, domain.alphabet
        if " " in value and domain.vocabulary and rng.random() < 0.5:
            return " ".join(self._sequence(value.split(" "), domain, 0, fixed_size=False, pool=domain.vocabulary))
        position = rng.randint(0, len(value))
        choice = rng.randrange(8)
        if choice == 0 and value:
            return value[:position] + rng.choice(alphabet) + value[position + 1:]
        if choice == 1:
            return value[:position] + rng.choice(alphabet) + value[position:]
        if choice == 2 and value:
            return value[:position] + value[position + 1:]
        if choice == 3:
            return value[::-1]
        if choice == 4:
            return value + value[position:]
        if choice == 5:
            length = rng.randint(0, 2 * max(domain.lengths) + 2)
            return "".join(rng.choice(alphabet) for _ in range(length))
        if choice == 6 and len(value) > 1:
            chars = list(value)
            rng.shuffle(chars)
            return "".join(chars)
        return rng.choice(("", rng.choice(alphabet), value.swapcase() if rng.random() < 0.3 else value))

    def _sequence(self, items: list, domain: _Domain, depth: int, fixed_size: bool, pool: list | None = None) -> list:
        """Mutate elements, insert, delete, shuffle, grow, shrink to an edge size or duplicate; new
        elements are mutated copies of existing ones, or drawn from ``pool`` (words of a sentence)."""
        rng = self.rng

        def fresh():
            return rng.choice(pool) if pool else self.mutate(copy.deepcopy(rng.choice(items)), domain, depth + 1)

        choice = rng.randrange(3) if fixed_size and rng.random() < 0.8 else rng.randrange(9)
        if not items:
            return items
        if choice in (0, 1, 2):  # mutate elements in place
            for index in rng.sample(range(len(items)), k=rng.randint(1, len(items))):
                items[index] = rng.choice(pool) if pool else self.mutate(items[index], domain, depth + 1)
            return items
        if choice == 3:
            items.insert(rng.randint(0, len(items)), fresh())
        elif choice == 4:
            del items[rng.randrange(len(items))]
        elif choice == 5:
            rng.shuffle(items)
        elif choice == 6:  # grow: vary the size up to several times the largest seed
            target = rng.randint(len(items) + 1, max(2 * max(domain.lengths), len(items) + 3, 12))
            while len(items) < target:
                items.append(fresh())
        elif choice == 7:
            items = items[: rng.randint(0, 1)]  # edge sizes: empty or a single element
        else:
            items = items + [copy.deepcopy(rng.choice(items))]
        return items

    def _dict(self, items: dict, domain: _Domain, depth: int) -> dict:
        rng = self.rng
        if not items:
            return items
        keys = list(items)
        key = rng.choice(keys)
        choice = rng.randrange(3)
        if choice == 0:
            items[key] = self.mutate(items[key], domain, depth + 1)
        elif choice == 1 and len(items) > 1:
            del items[key]
        else:
            new_key = self.mutate(copy.deepcopy(key), domain, depth + 1)
            items.setdefault(new_key, self.mutate(copy.deepcopy(items[key]), domain, depth + 1))
        return items


def _rng(task_id: str, seed: int) -> random.Random:
    digest = hashlib.sha256(f"{seed}:{task_id}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _assert_source(call: str, expected: str, is_float: bool) -> str:
    if is_float:
        return f"assert abs({call} - {expected}) <= 1e-06 * max(1.0, abs({expected}))"
    return f"assert {call} == {expected}"


def extend_task(task: Task, target: int = 110, *, seed: int = 0, limits: Limits = DEFAULT_LIMITS,
                max_rounds: int = 4) -> Extension:
    """Extend ``task`` with up to ``target`` new asserts (kept after the task's own seed asserts)."""
    if target < 0:
        raise ValueError(f"target must be >= 0, got {target}")
    originals = tuple(task.seed_tests)
    dropped: Counter = Counter()
    if not task.entry_point:
        return Extension(task.task_id, originals, 0, 0, {"no entry point found in the asserts": 1})
    seeds = seed_calls(originals, task.entry_point)
    if not seeds:
        return Extension(task.task_id, originals, 0, 0, {"no call with literal arguments in the asserts": 1})
    mutator = Mutator(seeds, _rng(str(task.task_id), seed))
    seen = {call_source(task.entry_point, args, kwargs) for args, kwargs in seeds}
    new_tests: list[str] = []
    slow: list[int] = []  # lengths of the calls on which the reference timed out
    candidates, load_error = 0, False
    for attempt in range(max_rounds):
        if len(new_tests) >= target:
            break
        mutator.spread = 4**attempt  # widen the numeric ranges when the seeds' own run dry
        wanted, batch = 2 * (target - len(new_tests)) + 10, []
        for _ in range(30 * wanted):
            if len(batch) >= wanted:
                break
            args, kwargs = mutator.candidate(rounds=1 + attempt + mutator.rng.randrange(2))
            call = call_source(task.entry_point, args, kwargs)
            if call in seen:
                dropped["duplicate input"] += 1
            elif len(call) > MAX_SOURCE_CHARS:
                dropped["input too long"] += 1
            else:
                seen.add(call)
                batch.append(call)
        candidates += len(batch)
        for start in range(0, len(batch), _CHUNK):
            if len(new_tests) >= target or load_error:
                break
            chunk = []
            for call in batch[start:start + _CHUNK]:
                if len(slow) >= _MAX_TIMEOUTS and len(call) >= min(slow):
                    dropped["skipped: as long as an input the reference timed out on"] += 1
                else:
                    chunk.append(call)
            for call, expected, is_float in _expected_outputs(task, chunk, limits, dropped, slow):
                if len(new_tests) < target:
                    new_tests.append(_assert_source(call, expected, is_float))
            load_error = any(reason.startswith("reference does not load") for reason in dropped)
    return Extension(task.task_id, originals + tuple(new_tests), len(new_tests), candidates, dict(dropped))


def _expected_outputs(task: Task, calls: list[str], limits: Limits, dropped: Counter, slow: list[int]):
    """Run the reference on each call, then again with another hash and random seed on those that
    passed; yield the stable, re-readable outputs. Lengths of calls that timed out go to ``slow``."""
    if not calls:
        return
    first = _run_reference(task, calls, limits, hash_seed=0)
    if first.load.status != "passed":
        dropped[f"reference does not load ({first.load.error})"] += len(calls)
        return
    kept = []
    for call, result in zip(calls, first.tests):
        if result.status == "timeout":
            slow.append(len(call))
        if result.status != "passed":
            dropped[f"reference {result.status}"] += 1
        elif not result.value[2]:
            dropped["output not a re-readable literal"] += 1
        elif len(result.value[0]) > MAX_SOURCE_CHARS:
            dropped["output too long"] += 1
        else:
            kept.append((call, result.value))
    second = _run_reference(task, [call for call, _ in kept], limits, hash_seed=1) if kept else None
    for (call, value), again in zip(kept, second.tests if second else ()):
        if again.status != "passed" or again.value != value:
            dropped["reference nondeterministic"] += 1
        else:
            yield call, value[0], value[1]


def _run_reference(task: Task, calls: list[str], limits: Limits, hash_seed: int):
    snippets = [f"{_VALUE} = __codescore_encode__({call})" for call in calls]
    return run_program(Job(task.reference, snippets, task.setup + "\n" + _ENCODER), limits,
                       capture=_VALUE, hash_seed=hash_seed)
