"""Tiny random UniCE models and tokenizers built in-process (no network, no ../shared)."""

from __future__ import annotations

from pathlib import Path

CORPUS = [
    "def add(a, b):\n    return a + b\n",
    "def is_even(n):\n    return n % 2 == 0\n",
    "Write a function to add two numbers.",
    "Check whether a number is even.",
    "for i in range(10):\n    print(i)\n",
    "class Stack:\n    def push(self, x):\n        self.items.append(x)\n",
] * 4
SPECIAL_TOKENS = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]


def build_tiny_tokenizer(vocab_size: int = 300):
    """A byte-level BPE tokenizer with RoBERTa special tokens (<s>=0, <pad>=1, </s>=2)."""
    from tokenizers import ByteLevelBPETokenizer, processors
    from transformers import PreTrainedTokenizerFast

    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(CORPUS, vocab_size=vocab_size, min_frequency=1, special_tokens=SPECIAL_TOKENS, show_progress=False)
    bpe._tokenizer.post_processor = processors.RobertaProcessing(("</s>", 2), ("<s>", 0))
    return PreTrainedTokenizerFast(
        tokenizer_object=bpe._tokenizer,
        bos_token="<s>", eos_token="</s>", sep_token="</s>", cls_token="<s>",
        pad_token="<pad>", unk_token="<unk>", mask_token="<mask>",
    )


def tiny_encoder_config(vocab_size: int, max_length: int = 64, layers: int = 2, hidden: int = 32):
    from transformers import RobertaConfig

    return RobertaConfig(
        vocab_size=vocab_size, hidden_size=hidden, num_hidden_layers=layers, num_attention_heads=2,
        intermediate_size=2 * hidden, max_position_embeddings=max_length + 4, type_vocab_size=10,
        pad_token_id=1, bos_token_id=0, eos_token_id=2, layer_norm_eps=1e-5,
    )


def build_tiny_model(profile: str = "clean", max_length: int = 64, head_type: str = "separate", seed: int = 0, normalization: str = "sample",
                     nested_passability: bool = False, pooling: str = "first"):
    """(UniCEModel, tokenizer) with random weights; mix scalars set so that several layers count."""
    import torch

    from codescore_metric.modeling import UniCEConfig, UniCEModel

    torch.manual_seed(seed)
    tokenizer = build_tiny_tokenizer()
    encoder_config = tiny_encoder_config(len(tokenizer), max_length=max_length)
    config = UniCEConfig(
        encoder=encoder_config.to_dict(), encoding_profile=profile, max_length=max_length,
        normalization=normalization, head_type=head_type, head_hidden_sizes=[48, 24], nested_passability=nested_passability,
        pooling=pooling,
    )
    model = UniCEModel(config)
    with torch.no_grad():  # spread the outputs so that differences between inputs are visible
        for index, scalar in enumerate(model.mix.scalar_parameters):
            scalar.fill_(0.3 * index)
        model.mix.gamma.fill_(2.0)
        for name, parameter in model.named_parameters():
            if name.startswith("head") and name.endswith("weight"):
                parameter.normal_(0.0, 0.5)
            elif "LayerNorm" in name:  # trained-looking norms, so batch and sample statistics differ
                parameter.uniform_(0.5, 1.5) if name.endswith("weight") else parameter.normal_(0.0, 0.5)
    return model.eval(), tokenizer


def build_tiny_model_dir(path: str | Path, **kwargs) -> Path:
    """Save a tiny model + tokenizer into ``path`` (usable as ``checkpoint=``) and return it."""
    model, tokenizer = build_tiny_model(**kwargs)
    path = Path(path)
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path
