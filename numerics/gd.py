"""Plain full-batch gradient descent in raw coordinates: the naive baseline the papers ran.

θ_{k+1} = θ_k − η · time_factor · ∇L(θ_k) with σ'(0) = 0 (the explicit Euler scheme of the flow).
"""
from __future__ import annotations

import numpy as np

from .errors import RelucheckInputError
from .network import PAPER_A, Convention, field


def gradient_descent(X, y, a0, W0, lr: float, steps: int, *, convention: Convention = PAPER_A,
                     record_every: int = 1, callback=None):
    """Run ``steps`` GD steps; return (a, W, history) with history a list of (step, a, W).

    ``callback(step, a, W)`` may return True to stop early (e.g. once a jump was detected).
    """
    if not lr > 0:
        raise RelucheckInputError(f"learning rate must be > 0, got {lr}")
    if steps < 0:
        raise RelucheckInputError(f"number of steps must be ≥ 0, got {steps}")
    a = np.array(a0, dtype=float)
    W = np.array(W0, dtype=float)
    history = [(0, a.copy(), W.copy())]
    for k in range(1, steps + 1):
        da, dW = field(X, y, a, W, convention)
        a = a + lr * da
        W = W + lr * dW
        if k % record_every == 0:
            history.append((k, a.copy(), W.copy()))
        if callback is not None and callback(k, a, W):
            break
    return a, W, history
