"""Build execution-labelled data: tasks -> extended tests -> candidates -> sandbox labels -> splits.

MBPP uses its standard split by task_id: train = 601-974, validation = 511-600 (1-10 are few-shot
prompts and 11-510 the test split; neither is used). Generic task files are split by task with a
seeded hash (``validation_fraction``). HumanEval is zero-shot evaluation data only: it can be built
with ``eval_only`` (one labelled ``eval.jsonl``) and never into a training dataset. Every split is
made by task, never by sample, and ``foreign`` candidates come from the same split only.

Real generated programs (``generations``, see ``data.generations``) join the candidates of their
task's split, labelled the same way. With generations, ``validation`` holds real programs only (what
model selection must look like) and the synthetic candidates of validation tasks go to
``validation_synthetic``. With ``generation_mutants``, a second round mutates real training programs
that passed every test (kind ``generation_mutant``, in the program's own layout): pairs of a correct
program and a near miss of it, the within-task contrast that mutants of the reference alone do not give.

Each output row: generated_code, golden_code, source (the NL task), pass_ratio, executable,
all_pass, task_id, plus kind (``generation``, ``reference`` or a synthetic kind), generator (the
models that wrote a real program), detail (how the candidate was made) and num_tests.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

from codescore_metric.data.candidates import Candidate, Donor, equivalent_rewrite, make_candidates, mutants_of, task_rng
from codescore_metric.data.distribution import format_distribution, label_distribution
from codescore_metric.data.generations import EXECUTION_PRELUDE, KIND, MUTANT_KIND, Generation, mismatched_groups, read_generations
from codescore_metric.data.prompts import docstring_prompt
from codescore_metric.execution.distributed import runner
from codescore_metric.execution.extend import DEFAULT_LIMITS, extend_task
from codescore_metric.execution.labels import executable, pass_ratio, passable
from codescore_metric.execution.sandbox import Limits, default_workers
from codescore_metric.execution.tasks import Task, load_tasks
from codescore_metric.formats import COLUMN_FOR_FIELD, LABEL_COLUMNS
from codescore_metric.jsonl import read_records, write_jsonl

BENCHMARKS = ("mbpp", "humaneval", "generic")
MBPP_SPLITS = {"train": range(601, 975), "validation": range(511, 601)}
MBPP_TRAIN_CHOICES = ("standard", "all")  # all: every task outside validation (prompt 1-10, test 11-510, train 601-974)
# The NL column: the benchmark's text, a HumanEval-style docstring prompt, or either per candidate (seeded).
NL_STYLES = ("text", "prompt", "mixed")
# task: a generation mutant reads the task's reference; parent: the passing real program it was made from
GENERATION_MUTANT_REFERENCES = ("task", "parent")
NL_FIELDS = {"mbpp": ("text",), "humaneval": ("prompt",), "generic": ("source", "text", "prompt")}
# Each output column and its type: the three texts and three labels, then where the row comes from.
COLUMN_TYPES = {**{column: "string" for column in COLUMN_FOR_FIELD.values()},
                **dict(zip(LABEL_COLUMNS, ("float64", "bool", "bool"))),
                "task_id": "string", "kind": "string", "generator": "string", "detail": "string", "num_tests": "int64"}
_PREDICTION_COLUMN, _REFERENCE_COLUMN, _SOURCE_COLUMN = (COLUMN_FOR_FIELD[field] for field in ("prediction", "reference", "source"))
EXTENSION_CACHE = "extended_tests.jsonl"
EXTENSION_MARGIN = 4  # a new test's reference run may take at most 1/4 of the labelling per-test timeout


@dataclass(frozen=True)
class BuildConfig:
    """What to build. ``input``: a task jsonl (rows may already carry ``test_case_list``, as written by
    ``codescore extend-tests``); ``hub_id``: a Hub dataset id instead (MBPP only)."""

    benchmark: str
    output_dir: Path
    input: Path | None = None
    hub_id: str | None = None
    per_task: int = 20
    seed: int = 0
    workers: int | None = None
    limit: int | None = None
    eval_only: bool = False
    mbpp_train: str = "standard"
    nl_style: str = "text"
    validation_fraction: float = 0.1
    tests_per_task: int = 110
    limits: Limits = Limits(test_timeout=1.0, program_timeout=20.0)
    shared_process: bool = True  # tests of a candidate run one after another in one process (4x faster)
    progress: bool = True
    generations: tuple[Path, ...] = ()  # jsonl files of real generated programs (data.generations)
    generation_tasks_only: bool = False  # build only the tasks that have generations
    reference_rows: bool = False  # the reference itself is a training candidate (PassRatio 1)
    generation_mutants: int = 0  # per training task: one mutant each of this many real programs that pass every test
    generation_mutant_reference: str = "task"  # what such a mutant reads as reference: the task's, or its parent program
    equivalent_rewrites: bool = False  # per training task: a one-place rewrite that keeps what the code does, of the
    # reference and of a passing real program (read against that program)
    ray_address: str | None = None  # None: label on this machine; else on Ray (execution.distributed; '': a local cluster)

    def __post_init__(self):
        if self.benchmark not in BENCHMARKS:
            raise ValueError(f"benchmark must be one of {', '.join(BENCHMARKS)}, got {self.benchmark!r}")
        if (self.input is None) == (self.hub_id is None):
            raise ValueError("give exactly one of input (a task jsonl path) and hub_id")
        if self.hub_id is not None and self.benchmark != "mbpp":
            raise ValueError("hub_id is supported for MBPP only; pass a local jsonl for other benchmarks")
        if self.benchmark == "humaneval" and not self.eval_only:
            raise ValueError("HumanEval is zero-shot evaluation data only and never goes into a training dataset; "
                             "build it with eval_only (--eval-only), which writes eval.jsonl")
        if self.mbpp_train not in MBPP_TRAIN_CHOICES:
            raise ValueError(f"mbpp_train must be one of {', '.join(MBPP_TRAIN_CHOICES)}, got {self.mbpp_train!r}")
        if self.nl_style not in NL_STYLES:
            raise ValueError(f"nl_style must be one of {', '.join(NL_STYLES)}, got {self.nl_style!r}")
        if self.nl_style != "text" and self.benchmark == "humaneval":
            raise ValueError("HumanEval's NL already is a docstring prompt; use nl_style='text' for it")
        if self.limit is not None and self.limit < 1:
            raise ValueError(f"limit must be at least 1, got {self.limit}")
        if not 0 < self.validation_fraction < 1:
            raise ValueError(f"validation_fraction must be between 0 and 1, got {self.validation_fraction}")
        if self.tests_per_task < 0:
            raise ValueError(f"tests_per_task must be >= 0, got {self.tests_per_task}")
        if self.per_task < 0:
            raise ValueError(f"per_task (synthetic candidates per task) must be >= 0, got {self.per_task}")
        if (self.generation_tasks_only or self.generation_mutants) and not self.generations:
            raise ValueError("generation_tasks_only and generation_mutants need at least one generations file")
        if self.generation_mutants < 0:
            raise ValueError(f"generation_mutants must be >= 0, got {self.generation_mutants}")
        if self.generation_mutant_reference not in GENERATION_MUTANT_REFERENCES:
            raise ValueError(f"generation_mutant_reference must be one of {', '.join(GENERATION_MUTANT_REFERENCES)}, "
                             f"got {self.generation_mutant_reference!r}")
        if self.equivalent_rewrites and not (self.reference_rows and self.generations):
            raise ValueError("equivalent_rewrites rewrites the reference rows and real programs; set reference_rows "
                             "(--reference-rows) and give a generations file")
        if self.generation_mutant_reference != "task" and not self.generation_mutants:
            raise ValueError(f"generation_mutant_reference={self.generation_mutant_reference!r} applies to generation "
                             "mutants; set generation_mutants (--generation-mutants N) to at least 1")


@dataclass(frozen=True)
class BuildReport:
    """What was written: rows per split, their label distributions, the tasks dropped and why."""

    rows: dict[str, list[dict]]
    distributions: dict[str, dict]
    dropped: dict[str, str]
    paths: list[Path]


def build(config: BuildConfig) -> BuildReport:
    """Run the whole pipeline and write the outputs into ``config.output_dir``."""
    out = Path(config.output_dir)
    out.mkdir(parents=True, exist_ok=True)
    tasks, sources = load_benchmark(config)
    generations = read_generations(config.generations)
    generation_tasks = {g.task_id for g in generations}
    unknown = sorted(generation_tasks - set(tasks), key=_id_order)
    if unknown:
        raise ValueError(f"{len(unknown)} task id(s) of the generations are not in the task file, e.g. {unknown[:5]}; "
                         "generations must be for the benchmark given with --input")
    if config.generation_tasks_only:
        tasks = {task_id: task for task_id, task in tasks.items() if task_id in generation_tasks}
    splits = select_splits(tasks, config)
    in_scope = {task_id: tasks[task_id] for ids in splits.values() for task_id in ids}
    tests = extended_tests(in_scope, out / EXTENSION_CACHE, config)
    in_scope = {task_id: replace(task, tests=tests[task_id]) for task_id, task in in_scope.items()}
    rows, dropped = label_splits(in_scope, splits, sources, config, generations)
    if config.generation_mutants and "train" in rows:
        rows["train"] += label_generation_mutants(rows["train"], in_scope, config)
    if config.equivalent_rewrites and "train" in rows:
        rows["train"] += label_equivalent_rewrites(rows["train"], in_scope, config)
    paths = write_outputs(rows, out, config.eval_only)
    distributions = {split: label_distribution(split_rows) for split, split_rows in rows.items()}
    text = "\n\n".join(format_distribution(split, dist) for split, dist in distributions.items())
    (out / "label_distribution.md").write_text(text + "\n")
    (out / "label_distribution.json").write_text(json.dumps({"distributions": distributions, "dropped": dropped}, indent=1))
    paths += [out / "label_distribution.md", out / "label_distribution.json"]
    return BuildReport(rows, distributions, dropped, paths)


# ---- loading ---------------------------------------------------------------------------------------

def load_benchmark(config: BuildConfig) -> tuple[dict[str, Task], dict[str, str]]:
    """The tasks (tests: ``test_case_list`` where a row has it, else the original asserts) and each
    task's NL description."""
    path = Path(config.input) if config.input is not None else download_mbpp(config.hub_id, Path(config.output_dir))
    tests = "extended" if config.benchmark == "humaneval" else "auto"
    tasks = load_tasks(path, config.benchmark, tests=tests)
    return tasks, read_sources(path, config.benchmark)


