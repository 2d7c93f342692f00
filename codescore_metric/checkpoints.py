"""Resolve a checkpoint name (bundled default, local folder, Hub repo id, authors' .ckpt) to a model and tokenizer."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from codescore_metric.authors_checkpoint import AUTHORS_REPOS, load_authors_checkpoint
from codescore_metric.modeling import CONFIG_NAME, WEIGHTS_NAME, UniCEModel

DEFAULT_MODEL_DIR = Path(__file__).parent / "default_model"
CHECKPOINT_ENV = "CODESCORE_CHECKPOINT"
TOKENIZER_FILES = ["tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.json", "merges.txt", "vocab.txt", "added_tokens.json"]
REQUIRED_FILES = [CONFIG_NAME, WEIGHTS_NAME, "tokenizer_config.json"]
_REPO_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")


@dataclass
class LoadedCheckpoint:
    model: UniCEModel
    tokenizer: object
    model_id: str
    revision: str


def downloads_disabled(local_files_only: bool | None) -> bool:
    """Explicit choice, else ``HF_HUB_OFFLINE`` as huggingface_hub reads it."""
    if local_files_only is not None:
        return local_files_only
    from huggingface_hub import constants

    return bool(constants.HF_HUB_OFFLINE)


def load_checkpoint(
    checkpoint: str | Path | None = None,
    revision: str | None = None,
    local_files_only: bool | None = None,
    encoder: str | Path | None = None,
) -> LoadedCheckpoint:
    """Load a UniCE model and its tokenizer.

    ``checkpoint`` may be ``None`` (``$CODESCORE_CHECKPOINT``, else the model bundled in the package),
    a folder written by ``save_pretrained``, an authors' ``.ckpt`` file (or a folder holding one),
    a Hub repo id in our layout, or ``dz1/CodeScore``. ``encoder`` names the backbone whose config
    and tokenizer an authors' checkpoint needs (default ``microsoft/unixcoder-base``).
    """
    offline = downloads_disabled(local_files_only)
    if checkpoint is None:
        checkpoint = os.environ.get(CHECKPOINT_ENV) or _default_model_dir()
    path = Path(checkpoint).expanduser()
    if path.exists():
        return _load_local(path, encoder, offline)
    name = str(checkpoint)
    if not _REPO_ID.match(name):
        raise FileNotFoundError(
            f"checkpoint {name!r} is neither an existing file or folder nor a Hub repo id of the form 'org/name'"
        )
    if name in AUTHORS_REPOS:
        ckpt = _download(name, revision, offline, [AUTHORS_REPOS[name]])
        model, tokenizer = load_authors_checkpoint(ckpt / AUTHORS_REPOS[name], encoder, local_files_only=offline)
        return LoadedCheckpoint(model, tokenizer, name, ckpt.name)
    snapshot = _download(name, revision, offline, [CONFIG_NAME, WEIGHTS_NAME, *TOKENIZER_FILES, "README.md"])
    missing = [file for file in REQUIRED_FILES if not (snapshot / file).is_file()]
    if missing:
        raise FileNotFoundError(
            f"Hub repo {name}@{snapshot.name} has no {', '.join(missing)}; a CodeScore model repo holds "
            f"{', '.join(REQUIRED_FILES)} and tokenizer files (written by save_pretrained). For the authors' "
            f"weights use checkpoint='dz1/CodeScore'."
        )
    return LoadedCheckpoint(UniCEModel.from_pretrained(snapshot), _load_tokenizer(snapshot), name, snapshot.name)


def _default_model_dir() -> Path:
    if (DEFAULT_MODEL_DIR / CONFIG_NAME).is_file():
        return DEFAULT_MODEL_DIR
    raise FileNotFoundError(
        "this build of codescore-metric bundles no default model yet; name one with checkpoint=<folder or Hub id> "
        f"(e.g. 'dz1/CodeScore', the authors' weights) or set ${CHECKPOINT_ENV}"
    )


def _load_local(path: Path, encoder, offline: bool) -> LoadedCheckpoint:
    if path.is_dir() and (path / CONFIG_NAME).is_file():
        model = UniCEModel.from_pretrained(path)
        provenance = model.config.provenance
        model_id = provenance.get("model_id") or path.resolve().name
        return LoadedCheckpoint(model, _load_tokenizer(path), model_id, provenance.get("revision") or "local")
    ckpt = path
    if path.is_dir():
        candidates = sorted(path.glob("*.ckpt"))
        if len(candidates) != 1:
            raise FileNotFoundError(
                f"{path} is not a CodeScore model folder: it has no {CONFIG_NAME}"
                + (f" and {len(candidates)} .ckpt files (name one)" if candidates else " and no authors' .ckpt file")
            )
        ckpt = candidates[0]
    if ckpt.suffix != ".ckpt":
        raise ValueError(f"{ckpt} is a file but not an authors' .ckpt checkpoint; pass a model folder or a .ckpt file")
    model, tokenizer = load_authors_checkpoint(ckpt, encoder, local_files_only=offline)
    return LoadedCheckpoint(model, tokenizer, ckpt.name, "local")


def _load_tokenizer(directory: Path):
    from transformers import AutoTokenizer

    try:
        return AutoTokenizer.from_pretrained(str(directory))
    except (OSError, ValueError) as error:
        raise OSError(f"cannot load the tokenizer saved in {directory}: {error}") from error


def _download(repo_id: str, revision: str | None, offline: bool, patterns: list[str]) -> Path:
    """``snapshot_download`` of the files a model needs; errors say what is missing and how to get it."""
    from huggingface_hub import constants, snapshot_download
    from huggingface_hub.errors import (
        HfHubHTTPError,
        LocalEntryNotFoundError,
        RepositoryNotFoundError,
        RevisionNotFoundError,
    )

    where = f"{repo_id}@{revision or 'main'}"
    fetch_hint = f"`hf download {repo_id}{' --revision ' + revision if revision else ''}` on a machine with network (HF_HOME shared or copied here)"
    try:
        folder = snapshot_download(repo_id, revision=revision, allow_patterns=patterns, local_files_only=offline, library_name="codescore-metric")
    except LocalEntryNotFoundError as error:
        reason = "HF_HUB_OFFLINE is set" if constants.HF_HUB_OFFLINE else ("local_files_only=True" if offline else "the Hub could not be reached")
        raise FileNotFoundError(
            f"{where} is not in the local Hugging Face cache ({constants.HF_HUB_CACHE}) and {reason}. "
            f"Needed: {', '.join(p for p in patterns if p != 'README.md')}. Pre-download with {fetch_hint}, or pass a local folder."
        ) from error
    except RevisionNotFoundError as error:
        raise FileNotFoundError(f"{repo_id} has no revision {revision!r}; pass a branch, tag or commit sha that exists") from error
    except RepositoryNotFoundError as error:
        raise FileNotFoundError(f"Hub repo {repo_id!r} does not exist or is private (log in with `hf auth login`)") from error
    except (HfHubHTTPError, OSError) as error:
        raise ConnectionError(
            f"downloading {where} failed ({error}). If the files are cached, set HF_HUB_OFFLINE=1; otherwise run {fetch_hint}."
        ) from error
    return Path(folder)
