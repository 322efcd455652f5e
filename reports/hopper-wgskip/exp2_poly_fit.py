"""exp2_poly_fit.py: the coefficients of ab_soft_exp2 (kernels/soft_exp2.h), 2^f on
[-0.5, 0.5] by a degree-3 polynomial with the least largest relative error (Lawson's
iteratively reweighted least squares on 4,001 Chebyshev points), rounded to float32; then
the largest relative error of the float32 Horner evaluation on 200,001 points of [-0.5, 0.5],
and of the whole emulation (round-to-nearest split by the 1.5 * 2^23 shifter, polynomial,
exponent-field add) against 2^x in float64 on [-125, 0]. Needs numpy; no GPU."""
import numpy as np

f = np.cos(np.linspace(0, np.pi, 4001)) * 0.5
y = 2.0 ** f
w = np.ones_like(f)
V = np.vander(f, 4, increasing=True)
for _ in range(3000):
    W = np.sqrt(w) / y
    c, *_ = np.linalg.lstsq(V * W[:, None], y * W, rcond=None)
    e = np.abs(V @ c / y - 1)
    w = w * e
    w /= w.sum()
cf = np.float32(c)
print("coefficients c0..c3:", [repr(float(x)) for x in cf])
ff = np.linspace(-0.5, 0.5, 200001).astype(np.float32)
p = ((cf[3] * ff + cf[2]) * ff + cf[1]) * ff + cf[0]
print("max relative error, polynomial:", np.max(np.abs(p.astype(np.float64) / 2.0 ** ff.astype(np.float64) - 1)))
rng = np.random.default_rng(20261126)
x = np.concatenate([-rng.random(100000).astype(np.float32) * 30,
                    np.linspace(-125, 0, 100001).astype(np.float32)])
M = np.float32(12582912.0)
t = (x + M).astype(np.float32)
fr = (x - (t - M)).astype(np.float32)
p = (((cf[3] * fr + cf[2]) * fr + cf[1]) * fr + cf[0]).astype(np.float32)
r = (p.view(np.int32) + (t.view(np.int32) << 23)).view(np.float32)
print("max relative error, emulation on [-125, 0]:",
      np.max(np.abs(r.astype(np.float64) / 2.0 ** x.astype(np.float64) - 1)))