def download_mbpp(hub_id: str, out: Path) -> Path:
    """All splits of the Hub's MBPP ``full`` config written to ``out/mbpp_hub.jsonl`` (needs network)."""
    import datasets

    loaded = datasets.load_dataset(hub_id, "full")
    path = out / "mbpp_hub.jsonl"
    write_jsonl(path, (dict(row) for split in loaded.values() for row in split))
    return path


def read_sources(path: Path, benchmark: str) -> dict[str, str]:
    """task_id -> NL description, from the first of the benchmark's NL fields a row has ('' if none)."""
    sources = {}
    for line, row in read_records(path, "{path}: {count} bad row(s)"):
        text = next((row[name] for name in NL_FIELDS[benchmark] if name in row), "")
        if not isinstance(text, str):
            raise ValueError(f"{path}:{line}: the NL field must be a string, got {type(text).__name__}")
        sources[str(row.get("task_id"))] = text
    return sources


# ---- splits ----------------------------------------------------------------------------------------

def select_splits(tasks: dict[str, Task], config: BuildConfig) -> dict[str, list[str]]:
    """task ids per output split, each list sorted and cut to ``config.limit``. With ``eval_only``:
    one ``eval`` split (MBPP: its validation tasks; other benchmarks: every task)."""
    if config.benchmark == "mbpp":
        splits = mbpp_splits(tasks, config.mbpp_train)
        if config.eval_only:
            splits = {"eval": splits["validation"]}
    elif config.eval_only:
        splits = {"eval": sorted(tasks, key=_id_order)}
    else:
        splits = hash_splits(tasks, config.validation_fraction, config.seed)
    empty = [name for name, ids in splits.items() if not ids]
    if empty:
        raise ValueError(f"no tasks fall in split(s) {', '.join(empty)}; check the input file and task ids")
    return {name: ids[: config.limit] for name, ids in splits.items()}


