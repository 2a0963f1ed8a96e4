"""Where engine "float64" (`numerics.flows.engines.logscale`) writes φ_j,w: the inputs as given (general data) or, on
orthonormal data (C Assumption 1, X Xᵀ = I), the data basis (φ_j,w's coordinates on x_1 … x_n and the norm of the part
orthogonal to the data), where G = I exactly. Projections onto a neuron's kinks {⟨φ_j,w, x_k⟩ = 0, k ∈ K} for `snap`
and for the sliding field (Filippov sliding holds z_K at 0)."""
from __future__ import annotations

import numpy as np

PROJECTOR_CACHE = 256  # kink sets whose projector is kept (each dim² numbers)


class Basis:
    """Where φ_j,w lives: the inputs as given (general) or the data basis of orthonormal inputs (identity)."""

    def __init__(self, X, identity: bool):
        self.identity = identity
        self.X = X
        self.n = X.shape[0]
        self.dim = self.n + 1 if identity else X.shape[1]
        self.G = np.eye(self.n) if identity else X @ X.T
        self._projectors = {}

    def pre(self, Phi_w):
        """z (n, m) from φ_w (m, dim)."""
        return Phi_w[:, :self.n].T if self.identity else self.X @ Phi_w.T

    def row(self, i, Phi_wj):
        """⟨φ_j,w, x_i⟩ for one neuron's φ_w (…, dim)."""
        return Phi_wj[..., i] if self.identity else Phi_wj @ self.X[i]

    def project_out(self, phi_w, K):
        """φ_w minus its component in span{x_k : k ∈ K} (the kink is exact afterwards)."""
        phi_w = phi_w.copy()
        if self.identity:
            phi_w[K] = 0.0
            return phi_w
        return phi_w @ self.projector(K)

    def projector(self, K):
        """The matrix P with φ_w P = `project_out` (φ_w, K) for every φ_w (one least-squares solve for all rows).
        Kept per kink set: a neuron's sliding set recurs at every event while it slides."""
        key = np.asarray(K, dtype=np.intp).tobytes()
        P = self._projectors.get(key)
        if P is None:
            if len(self._projectors) > PROJECTOR_CACHE:
                self._projectors.clear()
            P = self._projectors[key] = self._projector(K)
        return P

    def _projector(self, K):
        if self.identity:
            P = np.eye(self.dim)
            P[K, K] = 0.0
            return P
        XK = self.X[K]  # least squares: more kink data than their span (a neuron on d or more kinks) is no error
        return np.eye(self.dim) - np.linalg.lstsq(XK @ XK.T, XK, rcond=None)[0].T @ XK
