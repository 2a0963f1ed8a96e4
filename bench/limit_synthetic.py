"""Synthetic laws q(L) = 1 + C x + D x² + E x³ + B x ln L + A e^{−cL} + noise (x = 1/L) on the default ladder: how often
`lambda_limit.extrapolate` is inconclusive, and how often its bar misses the limit 1 (docs/limit.md).

Usage: ``python -m bench.limit_synthetic`` (seeded: the same draws every run)."""
import numpy as np
from relucheck.numerics.lambda_limit import extrapolate, DEFAULT_LADDER
L = np.array(DEFAULT_LADDER); x = 1/L
rng = np.random.default_rng(0)
bad=inc=0; N=20000; bars=[]
for t in range(N):
    C, D, E, B, A = rng.normal(0, [5, 50, 500, 2, 1]) * (rng.random(5) < 0.6)
    c = 10**rng.uniform(-4, 0)
    err = 10**rng.uniform(-12, -4, 4)
    noise = rng.uniform(-1, 1, 4) * err
    q = 1 + C*x + D*x**2 + E*x**3 + B*x*np.log(L) + A*np.exp(-c*L) + noise
    e = extrapolate(L, q, err)
    if not e.ok: inc += 1; continue
    bars.append(e.error)
    if abs(e.value-1) > e.error:
        bad += 1
        if bad < 6: print("wrong", dict(C=C,D=D,E=E,B=B,A=A,c=c), e.value-1, e.error)
print(N, "inconclusive", inc, "wrong", bad, "median bar", np.median(bars))