def mbpp_splits(tasks: dict[str, Task], train: str = "standard") -> dict[str, list[str]]:
    """MBPP by task_id: validation is always 511-600; train is the standard 601-974, or with
    ``train="all"`` every other task (MBPP's test split too, for models never evaluated on it)."""
    splits: dict[str, list[str]] = {"train": [], "validation": []}
    for task_id in sorted(tasks, key=_id_order):
        if not task_id.isdigit():
            raise ValueError(f"MBPP task_id must be an integer, got {task_id!r}")
        number = int(task_id)
        if number in MBPP_SPLITS["validation"]:
            splits["validation"].append(task_id)
        elif train == "all" or number in MBPP_SPLITS["train"]:
            splits["train"].append(task_id)
    return splits


def hash_splits(tasks: dict[str, Task], validation_fraction: float, seed: int) -> dict[str, list[str]]:
    """Train / validation by a seeded hash of each task id: stable when tasks are added or removed."""
    splits: dict[str, list[str]] = {"train": [], "validation": []}
    for task_id in sorted(tasks, key=_id_order):
        digest = hashlib.sha256(f"split:{seed}:{task_id}".encode()).digest()
        share = int.from_bytes(digest[:8], "big") / 2**64
        splits["validation" if share < validation_fraction else "train"].append(task_id)
    return splits


