"""Shared test set-up: offline Hugging Face libraries and throwaway caches.

The environment variables are set at import time, before any test module imports
huggingface_hub, datasets, evaluate, transformers or gradio (those read them on import).
"""

import os
import tempfile

_TMP_HOME = tempfile.mkdtemp(prefix="codescore-tests-")
for _name, _value in {
    "HF_HUB_OFFLINE": "1",
    "HF_EVALUATE_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_HOME": os.path.join(_TMP_HOME, "hf"),
    "XDG_CACHE_HOME": os.path.join(_TMP_HOME, "xdg"),
    "GRADIO_ANALYTICS_ENABLED": "False",
    "GRADIO_TEMP_DIR": os.path.join(_TMP_HOME, "gradio"),
    "TOKENIZERS_PARALLELISM": "false",
}.items():
    os.environ[_name] = _value

import pytest  # noqa: E402


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory):
    """A tiny random UniCE model + tokenizer directory, usable as ``checkpoint=``."""
    from tests.tiny_model import build_tiny_model_dir

    return build_tiny_model_dir(tmp_path_factory.mktemp("tiny-model"))
