"""Red team, session 33: does a run's record still depend on its batch-mates? (038449c, test_batch_independence.py)

Claim under test (`numerics.paper_a_regime.regime_batch`, `numerics.flows.batched_gd` module docstring, docs/paper_a.md
"Fixed in session 33"): a run's record (its `regime_batch` row without ``cpu_seconds``, compared as JSON text) is the
one it has alone, in any batch, because `GDBatch._plan` groups only members of one n over their own rows,
`Field.loss` sums a member's own rows and `train_batch(max_steps=array)` gives each run its own step budget.

On numpy the claim held in every composition tried (the passing tests below, and scratch scans under
/work/helpers/s33/A/: 4790 drawn stacks at 2 BLAS threads and 8497 at 1 thread, field and loss bit for bit, m from 1
to 257, d from 1 to 10, n from 1 to beyond two row blocks). The Array API path (`GDBatch.to`,
`numerics.flows.batched_gd_xp.XPBatch`) evaluated a stack in one block over all N rows, padding included; it now
groups runs of one n like numpy (the two tests of it passed as strict xfails before). Also fixed since:

* `GDBatch.evaluate(keep=True)` (and `descend(keep=True)`) evaluated a stack in one padded block (`_plan`'s
  ``whole``), against the module docstring's "whatever else is stacked with it"; no caller used ``keep``, and it
  was removed in the same session.

Found on the way, and fixed: a regime run whose first window was rejected warned 'invalid value' (inf·0).
Each comparison can fail: the padded-plan mutants at the end are seen by the same comparisons.
"""
from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from threadpoolctl import threadpool_limits

from relucheck.numerics.flows.batched_gd import BLOCK_BYTES, GDBatch
from relucheck.numerics.paper_a_regime import RegimeJournal, regime_batch
from relucheck.numerics.paper_a_training import THRESHOLD_PROTOCOL, small_neuron_escape, threshold_batch


def _record(row: dict, timing: str = "cpu_seconds") -> str:
    """A record as the claim compares it: JSON text without its timing (NaN is written 'NaN', so NaN rows compare)."""
    return json.dumps({k: v for k, v in row.items() if k != timing}, sort_keys=True)


def _alone_differs(d, m, pairs, **kw) -> list:
    """The pairs whose regime_batch record in the batch ``pairs`` is not the one they have alone."""
    batch = regime_batch(d, m, pairs, **kw)
    return [p for k, p in enumerate(pairs) if _record(regime_batch(d, m, [p], **kw)[0]) != _record(batch[k])]


def _field_differs(sizes, m, d, dtype, *, seed=0, backend=None) -> list:
    """The members (index, n) whose residuals, field or loss in the stack differ from the same problem's alone."""
    rng = np.random.default_rng(seed)
    data = [(rng.normal(size=(n, d)), rng.normal(size=n)) for n in sizes]
    a, W = rng.normal(size=(len(sizes), m)), rng.normal(size=(len(sizes), m, d))
    F = GDBatch.stack(data, dtype=dtype).to(backend).evaluate(a, W)
    loss = F.loss()
    out = []
    for b, (X, y) in enumerate(data):
        G = GDBatch.stack([(X, y)], dtype=dtype).to(backend).evaluate(a[b:b + 1], W[b:b + 1])
        if not (np.array_equal(F.r[b, :len(y)], G.r[0]) and np.array_equal(F.da[b], G.da[0])
                and np.array_equal(F.dW[b], G.dW[0]) and loss[b] == G.loss()[0]):
            out.append((b, sizes[b]))
    return out


# -- what holds (numpy) ---------------------------------------------------------------------------------------------
def test_equal_n_with_other_seeds_is_the_run_alone():
    """Members of one n share a block (`_plan`'s group): three seeds of n = 8 (stationary runs, confirmed)."""
    assert _alone_differs(2, 16, [(8, 0), (8, 1), (8, 2)], max_steps=3000, max_time=300.0) == []


