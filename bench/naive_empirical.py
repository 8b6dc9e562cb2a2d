"""The naive baseline: Algorithms 1-2 of Burchard, Daoud & Dotterrer,
"Empirical Differential Privacy", written the way a pandas/scipy user would.

Algorithm 1: for every individual i, drop i's rows from every database and
rerun the query on each database (one pandas groupby per individual), giving
q = {f(X^r)} and q_i = {f(X^r minus i)}.  Algorithm 2 (InferPrivacyRisk):
kernel density estimates p and p_i of the two sets (a Laplace KDE written in
numpy, or scipy.stats.gaussian_kde), then

    delta_i = max( int (p - e^eps p_i)_+ dx , int (p_i - e^eps p)_+ dx )

by scipy.integrate.quad on [min - 40 h, max + 40 h] (the kernel mass beyond
is below e^-40), and delta = max_i delta_i, delta* = 1 - prod_i (1 - delta_i).

The only liberty taken is hoisting f(X^r) (which does not depend on i) out of
the loop over individuals.  A database that loses all its records when i is
dropped has no mean; it is left out of q_i (a user's ``groupby`` does that).
This module is the yardstick for bench/bench_empirical.py and is not part of
statpriv.
"""
import math
import time

import numpy as np
from scipy import integrate, stats

QUERIES = {"mean": "mean", "sum": "sum", "count": "count", "median": "median"}


def laplace_kde(points, h):
    """x -> (1/n) sum_j exp(-|x - q_j| / h) / (2 h), vectorised over x."""
    points = np.asarray(points, dtype=float)

    def density(x):
        x = np.atleast_1d(np.asarray(x, dtype=float))
        return np.exp(-np.abs(x[:, None] - points[None, :]) / h).mean(axis=1) / (2.0 * h)
    return density


def gauss_kde(points, h):
    """scipy.stats.gaussian_kde with kernel standard deviation h (its factor
    multiplies the sample standard deviation)."""
    points = np.asarray(points, dtype=float)
    kde = stats.gaussian_kde(points, bw_method=h / np.std(points, ddof=1))
    return lambda x: kde(np.atleast_1d(np.asarray(x, dtype=float)))


ESTIMATORS = {"laplace": laplace_kde, "gauss": gauss_kde}


def infer_privacy_risk(q, q_i, eps, h, kernel="laplace", limit=500):
    """Algorithm 2: max of the two hockey-stick integrals, by quad."""
    p = ESTIMATORS[kernel](q, h)
    p_i = ESTIMATORS[kernel](q_i, h)
    w = math.exp(eps)
    lo = min(np.min(q), np.min(q_i)) - 40.0 * h
    hi = max(np.max(q), np.max(q_i)) + 40.0 * h

    def g(x):
        return max(p(x)[0] - w * p_i(x)[0], 0.0)

    def hh(x):
        return max(p_i(x)[0] - w * p(x)[0], 0.0)

    g_pos = integrate.quad(g, lo, hi, limit=limit)[0]
    h_pos = integrate.quad(hh, lo, hi, limit=limit)[0]
    return max(g_pos, h_pos)


def naive_empirical(df, eps, h, *, query="mean", kernel="laplace", individuals=None,
                    individual="id", database="db", value="value"):
    """Algorithm 1 over ``individuals`` (default: all).  Returns
    (delta, delta_star, {individual: delta_i})."""
    how = QUERIES[query]
    q = df.groupby(database)[value].agg(how).to_numpy()
    if individuals is None:
        individuals = df[individual].unique()
    delta, keep, deltas = 0.0, 1.0, {}
    for i in individuals:
        rest = df[df[individual] != i]
        q_i = rest.groupby(database)[value].agg(how).to_numpy()
        d_i = infer_privacy_risk(q, q_i, eps, h, kernel)
        deltas[i] = d_i
        delta = max(delta, d_i)
        keep *= 1.0 - d_i
    return delta, 1.0 - keep, deltas


def timed(df, eps, h, individuals, **kwargs):
    """(seconds, result) of naive_empirical on the given individuals."""
    start = time.perf_counter()
    result = naive_empirical(df, eps, h, individuals=individuals, **kwargs)
    return time.perf_counter() - start, result
