"""Validation of `relucheck limit` on drawn orthonormal instances against Algorithm 1 (exact, SymPy): docs/limit.md.

Usage: ``nice python -m bench.limit_orthonormal SEED0 COUNT N M > out.txt``, then ``python -m bench.limit_aggregate
out.txt`` for the table row. Labels ±U(0.3, 3), Haar-rotated inputs in d = n + 1, random directions and signs."""
import sys, time, json
import numpy as np
from relucheck.numerics import datasets
from relucheck.numerics.instances import Instance
from relucheck.theory.limit_process_exact import limit_process_exact
from relucheck.api import limit
seed0, count, n, m = map(int, sys.argv[1:5])
rows = []
for seed in range(seed0, seed0 + count):
    rng = np.random.default_rng(seed)
    X = datasets.orthonormal_inputs(n, n + 1, rng, rotate=True)
    y = rng.choice([-1, 1], n) * rng.uniform(0.3, 3, n)
    G = datasets.random_directions(m, n + 1, rng); s = datasets.random_signs(m, rng)
    inst = Instance(X, y, G, s, {"seed": seed})
    try:
        ex = limit_process_exact(y.tolist(), s.tolist(), inst.activation())
    except Exception as e:
        print(seed, "alg1 error", e); continue
    t = time.time(); r = limit(inst); wall = time.time() - t
    exact = [(j.neuron, float(j.tau)) for j in ex.jumps]
    out = []
    for k, j in enumerate(r.jumps):
        ref = exact[k] if k < len(exact) else None
        if j.ok and ref:
            out.append((j.neuron == ref[0], abs(j.value - ref[1]) <= j.error, f"{abs(j.value-ref[1]):.2e}", f"{j.error:.2e}"))
        else:
            out.append(("inconclusive" if not j.ok else "extra", j.reason[:90]))
    pl = [(p.ok, f"{abs(p.value - float(e)):.1e}" if p.ok and k < len(ex.plateaus) else "-", f"{p.error:.1e}" if p.ok else p.reason[:60]) for k, (p, e) in enumerate(zip(r.plateaus, ex.plateaus))]
    print(seed, r.status.name, f"{wall:.1f}s", "ext", r.stats.get("extended_with"), "ties", bool(ex.ties), "alg1 jumps", len(exact), "flow jumps", len(r.jumps), out, "plateaus", pl, flush=True)