def test_n_1_m_1_d_1_and_a_resumed_run_are_the_runs_alone():
    """n = 1 (OLS fits it: L_OLS = 0, ratio inf), m = 1, d = 1, and a run that "moved" in its confirmation and resumed
    the rule in a second round while its batch-mates had finished ((6, 0) at d = 1)."""
    pairs = [(6, 0), (3, 1), (1, 2)]
    with np.errstate(divide="ignore"):  # L/L_OLS of n = 1 divides by L_OLS = 0
        rows = regime_batch(1, 4, pairs, max_steps=3000, max_time=300.0)
        assert rows[0]["rounds"] == 2 and {r["rounds"] for r in rows[1:]} == {1}  # the composition tested here
        assert _alone_differs(1, 4, pairs, max_steps=3000, max_time=300.0) == []
    assert _alone_differs(2, 1, [(4, 0), (8, 1), (1, 2)], max_steps=3000, max_time=300.0) == []


@pytest.mark.parametrize("budget, cut", [(dict(max_steps=1000, max_time=2000.0), "steps"),
                                         (dict(max_steps=100_000, max_time=60.0), "time")])
def test_runs_cut_by_steps_or_by_time_are_the_runs_alone(budget, cut):
    """Session 32's composition at m = 16, each budget cutting two of the three runs ("budget")."""
    pairs = [(24, 1), (32, 2), (48, 0)]
    rows = regime_batch(3, 16, pairs, **budget)
    assert [r["status"] for r in rows].count("budget") == 2
    if cut == "steps":
        assert all(r["steps"] == budget["max_steps"] for r in rows if r["status"] == "budget")
    else:
        assert all(r["time"] >= budget["max_time"] for r in rows if r["status"] == "budget")
    assert _alone_differs(3, 16, pairs, **budget) == []


M_SPLIT = 256
PAIRS_SPLIT = [(400, 0), (400, 1), (24, 0)]


def test_members_split_into_row_blocks_are_the_runs_alone():
    """n = 400 at m = 256 is cut into row blocks in the float32 steps (320 rows per block) and in the float64
    decisions (160 rows per block), next to a run of n = 24 and another run of n = 400."""
    assert 400 > BLOCK_BYTES // (4 * M_SPLIT) > BLOCK_BYTES // (8 * M_SPLIT) > 24
    assert _alone_differs(3, M_SPLIT, PAIRS_SPLIT, max_steps=1000, max_time=2000.0) == []


def test_threshold_batch_records_are_the_runs_alone():
    """`threshold_batch` (A §5's threshold sweep, one scalar step budget): 3 sizes × 2 seeds vs each alone."""
    proto = {**THRESHOLD_PROTOCOL, "m": 32, "max_steps": 2000, "n_test": 200}
    ns, seeds = [48, 24, 7], [0, 1]
    batch = threshold_batch(3, ns, seeds, **proto)
    alone = [threshold_batch(3, [n], [s], **proto)[0] for n in ns for s in seeds]
    assert [_record(r, "seconds") for r in alone] == [_record(r, "seconds") for r in batch]


def test_the_journal_batching_does_not_change_a_record(tmp_path):
    """`RegimeJournal.ensure` (what `regime_sweep` calls): one batch of three runs, or three batches of one."""
    proto = dict(max_steps=3000, max_time=300.0)
    want = [(2, 8, 0, 16), (2, 4, 1, 16), (2, 6, 2, 16)]
    together = RegimeJournal(tmp_path / "one.jsonl", progress=False, **proto).ensure(want)
    apart = RegimeJournal(tmp_path / "three.jsonl", progress=False, **proto).ensure(want, max_pairs=1)

    def by_run(rows):
        return sorted(_record(r) for r in rows)

    assert len(together) == 3 and by_run(together) == by_run(apart)


@st.composite
def odd_stacks(draw):
    """Stacks whose members start at odd offsets in the block arrays (odd m, d and n: tests/test_batch_independence.py
    draws m = 32, where every member starts on a 128-byte boundary), with n at and around the row-block size."""
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    m, d = draw(st.sampled_from([1, 3, 7, 33])), draw(st.sampled_from([1, 2, 5]))
    per_row = BLOCK_BYTES // (np.dtype(dtype).itemsize * m)
    pool = [1, 3, 9, 9, 25] + ([per_row - 1, per_row, per_row + 1] if per_row * m * d <= 2_000_000 else [])
    sizes = draw(st.lists(st.sampled_from(pool), min_size=2, max_size=6))
    return sorted(sizes, reverse=True), m, d, dtype, draw(st.integers(0, 2**32 - 1))


