"""The words of `numerics.flows.vouch`'s reasons: which jumps of a run and of its check run differ, for a reader.

Numbers are rounded to 4 significant digits and marked ≈: a run whose structure differs from its check run's has no
bound vouched for (`numerics.flows.vouch`, issue 20), so the digits only say which jump is meant. Data indices are
0-based, as `relucheck flow` prints them.
"""
from __future__ import annotations

SHOWN = 4  # differences a message names before "and N more" (a reader needs which ones, not all 60 of a large run)


def _data(indices) -> str:
    """'datum 5', 'data 5, 9 and 11', 'data 5, 9, 11, 12 and 7 more' (0-based indices, as the output prints them)."""
    items = sorted(indices)
    if len(items) == 1:
        return f"datum {items[0]}"
    if len(items) <= SHOWN + 1:
        return f"data {', '.join(str(i) for i in items[:-1])} and {items[-1]}"
    return f"data {', '.join(str(i) for i in items[:SHOWN])} and {len(items) - SHOWN} more"


def jump_differences(mine, other, unit: str) -> str:
    """The jumps of a run and of its check run that differ, in words, neuron by neuron: a neuron that jumps in one run
    only, at which time (rounded: no bound is vouched for when the runs differ), or that fits other data (which data
    each run alone has); the first SHOWN, then how many more (a new user, session 32: the message listed Python tuples
    (neuron, fitted data) of the 7th jump on, 15 against 16, without saying which differed)."""
    by_run: dict = {}
    by_check: dict = {}
    for table, jumps in ((by_run, mine), (by_check, other)):
        for jp in jumps:
            table.setdefault(jp.neuron, []).append(jp)
    parts = []
    for j in sorted(set(by_run) | set(by_check)):
        a, b = by_run.get(j, []), by_check.get(j, [])
        if not b or not a:
            here, there = ("the run", "the check run") if a else ("the check run", "the run")
            times = " and ".join(f"{unit} ≈ {jp.tau:.4g}" for jp in a or b)
            parts.append(f"neuron {j} jumps at {times} in {here} and not in {there}")
        elif len(a) != len(b):
            parts.append(f"neuron {j} jumps {len(a)} times in the run and {len(b)} in the check run")
        else:
            for u, v in zip(sorted(a, key=lambda jp: jp.tau), sorted(b, key=lambda jp: jp.tau)):
                only_run, only_check = set(u.fitted) - set(v.fitted), set(v.fitted) - set(u.fitted)
                if only_run or only_check:
                    sides = ([f"{_data(only_run)} only in the run"] if only_run else []) + \
                        ([f"{_data(only_check)} only in the check run"] if only_check else [])
                    parts.append(f"neuron {j}, jumping at {unit} ≈ {u.tau:.4g}, fits {' and '.join(sides)}")
    if not parts:  # (the same neurons and data, in another multiplicity)
        parts = ["the same neurons fit the same data, but not as often"]
    more = f"; {len(parts) - SHOWN} more differences" if len(parts) > SHOWN else ""
    return (f"the jumps differ: {'; '.join(parts[:SHOWN])}{more} ({len(mine)} jump{'s' * (len(mine) != 1)} in the run, "
            f"{len(other)} in the check run)")
