"""A settled run names the small neurons still growing at its end (`numerics.flows.settle.later_growth`): its jump times
and last plateau are those of the flow up to the maximal horizon, and those neurons' later jumps would change the final
norms the jump rule reads them against (red team, session 30, tests/test_red_team_session30.py)."""
from __future__ import annotations

import numpy as np

from relucheck.numerics.flows import solve
from relucheck.numerics.flows.norm_track import NormTrack
from relucheck.numerics.flows.settle import growing

from test_red_team_session30 import _later

def test_a_settled_run_names_the_neurons_that_jump_after_its_maximal_horizon():
    run = solve(_later(), "float64")  # settles at τ ≈ 34 with max_horizon 100
    assert run.status.name == "SETTLED"
    named = {g["neuron"]: g["reaches_labels_scale_at"] for g in run.stats["later_growth"]}
    soon = {j for j, tau in named.items() if tau < 1000.0}
    assert soon and all(tau > 100.0 for tau in named.values())  # past the maximal horizon, else it would not settle
    assert all(f"neuron {j} at τ ≈" in run.message for j in soon)
    longer = solve(_later(max_horizon=1000.0), "float64")  # the same flow looked at to τ = 1000
    assert longer.status.name == "SETTLED" and longer.end > 100.0
    assert soon <= {jp.neuron for jp in longer.jumps}  # the neurons named do jump later
    assert not (soon & {jp.neuron for jp in run.jumps})

def test_growing_reads_the_rate_and_the_distance_to_the_labels_scale():
    track = NormTrack()
    # ln‖θ_j‖ at the end: grown (0), small rising at 0.5, small falling, small flat; labels' scale 1
    track.append(9.0, np.array([-1.0, -20.0, -20.0, -20.0]), np.array([0.0, 0.4, -0.4, 0.0]))
    track.append(10.0, np.array([0.0, -20.0, -20.0, -20.0]), np.array([0.0, 0.5, -0.5, 0.0]))
    out = growing(track, 1.0, 10.0)
    assert [j for j, _ in out] == [1]  # only the small neuron with a positive rate
    from relucheck.numerics.flows.result import ACTIVE_FRACTION
    significant = 0.5 * np.log(ACTIVE_FRACTION)
    assert abs(out[0][1] - (10.0 + (significant + 20.0) / 0.5)) < 1e-12
