"""Instances (data and initial directions/signs) and their JSON file format.

An instance file is a JSON object with

* ``inputs``: n×d list of lists (the data x_i as rows),
* ``labels``: n numbers (y_i),
* ``directions``: m×d list of lists, unit rows (the initial directions w_j(0)/‖w_j(0)‖),
* ``signs``: m numbers in {−1, +1} (the signs s_j of the output weights a_j(0)),
* optionally ``meta``: a free-form object (generator, seed, …), kept as is.

Nothing else: `INSTANCE_SCHEMA` rejects unknown keys, strings or booleans where numbers belong, ragged or
mismatched shapes, non-finite values and |value| > `DATA_MAX_ABS` (the reason is next to it); the reader
(`numerics.schema.read_json_file`) refuses what JSON parsers take silently: a key repeated in one object, NaN and
Infinity literals, a non-zero number that float64 reads as 0.

The scale λ is not part of an instance: an initialization (`numerics.initializations`) turns an
instance and a λ into parameters. Every check of the file raises a `RelucheckInputError` (or a
`HypothesisViolation` for orthonormality) whose message names the violated condition.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .errors import HypothesisViolation, RelucheckInputError
from .schema import AnyJson, Array, MapOf, Number, Obj, read_json_file, validate as validate_schema

ORTHONORMALITY = "Assumption 1 (orthonormal inputs, ⟨x_i, x_k⟩ = 1{i = k})"
UNIT_TOLERANCE = 1e-9  # JSON round-trips float64 to 17 digits; 1e-9 leaves room for hand-written files
ORTHONORMAL_TOLERANCE = 1e-9
# The flows and Algorithm 1 form products of at most three data-sized factors (y·x·x in the gradients, y² in
# the losses) and sum them over n terms: |value| ≤ 1e100 keeps each product ≤ 1e300 and a sum of up to 1e8 of
# them below float64's largest number 1.8e308, so overflow cannot turn a result into inf or nan.
DATA_MAX_ABS = 1e100
DATA_BOUND_REASON = "products of three data values summed over n terms must stay finite in float64"
MAX_ROWS = 100_000  # n and m: the commands' arrays are n×m; 1e5 × 1e5 booleans would already take 10 GB

_DATA = Number(DATA_MAX_ABS, DATA_BOUND_REASON)
INSTANCE_SCHEMA = Obj(
    required={"inputs": Array(("n", "d"), _DATA), "labels": Array(("n",), _DATA),
              "directions": Array(("m", "d"), Number(1 + UNIT_TOLERANCE, "the directions are unit vectors")),
              "signs": Array(("m",), Number(1, "output signs s_j", choices=(-1, 1)))},
    optional={"meta": MapOf(AnyJson())},
    dims={"n": (1, MAX_ROWS, "at least one data point"), "m": (1, MAX_ROWS, "at least one neuron"),
          "d": (1, MAX_ROWS, "at least one input dimension")},
)


@dataclass
class Instance:
    """Data (inputs X, labels y) with initial directions and output signs.

    X: (n, d); y: (n,); directions: (m, d) unit rows; signs: (m,) in {−1, +1}.
    """

    inputs: np.ndarray
    labels: np.ndarray
    directions: np.ndarray
    signs: np.ndarray
    meta: dict = field(default_factory=dict)

    def __post_init__(self):
        self.inputs = _matrix(self.inputs, "inputs")
        self.labels = _vector(self.labels, "labels")
        self.directions = _matrix(self.directions, "directions")
        self.signs = _vector(self.signs, "signs")
        validate(self)

    @property
    def n(self) -> int:
        return self.inputs.shape[0]

    @property
    def d(self) -> int:
        return self.inputs.shape[1]

    @property
    def m(self) -> int:
        return self.directions.shape[0]

    def activation(self) -> np.ndarray:
        """(n, m) boolean: ⟨w_j(0), x_i⟩ > 0."""
        return self.inputs @ self.directions.T > 0

    def require_orthonormal(self, tol: float = ORTHONORMAL_TOLERANCE) -> None:
        """Raise `HypothesisViolation` naming C's Assumption 1 unless X Xᵀ = I_n."""
        require_orthonormal(self.inputs, tol)

    def to_json(self) -> dict:
        out = {
            "inputs": self.inputs.tolist(),
            "labels": self.labels.tolist(),
            "directions": self.directions.tolist(),
            "signs": [int(s) for s in self.signs],
        }
        if self.meta:
            out["meta"] = self.meta
        return out

    def save(self, path) -> None:
        Path(path).write_text(json.dumps(self.to_json(), indent=1))


