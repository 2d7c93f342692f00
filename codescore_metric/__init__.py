"""CodeScore: estimate PassRatio, Executability and Passability of generated code without running it.

The import is kept light (no torch, no transformers) because `evaluate` imports this package while
it scans `codescore.py`; the heavy classes load on first attribute access.
"""

__version__ = "0.6.0"

_LAZY = {
    "CodeScorer": "codescore_metric.scorer",
    "ScoreResult": "codescore_metric.scorer",
    "clear_model_cache": "codescore_metric.scorer",
    "UniCEConfig": "codescore_metric.modeling",
    "UniCEModel": "codescore_metric.modeling",
    "InputFormat": "codescore_metric.formats",
    "score_distributed": "codescore_metric.distributed_scoring",
}

__all__ = ["__version__", *_LAZY]


def __getattr__(name):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'codescore_metric' has no attribute {name!r}")
