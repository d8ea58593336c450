"""Small built-in models (MLP, ResNet-style CNN, decoder-only transformer) with deterministic data.

Each ``build_*`` returns a ``Recipe``: a model factory, a batch for step ``i``, and the loss. Weights and data come
from fixed seeds, so two runs (on two devices, or before and after a checkpoint) see the same numbers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gpuready.isolation.spec import import_torch
from gpuready.workloads.protocol import Recipe


def _seeded(torch: Any, seed: int) -> Any:
    return torch.Generator().manual_seed(seed)


def build_mlp(width: int = 128, batch: int = 64) -> Recipe:
    """A 3-layer MLP regression with dropout (so RNG state matters)."""
    torch = import_torch()
    nn = torch.nn

    def make() -> Any:
        torch.manual_seed(0)
        return nn.Sequential(nn.Linear(32, width), nn.GELU(), nn.Dropout(0.1), nn.Linear(width, width), nn.SiLU(),
                             nn.Linear(width, 1))

    def data(step: int) -> tuple[Any, Any]:
        generator = _seeded(torch, 1000 + step)
        x = torch.randn(batch, 32, generator=generator)
        return x, x[:, :4].sum(dim=1, keepdim=True).sin()

    return Recipe("mlp", make, data, lambda out, target: torch.nn.functional.mse_loss(out, target))


def build_cnn(batch: int = 16) -> Recipe:
    """A tiny ResNet-style classifier on 3x32x32 inputs."""
    torch = import_torch()
    nn = torch.nn

    class Block(nn.Module):  # type: ignore[misc,name-defined]
        def __init__(self, channels: int) -> None:
            super().__init__()
            self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
            self.norm1 = nn.BatchNorm2d(channels)
            self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
            self.norm2 = nn.BatchNorm2d(channels)

        def forward(self, x: Any) -> Any:
            y = torch.relu(self.norm1(self.conv1(x)))
            return torch.relu(x + self.norm2(self.conv2(y)))

    def make() -> Any:
        torch.manual_seed(0)
        return nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), Block(16), nn.MaxPool2d(2), Block(16),
                             nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 10))

    def data(step: int) -> tuple[Any, Any]:
        generator = _seeded(torch, 2000 + step)
        return torch.randn(batch, 3, 32, 32, generator=generator), torch.randint(0, 10, (batch,), generator=generator)

    return Recipe("cnn", make, data, lambda out, target: torch.nn.functional.cross_entropy(out, target))


def build_transformer(vocab: int = 256, width: int = 64, heads: int = 4, layers: int = 2, sequence: int = 32,
                      batch: int = 8) -> Recipe:
    """A small decoder-only language model (pre-norm blocks, causal attention through SDPA)."""
    torch = import_torch()
    nn = torch.nn

    class Block(nn.Module):  # type: ignore[misc,name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.norm1, self.norm2 = nn.LayerNorm(width), nn.LayerNorm(width)
            self.qkv, self.proj = nn.Linear(width, 3 * width), nn.Linear(width, width)
            self.mlp = nn.Sequential(nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width))

        def forward(self, x: Any) -> Any:
            b, t, c = x.shape
            q, k, v = self.qkv(self.norm1(x)).split(c, dim=-1)
            q, k, v = (z.view(b, t, heads, c // heads).transpose(1, 2) for z in (q, k, v))
            attended = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.proj(attended.transpose(1, 2).reshape(b, t, c))
            return x + self.mlp(self.norm2(x))

    class LanguageModel(nn.Module):  # type: ignore[misc,name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(vocab, width)
            self.position = nn.Parameter(torch.zeros(1, sequence, width))
            self.blocks = nn.ModuleList(Block() for _ in range(layers))
            self.norm = nn.LayerNorm(width)
            self.head = nn.Linear(width, vocab, bias=False)

        def forward(self, tokens: Any) -> Any:
            x = self.embed(tokens) + self.position[:, : tokens.shape[1]]
            for block in self.blocks:
                x = block(x)
            return self.head(self.norm(x))

    def make() -> Any:
        torch.manual_seed(0)
        return LanguageModel()

    def data(step: int) -> tuple[Any, Any]:
        tokens = torch.randint(0, vocab, (batch, sequence + 1), generator=_seeded(torch, 3000 + step))
        return tokens[:, :-1], tokens[:, 1:]

    return Recipe("transformer", make, data,
                    lambda out, target: torch.nn.functional.cross_entropy(out.reshape(-1, vocab), target.reshape(-1)))


RECIPES: dict[str, Callable[..., Recipe]] = {"mlp": build_mlp, "cnn": build_cnn, "transformer": build_transformer}