def _id_order(task_id: str):
    tail = task_id.rsplit("/", 1)[-1]
    return (0, int(tail), task_id) if tail.isdigit() else (1, 0, task_id)


# ---- extended tests --------------------------------------------------------------------------------

def extended_tests(tasks: dict[str, Task], cache: Path, config: BuildConfig) -> dict[str, tuple[str, ...]]:
    """Tests per task: the task's own extended tests when its row had them, else ``extend_task``'s
    (cached in ``cache``, one jsonl row per task, so a rerun does not redo them)."""
    result = {task_id: task.tests for task_id, task in tasks.items()
              if task.tests != task.seed_tests or config.tests_per_task == 0}
    todo = {task_id: task for task_id, task in tasks.items() if task_id not in result}
    cached = _read_cache(cache)
    for task_id, task in list(todo.items()):
        hit = cached.get(_cache_key(task, config))
        if hit is not None:
            result[task_id] = hit
            del todo[task_id]
    if todo:
        print(f"extending the tests of {len(todo)} task(s) (cache: {cache})", file=sys.stderr)
        with ThreadPoolExecutor(max_workers=config.workers or default_workers()) as pool:
            limits = extension_limits(config.limits)
            runs = pool.map(lambda task: extend_task(task, config.tests_per_task, seed=config.seed, limits=limits), todo.values())

            def entries():
                for task, extension in _progress(zip(todo.values(), runs), len(todo), "extend", config.progress):
                    result[task.task_id] = extension.tests
                    yield {"key": _cache_key(task, config), "task_id": task.task_id, "new": extension.new,
                           "dropped": extension.dropped, "test_case_list": list(extension.tests)}

            write_jsonl(cache, entries(), append=True)
    return result


