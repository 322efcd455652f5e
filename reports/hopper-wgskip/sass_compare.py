"""sass_compare.py OLD.sass NEW.sass: whether two disassemblies (nvdisasm -c, from cubin.sh)
of a persistent-grid forward rung hold the same machine code, per kernel instantiation
(dtype, D, causal): the instruction text compared line for line with kernel names, labels,
addresses and whitespace normalised (the folded kernel's name and template arguments differ
from the old file's). Prints one line per instantiation: SAME or DIFF and the instruction
counts of each side."""
import re, sys
def kernels(path):
    out = {}; cur = None
    for line in open(path):
        m = re.match(r'^\.text\.(\S+):', line)
        if m:
            name = m.group(1)
            k = re.search(r'(13__nv_bfloat16|6__half)Li(\d+)ELb(\d)', name)
            cur = (k.group(1), k.group(2), k.group(3)); out[cur] = []; continue
        if cur is None: continue
        if line.startswith('\t.section') or line.startswith('\t.sectionflags'): cur = None; continue
        l = re.sub(r'/\*[0-9a-f]{4,}\*/', '', line)
        l = re.sub(r'_Z\w+', 'SYM', l)
        l = re.sub(r'\.L_x_\d+', 'LBL', l)
        l = " ".join(l.split())
        if l and not l.startswith('.') and not l.endswith(':'):
            out[cur].append(l)
    return out
a, b = kernels(sys.argv[1]), kernels(sys.argv[2])
for k in sorted(a):
    x, y = a[k], b.get(k)
    if y is None: print(k, 'missing'); continue
    print(k, 'SAME' if x == y else 'DIFF', len(x), len(y))
