"""Fixed-point multiprecision numbers as 19-bit limbs, so that their dot products run exactly on float64 BLAS.

A number in `FixedFormat(F, I)` is a vector of L = F + I integer limbs x_p, stored as float64, with

    value = Σ_p x_p · 2^(19 (p − F)),

i.e. an integer scaled by 2^-P, P = 19 F fraction bits, with 19 I bits of integer headroom. Limbs are balanced
and *loose*: `reduce` leaves every limb but the top one in [−2^18 − 2^15, 2^18 + 2^15], the top one carrying the rest
(kept below 2^17 in size, else `LimbOverflow`). The product of two numbers is the convolution of their limbs, so
a length-T dot product of limb vectors is one matrix product followed by antidiagonal sums. Limb products are
below 2^36.2 and each partial sum has at most T·L of them: below 2^51.2 for T·L ≤ 2^15 (`max_terms`), an
integer that float64 holds exactly and that the carries of `reduce` (exact float operations on values < 2^52)
can take. This is the integer form of Ozaki et al.'s error-free splitting (Numer. Algorithms 59, 2012): BLAS
speed with no rounding at all, the only rounding being the truncation of the low F limbs of each product (an
error below 2 units of 2^-P).

Used by `numerics.taylor_limbs` for the Cauchy sums of the Taylor recurrence (issue 4's speed target); the
python-flint `arb` kernel of `numerics.taylor` is the reference it is tested against.
"""
from __future__ import annotations

import numpy as np
from mpmath import ldexp as mpf_ldexp

LIMB_BITS = 19
BASE = float(1 << LIMB_BITS)
INV_BASE = 1.0 / BASE
HALF = 1 << (LIMB_BITS - 1)
TOP_BOUND = float(1 << (LIMB_BITS - 2))  # |top limb| must stay below this (headroom check)


class LimbOverflow(ArithmeticError):
    """A value outgrew the integer headroom of its `FixedFormat` (the caller retries with a smaller time unit)."""