def extension_limits(labelling: Limits) -> Limits:
    """Limits for writing a task's new tests: the reference must answer each within 1/``EXTENSION_MARGIN`` of the
    per-test time a candidate gets when it is labelled. A test the reference only just passes would fail it on a
    loaded machine, and its task would be dropped (seven MBPP tasks once were, when tests were written with 2 s
    and labelled with 1 s)."""
    return replace(DEFAULT_LIMITS, test_timeout=labelling.test_timeout / EXTENSION_MARGIN)


def _cache_key(task: Task, config: BuildConfig) -> str:
    payload = json.dumps([task.task_id, task.reference, task.setup, task.seed_tests, config.tests_per_task, config.seed,
                          extension_limits(config.limits).test_timeout])
    return hashlib.sha256(payload.encode()).hexdigest()


def _read_cache(cache: Path) -> dict[str, tuple[str, ...]]:
    if not cache.exists():
        return {}
    rows = read_records(cache, "the extension cache {path} is damaged ({count} bad line(s)); delete it to rebuild")
    return {row["key"]: tuple(row["test_case_list"]) for _, row in rows}


# ---- candidates and labels -------------------------------------------------------------------------

def label_splits(tasks: dict[str, Task], splits: dict[str, list[str]], sources: dict[str, str],
                 config: BuildConfig, generations: list[Generation] = ()) -> tuple[dict[str, list[dict]], dict[str, str]]:
    """Candidates for every task (donors from its own split) and its real generations, labelled in the
    sandbox. A task whose reference does not pass all its tests is dropped, with the reason, and so is a
    group of generations whose prompt asked for another function (``mismatched_groups``)."""
    skipped = mismatched_groups(generations, tasks)
    by_task: dict[str, list[Generation]] = {}
    for generation in generations:
        if generation.task_id in tasks and (generation.task_id, generation.prompt_style) not in skipped:
            by_task.setdefault(generation.task_id, []).append(generation)
    plan: list[tuple[str, str, Candidate | None]] = []  # (split, task_id, candidate); None: the reference itself
    for split, ids in splits.items():
        donors = [Donor(task_id, tasks[task_id].reference, tasks[task_id].entry_point) for task_id in ids]
        for task_id in ids:
            task = tasks[task_id]
            plan.append((split, task_id, None))
            plan += [(split, task_id, candidate) for candidate in
                     make_candidates(task_id, task.reference, task.entry_point, donors,
                                     per_task=config.per_task, seed=config.seed)]
            plan += [(split, task_id, Candidate(g.program, KIND, f"{g.row_id} {g.prompt_style}".strip(), g.generator))
                     for g in by_task.get(task_id, ())]
    jobs = [tasks[task_id].job(_program(tasks[task_id], candidate)) for _, task_id, candidate in plan]
    results = list(_progress(runner(config.ray_address)(jobs, config.limits, workers=config.workers, shared_process=config.shared_process),
                             len(jobs), "label", config.progress))
    results = _rerun_failed_references(plan, jobs, results, config)
    rows: dict[str, list[dict]] = {split: [] for split in splits}
    dropped = {f"{task_id} ({style or 'unstyled'} generations)": reason for (task_id, style), reason in skipped.items()}
    prompts = {} if config.nl_style == "text" else {  # one docstring prompt per task, made once
        task_id: docstring_prompt(task.reference, task.entry_point, sources.get(task_id, ""), task.seed_tests)
        for task_id, task in tasks.items()}
    for (split, task_id, candidate), result in zip(plan, results):
        if candidate is None:
            if not passable(result):
                dropped[task_id] = (f"the reference passes {pass_ratio(result):.0%} of its {len(result.tests)} tests, "
                                    f"also when re-run alone (load: {result.load.status})")
            elif config.reference_rows and split == "train":
                candidate = Candidate(tasks[task_id].reference, "reference", "the reference itself")
            else:
                continue
        if task_id in dropped:
            continue
        task = tasks[task_id]
        target = split if not generations or split == "train" or candidate.kind == KIND else f"{split}_synthetic"
        rows.setdefault(target, []).append({
            _PREDICTION_COLUMN: candidate.code, _REFERENCE_COLUMN: task.reference,
            _SOURCE_COLUMN: _source(task_id, sources.get(task_id, ""), prompts.get(task_id), candidate, config),
            "pass_ratio": pass_ratio(result), "executable": executable(result), "all_pass": passable(result),
            "task_id": task_id, "kind": candidate.kind, "generator": candidate.generator, "detail": candidate.detail,
            "num_tests": len(task.tests)})
    return rows, dropped


