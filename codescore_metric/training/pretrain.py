"""Pretrain a small code encoder with masked language modelling on Python source (the standard library by default).

No pretrained code encoder can be downloaded here, so the embedded default model starts from one
made this way: a byte-level BPE tokenizer (keeps case, newlines and indentation) and a small
RoBERTa trained on ``.py`` files found on disk.
"""

from __future__ import annotations

import logging
import math
import random
import sysconfig
import time
from dataclasses import dataclass
from pathlib import Path

import torch

logger = logging.getLogger(__name__)
SPECIAL_TOKENS = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
WARMUP_STEPS = 200  # transformers' constant schedule with warm-up: step k < 200 runs at k/200 of the rate, then the full rate


@dataclass
class PretrainArguments:
    output_dir: str
    source_dirs: tuple[str, ...] = ()  # default: the running Python's standard library
    vocab_size: int = 16000
    layers: int = 4
    hidden: int = 256
    heads: int = 4
    sequence_length: int = 256
    batch_size: int = 32
    learning_rate: float = 5e-4
    minutes: float = 30.0
    max_steps: int | None = None
    mask_probability: float = 0.15
    seed: int = 0


def python_sources(directories) -> list[str]:
    """Text of every UTF-8 ``.py`` file under ``directories`` (sorted, so the corpus is the same every run)."""
    roots = [Path(d) for d in directories] or [Path(sysconfig.get_paths()["stdlib"])]
    texts = []
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            if "site-packages" in path.parts:
                continue
            try:
                texts.append(path.read_text(encoding="utf-8"))
            except (UnicodeDecodeError, OSError):
                continue
    if not texts:
        raise ValueError(f"no readable .py files under {[str(r) for r in roots]}")
    return texts


def train_tokenizer(texts: list[str], vocab_size: int):
    """A byte-level BPE tokenizer with RoBERTa's special tokens and pair template."""
    from tokenizers import ByteLevelBPETokenizer, processors
    from transformers import PreTrainedTokenizerFast

    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(texts, vocab_size=vocab_size, min_frequency=2, special_tokens=SPECIAL_TOKENS, show_progress=False)
    bpe._tokenizer.post_processor = processors.RobertaProcessing(("</s>", 2), ("<s>", 0))
    return PreTrainedTokenizerFast(tokenizer_object=bpe._tokenizer, bos_token="<s>", eos_token="</s>", sep_token="</s>",
                                   cls_token="<s>", pad_token="<pad>", unk_token="<unk>", mask_token="<mask>")


def token_blocks(texts: list[str], tokenizer, length: int) -> torch.Tensor:
    """Concatenate the files' tokens (separated by ``</s>``) and cut them into ``<s> ... </s>`` blocks."""
    stream: list[int] = []
    for ids in tokenizer(texts, add_special_tokens=False, verbose=False)["input_ids"]:
        stream += ids + [tokenizer.sep_token_id]
    inner = length - 2
    count = len(stream) // inner
    blocks = torch.tensor(stream[:count * inner]).view(count, inner)
    cls = torch.full((count, 1), tokenizer.cls_token_id)
    sep = torch.full((count, 1), tokenizer.sep_token_id)
    return torch.cat([cls, blocks, sep], dim=1)


def masker(tokenizer, probability: float, seed: int):
    """BERT masking (transformers' collator): ``probability`` of the non-special tokens are picked, 80% of
    them become ``<mask>``, 10% a random vocabulary entry (any, as transformers draws them), 10% stay;
    labels are -100 elsewhere. Seeded apart from the model's initialisation. ``masker(...)(blocks)``
    gives ``(inputs, labels)`` and leaves ``blocks`` as they were."""
    from transformers import DataCollatorForLanguageModeling

    collator = DataCollatorForLanguageModeling(tokenizer, mlm_probability=probability, seed=seed)

    def mask(blocks: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        batch = collator(list(blocks))
        return batch["input_ids"], batch["labels"]

    return mask


def masked_lm_loss(model, inputs: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Cross-entropy on the masked positions only: the vocabulary projection is computed for them alone."""
    hidden = model.roberta(input_ids=inputs).last_hidden_state
    chosen = labels != -100
    logits = model.lm_head(hidden[chosen])
    return torch.nn.functional.cross_entropy(logits, labels[chosen])


def pretrain(args: PretrainArguments) -> dict:
    """Train tokenizer and encoder; save both with ``save_pretrained`` into ``args.output_dir``."""
    from transformers import RobertaConfig, RobertaForMaskedLM, get_constant_schedule_with_warmup

    torch.manual_seed(args.seed)
    generator = torch.Generator().manual_seed(args.seed)
    texts = python_sources(args.source_dirs)
    tokenizer = train_tokenizer(texts, args.vocab_size)
    blocks = token_blocks(texts, tokenizer, args.sequence_length)
    held_out = max(1, len(blocks) // 50)
    order = torch.randperm(len(blocks), generator=generator)
    validation, training = blocks[order[:held_out]], blocks[order[held_out:]]
    config = RobertaConfig(
        vocab_size=len(tokenizer), hidden_size=args.hidden, num_hidden_layers=args.layers, num_attention_heads=args.heads,
        intermediate_size=4 * args.hidden, max_position_embeddings=args.sequence_length * 2 + 2, type_vocab_size=2,
        pad_token_id=tokenizer.pad_token_id, bos_token_id=tokenizer.cls_token_id, eos_token_id=tokenizer.sep_token_id,
    )
    model = RobertaForMaskedLM(config)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate, weight_decay=0.01)
    scheduler = get_constant_schedule_with_warmup(optimizer, WARMUP_STEPS)  # the step count is not known in advance
    mask = masker(tokenizer, args.mask_probability, args.seed)
    deadline = time.monotonic() + 60 * args.minutes
    step, losses, started = 0, [], time.monotonic()
    rng = random.Random(args.seed)
    model.train()
    while time.monotonic() < deadline and (args.max_steps is None or step < args.max_steps):
        rows = torch.tensor(rng.sample(range(len(training)), min(args.batch_size, len(training))))
        inputs, labels = mask(training[rows])
        loss = masked_lm_loss(model, inputs, labels)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad(set_to_none=True)
        losses.append(loss.item())
        step += 1
        if step % 100 == 0:
            logger.info("step %d loss %.3f", step, sum(losses[-100:]) / len(losses[-100:]))
    model.eval()
    with torch.no_grad():
        inputs, labels = masker(tokenizer, args.mask_probability, seed=1)(validation)  # the same masks every run
        validation_loss = float(masked_lm_loss(model, inputs, labels))
    model.save_pretrained(args.output_dir)
    tokenizer.save_pretrained(args.output_dir)
    return {"steps": step, "seconds": time.monotonic() - started, "train_blocks": len(training),
            "tokens_seen": step * args.batch_size * args.sequence_length,
            "final_train_loss": sum(losses[-100:]) / max(1, len(losses[-100:])), "validation_loss": validation_loss,
            "validation_perplexity": math.exp(validation_loss), "parameters": sum(p.numel() for p in model.roberta.parameters())}
