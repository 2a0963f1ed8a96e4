"""The engine protocol: what an engine is (name, domain, precision) and what the one loop asks of it.

An engine (`Engine`) makes a `Stepper` for a problem; the stepper holds the state of one run and offers the
operations of `numerics.flows.loop.integrate`, which owns stepping, events, the Filippov decisions, sampling
and stopping for every engine (diffrax's split: a solver steps, `diffeqsolve` owns the loop). Engines differ
only in the representation of the state and in how a step is taken.
"""
from __future__ import annotations

import abc
import contextlib
import contextvars
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np


_DEADLINE = contextvars.ContextVar("flow_deadline", default=None)  # a time.perf_counter() value, or None


class BudgetSpent(Exception):
    """Raised by `poll` once the run's deadline has passed; the loop ends the run with status BUDGET (issue 20,
    bounded work: a long phase inside one step — locating an event among 10⁵ crossings, a Taylor step of order 2000 —
    must end too, not only the loop between steps)."""


@contextlib.contextmanager
def deadline_of(deadline):
    """`poll` inside this block raises `BudgetSpent` after ``deadline`` (None: never)."""
    token = _DEADLINE.set(deadline)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def poll(where: str) -> None:
    """Raise `BudgetSpent` (naming ``where``) if the deadline of the run in progress has passed."""
    deadline = _DEADLINE.get()
    if deadline is not None and time.perf_counter() > deadline:
        raise BudgetSpent(where)


@dataclass(frozen=True)
class Domain:
    """Which problems an engine accepts: a description and a predicate returning None or the reason it refuses."""

    description: str
    refuse: Callable  # (problem, options) -> str | None

    def reason(self, problem, options) -> str | None:
        return self.refuse(problem, options)


@dataclass
class View:
    """The state seen by the loop at the stepper's current time.

    Z: (n, m) pre-activations relative to each neuron's norm, ⟨w_j, x_i⟩ / ‖θ_j‖; r: (n,) residuals under the
    current pattern; s: (m,) sign of a_j; loss; log_norms: (m,) ln‖θ_j‖; log_rates: (m,) d ln‖θ_j‖ / d(time),
    or None; a_rel: (m,) a_j / ‖θ_j‖; r_error: (n,) a bound on the integrator's error in r (None: rounding only).
    Arrays hold float64 or mpmath numbers.
    """

    Z: np.ndarray
    r: np.ndarray
    s: np.ndarray
    loss: object
    log_norms: np.ndarray
    log_rates: np.ndarray | None = None
    a_rel: np.ndarray | None = None
    r_error: np.ndarray | None = None


class Stepper(abc.ABC):
    """One run's state. Times are in the problem's unit (float64 or mpmath numbers)."""

    t: object  # current time
    G: np.ndarray  # Gram matrix X Xᵀ in the engine's arithmetic
    eps: float  # unit roundoff of the engine's arithmetic (an mpmath number for mpmath engines)
    detects_events: bool = True  # False: a fixed-step scheme (gradient descent) whose pattern is re-read each step
    precision: str | None = None  # the run's precision when it depends on the options ("mpmath 30 digits")

    def working_precision(self):
        """A context manager in which the loop runs (mpmath engines: their digits, so that times, roots and
        interpolants computed by the loop keep the working precision)."""
        return contextlib.nullcontext()

    @abc.abstractmethod
    def view(self) -> View:
        """The current state (after `snap`, `restart`, `advance` or `truncate`)."""

    @abc.abstractmethod
    def snap(self, kink: np.ndarray) -> None:
        """Put the components (i, j) with kink[i, j] exactly on their kink ⟨w_j, x_i⟩ = 0."""

    @abc.abstractmethod
    def restart(self, pattern) -> None:
        """Start a segment with this pattern (`numerics.flows.filippov.Pattern`) from the current state."""

    @abc.abstractmethod
    def advance(self, t_stop) -> str | None:
        """Take one step towards t_stop (never past it); None on success, else the failure's message."""

    @abc.abstractmethod
    def watched(self, watch, t) -> np.ndarray:
        """Values of the watched functions (`numerics.flows.events.Watch`) at time t inside the last step."""

    def evaluator(self, watch):
        """A function t -> `watched` (watch, t) for many t inside the last step (engines may precompute)."""
        return lambda t: self.watched(watch, t)

    @abc.abstractmethod
    def truncate(self, t) -> None:
        """End the last step at t (an event inside it): the state becomes the step's state at t."""

    @abc.abstractmethod
    def sample(self, t, params: bool) -> tuple:
        """(loss, log_norms, a, W) at t inside the last step; a, W float64 arrays or None if not ``params``."""

    @abc.abstractmethod
    def final(self) -> tuple:
        """(a, W) at the current time as float64 arrays (tiny neurons may underflow to 0)."""

    def step_bounds(self) -> tuple:
        """(t_old, t) of the last step."""
        return self.t_old, self.t

    def norm_interpolant(self):
        """An exact interpolant (t, j) -> ln‖θ_j(t)‖ of the last step, or None for the loop's cubic Hermite."""
        return None

    def stats(self) -> dict:
        return {}


class Engine(abc.ABC):
    """A flow engine: ``name``, ``precision``, ``domain`` and `start` (a `Stepper` for one problem)."""

    name: str
    precision: str
    domain: Domain
    options: tuple = ()  # names of the options `start` accepts

    @abc.abstractmethod
    def start(self, problem, **options) -> Stepper:
        """A stepper at t = 0 for ``problem`` (already checked against the domain)."""

    def tolerances(self, problem, **options) -> dict:
        return {}

    def review(self, result, problem, options: dict, rerun: Callable):
        """The result after the engine's own review of a finished run (default: unchanged). ``rerun(**changes)``
        runs the same problem again through the loop with some options changed (the mpmath engine's precision
        guard reruns at twice the digits)."""
        return result

    def describe(self) -> dict:
        return {"name": self.name, "precision": self.precision, "domain": self.domain.description,
                "options": list(self.options)}