def _rerun_failed_references(plan: list, jobs: list, results: list, config: BuildConfig) -> list:
    """``results`` with each reference that failed a test run once more, alone on one worker, and that run kept.

    Every extended test passed the reference in a quarter of the labelling timeout when it was made
    (``extension_limits``), so a failure among many parallel jobs is a slow test timing out on a loaded machine;
    without the re-run the task would be dropped.
    """
    failed = [index for index, (_, _, candidate) in enumerate(plan) if candidate is None and not passable(results[index])]
    if not failed:
        return results
    again = runner(config.ray_address)([jobs[index] for index in failed], config.limits, workers=1,
                                       shared_process=config.shared_process)
    for index, result in zip(failed, again):
        results[index] = result
    return results


def label_generation_mutants(rows: list[dict], tasks: dict[str, Task], config: BuildConfig) -> list[dict]:
    """Rows for mutants of real programs that pass every test: per task, up to ``config.generation_mutants``
    such programs (a seeded draw), one mutant each, run and labelled like the others. Each reads the task's
    reference, or with ``generation_mutant_reference="parent"`` the program it was made from."""
    passing: dict[str, list[dict]] = {}
    for row in rows:
        if row["kind"] == KIND and row["all_pass"]:
            passing.setdefault(row["task_id"], []).append(row)
    plan: list[tuple[dict, Candidate]] = []
    for task_id in sorted(passing, key=_id_order):
        rng = task_rng(config.seed, f"generation-mutants:{task_id}")
        bases = rng.sample(passing[task_id], min(config.generation_mutants, len(passing[task_id])))
        for base in bases:
            plan += [(base, Candidate(mutant.code, MUTANT_KIND, f"{mutant.detail} of {base['detail']}", base["generator"]))
                     for mutant in mutants_of(base[_PREDICTION_COLUMN], rng, count=1)]
    jobs = [tasks[base["task_id"]].job(_program(tasks[base["task_id"]], candidate)) for base, candidate in plan]
    return _labelled_rows(plan, jobs, config, "label mutants", config.generation_mutant_reference == "parent")


def label_equivalent_rewrites(rows: list[dict], tasks: dict[str, Task], config: BuildConfig) -> list[dict]:
    """Rows for one-place rewrites that keep what the code does (`candidates.equivalent_rewrite`): per task, one of
    its ``reference`` row and one of a real program that passes every test (a seeded draw), which then reads that
    program as its reference; run and labelled like the others (kind ``equivalent``, the rewrite's name as detail)."""
    by_task: dict[str, list[dict]] = {}
    for row in rows:
        by_task.setdefault(row["task_id"], []).append(row)
    plan: list[tuple[dict, Candidate]] = []
    for task_id in sorted(by_task, key=_id_order):
        rng = task_rng(config.seed, f"equivalent-rewrites:{task_id}")
        passing = [row for row in by_task[task_id] if row["kind"] == KIND and row["all_pass"]]
        bases = [row for row in by_task[task_id] if row["kind"] == "reference"][:1] + ([rng.choice(passing)] if passing else [])
        for base in bases:
            candidate = equivalent_rewrite(base[_PREDICTION_COLUMN], rng)
            if candidate is not None:
                plan.append((base, candidate))
    jobs = [tasks[base["task_id"]].job(EXECUTION_PRELUDE + candidate.code if base["kind"] == KIND else candidate.code)
            for base, candidate in plan]
    return _labelled_rows(plan, jobs, config, "label rewrites", read_parent=True)


