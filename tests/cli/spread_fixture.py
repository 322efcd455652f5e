# tests/cli/spread_fixture.py: the expected values of test_spread.c, from
# scipy and numpy (independent of attnbench's GSL code):
#   python3 tests/cli/spread_fixture.py > tests/cli/spread_expected.txt
# (scipy 1.17.1, numpy 2.4.6). Each case: a line "case NAME N BC P10 P90",
# then its N samples, one per line. BC is Pfister et al.'s (2013)
# bimodality coefficient from scipy's bias-corrected skewness and excess
# kurtosis; p10/p90 are numpy's linear percentiles (Hyndman & Fan type 7).
import numpy as np
from scipy import stats

rng = np.random.default_rng(16)
cases = {
    # the busy-host CPU run: 1-2 ms and 12-50 ms in one measurement
    "bimodal_busy_cpu": np.concatenate([rng.uniform(1.0, 2.0, 18), rng.uniform(12.0, 50.0, 12)]),
    # a quiet GPU measurement: lognormal, 1% spread
    "lognormal_quiet": rng.lognormal(np.log(0.35), 0.01, 100),
    # one slow sample: BC above 5/9, spread narrow (not flagged)
    "one_outlier": np.concatenate([rng.normal(10.0, 0.05, 59), [30.0]]),
    # wide but unimodal-ish: uniform on [1, 3]
    "uniform_wide": rng.uniform(1.0, 3.0, 40),
}
for name, x in cases.items():
    n = len(x)
    g = stats.skew(x, bias=False)
    k = stats.kurtosis(x, bias=False)
    bc = (g * g + 1) / (k + 3 * (n - 1) ** 2 / ((n - 2) * (n - 3)))
    p10, p90 = np.percentile(x, [10, 90])
    print(f"case {name} {n} {bc:.17g} {p10:.17g} {p90:.17g}")
    for v in x:
        print(f"{v:.17g}")
