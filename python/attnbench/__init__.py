"""attnbench: the Python side of the attnbench harness (README "Bring your
own kernel").

- attnbench.compare(kernels, shapes, baseline=...): one call from a script
  or a notebook to attnbench's verdict (frontdoor.py);
- attnbench.kit: the adapter kit, attnbench_adapter (adapters/PROTOCOL.md),
  for an adapter program: attnbench.kit.main(fn, framework="numpy");
- attnbench.torch_sdpa: PyTorch's scaled_dot_product_attention as a kernel
  for compare (imports torch when called).

Install: `pip install --no-build-isolation CHECKOUT` (pyproject.toml), or
`meson install` (the package and the kit go to Python's site-packages), or
no install at all: sys.path.insert(0, "CHECKOUT/python").
"""
from . import kit  # noqa: F401
from .frontdoor import CompareError, Result, compare, find_attnbench  # noqa: F401

__version__ = "0.1.0"


def torch_sdpa(q, k, v, causal, scale):
    """PyTorch's SDPA on [B, H, S, D] CUDA tensors (its default backend
    choice), K/V heads expanded by enable_gqa and the causal mask aligned
    bottom-right as attnbench's (adapters/PROTOCOL.md)."""
    import torch
    import torch.nn.functional as F
    gqa = q.shape[1] != k.shape[1]
    if causal and q.shape[2] != k.shape[2]:
        from torch.nn.attention.bias import causal_lower_right
        return F.scaled_dot_product_attention(q, k, v, attn_mask=causal_lower_right(
            q.shape[2], k.shape[2]), scale=scale, enable_gqa=gqa)
    return F.scaled_dot_product_attention(q, k, v, is_causal=bool(causal), scale=scale,
                                          enable_gqa=gqa)
