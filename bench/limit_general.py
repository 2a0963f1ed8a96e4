"""General instances: does the law fitted by `relucheck limit` predict the flow at λ = 1e-10000 (outside the ladder)
within its error bars? docs/limit.md.

Usage: ``nice python -m bench.limit_general N,D,M SEED[,SEED…]`` (`random_general_instance(n, d, m, seed)`)."""
import sys, time
from relucheck.testing.strategies import random_general_instance
from relucheck.api import limit, flow
n, d, m = map(int, sys.argv[1].split(","))
for seed in map(int, sys.argv[2].split(",")):
    inst = random_general_instance(n, d, m, seed)
    t = time.time(); r = limit(inst); wl = time.time() - t
    t = time.time(); f = flow(inst, "1e-10000", engine="float64"); wf = time.time() - t
    L = f.log_inv_lambda
    print(f"seed {seed}: limit {r.status.name} {wl:.1f}s; flow 1e-10000 {f.status.name} {wf:.1f}s; walls {[round(g['wall_seconds'],1) for g in r.ladder]}", flush=True)
    for k, j in enumerate(r.jumps):
        fj = f.jumps[k] if k < len(f.jumps) else None
        if not j.ok:
            print("   jump", k+1, "inconclusive:", j.reason[:120]); continue
        pv, pe = j.predict(L)
        same = fj is not None and fj.neuron == j.neuron and tuple(fj.fitted) == tuple(j.fitted)
        ferr = f.errors.get("jumps")[k] if f.errors.get("jumps") and same else None
        print(f"   jump {k+1} n{j.neuron}: limit {j.value:.10f} ± {j.error:.2e}, C {j.coefficients[1]:.4f}; predicted {pv:.10f}; flow {fj.tau if fj else None} (same event {same}); |diff| {abs(fj.tau - pv) if same else None}; within {same and abs(fj.tau-pv) <= pe + (ferr or 0)}; flow err {ferr}", flush=True)
    for k, p in enumerate(r.plateaus):
        if p.ok and k < len(f.plateaus):
            pv, pe = p.predict(L)
            print(f"   plateau {k}: {p.value:.10g} ± {p.error:.1e}; flow {f.plateaus[k]:.10g}; within {abs(f.plateaus[k]-pv) <= pe + f.errors['plateaus'][k]}")