class FixedFormat:
    """Fixed point with ``fraction_limbs`` limbs after the point and ``integer_limbs`` before it."""

    def __init__(self, fraction_limbs: int, integer_limbs: int = 2):
        if fraction_limbs < 1 or integer_limbs < 2:
            raise ValueError("a fixed format needs at least 1 fraction limb and 2 integer limbs")
        self.F, self.I = int(fraction_limbs), int(integer_limbs)
        self.L = self.F + self.I
        self.P = LIMB_BITS * self.F
        L = self.L
        # antidiagonal[p·L + q, s] = 1 if p + q = s: sums a (.., L, L) table of limb products into a convolution
        self.antidiagonal = np.zeros((L * L, 2 * L - 1))
        for p in range(L):
            for q in range(L):
                self.antidiagonal[p * L + q, p + q] = 1.0
        self.fold = BASE ** np.arange(1, self.I)  # weights (relative to the top limb) of the I − 1 limbs above it
        self.max_terms = int(2**15.8) // L  # see `loose_carry`: T·L limb products of at most 2^36.18 stay below 2^52
        # to_ints: limbs grouped by three into int64 (|x_p| < 2^19, so a group is below 2^58), then Python weights
        self.groups = -(-L // 3)
        self.group_weights = np.array([1 << (3 * LIMB_BITS * g) for g in range(self.groups)], dtype=object)
        self.limb_weights_float = None if self.P > 900 else np.array([2.0 ** (LIMB_BITS * (p - self.F)) for p in range(L)])

    @classmethod
    def for_bits(cls, bits: int, integer_limbs: int = 2) -> FixedFormat:
        return cls(-(-int(bits) // LIMB_BITS), integer_limbs)

    # ------------------------------------------------------------------ conversions (exact)
    def from_ints(self, values) -> np.ndarray:
        """Integers v (the numbers v·2^-P) as an (N, L) float64 array of balanced limbs; `LimbOverflow` if too big."""
        L, mask = self.L, (1 << LIMB_BITS) - 1
        bound = 1 << (LIMB_BITS * (L - 1) + LIMB_BITS - 3)
        out = np.empty((len(values), L))
        for row, v in enumerate(values):
            v = int(v)
            if not -bound <= v < bound:
                raise LimbOverflow(f"integer of {v.bit_length()} bits exceeds the format's {LIMB_BITS * L - 3} bits")
            for p in range(L - 1):
                digit = ((v + HALF) & mask) - HALF
                out[row, p] = digit
                v = (v - digit) >> LIMB_BITS
            out[row, L - 1] = v
        return out

    def to_ints(self, limbs) -> list[int]:
        """Exact integers Σ_p x_p 2^(19p) of an (N, L) array of reduced limbs (|x_p| < 2^19)."""
        x = np.asarray(limbs).reshape(-1, self.L).astype(np.int64)
        pad = 3 * self.groups - self.L
        if pad:
            x = np.concatenate([x, np.zeros((x.shape[0], pad), dtype=np.int64)], axis=1)
        x = x.reshape(-1, self.groups, 3)
        g = x[:, :, 0] + (x[:, :, 1] << LIMB_BITS) + (x[:, :, 2] << (2 * LIMB_BITS))
        return list(g.astype(object) @ self.group_weights)

    def to_floats(self, limbs) -> np.ndarray:
        """Values of reduced (balanced) limbs as float64, to ~1e-15 relative (no cancellation: |x_p| ≤ 2^18 + 2^15)."""
        x = np.asarray(limbs).reshape(-1, self.L)
        if self.limb_weights_float is None:  # 2^-P below float64's range: through mpmath
            return np.array([float(mpf_ldexp(v, -self.P)) for v in self.to_ints(x)])
        return x @ self.limb_weights_float

    def constant(self, value_int: int) -> np.ndarray:
        """Toeplitz matrix (L, 2L−1) of a constant c = value_int·2^-P: (x @ T)[s] = Σ_p x_p c_{s−p}."""
        c = self.from_ints([value_int])[0]
        L = self.L
        T = np.zeros((L, 2 * L - 1))
        for p in range(L):
            T[p, p:p + L] = c
        return T

    # ------------------------------------------------------------------ arithmetic
    def reduce(self, S) -> np.ndarray:
        """Antidiagonal sums S (N, 2L−1) of a product (scale 2^-2P, |S| < 2^52) → the product at scale 2^-P, (N, L).

        Carries bring the limbs into [−2^18 − 2^15, 2^18 + 2^15], the low F limbs are dropped (truncation error below
        2 units of 2^-P), the limbs above the format are folded into the top one, which must stay below 2^17.
        """
        F, L = self.F, self.L
        # limbs below F − 2 are dropped uncarried: |Σ_{p<F−2} S_p 2^(19p)| < 2^52 · 2^(19(F−3)) = 2^-5 units of 2^(19F)
        S = loose_carry(S[:, F - 2:])
        out = S[:, 2:L + 2]
        out[:, -1] += S[:, L + 2:] @ self.fold
        if np.abs(out[:, -1]).max(initial=0.0) >= TOP_BOUND:
            raise LimbOverflow("fixed-point product outgrew the integer headroom")
        return out

    def dot(self, U, V, outputs: int) -> np.ndarray:
        """Σ_t U[(o, p), t] · V[t, q] convolved over limbs: U (outputs·L, T), V (T, L) → (outputs, L).

        Longer than `max_terms`, the sum is cut into exact pieces, each reduced, and the pieces added."""
        T = U.shape[1]
        if T <= self.max_terms:
            return self.reduce((U @ V).reshape(outputs, self.L * self.L) @ self.antidiagonal)
        total = sum(self.dot(U[:, s:s + self.max_terms], V[s:s + self.max_terms], outputs)
                    for s in range(0, T, self.max_terms))
        return loose_carry(total, passes=2)

    def times(self, X, toeplitz) -> np.ndarray:
        """X (N, L) times a constant given by its `constant` matrix."""
        return self.reduce(X @ toeplitz)

    def right_shift(self, bits) -> RightShift:
        """The map X ↦ X · 2^-bits[j] on (..., m, L) arrays (one shift per column j, bits ≥ 0), truncated at 2^-P."""
        return RightShift(self, bits)


class RightShift:
    """Multiplication of row j of an (m, L) array by 2^-bits[j] (bits ≥ 0): limbs times 2^(19 − r), carried, and
    moved down q + 1 limbs (a 0/1 matrix per row), where bits = 19 q + r."""

    def __init__(self, fmt: FixedFormat, bits):
        bits = np.asarray(bits, dtype=np.int64)
        if np.any(bits < 0):
            raise ValueError("RightShift takes bits ≥ 0")
        L = fmt.L
        q, r = np.divmod(bits, LIMB_BITS)
        self.factor = (2.0 ** (LIMB_BITS - r))[:, None]  # X·2^-bits = (X·2^(19−r)) · 2^-(19 (q+1))
        self.move = np.zeros((len(bits), L, L))  # move[j, p + q_j + 1, p] = 1: limb p + q + 1 goes to limb p
        for j, qj in enumerate(q):
            for p in range(L - int(qj) - 1):
                self.move[j, p + int(qj) + 1, p] = 1.0

    def __call__(self, X) -> np.ndarray:
        Y = loose_carry(X * self.factor)
        return np.matmul(Y[:, None, :], self.move)[:, 0, :]


def loose_carry(S: np.ndarray, passes: int = 2) -> np.ndarray:
    """Balanced carries on float64 integer limbs with |S| < 2^52 (exact float operations), on a copy.

    Each pass writes S_p = lo_p + 2^19 hi_p with lo_p ∈ [−2^18, 2^18] (hi = round(S_p / 2^19)) and adds hi_p to
    limb p + 1 (the top limb keeps everything). Carries are below 2^33 in pass 1 and 2^14 + 1 in pass 2, so every
    limb but the top ends in [−2^18 − 2^15, 2^18 + 2^15]: limb products stay below 2^36.2 and T·L ≤ 2^15.8 of them
    below 2^52.
    """
    S = np.array(S, dtype=np.float64, copy=True)
    body = S[..., :-1]
    hi = np.empty_like(body)
    for _ in range(passes):
        np.multiply(body, INV_BASE, out=hi)
        np.rint(hi, out=hi)
        body -= hi * BASE
        S[..., 1:] += hi
    return S
