"""Float64 NumPy references for operators whose result a framework check compares: convolution (forward and both
gradients), causal attention, norms and activations (forward and the gradient for an upstream gradient).

Written in NumPy rather than in the framework under test, so that a fault planted in (or present in) the framework
can never leak into the reference it is judged against.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

Array = Any


def _patches(x: Array, kernel: int, padding: int) -> Array:
    """(N, C, H, W) -> (N, C, kh, kw, H', W') windows of the zero-padded input (stride 1)."""
    padded = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    height, width = padded.shape[2] - kernel + 1, padded.shape[3] - kernel + 1
    windows = np.empty((x.shape[0], x.shape[1], kernel, kernel, height, width))
    for i in range(kernel):
        for j in range(kernel):
            windows[:, :, i, j] = padded[:, :, i:i + height, j:j + width]
    return windows


def conv2d(x: Array, weight: Array, bias: Array, padding: int) -> Array:
    """NCHW input, OIHW weight, stride 1."""
    out = np.einsum("nckluv,ockl->nouv", _patches(x, weight.shape[-1], padding), weight)
    return out + bias[None, :, None, None]


def conv2d_grads(x: Array, weight: Array, upstream: Array, padding: int) -> tuple[Array, Array]:
    """Gradients of ``sum(conv2d(x, weight) * upstream)`` with respect to ``x`` and ``weight``."""
    kernel = weight.shape[-1]
    grad_weight = np.einsum("nckluv,nouv->ockl", _patches(x, kernel, padding), upstream)
    grad_windows = np.einsum("nouv,ockl->nckluv", upstream, weight)
    grad_padded = np.zeros((x.shape[0], x.shape[1], x.shape[2] + 2 * padding, x.shape[3] + 2 * padding))
    height, width = upstream.shape[2], upstream.shape[3]
    for i in range(kernel):
        for j in range(kernel):
            grad_padded[:, :, i:i + height, j:j + width] += grad_windows[:, :, i, j]
    end_h, end_w = grad_padded.shape[2] - padding, grad_padded.shape[3] - padding
    return grad_padded[:, :, padding:end_h, padding:end_w], grad_weight


def softmax(x: Array) -> Array:
    shifted = np.exp(x - x.max(axis=-1, keepdims=True))
    return shifted / shifted.sum(axis=-1, keepdims=True)


def causal_attention(q: Array, k: Array, v: Array) -> Array:
    """(batch, sequence, heads, dim) layout, as ``jax.nn.dot_product_attention`` takes it."""
    scores = np.einsum("bqhd,bkhd->bhqk", q, k) / math.sqrt(q.shape[-1])
    mask = np.tril(np.ones((q.shape[1], k.shape[1]), dtype=bool))
    scores = np.where(mask, scores, -np.inf)
    return np.einsum("bhqk,bkhd->bqhd", softmax(scores), v)


_erf = np.vectorize(math.erf)
EPSILON = 1e-5


def _layer_norm(x: Array, w: Array, g: Array) -> tuple[Array, Array]:
    centred = x - x.mean(axis=-1, keepdims=True)
    sigma = np.sqrt((centred**2).mean(axis=-1, keepdims=True) + EPSILON)
    normed = centred / sigma
    gw = g * w
    grad = (gw - gw.mean(axis=-1, keepdims=True) - normed * (gw * normed).mean(axis=-1, keepdims=True)) / sigma
    return normed * w, grad


def _rms_norm(x: Array, w: Array, g: Array) -> tuple[Array, Array]:
    rms = np.sqrt((x**2).mean(axis=-1, keepdims=True) + EPSILON)
    gw = g * w
    return x / rms * w, gw / rms - x * (gw * x).mean(axis=-1, keepdims=True) / rms**3


def _softmax(x: Array, w: Array, g: Array) -> tuple[Array, Array]:
    s = softmax(x)
    return s, s * (g - (g * s).sum(axis=-1, keepdims=True))


def _log_softmax(x: Array, w: Array, g: Array) -> tuple[Array, Array]:
    s = softmax(x)
    return np.log(s), g - s * g.sum(axis=-1, keepdims=True)


def _gelu(x: Array, w: Array, g: Array) -> tuple[Array, Array]:
    cdf = 0.5 * (1 + _erf(x / math.sqrt(2)))
    pdf = np.exp(-(x**2) / 2) / math.sqrt(2 * math.pi)
    return x * cdf, g * (cdf + x * pdf)


def _silu(x: Array, w: Array, g: Array) -> tuple[Array, Array]:
    sigmoid = 1 / (1 + np.exp(-x))
    return x * sigmoid, g * sigmoid * (1 + x * (1 - sigmoid))


NORMS_ACTIVATIONS: dict[str, Callable[[Array, Array, Array], tuple[Array, Array]]] = {
    "layer_norm": _layer_norm, "rms_norm": _rms_norm, "softmax": _softmax, "log_softmax": _log_softmax,
    "gelu": _gelu, "silu": _silu}
"""name -> (x, weight, upstream) -> (forward, gradient of sum(forward * upstream) with respect to x), over the last
axis (norms use epsilon ``EPSILON`` and a weight, no bias)."""
