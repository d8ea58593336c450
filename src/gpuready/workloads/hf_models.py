"""Hugging Face architectures as workloads: built from their config class with random weights; nothing is
downloaded. Needs ``transformers`` (optional)."""

from __future__ import annotations

from typing import Any

from gpuready.errors import InputError
from gpuready.workloads.protocol import Workload, config_hash

SIZES = {"tiny": (128, 2, 4, 512), "small": (512, 4, 8, 2048), "medium": (1024, 12, 16, 4096)}
"""size -> (hidden, layers, heads, intermediate)."""
FAMILIES = ("llama", "mistral", "qwen2", "gpt2")
VOCAB = 32000


def _config(family: str, size: str) -> Any:
    from transformers import AutoConfig

    hidden, layers, heads, intermediate = SIZES[size]
    if family == "gpt2":
        return AutoConfig.for_model("gpt2", n_embd=hidden, n_layer=layers, n_head=heads, vocab_size=VOCAB,
                                    n_positions=2048)
    return AutoConfig.for_model(family, hidden_size=hidden, num_hidden_layers=layers, num_attention_heads=heads,
                                num_key_value_heads=heads, intermediate_size=intermediate, vocab_size=VOCAB,
                                max_position_embeddings=2048)


def build_hf(family: str, size: str = "tiny", batch: int = 4, sequence: int = 128) -> Workload:
    """A causal LM of ``family`` at ``size``, random weights, with token batches and the LM loss."""
    if family not in FAMILIES:
        raise InputError(f"{family!r}: choose from {', '.join(FAMILIES)}", field="workload")
    if size not in SIZES:
        raise InputError(f"{size!r}: choose from {', '.join(SIZES)}", field="size")
    try:
        import torch
        from transformers import AutoModelForCausalLM
    except ImportError as error:
        raise InputError(f"Hugging Face workloads need the transformers package ({error}); pip install "
                         "transformers", field="workload") from error

    torch.manual_seed(0)
    config = _config(family, size)
    inner = AutoModelForCausalLM.from_config(config)

    class Logits(torch.nn.Module):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, tokens: Any) -> Any:
            return self.inner(input_ids=tokens, use_cache=False).logits

    def data(step: int) -> tuple[Any, Any]:
        tokens = torch.randint(0, VOCAB, (batch, sequence + 1), generator=torch.Generator().manual_seed(step))
        return tokens[:, :-1], tokens[:, 1:]

    def loss(logits: Any, target: Any) -> Any:
        return torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), target.reshape(-1))

    identity = {"workload": f"hf:{family}", "size": size, "sequence": sequence,
                "model_config": config_hash(config.to_dict())}
    return Workload(f"hf:{family}-{size}", Logits(), data, loss, identity=identity)
