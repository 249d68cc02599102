#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Fits the rational tanh approximation used by dsp_tanh () (dsp/dsp_dense.h).

tanh (x) ~ x P(x^2) / Q(x^2) on [0, 9], P and Q of degree 4 in x^2, Q(0) = 1,
by iteratively reweighted linear least squares on Chebyshev-spaced points.
Prints the coefficients and the largest error of the float evaluation over
every 12e-6 step of [-12, 12]. Needs Debian's python3-numpy.
"""
import numpy as np

CLAMP = 9.0


def fit(p_degree, q_degree, iterations=60):
    """Returns (P, Q) coefficient arrays, lowest degree first."""
    x = np.cos(np.linspace(0, np.pi, 4000)) * CLAMP / 2 + CLAMP / 2
    x = np.concatenate([x, np.linspace(0, 1, 500)])
    x = x[x > 1e-4]
    t = np.tanh(x)
    x2 = x[:, None] ** 2
    weights = np.ones_like(x)
    for _ in range(iterations):
        a = np.concatenate([x[:, None] * x2 ** np.arange(p_degree + 1),
                            -t[:, None] * x2 ** np.arange(1, q_degree + 1)],
                           axis=1)
        w = np.sqrt(weights)
        sol, *_ = np.linalg.lstsq(a * w[:, None], t * w, rcond=None)
        p = sol[:p_degree + 1]
        q = np.concatenate([[1.0], sol[p_degree + 1:]])
        err = np.abs(x * np.polyval(p[::-1], x ** 2) /
                     np.polyval(q[::-1], x ** 2) - t)
        weights = weights * (1 + 10 * err / err.max())
    return p, q


def evaluate_f32(p, q, x):
    """The float evaluation dsp_tanh () does."""
    x = np.clip(x.astype(np.float32), -CLAMP, CLAMP)
    x2 = x * x
    num = np.float32(0)
    for c in p[::-1]:
        num = num * x2 + np.float32(c)
    den = np.float32(0)
    for c in q[::-1]:
        den = den * x2 + np.float32(c)
    return np.clip(x * num / den, -1, 1).astype(np.float32)


def main():
    p, q = fit(4, 4)
    xs = np.linspace(-12, 12, 2000001).astype(np.float32)
    err = np.max(np.abs(evaluate_f32(p, q, xs).astype(np.float64) -
                        np.tanh(xs.astype(np.float64))))
    print("P", ", ".join("%.10ef" % c for c in p))
    print("Q", ", ".join("%.10ef" % c for c in q))
    print("max abs error %.3g" % err)


if __name__ == "__main__":
    main()
