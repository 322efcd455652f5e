# A numpy kernel against attnbench's cpu_flash in one call (README "Bring your own kernel");
# tests/python/frontdoor.sh runs it. Needs `pip install CHECKOUT` (or PYTHONPATH=CHECKOUT/python).
import numpy as np
import attnbench

def mine(q, k, v, causal, scale):  # q, k, v: float32 [B, H, S, D]; causal is False here
    s = q @ k.swapaxes(-1, -2) * np.float32(scale)
    p = np.exp(s - s.max(-1, keepdims=True))
    return (p / p.sum(-1, keepdims=True)) @ v

r = attnbench.compare({"cpu_flash": "cpu_flash", "mine": mine, "wrong": lambda q, k, v, c, s: v},
                      shapes=dict(B=1, H=2, S=128, D=64), baseline="cpu_flash")
print(r)  # mine's verdict against cpu_flash; wrong: FAILED, with attnbench's check