def _labelled_rows(plan: list[tuple[dict, Candidate]], jobs: list, config: BuildConfig, label: str,
                   read_parent: bool) -> list[dict]:
    """Run ``jobs`` (one per ``(base row, candidate)`` of ``plan``) and give each candidate its base's row with its
    own code, labels, kind and detail; with ``read_parent`` it reads its base's program as reference."""
    results = runner(config.ray_address)(jobs, config.limits, workers=config.workers,
                                         shared_process=config.shared_process)
    return [{**base, _PREDICTION_COLUMN: candidate.code, "pass_ratio": pass_ratio(result), "executable": executable(result),
             "all_pass": passable(result), "kind": candidate.kind, "detail": candidate.detail,
             **({_REFERENCE_COLUMN: base[_PREDICTION_COLUMN]} if read_parent else {})}
            for (base, candidate), result in _progress(zip(plan, results), len(plan), label, config.progress)]


def _program(task: Task, candidate: Candidate | None) -> str:
    """What runs: the reference, a synthetic candidate, or a real program (or its mutant) behind its
    harness's prelude."""
    if candidate is None:
        return task.reference
    return EXECUTION_PRELUDE + candidate.code if candidate.kind in (KIND, MUTANT_KIND) else candidate.code


def _source(task_id: str, text: str, prompt: str | None, candidate, config: BuildConfig) -> str:
    """The row's NL in ``config.nl_style``; the text where no prompt could be made from the reference."""
    style = config.nl_style
    if style == "mixed":
        digest = hashlib.sha256(f"nl:{config.seed}:{task_id}:{candidate.code}".encode()).digest()
        style = "prompt" if digest[0] % 2 else "text"
    return prompt or text if style == "prompt" else text


def _progress(items: Iterable, total: int, label: str, enabled: bool) -> Iterable:
    if not enabled:
        return items
    from tqdm import tqdm

    return tqdm(items, total=total, desc=label, file=sys.stderr)


# ---- outputs ---------------------------------------------------------------------------------------

def write_outputs(rows: dict[str, list[dict]], out: Path, eval_only: bool) -> list[Path]:
    """``eval_only``: ``eval.jsonl`` (and ``eval_synthetic.jsonl`` beside real generations) only.
    Otherwise a ``datasets.DatasetDict`` saved to ``out/dataset`` and one ``<split>.jsonl`` per split."""
    if eval_only:
        paths = [out / f"{split}.jsonl" for split in rows]
        for path, split_rows in zip(paths, rows.values()):
            write_jsonl(path, split_rows)
        return paths
    dataset = to_dataset_dict(rows)
    dataset.save_to_disk(str(out / "dataset"))
    paths = [out / "dataset"]
    for split, split_rows in rows.items():
        write_jsonl(out / f"{split}.jsonl", split_rows)
        paths.append(out / f"{split}.jsonl")
    return paths


def to_dataset_dict(rows: dict[str, Sequence[dict]]):
    """A ``datasets.DatasetDict`` with the columns of ``COLUMN_TYPES`` (fixed types, also for empty splits)."""
    import datasets

    features = datasets.Features({column: datasets.Value(kind) for column, kind in COLUMN_TYPES.items()})
    columns = {split: {column: [row[column] for row in split_rows] for column in COLUMN_TYPES}
               for split, split_rows in rows.items()}  # by column: from_list cannot type an empty split
    return datasets.DatasetDict({split: datasets.Dataset.from_dict(split_columns, features=features)
                                 for split, split_columns in columns.items()})

