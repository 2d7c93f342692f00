"""Checkpoint resolution: local folders, a Hub repo served from a local cache, offline errors, the default."""

import shutil

import pytest
from huggingface_hub import constants

from codescore_metric import CodeScorer
from codescore_metric.checkpoints import CHECKPOINT_ENV, load_checkpoint
from tests.tiny_model import build_tiny_model_dir

SHA = "0123456789abcdef0123456789abcdef01234567"


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return build_tiny_model_dir(tmp_path_factory.mktemp("ckpt-model"))


@pytest.fixture
def hub_cache(tmp_path, monkeypatch):
    """An empty huggingface_hub cache folder that snapshot_download reads."""
    cache = tmp_path / "hub"
    cache.mkdir()
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(cache))
    return cache


def put_in_cache(cache, repo_id, source, files=None, sha=SHA, ref="main"):
    """Lay ``source``'s files out as huggingface_hub caches a snapshot of ``repo_id``."""
    repo = cache / f"models--{repo_id.replace('/', '--')}"
    snapshot = repo / "snapshots" / sha
    snapshot.mkdir(parents=True)
    for path in source.iterdir():
        if files is None or path.name in files:
            shutil.copy(path, snapshot / path.name)
    (repo / "refs").mkdir()
    (repo / "refs" / ref).write_text(sha)
    return snapshot


def test_hub_repo_loads_from_the_local_cache_with_its_commit(hub_cache, model_dir):
    put_in_cache(hub_cache, "org/codescore-tiny", model_dir)
    loaded = load_checkpoint("org/codescore-tiny", local_files_only=True)
    assert (loaded.model_id, loaded.revision) == ("org/codescore-tiny", SHA)
    pinned = CodeScorer("org/codescore-tiny", revision=SHA, local_files_only=True)
    assert f"model:org/codescore-tiny@{SHA}" in pinned.signature("ref")
    local = CodeScorer(model_dir)
    assert pinned.score(["x = 1"], references=["y = 2"]).codescore == local.score(["x = 1"], references=["y = 2"]).codescore


def test_hf_hub_offline_is_honoured_without_an_argument(hub_cache, model_dir, monkeypatch):
    put_in_cache(hub_cache, "org/codescore-tiny", model_dir)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    assert load_checkpoint("org/codescore-tiny").revision == SHA


def test_offline_with_an_empty_cache_names_the_files_and_the_fix(hub_cache):
    with pytest.raises(FileNotFoundError) as error:
        load_checkpoint("org/not-downloaded", revision="v1", local_files_only=True)
    message = str(error.value)
    assert "org/not-downloaded@v1 is not in the local Hugging Face cache" in message
    assert "config.json, model.safetensors" in message and "hf download org/not-downloaded --revision v1" in message


def test_authors_repo_offline_names_the_checkpoint_file(hub_cache):
    with pytest.raises(FileNotFoundError, match=r"dz1/CodeScore@main .*epoch=8-step=299583-val_pearson=0.739.ckpt"):
        load_checkpoint("dz1/CodeScore", local_files_only=True)


def test_partial_snapshot_lists_missing_files(hub_cache, model_dir):
    put_in_cache(hub_cache, "org/partial", model_dir, files={"config.json", "tokenizer.json", "tokenizer_config.json"})
    with pytest.raises(FileNotFoundError, match=r"has no model\.safetensors"):
        load_checkpoint("org/partial", local_files_only=True)


def test_unknown_names_and_files(tmp_path):
    with pytest.raises(FileNotFoundError, match="neither an existing file or folder nor a Hub repo id"):
        load_checkpoint("./no/such/dir/here")
    (tmp_path / "weights.bin").write_bytes(b"x")
    with pytest.raises(ValueError, match=r"not an authors' \.ckpt"):
        load_checkpoint(tmp_path / "weights.bin")
    with pytest.raises(FileNotFoundError, match=r"no authors' \.ckpt file"):
        load_checkpoint(tmp_path)


def test_default_model_and_environment_override(model_dir, monkeypatch):
    from codescore_metric import checkpoints

    monkeypatch.setattr(checkpoints, "DEFAULT_MODEL_DIR", model_dir.parent / "absent")
    monkeypatch.delenv(CHECKPOINT_ENV, raising=False)
    with pytest.raises(FileNotFoundError, match="bundles no default model"):
        load_checkpoint(None)
    monkeypatch.setenv(CHECKPOINT_ENV, str(model_dir))
    assert load_checkpoint(None).model_id == model_dir.name
    monkeypatch.delenv(CHECKPOINT_ENV)
    monkeypatch.setattr(checkpoints, "DEFAULT_MODEL_DIR", model_dir)
    assert load_checkpoint(None).model_id == model_dir.name
