"""Benchmark: the cost model of `theory.extremal_cost` against the measured CPU time and peak memory of
`theory.extremal_vectors.extremal_vectors` (each case in a fresh process, so that peaks do not mix).

Cases: Gaussian data, plain or with inputs and labels scaled by 10^U(−s, s) (mixed exponents). Prints the
measurement, the estimate and their ratio. Usage (from the repository root, BLAS on one thread as in the model):
OPENBLAS_NUM_THREADS=1 python3 -m bench.bench_extremal_cost [--quick]
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys

CASES = [(100, 3, 0), (200, 3, 0), (300, 3, 0), (80, 3, 150), (160, 3, 150), (160, 3, 30),
         (2000, 2, 0), (5000, 2, 0), (2000, 2, 150), (5000, 2, 150)]
QUICK = [(100, 3, 0), (80, 3, 150), (2000, 2, 0), (2000, 2, 150)]

_CHILD = """
import json, resource, sys, time
import numpy as np
from relucheck.theory.extremal_cost import estimate
from relucheck.theory.extremal_vectors import extremal_vectors
n, d, s = (float(a) for a in sys.argv[1:4]); n, d = int(n), int(d)
rng = np.random.default_rng(0)
X, y = rng.normal(size=(n, d)), rng.normal(size=n)
if s:
    X *= 10.0 ** rng.uniform(-s, s, size=(n, d)); y *= 10.0 ** rng.uniform(-s, s, size=n)
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
start = time.process_time()
extremal_vectors(X, y)
cost = estimate(X, y)
print(json.dumps({"seconds": time.process_time() - start, "bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
                  * 1024 - base, "estimate_seconds": cost.seconds, "estimate_bytes": cost.bytes}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="four small cases")
    args = parser.parse_args()
    print(f"{'n':>5} {'d':>2} {'s':>4}  {'CPU s':>7} {'estimate':>8} {'ratio':>5}  {'MB':>6} {'estimate':>8} {'ratio':>5}")
    for n, d, s in QUICK if args.quick else CASES:
        out = subprocess.run([sys.executable, "-c", _CHILD, str(n), str(d), str(s)], capture_output=True, text=True,
                             check=True)
        r = json.loads(out.stdout)
        print(f"{n:>5} {d:>2} {s:>4}  {r['seconds']:>7.2f} {r['estimate_seconds']:>8.2f} "
              f"{r['seconds'] / r['estimate_seconds']:>5.2f}  {r['bytes'] / 1e6:>6.0f} {r['estimate_bytes'] / 1e6:>8.0f} "
              f"{r['bytes'] / r['estimate_bytes']:>5.2f}", flush=True)


if __name__ == "__main__":
    main()
