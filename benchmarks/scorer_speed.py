"""Samples/s and peak memory of `CodeScorer` for a unixcoder-base-sized UniCE model with random weights.

Each (dtype, length, batch size) runs in a fresh process so that its peak RSS is its own. Inputs are
Python standard-library source cut to the target token length (Ref-only: half generated code,
half reference). Writes a markdown table to ``benchmarks/results/scorer_speed.md``.

    python benchmarks/scorer_speed.py                      # full grid (about 10 minutes on 2 cores)
    python benchmarks/scorer_speed.py --lengths 200 --batch-sizes 8 --samples 16   # quick look
"""

from __future__ import annotations

import argparse
import multiprocessing
import resource
import sysconfig
import tempfile
import time
from pathlib import Path

import numpy as np

RESULTS = Path(__file__).parent / "results" / "scorer_speed.md"


def unixcoder_sized_config(vocab_size: int) -> dict:
    """microsoft/unixcoder-base's shape (the authors' backbone, paper §4.1.4; its Hub config is a RoBERTa with
    12 layers, hidden size 768, 1026 positions and 10 token types) with our tokenizer's vocabulary size."""
    from transformers import RobertaConfig

    return RobertaConfig(
        vocab_size=max(vocab_size, 51416), hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
        intermediate_size=3072, max_position_embeddings=1026, type_vocab_size=10, pad_token_id=1,
        bos_token_id=0, eos_token_id=2, layer_norm_eps=1e-5,
    ).to_dict()


def stdlib_texts(limit_files: int = 400) -> list[str]:
    texts = []
    for path in sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py"))[:limit_files]:
        try:
            texts.append(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, OSError):
            continue
    return texts


def build_model_dir(directory: Path) -> Path:
    """A byte-level BPE tokenizer trained on the standard library and a random unixcoder-sized model."""
    import torch
    from tokenizers import ByteLevelBPETokenizer, processors
    from transformers import PreTrainedTokenizerFast

    from codescore_metric.modeling import UniCEConfig, UniCEModel

    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(stdlib_texts(), vocab_size=16000, special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<mask>"], show_progress=False)
    bpe._tokenizer.post_processor = processors.RobertaProcessing(("</s>", 2), ("<s>", 0))
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=bpe._tokenizer, bos_token="<s>", eos_token="</s>", sep_token="</s>",
                                        cls_token="<s>", pad_token="<pad>", unk_token="<unk>", mask_token="<mask>")
    torch.manual_seed(0)
    config = UniCEConfig(encoder=unixcoder_sized_config(len(tokenizer)), encoding_profile="clean", max_length=1024,
                         head_type="shared", normalization="sample")
    model = UniCEModel(config)
    with torch.no_grad():  # trained-looking layer norms and mix weights, so outputs vary between inputs
        for name, parameter in model.named_parameters():
            if "LayerNorm" in name:
                parameter.uniform_(0.5, 1.5) if name.endswith("weight") else parameter.normal_(0.0, 0.3)
        for index, scalar in enumerate(model.mix.scalar_parameters):
            scalar.fill_(0.05 * index)
    model.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory


def make_inputs(tokenizer, tokens: int, count: int) -> tuple[list[str], list[str]]:
    """``count`` (generated, reference) pairs whose encoding is about ``tokens`` long."""
    half = (tokens - 4) // 2
    pieces = []
    for text in stdlib_texts():
        ids = tokenizer(text, add_special_tokens=False)["input_ids"]
        pieces += [tokenizer.decode(ids[start:start + half]) for start in range(0, len(ids) - half, half)]
        if len(pieces) >= 2 * count:
            break
    return pieces[0:2 * count:2], pieces[1:2 * count:2]


def measure(model_dir: str, dtype: str, tokens: int, batch_size: int, samples: int, queue) -> None:
    import torch

    torch.set_num_threads(2)
    from codescore_metric import CodeScorer

    scorer = CodeScorer(model_dir, device="cpu", dtype=dtype)
    predictions, references = make_inputs(scorer.tokenizer, tokens, samples)
    scorer.score(predictions[:batch_size], references=references[:batch_size], batch_size=batch_size)  # warm-up
    start = time.perf_counter()
    result = scorer.score(predictions, references=references, batch_size=batch_size)
    elapsed = time.perf_counter() - start
    lengths = [len(s.input_ids) for s in scorer.encoder.encode({"prediction": predictions, "reference": references})]
    queue.put({"samples_per_s": samples / elapsed, "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
               "mean_tokens": float(np.mean(lengths)), "scores": result.codescore})


def run_one(model_dir, dtype, tokens, batch_size, samples) -> dict:
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    process = context.Process(target=measure, args=(str(model_dir), dtype, tokens, batch_size, samples, queue))
    process.start()
    result = queue.get()
    process.join()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lengths", type=int, nargs="+", default=[200, 500])
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[1, 8, 32, 64])
    parser.add_argument("--dtypes", nargs="+", default=["fp32", "bf16"])
    parser.add_argument("--samples", type=int, default=64, help="samples timed per setting (at least one batch)")
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args()
    rows, scores = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        model_dir = build_model_dir(Path(tmp) / "model")
        for tokens in args.lengths:
            for batch_size in args.batch_sizes:
                for dtype in args.dtypes:
                    result = run_one(model_dir, dtype, tokens, batch_size, max(args.samples, batch_size))
                    scores[(tokens, batch_size, dtype)] = np.array(result["scores"])
                    rows.append((tokens, batch_size, dtype, result))
                    print(f"{tokens} tokens, batch {batch_size}, {dtype}: {result['samples_per_s']:.2f} samples/s, "
                          f"peak RSS {result['peak_rss_mb']:.0f} MB", flush=True)
    lines = [
        "| tokens (mean) | batch | dtype | samples/s | speed-up vs fp32 | max abs diff vs fp32 | peak RSS (MB) |",
        "|---|---|---|---|---|---|---|",
    ]
    fp32 = {(t, b): r["samples_per_s"] for t, b, d, r in rows if d == "fp32"}
    for tokens, batch_size, dtype, result in rows:
        base = scores.get((tokens, batch_size, "fp32"))
        diff = float(np.max(np.abs(scores[(tokens, batch_size, dtype)] - base))) if base is not None else float("nan")
        speedup = result["samples_per_s"] / fp32[(tokens, batch_size)] if (tokens, batch_size) in fp32 else float("nan")
        lines.append(f"| {tokens} ({result['mean_tokens']:.0f}) | {batch_size} | {dtype} | {result['samples_per_s']:.2f} | "
                     f"{speedup:.2f}x | {diff:.4f} | {result['peak_rss_mb']:.0f} |")
    header = ("Unixcoder-base-sized UniCE (125M encoder, random weights), CPU, 2 threads, torch "
              f"{__import__('torch').__version__}; `python benchmarks/scorer_speed.py "
              f"--lengths {' '.join(map(str, args.lengths))} --batch-sizes {' '.join(map(str, args.batch_sizes))} "
              f"--samples {args.samples}`\n\n")
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(header + "\n".join(lines) + "\n")
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
