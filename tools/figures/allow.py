"""allow.py: the numbers of a covered region that are not measurements.

A number in a covered region (check.py) that no manifest figure covers fails
the check unless one of these rules says it is not a measurement. Each rule
is a pattern over the whitespace-collapsed text around the number; the list
is documented in tools/figures/README.md and kept short on purpose: a rule
that would let a measured figure through is a hole in the check.

  name        part of a name: fp16, H200, sm_90a, FlashAttention-2, 8B, 64K,
              64-row (a letter, '_' or letter-hyphen right before it, a
              letter or hyphen-letter right after it; x3.2 and ×1.05 are
              ratios, not names)
  code        inside `inline code`, or in a word with '/' or a file suffix
  shape       a shape, tile or simulation parameter's value: B=4, S = 512..8192, φ 0.5,
              S_kv = 4K–128K, D in {64, 128}, B·S = 16384, Br = 64
  bound       a bound of a comparison: p < 0.05, ≥ 70%, S ≤ 1024, ± 1%,
              exceed 256 MB, above 60 µs
  date        dates and clock times: 2026-11-24, 15:30
  version     after driver, CUDA, cuDNN, PyTorch, nvcc, gcc, gnuplot, Ubuntu,
              Debian, Python, protocol, flash-attn-4, compute capability
              (also "CUDA version, 13.0", "CUDA runtime was 13.0")
  inventory   a count of the repository's files or GPUs and a model's
              order: 70 markdown reports, 426 SVGs, 2 × H200, AR(1)
  identifier  run 3, runs 2 and 3, seed 004, instance #2, Algorithm 1,
              section 3.2, Llama 3, copy 0, exits 0
  design      a count the experiment or the GPU was designed with: rounds of 2, 40
              configurations, 20-30 samples, the 20 bf16 configurations,
              50 rounds, 10000 resamples, 5 warm-up, 132 SMs, 256 threads
  prediction  a value predicted before the run, from "predicted" or
              "prediction" (and a colon right after it) to the next ':', ';'
              or ')'
"""

import re

SHAPE_NAMES = r"(?:B·S|B\*S|H_kv|S_kv|B|H|S|D|Br|Bc|G|nsplit|splits|φ)"
VALUE = r"\d+(?:\.\d+)?[KM]?"
VLIST = rf"\{{?\s*{VALUE}(?:\s*(?:\.\.\.?|–|-|,|and|or|to)\s*{VALUE})*\s*\}}?"
SHAPE = re.compile(rf"(?<![\w]){SHAPE_NAMES}\s*(?:=|≤|≥|<=|>=|<|>|≠|!=|in|∈)?\s*{VLIST}")
BOUND = re.compile(rf"(?:<=|>=|≤|≥|<|>|±|\bexceeds?|\babove)\s*{VLIST}")
DATE = re.compile(r"\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2})?Z?)?|\b\d{1,2}:\d{2}(?::\d{2})?\b")
VERSION = re.compile(r"(?:driver|CUDA(?: runtime)?|cuDNN|PyTorch|nvcc|gcc|gnuplot|Ubuntu|Debian|"
                     r"Python|protocol|flash-attn-4|compute capability)(?:'s)?(?: version,?| was)?"
                     r"\s+\d+(?:\.\d+)*")
INVENTORY = re.compile(r"\d+\s+(?:markdown reports|JSON summaries|SVGs|plots|transcripts)\b"
                       r"|\d+\s*×\s*[A-Z]\d+|[A-Za-z]+\(\d+\)")
IDENT = re.compile(r"(?:\bruns?|\bseeds?|\binstances?|\bAlgorithm|\bsection|\bsec\.|\bLlama|"
                   r"\bcopy|\bexits?|\bexit status|#)"
                   rf"\s*#?\d+(?:\s*(?:,|and|-|–|to)\s*#?\d+)*")
ROUNDS_OF = re.compile(r"rounds of \d+")
DESIGN = re.compile(r"\d+(?:\s*(?:-|–|to)\s*\d+)?\s+(?:[\w-]+\s+)?(?:configurations|rounds|runs|"
                    r"samples|resamples|identical pairs|instances|warm-up|shapes|SMs|threads)\b")
PREDICTED = re.compile(r"[Pp]redict(?:ed|ion)\s*:?[^;:)]*")
CODE = re.compile(r"`[^`\n]*`")
PATHWORD = re.compile(r"[^\s()\[\],;]*(?:/|\.(?:md|db|cu|cuh|cfg|log|py|svg|json|sh|c|h)\b)"
                      r"[^\s()\[\],;]*")


def _inside(pattern, text, start, end, window=200):
    lo = max(0, start - window)
    for m in pattern.finditer(text, lo, min(len(text), end + window)):
        if m.start() <= start and end <= m.end():
            return True
    return False


def allowed(text, start, end):
    """True when the number text[start:end] is not a measurement by one of
    the rules above."""
    before = text[start - 1] if start > 0 else " "
    before2 = text[start - 2] if start > 1 else " "
    after = text[end] if end < len(text) else " "
    # name: fp16, H200, sm_90a, FlashAttention-2 (but x3.2 is a ratio)
    if before.isalpha() or before == "_":
        if not (before in "x×" and not before2.isalnum()):
            return True
    if before == "-" and before2.isalpha():
        return True
    if after.isalpha() and after not in "x×":
        return True
    if after == "-" and end + 1 < len(text) and text[end + 1].isalpha():
        return True  # a compound: 64-row tiles, 4-row chunks
    for pat in (CODE, PATHWORD, SHAPE, BOUND, DATE, VERSION, IDENT, DESIGN, ROUNDS_OF, PREDICTED, INVENTORY):
        if _inside(pat, text, start, end):
            return True
    return False
