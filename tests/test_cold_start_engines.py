"""`relucheck engines` lists the engines without loading mpmath or python-flint (issue 22, item 6): the mpmath engine
(`numerics.flows.engines.taylor`) imports them, with the Taylor kernel, at its entry points (`_load`), and
`numerics.scale` imports mpmath where λ is first read. The same probe sees them once an entry point runs.
Measured on the 2-core machine under load ≈ 10 (interleaved, 5 runs each): 0.99–1.05 s wall (0.27 s CPU) before,
0.63–0.69 s (0.17 s CPU) after; `python -c "import numpy"` alone took 0.38–0.46 s there."""
from test_layering import _loaded_after, _loaded_by_command

HIGH_PRECISION = ("mpmath", "flint", "relucheck.numerics.mp_arrays", "relucheck.numerics.taylor")


def test_engines_command_loads_neither_mpmath_nor_flint():
    loaded = _loaded_by_command(["engines"])
    assert "relucheck.numerics.flows.engines.taylor" in loaded  # the mpmath engine was listed
    assert {m for m in HIGH_PRECISION if m in loaded} == set()


def test_the_mpmath_engine_loads_them_when_it_runs():
    """The mutant of the probe: the engine's domain check (an entry point) loads the kernel and mpmath."""
    code = ("import numpy as np\nfrom relucheck.numerics.flows import FlowProblem, get_engine\n"
            "from relucheck.numerics.instances import Instance\n"
            "inst = Instance(np.eye(2), np.array([1.0, -1.0]), np.eye(2), np.array([1, -1]))\n"
            "engine = get_engine('mpmath')\n"
            "assert engine.domain.reason(FlowProblem.from_instance(inst, '1e-10', horizon=1.0), {}) is None")
    assert {m for m in HIGH_PRECISION if m in _loaded_after(code)} == set(HIGH_PRECISION)
