"""A power law n ∝ d^k fitted to thresholds, with the error bars a reader needs (paper A, Theorem 1.1: n* ≍ d³ log d).

* `power_law_fit`: the least-squares slope k of ln n against ln d (the same slope as
  `numerics.paper_a_training.fit_exponent`, which the regime journal's key hashes and so stays as it is) and its
  standard error from the regression's residuals, s / √Sxx with s² = Σ e_i² / (N − 2) and Sxx = Σ (ln d_i − mean)²
  (the ordinary-least-squares standard error of a slope, the one `scipy.stats.linregress` reports as ``stderr``).
  It measures how far the points scatter about one power law — seed noise of the medians, the grid's steps, a
  curvature such as the log d of n* — and needs N ≥ 3 points (N − 2 degrees of freedom); with two points there is
  no residual and no error bar. It is not a bootstrap: resampling 4 points with replacement draws many sets with
  repeated or only two distinct d, and its spread (0.83 over 2000 resamples on the d = 3 … 6 thresholds 8, 16, 32,
  96, against 0.54 from the residuals) mostly reflects those degenerate draws.
* `quantization_slope_bound`: the largest change of that slope when each ln n_i is under-estimated by some δ_i in
  [0, g_i] — the largest interpolating n of a geometric grid lies at most one grid step (ratio e^{g_i}) below the
  threshold. The slope is linear in the data, Δk = Σ c_i δ_i / Sxx with c_i = ln d_i − mean, so its extremes are at
  the box's corners: Σ_{c_i>0} c_i g_i / Sxx upwards, Σ_{c_i<0} |c_i| g_i / Sxx downwards. With one g for all points both
  are g·Σ|c_i| / (2 Sxx), which for two points is g / ln(d_max/d_min), the bound `A.thm1.1.threshold_exponent` used
  for any number of points — too small by 17 % on d = 2 … 5 and 4 % on d = 3 … 5 (friction list, session 32).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class PowerLawFit:
    exponent: float  # the least-squares slope k of ln n against ln d
    standard_error: float | None  # its standard error from the residuals; None with fewer than 3 points
    points: int

    def words(self, digits: int = 2) -> str:
        """'3.46 ± 0.54 (one standard error of the least-squares slope, from the residuals of its 4 points)', or the
        exponent alone with the reason it has no error bar."""
        k = f"{self.exponent:.{digits}f}"
        if self.standard_error is None:
            return f"{k} (no error bar: {self.points} points leave no residual to estimate it from)"
        return (f"{k} ± {self.standard_error:.{digits}f} (one standard error of the least-squares slope, from the "
                f"residuals of its {self.points} points)")


def power_law_fit(ds, ns) -> PowerLawFit:
    """Fit n ∝ d^k by least squares on logarithms (module docstring): the slope and its standard error."""
    x, y = np.log(np.asarray(ds, dtype=float)), np.log(np.asarray(ns, dtype=float))
    if x.size < 2 or np.ptp(x) == 0:
        raise ValueError("a slope needs at least two different d")
    c = x - x.mean()
    sxx = float(c @ c)
    k = float(c @ (y - y.mean())) / sxx
    if x.size < 3:
        return PowerLawFit(k, None, int(x.size))
    residuals = y - y.mean() - k * c
    return PowerLawFit(k, math.sqrt(float(residuals @ residuals) / (x.size - 2) / sxx), int(x.size))


def quantization_slope_bound(ds, log_steps) -> float:
    """The largest |Δk| of the least-squares slope of ln n against ln d when each ln n_i is under-estimated by up to
    ``log_steps[i]`` (a scalar: the same for all points) — module docstring."""
    x = np.log(np.asarray(ds, dtype=float))
    g = np.broadcast_to(np.asarray(log_steps, dtype=float), x.shape)
    c = x - x.mean()
    sxx = float(c @ c)
    return max(float(c[c > 0] @ g[c > 0]), float(-c[c < 0] @ g[c < 0])) / sxx
