"""Summary of `bench.limit_orthonormal` outputs (one table row of docs/limit.md per file): instances, ties excluded,
jumps, covered, inconclusive, extended ladders, largest and median bar, largest deviation, slowest wall time.

Usage: ``python -m bench.limit_aggregate out.txt [more.txt …]``."""
import sys, ast, re
for f in sys.argv[1:]:
    inst = jumps = cov = 0; bars = []; devs = []; ext = 0; ties = 0; inc = 0; walls = []
    for line in open(f):
        if "alg1 jumps" not in line: continue
        if "ties True" in line: ties += 1; continue
        inst += 1
        walls.append(float(line.split()[2][:-1]))
        if "ext [10000.0]" in line: ext += 1
        body = line[line.index("flow jumps"):]
        lst = body[body.index("["):body.index("plateaus")].strip()
        for t in ast.literal_eval(lst):
            if t[0] in ("inconclusive",): inc += 1; continue
            if t[0] == "extra": continue
            jumps += 1; cov += bool(t[0]) and bool(t[1]); devs.append(float(t[2])); bars.append(float(t[3]))
    bars.sort()
    print(f, "instances", inst, "ties excluded", ties, "jumps", jumps, "covered", cov, "inconclusive", inc, "extended", ext,
          "max bar", max(bars), "median bar", bars[len(bars)//2], "max dev", max(devs), "wall max", max(walls))