def _matrix(value, name: str) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise RelucheckInputError(f"{name} must be a rectangular array of numbers: {exc}") from exc
    if arr.ndim != 2:
        raise RelucheckInputError(f"{name} must be a 2-D array (rows), got shape {arr.shape}")
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise RelucheckInputError(f"{name} must be non-empty, got shape {arr.shape}")
    return arr


def _vector(value, name: str) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise RelucheckInputError(f"{name} must be a list of numbers: {exc}") from exc
    if arr.ndim != 1:
        raise RelucheckInputError(f"{name} must be a 1-D array, got shape {arr.shape}")
    return arr


def validate(inst: Instance) -> None:
    """Shapes, finiteness, unit directions and ±1 signs; errors name the violated condition."""
    X, y, G, s = inst.inputs, inst.labels, inst.directions, inst.signs
    for name, arr in (("inputs", X), ("labels", y), ("directions", G), ("signs", s)):
        if not np.all(np.isfinite(arr)):
            bad = np.argwhere(~np.isfinite(arr))[0].tolist()
            raise RelucheckInputError(f"{name} must be finite; non-finite value at index {bad}")
        if arr.size and np.max(np.abs(arr)) > DATA_MAX_ABS:
            bad = np.argwhere(np.abs(arr) > DATA_MAX_ABS)[0].tolist()
            raise RelucheckInputError(f"{name}: |value| must be ≤ {DATA_MAX_ABS:g} ({DATA_BOUND_REASON}), got "
                                      f"{arr[tuple(bad)]:.6g} at index {bad}")
    if y.shape[0] != X.shape[0]:
        raise RelucheckInputError(
            f"labels has {y.shape[0]} entries but inputs has n = {X.shape[0]} rows (shapes must match)"
        )
    if G.shape[1] != X.shape[1]:
        raise RelucheckInputError(
            f"directions have dimension {G.shape[1]} but inputs have d = {X.shape[1]} (shapes must match)"
        )
    if s.shape[0] != G.shape[0]:
        raise RelucheckInputError(
            f"signs has {s.shape[0]} entries but directions has m = {G.shape[0]} rows (shapes must match)"
        )
    if not np.all(np.isin(s, (-1.0, 1.0))):
        raise RelucheckInputError("signs must be ±1, got " + ", ".join(f"{v:g}" for v in sorted(set(s.tolist()) - {-1.0, 1.0})))
    norms = np.linalg.norm(G, axis=1)
    bad = np.flatnonzero(np.abs(norms - 1) > UNIT_TOLERANCE)
    if bad.size:
        raise RelucheckInputError(
            f"directions must be unit vectors to {UNIT_TOLERANCE:g} (write them to 10 digits or more, or normalize "
            f"them); row {int(bad[0])} has norm {norms[bad[0]]:.12g}"
        )


def require_orthonormal(X: np.ndarray, tol: float = ORTHONORMAL_TOLERANCE) -> None:
    """Raise `HypothesisViolation` (C's Assumption 1) unless the rows of X are orthonormal."""
    n, d = X.shape
    if d < n:
        raise HypothesisViolation(ORTHONORMALITY, f"n = {n} orthonormal inputs need d ≥ n, got d = {d}")
    defect = np.abs(X @ X.T - np.eye(n)).max()
    if defect > tol:
        raise HypothesisViolation(ORTHONORMALITY, f"max |⟨x_i,x_k⟩ − 1{{i=k}}| = {defect:.3g} > {tol:g}")


def load_instance(path, *, orthonormal: bool = False) -> Instance:
    """Read an instance file (format in the module docstring) and validate it."""
    return instance_from_json(read_json_file(path, "instance"), orthonormal=orthonormal,
                              source=f"instance file {path}")


def instance_from_json(raw, *, orthonormal: bool = False, source: str = "instance") -> Instance:
    """An `Instance` from parsed JSON, checked against `INSTANCE_SCHEMA` first (messages start with ``source``)."""
    validate_schema(raw, INSTANCE_SCHEMA, source)
    try:
        inst = Instance(raw["inputs"], raw["labels"], raw["directions"], raw["signs"], raw.get("meta", {}))
        if orthonormal:
            inst.require_orthonormal()
    except RelucheckInputError as exc:  # the same error (HypothesisViolation stays one), naming the file
        exc.args = (f"{source}: {exc.args[0]}",)
        raise
    return inst
