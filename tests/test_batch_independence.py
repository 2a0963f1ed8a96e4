"""A problem's gradient descent does not depend on the other problems of its stack (issue 23; docs/paper_a.md).

Session 32 found that `regime_batch` gave a run another record, and near a saddle another verdict, depending on
its batch-mates: the stack padded every problem's rows to the largest n of its block, and BLAS and numpy's pairwise
sums group n + p terms otherwise than n (d = 3, n = 24, seed 1, m = 32, 2·10⁴ steps: L/L_OLS 0.6129 alone, 0.6395
with (32, 2) and (48, 0)); and the confirmation of the runs of one round got the steps left to the one with the
most. Now each problem's sums run over its own rows in blocks set by its own n (`GDBatch._plan`, `Field.loss`), and
each run has its own step budget (`train_batch(max_steps=array)`): the records are equal bit for bit.
"""
import json

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from relucheck.numerics.flows.batched_gd import BLOCK_BYTES, Field, GDBatch
from relucheck.numerics.paper_a_regime import regime_batch

M, D = 32, 5
SPLIT = BLOCK_BYTES // (4 * M)  # float32 rows per block at this width: a larger problem is cut into row blocks

sizes_of_a_stack = st.lists(st.sampled_from([1, 7, 24, 24, 32, 48, 300, SPLIT + 440]), min_size=2, max_size=6).map(
    lambda sizes: sorted(sizes, reverse=True))  # as regime_batch stacks them: by decreasing n


def _problems(sizes, seed):
    rng = np.random.default_rng(seed)
    data = [(rng.normal(size=(n, D)), rng.normal(size=n)) for n in sizes]
    return data, rng.normal(size=(len(sizes), M)), rng.normal(size=(len(sizes), M, D))


def _differences(sizes, seed, dtype) -> list[int]:
    """The members whose residuals, field or loss in the stack differ from the same problem's alone."""
    data, a, W = _problems(sizes, seed)
    F = GDBatch.stack(data, dtype=dtype).evaluate(a, W)
    loss = F.loss()
    differ = []
    for b, (X, y) in enumerate(data):
        G = GDBatch.stack([(X, y)], dtype=dtype).evaluate(a[b:b + 1], W[b:b + 1])
        same = (np.array_equal(F.r[b, :len(y)], G.r[0]) and np.array_equal(F.da[b], G.da[0])
                and np.array_equal(F.dW[b], G.dW[0]) and loss[b] == G.loss()[0])
        if not same:
            differ.append(b)
    return differ


@settings(max_examples=25, deadline=None)
@given(sizes=sizes_of_a_stack, seed=st.integers(0, 2**32 - 1), dtype=st.sampled_from([np.float32, np.float64]))
def test_a_members_field_and_loss_are_those_it_has_alone(sizes, seed, dtype):
    assert _differences(sizes, seed, dtype) == []


MIXED = [SPLIT + 440, 300, 300, 48, 32, 24, 24, 7]


def test_the_comparison_sees_a_stack_padded_to_its_largest_problem(monkeypatch):
    """Mutant: every member's rows in one block padded to N (the field's sums of session 32)."""
    monkeypatch.setattr(GDBatch, "_plan", lambda self, shape: [(Ellipsis, slice(0, self.N))])
    assert _differences(MIXED, 0, np.float32)


def test_the_comparison_sees_a_loss_summed_over_the_padding(monkeypatch):
    """Mutant: the loss summed over all N rows of the stack, zeros included."""
    def padded(self):
        r = self.r.astype(np.float64)
        return (r * r).sum(-1) / (2 * np.asarray(self.n, dtype=np.float64))

    monkeypatch.setattr(Field, "loss", padded)
    assert _differences(MIXED, 0, np.float64)


def _record(row: dict) -> str:
    return json.dumps({k: v for k, v in row.items() if k != "cpu_seconds"}, sort_keys=True)


@pytest.mark.parametrize("d, m, pairs, budget", [
    (3, 32, [(24, 1), (32, 2), (48, 0)], dict(max_steps=20_000, max_time=2000.0)),  # the field's sums
    (2, 16, [(8, 2), (96, 0), (4, 1)], dict(max_steps=3000, max_time=300.0)),  # the confirmation's step budget
])
def test_a_regime_runs_record_does_not_depend_on_its_batch_mates(d, m, pairs, budget):
    """Session 32: (24, 1) ended at 0.6395 in this batch and 0.6129 alone; (96, 0) and (4, 1), found stationary
    before (8, 2), were confirmed to t = 129 and 95 only, waiting for its steps (alone: 403 and 255)."""
    batch = regime_batch(d, m, pairs, **budget)
    for k, pair in enumerate(pairs):
        assert _record(regime_batch(d, m, [pair], **budget)[0]) == _record(batch[k]), pair


def test_the_comparison_sees_a_step_budget_shared_by_the_batch(monkeypatch):
    """Mutant: each round's runs get the steps left to the one with the most (session 32's budget)."""
    import relucheck.numerics.paper_a_regime as regime

    shared = regime.train_batch
    monkeypatch.setattr(regime, "train_batch", lambda P, a, W, lr, max_steps, **kw: shared(
        P, a, W, lr, int(np.min(max_steps)), **kw))
    d, m, pairs, budget = 2, 16, [(8, 2), (96, 0), (4, 1)], dict(max_steps=3000, max_time=300.0)
    batch = regime_batch(d, m, pairs, **budget)
    assert any(_record(regime_batch(d, m, [p], **budget)[0]) != _record(batch[k]) for k, p in enumerate(pairs))
