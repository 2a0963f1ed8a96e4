"""The public API of docs/api.md: the names, their laziness, registration rules, `flow`, `assert_holds`, strategies."""
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import relucheck
from relucheck.testing import assert_holds, assert_mutant_caught
from relucheck.testing import strategies as rs

API = ["register_paper", "register_statements", "Statement", "check", "Context", "Outcome", "Status", "agree",
       "within_bound", "Instance", "load_instance", "flow", "limit_process", "FlowStatus", "RelucheckInputError"]


def test_every_documented_name_is_importable_and_listed():
    for name in API:
        assert getattr(relucheck, name) is not None
    assert set(API) <= set(relucheck.__all__) and set(API) <= set(dir(relucheck))
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        relucheck.nothing  # noqa: B018


def test_import_relucheck_loads_neither_sympy_nor_the_engines():
    code = "import sys, relucheck; from relucheck import flow, check; print('sympy' in sys.modules)"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "False"


@pytest.fixture
def registries():
    """Snapshot and restore the global registries, so that test registrations do not leak into other tests."""
    from relucheck.proofs_checks import registry
    from relucheck.theory import statement, statements

    registry.all_checks()
    statements.all_statements()
    saved = dict(statement.PAPERS), dict(statements._STATEMENTS), dict(registry._CHECKS)
    yield
    for target, old in zip((statement.PAPERS, statements._STATEMENTS, registry._CHECKS), saved):
        target.clear()
        target.update(old)


def test_a_users_paper_statement_and_check(registries):
    from relucheck import Context, Statement, agree, check, register_paper, register_statements

    register_paper("Mine", "my paper")
    register_statements(Statement(id="Mine.one", paper="Mine", number="1", title="one is one", conclusion="1 = 1"))

    @check("Mine.one.exact", statement="Mine.one", mutant="1 = 2")
    def one(ctx: Context):
        return agree(1.0, 2.0 if ctx.mutate else 1.0, 0.0, "exact arithmetic")

    assert assert_holds("Mine.one.exact").status.value == "verified"
    assert assert_holds(one).id == "Mine.one.exact"  # by function
    assert assert_mutant_caught(one).status.value == "refuted"
    with pytest.raises(AssertionError, match=r"the mutant \(1 = 2\) was not refuted: verified"):
        check("Mine.one.blind", statement="Mine.one", mutant="1 = 2")(lambda ctx: agree(1.0, 1.0, 0.0, "exact"))
        assert_mutant_caught("Mine.one.blind")


@pytest.mark.parametrize("paper_id, message", [
    ("A", "is a built-in paper"), ("C", "is a built-in paper"), ("1x", "must be a letter"), ("A.b", "must be a letter"),
])
def test_register_paper_refuses(paper_id, message, registries):
    with pytest.raises(ValueError, match=message):
        relucheck.register_paper(paper_id, "title")


def test_duplicates_are_refused(registries):
    from relucheck import Statement, agree, check, register_paper, register_statements

    register_paper("Dup", "d")
    st_ = Statement(id="Dup.s", paper="Dup", number="1", title="t")
    register_statements(st_)
    with pytest.raises(ValueError, match="statement id 'Dup.s' is already registered"):
        register_statements(st_)
    with pytest.raises(ValueError, match="statement id 'C.thm2' is already registered"):
        register_statements(Statement(id="C.thm2", paper="C", number="x", title="t"))
    with pytest.raises(ValueError, match="check id 'C.prop1.flow_across_events' is already registered"):
        check("C.prop1.flow_across_events", statement="C.prop1", mutant="m")(lambda ctx: agree(0, 0, 0, "r"))
    with pytest.raises(ValueError, match="every check needs a mutant"):
        check("Dup.s.x", statement="Dup.s", mutant="")


def test_assert_holds_raises_with_the_message_of_a_refuted_or_failing_check():
    from relucheck import agree

    with pytest.raises(AssertionError, match=r"refuted: max error 0.5 vs tolerance 0.1"):
        assert_holds(lambda ctx: agree(1.0, 1.5, 0.1, "r"))
    with pytest.raises(AssertionError, match=r"error: ZeroDivisionError"):
        assert_holds(lambda ctx: 1 / 0)
    with pytest.raises(LookupError, match="unknown check id"):
        assert_holds("No.such.check")


def test_flow_reports_at_exactly_the_requested_times():
    inst = relucheck.Instance([[1.0, 0.0]], [2.0], [[1.0, 0.0]], [1])
    result = relucheck.flow(inst, "1e-20", times=[0.25, 0.5, 0.75, 3.0])
    assert result.success and list(result.trajectory.tau) == [0.25, 0.5, 0.75, 3.0]
    assert len(result.jumps) == 1 and result.final_loss < 1e-12
    with pytest.raises(relucheck.RelucheckInputError, match="unknown engine"):
        relucheck.flow(inst, "1e-20", engine="rk4")
    with pytest.raises(relucheck.RelucheckInputError, match="instance must be"):
        relucheck.flow([[1.0]], "1e-20")


# -- strategies -------------------------------------------------------------------------------------------------------

@settings(max_examples=20, deadline=None)
@given(rs.orthonormal_instances(n=st.integers(1, 5), m=3))
def test_orthonormal_instances_satisfy_assumption_1(inst):
    assert inst.m == 3 and inst.d >= inst.n
    assert np.allclose(inst.inputs @ inst.inputs.T, np.eye(inst.n), atol=1e-12)
    if not inst.meta["rotate"]:
        assert np.array_equal(inst.inputs, np.eye(inst.n, inst.d))


@settings(max_examples=20, deadline=None)
@given(rs.weakly_correlated_instances(n=4, m=2))
def test_weakly_correlated_instances_have_gaussian_inputs_of_dimension_at_least_n_squared(inst):
    assert inst.d >= 16 and inst.n == 4 and inst.m == 2


@settings(max_examples=20, deadline=None)
@given(rs.positively_correlated_instances(n=10, d=3, noise=0.0))
def test_positively_correlated_instances_follow_the_linear_teacher_in_the_margin_cone(inst):
    assert np.allclose(inst.labels, inst.inputs[:, 0])  # β* = e_1, no noise
    assert np.all(inst.labels * inst.inputs[:, 0] > 0)  # y_i x_i positively correlated with β*


@settings(max_examples=20, deadline=None)
@given(st.data())
def test_teachers_and_initializations(data):
    X = data.draw(rs.general_instances(n=5, d=3, m=1)).inputs
    y = data.draw(rs.linear_teacher_labels(X))
    beta = np.linalg.lstsq(X, y, rcond=None)[0]
    assert abs(np.linalg.norm(beta) - 1) < 1e-9  # exact linear labels of a unit β
    assert np.all(data.draw(rs.relu_teacher_labels(X, k=1)) >= 0)  # one ReLU teacher with b = +1
    a, W = data.draw(rs.balanced_initializations(4, 3, lam=1e-3))
    assert np.allclose(a**2, (W**2).sum(1))
    a, W = data.draw(rs.dominated_initializations(4, 3, lam=1e-2))
    assert np.all(np.linalg.norm(W, axis=1) <= 1e-2 * np.abs(a) * (1 + 1e-12))


@pytest.mark.parametrize("module", ["relucheck.proofs_checks.checks.high_precision_arb",
                                    "relucheck.proofs_checks.checks.paper_c_flow"])
def test_a_check_module_imports_first_in_a_fresh_process(module):
    """The registry loads the built-in checks before a user's check registers, but not while a built-in check
    module is itself being imported (a circular import)."""
    proc = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-1500:]