@settings(max_examples=25, deadline=None)
@given(odd_stacks())
def test_a_member_at_an_odd_offset_has_its_field_alone(stack):
    sizes, m, d, dtype, seed = stack
    assert _field_differs(sizes, m, d, dtype, seed=seed) == []


@pytest.mark.parametrize("threads", [1, 2])
def test_a_members_field_is_the_one_alone_at_either_blas_thread_count(threads):
    """At sizes where OpenBLAS's 2 threads sum otherwise than 1 (measured: d = 50, m = 100, n = 822 float32, |ΔdW| up
    to 2.9e-6), a member's field in the stack is still the one it has alone at the same thread count."""
    with threadpool_limits(threads):
        assert _field_differs([822, 822, 9], 100, 50, np.float32) == []
        assert _field_differs([1000, 1000, 300], 100, 50, np.float64) == []


def test_the_escape_bound_ignores_a_stacks_padding_rows():
    """`small_neuron_escape` reads a member's row of the padded stack: its zero rows are dropped, bit for bit."""
    rng = np.random.default_rng(5)
    X, r = rng.normal(size=(9, 3)), rng.normal(size=9)
    a, W = 1e-4 * rng.normal(size=6), 1e-4 * rng.normal(size=(6, 3))
    padded_X, padded_r = np.vstack([X, np.zeros((40, 3))]), np.concatenate([r, np.zeros(40)])
    bound = small_neuron_escape(X, r, 9, a, W, 50.0)
    assert bound > 0 and small_neuron_escape(padded_X, padded_r, 9, a, W, 50.0) == bound


# -- breaks (not fixed) -----------------------------------------------------------------------------------------------
def test_array_api_a_members_field_is_the_one_alone():
    """Was a strict xfail: XPBatch evaluated a stack in one block over all N rows (n = 7 next to n = 300: |ΔdW|
    1.8e-15 in float64); it now evaluates each run of one n over its own rows."""
    pytest.importorskip("array_api_strict")
    assert _field_differs([300, 24, 7], 32, 5, np.float64, backend="array_api_strict") == []


def test_array_api_regime_record_is_the_run_alone():
    """Was a strict xfail: d = 3, m = 32, (7, 1) with (48, 0) on array-api-strict ended at L/L_OLS
    0.13564053164351378 alone and 0.13564053164351061 in the batch."""
    pytest.importorskip("array_api_strict")
    assert _alone_differs(3, 32, [(48, 0), (7, 1)], max_steps=3000, max_time=400.0,
                          backend="array_api_strict") == []


# -- found on the way (not about batch-mates) --------------------------------------------------------------------------
def test_a_rejected_first_window_warns_nothing():
    """Was a strict xfail: a first window rejected (rate = inf) at t_left = t = 0 multiplied inf by 0 outside the
    errstate block and warned 'invalid value encountered in multiply' (the record itself was right: budget, L/L_OLS
    0.9006)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        regime_batch(2, 16, [(8, 0)], max_steps=2000, max_time=300.0, lr=20.0)


# -- the comparisons can fail -----------------------------------------------------------------------------------------
def _padded_plan(self, shape):
    """Mutant: every member's rows in one block padded to N (session 32's stack)."""
    return [(Ellipsis, slice(0, self.N))]


def test_the_thread_comparison_sees_a_padded_stack(monkeypatch):
    monkeypatch.setattr(GDBatch, "_plan", _padded_plan)
    with threadpool_limits(1):
        assert _field_differs([822, 822, 9], 100, 50, np.float32)


def test_the_record_comparison_sees_a_padded_stack(monkeypatch):
    monkeypatch.setattr(GDBatch, "_plan", _padded_plan)
    assert _alone_differs(3, M_SPLIT, PAIRS_SPLIT, max_steps=1000, max_time=2000.0)
