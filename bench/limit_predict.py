"""The fitted law of `relucheck limit --json` against a flow outside the ladder (docs/limit.md, the n = 8, d = 3, m = 6
instance): each jump's predicted time τ* + C₁x + C₂x² (x = 1/ln(1/λ)) beside the flow's at ln(1/λ) = L.

Usage: ``relucheck limit INSTANCE.json --json > LIMIT.json``, then
``nice python -m bench.limit_predict INSTANCE.json LIMIT.json 20000``."""
import json
import sys
import time

from relucheck.api import flow
from relucheck.numerics.instances import load_instance
from relucheck.numerics.lambda_limit import lam_of

inst = load_instance(sys.argv[1])
fitted = json.load(open(sys.argv[2]))
started = time.time()
f = flow(inst, lam_of(float(sys.argv[3])), engine="float64", budget=1500)
print(f.status.name, f"{time.time() - started:.1f}s", f.message[:200])
x = 1 / f.log_inv_lambda
for j in fitted["jumps"]:
    c = j["coefficients"]
    pred = c[0] + c[1] * x + c[2] * x * x
    fj = [k for k in f.jumps if k.neuron == j["neuron"]]
    print(j["neuron"], "predicted", pred, "±", j["error"], "flow", fj[0].tau if fj else None,
          "difference", (fj[0].tau - pred) if fj else None, "flow's errors", f.errors.get("jumps"))
print("plateaus of the flow", f.plateaus)
