"""Benchmark of statpriv's noisy-count curves (count + Laplace / Gaussian /
two-sided geometric noise, docs/mathematics.md §6) against what a user would otherwise
compute with numpy/scipy, and against the mpmath reference.

    python bench/bench_noise.py           # full run (about 2-4 minutes)
    python bench/bench_noise.py --quick   # smoke run (well under a minute)

Prints the machine, the date and ONE markdown table, all measured in this one
run.  Timing helpers, header and value formatting are imported from
bench_counting.py (same house style: median of repeated perf_counter samples
after one warm-up call; fast calls batched, per-call time reported).  Compare
ratios within one run, not absolute times across runs.  See bench/README.md.
"""
import argparse
import math
import os
import sys
import tempfile
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from bench_counting import (  # noqa: E402  (also puts the repo root on sys.path)
    Timing, fmt_num, fmt_ratio, fmt_time, header, markdown_table, measure, naive_pmf, rel_diff)

import mpmath  # noqa: E402
import numpy as np  # noqa: E402
import scipy.integrate  # noqa: E402
import scipy.optimize  # noqa: E402
import scipy.signal  # noqa: E402

import statpriv  # noqa: E402
import statpriv.reference  # noqa: E402

PI = 0.3
EPS = 0.05
TARGET = 1e-9
NS = [10**3, 10**4, 10**6]
GRID_STEPS = [0.05, 0.01]          # grid spacing h of the numpy/scipy baseline, count units
QUAD_MAX_N = 10**4                 # scipy.integrate.quad baseline only up to here
REF_MAX_N = 10**3                  # mpmath reference only up to here (O(n) at 50 digits)
ALPHA = math.exp(-1.0 / 3.0)

# (label, statpriv noise, (kind, param) for the reference, query target in seconds)
NOISES = [
    ("Laplace b=3", statpriv.Laplace(3.0), ("laplace", 3.0), 1e-3),
    ("Gaussian σ=3", statpriv.Gaussian(3.0), ("gaussian", 3.0), 5e-3),
    ("geometric α=e^(-1/3)", statpriv.Geometric(ALPHA), ("geometric", ALPHA), None),
]
TARGET_N = 10**6                   # the targets apply to n = 10^6


# ---------------------------------------------------------------------------
# what a user would otherwise write
# ---------------------------------------------------------------------------

def noise_density(kind, p, x):
    if kind == "laplace":
        return np.exp(-np.abs(x) / p) / (2.0 * p)
    return np.exp(-0.5 * (x / p) ** 2) / (p * math.sqrt(2.0 * math.pi))


def noise_halfwidth(kind, p):
    """Noise support kept by the baselines: density below ~1e-17 of its peak
    (Laplace e^-40, Gaussian e^-50), i.e. below float64 resolution."""
    return 40.0 * p if kind == "laplace" else 10.0 * p


def binomial_atoms(n, pi):
    """scipy pmf of S ~ Bin(n-1, pi) over all k = 0..n-1, then trimmed to the
    atoms where the float64 pmf is nonzero (dropping exact zeros changes no
    value; it only keeps the n = 10^6 grid at a few million cells)."""
    b = naive_pmf(n, pi)
    nz = np.flatnonzero(b)
    return b[nz[0]:nz[-1] + 1]


def grid_delta(n, pi, eps, kind, p, h):
    """Density of Z = S + N on an x grid of step h by FFT convolution, then
    delta = h * sum max(f_P - e^eps f_Q, 0) (and the reverse), f_P = f_Q
    shifted by 1/h cells."""
    b = binomial_atoms(n, pi)
    step = round(1.0 / h)
    m = int(math.ceil(noise_halfwidth(kind, p) / h))
    spikes = np.zeros((b.size - 1) * step + 1)
    spikes[::step] = b                                 # atoms at the integer grid points
    g = noise_density(kind, p, np.arange(-m, m + 1) * h)
    f_q = scipy.signal.fftconvolve(spikes, g)          # f_Q(x_j) = sum_k b(k) g(x_j - k)
    f_q = np.concatenate([f_q, np.zeros(step)])
    f_p = np.concatenate([np.zeros(step), f_q[:-step]])   # f_P(x) = f_Q(x - 1)
    e = math.exp(eps)
    d_plus = h * np.sum(np.maximum(f_p - e * f_q, 0.0))
    d_minus = h * np.sum(np.maximum(f_q - e * f_p, 0.0))
    return float(max(d_plus, d_minus))


def geometric_delta(n, pi, eps, alpha):
    """Exact integer convolution (np.convolve) of the pmf with the two-sided
    geometric pmf truncated where it underflows float64 (alpha^K < 1e-300),
    then the discrete hockey-stick sums."""
    b = binomial_atoms(n, pi)
    K = int(math.ceil(math.log(1e-300) / math.log(alpha)))
    g = (1.0 - alpha) / (1.0 + alpha) * alpha ** np.abs(np.arange(-K, K + 1))
    z = np.concatenate([[0.0], np.convolve(b, g), [0.0]])
    e = math.exp(eps)
    d_plus = np.sum(np.maximum(z[:-1] - e * z[1:], 0.0))     # P(k) = z(k-1), Q(k) = z(k)
    d_minus = np.sum(np.maximum(z[1:] - e * z[:-1], 0.0))
    return float(max(d_plus, d_minus))


def quad_delta(n, pi, eps, kind, p):
    """scipy.integrate.quad of max(f_P - e^eps f_Q, 0) (and the reverse) over
    the whole support, f evaluated as a numpy sum over all n atoms, with
    points= at the crossing (brentq, bracketed from the mean outwards) and
    limit=200; quad's default tolerances."""
    k = np.arange(n, dtype=np.float64)
    b = naive_pmf(n, pi)
    e = math.exp(eps)

    def f(x):
        return float(np.dot(b, noise_density(kind, p, x - k)))

    mu = (n - 1) * pi + 0.5
    var = (n - 1) * pi * (1 - pi) + (2 * p * p if kind == "laplace" else p * p)
    reach = 2 * eps * var + 5 * math.sqrt(var)        # crossing near mu +- eps var
    lo = -noise_halfwidth(kind, p)
    hi = n + noise_halfwidth(kind, p)
    total = 0.0
    for sign in (+1, -1):
        if sign > 0:
            def g(x):
                return f(x - 1) - e * f(x)
            bracket = (mu, min(mu + reach, hi))
        else:
            def g(x):
                return f(x) - e * f(x - 1)
            bracket = (max(mu - reach, lo), mu)
        try:
            points = [scipy.optimize.brentq(g, *bracket)]
        except ValueError:          # no sign change in the bracket
            points = None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", scipy.integrate.IntegrationWarning)
            val = scipy.integrate.quad(lambda x: max(g(x), 0.0), lo, hi, points=points,
                                       limit=200)[0]
        total = max(total, val)
    return total


# ---------------------------------------------------------------------------
# the benchmark
# ---------------------------------------------------------------------------

def case_name(n):
    return f"n=10^{round(math.log10(n))}"


def rel_err_mp(value, ref):
    """|value - ref| / ref at 30 digits, ref an mpmath number."""
    with mpmath.workdps(30):
        return mpmath.nstr(abs(mpmath.mpf(value) - ref) / ref, 2)


def sp_value(delta, log_delta):
    return f"δ={delta!r}, ln δ={log_delta!r}"


def reference_available():
    return hasattr(statpriv.reference, "noisy_counting_delta")


def run(quick):
    repeats = 5 if quick else 15
    batch_time = 0.005 if quick else 0.02
    budget = 0.5 if quick else 3.0
    m = dict(repeats=repeats, batch_time=batch_time, budget=budget)

    rows = []
    notes = []
    have_ref = reference_available()
    if not have_ref:
        notes.append("statpriv.reference.noisy_counting_delta is NOT available in this "
                     "checkout: no mpmath reference; every error is relative to statpriv's "
                     "own δ = e^(log_delta).")
    elif quick:
        notes.append("--quick: mpmath reference not run; errors are relative to statpriv.")

    def row(query, case, method, timing=None, r_q="", r_b="", value="", err="",
            target="–", note=None):
        if timing is None:
            rows.append([query, case, method, note or "n/a", "", "", value, err, target, "–"])
        else:
            rows.append([query, case, method, fmt_time(timing.per_call), r_q, r_b, value, err,
                         target, f"{timing.repeats}×{timing.loops}"])

    def check(t, limit):
        if limit is None:
            return "–"
        return f"{'PASS' if t <= limit else 'FAIL'} (≤ {fmt_time(limit)})"

    # -- 1. single-point delta(eps) ------------------------------------------
    for label, noise, noise_ref, limit in NOISES:
        kind, param = noise_ref
        q = f"δ(ε={EPS}), count π={PI} + {label}"
        for n in NS:
            case = case_name(n)
            lim = limit if n == TARGET_N else None

            curve = statpriv.counting(n, PI, noise=noise)
            t_sp = measure(lambda: curve.delta(EPS), **m)
            log_d = curve.log_delta(EPS)
            t_build = measure(lambda: statpriv.counting(n, PI, noise=noise), **m)
            t_bq = measure(lambda: statpriv.counting(n, PI, noise=noise).delta(EPS), **m)
            sq, sb = t_sp.per_call, t_bq.per_call

            ref = None
            t_ref = None
            if have_ref and not quick and n <= REF_MAX_N:
                t0 = time.perf_counter()
                # n = 10^3 with Laplace noise is ~2.5e7 oracle terms (~2 min here):
                # above the oracle's default budget, so it is passed explicitly
                ref = statpriv.reference.noisy_counting_delta(n, PI, EPS, noise_ref,
                                                              max_terms=3e7)
                t_ref = Timing(time.perf_counter() - t0, 1, 1, ref)

            def err(value):
                if ref is not None:
                    return f"{rel_err_mp(value, ref)} vs mpmath"
                return f"{rel_diff(value, log_d).replace(' rel', '')} vs statpriv"

            if ref is not None:
                with mpmath.workdps(30):
                    sp_err = abs(mpmath.exp(mpmath.mpf(log_d)) - ref) / ref
                sp_err_text = f"{mpmath.nstr(sp_err, 2)} vs mpmath"
                if sp_err > 1e-10:
                    sp_err_text += " (> 1e-10!)"
                    notes.append(f"statpriv disagrees with mpmath beyond 1e-10: {label}, n={n}, "
                                 f"π={PI}, ε={EPS}: statpriv ln δ={log_d!r}, mpmath δ="
                                 f"{fmt_num(ref, 20)}, rel. diff {mpmath.nstr(sp_err, 3)}")
            else:
                sp_err_text = "(the 'vs statpriv' reference)"
            row(q, case, "statpriv `delta` (curve prebuilt)", t_sp, "1×", fmt_ratio(sq, sb),
                sp_value(t_sp.value, log_d), sp_err_text, check(sq, lim))
            row(q, case, "statpriv construction `counting(n, π, noise=…)`", t_build,
                fmt_ratio(t_build.per_call, sq), fmt_ratio(t_build.per_call, sb))
            row(q, case, "statpriv build + 1 query", t_bq, fmt_ratio(sb, sq), "1×",
                "", "", check(sb, lim))

            if kind == "geometric":
                t = measure(lambda: geometric_delta(n, PI, EPS, param), **m)
                row(q, case, "numpy exact `np.convolve` on the integers", t,
                    fmt_ratio(t.per_call, sq), fmt_ratio(t.per_call, sb), repr(t.value),
                    err(t.value))
            else:
                for h in GRID_STEPS:
                    t = measure(lambda: grid_delta(n, PI, EPS, kind, param, h), **m)
                    row(q, case, f"numpy/scipy grid h={h}, `fftconvolve`", t,
                        fmt_ratio(t.per_call, sq), fmt_ratio(t.per_call, sb), repr(t.value),
                        err(t.value))
                if n <= QUAD_MAX_N and not (quick and n > REF_MAX_N):
                    mq = dict(m, repeats=min(repeats, 5))
                    t = measure(lambda: quad_delta(n, PI, EPS, kind, param), **mq)
                    row(q, case, "scipy `quad` (points at crossing, limit=200)", t,
                        fmt_ratio(t.per_call, sq), fmt_ratio(t.per_call, sb), repr(t.value),
                        err(t.value))
                elif n <= QUAD_MAX_N:
                    row(q, case, "scipy `quad`", note="skipped (--quick)")
                else:
                    row(q, case, "scipy `quad`", note="not run (n > 10^4)")

            if n <= REF_MAX_N:
                if t_ref is not None:
                    row(q, case, "mpmath `reference.noisy_counting_delta` (one call)", t_ref,
                        fmt_ratio(t_ref.per_call, sq), fmt_ratio(t_ref.per_call, sb),
                        fmt_num(ref, 17), "(reference)")
                else:
                    row(q, case, "mpmath `reference.noisy_counting_delta`",
                        note="not available" if not have_ref else "skipped (--quick)")

    # -- 2. epsilon(delta) ---------------------------------------------------
    for label, noise, _, _ in NOISES:
        q = f"ε(δ={TARGET:g}), count π={PI} + {label}"
        for n in NS:
            curve = statpriv.counting(n, PI, noise=noise)
            t = measure(lambda: curve.epsilon(TARGET), **m)
            row(q, case_name(n), "statpriv `epsilon` (curve prebuilt)", t, "", "",
                repr(t.value))

    # -- 3. figures ----------------------------------------------------------
    q = "figure regeneration"
    try:
        import statpriv.figures as figures
        make_figures = getattr(figures, "make_figures", None)
        missing = None if make_figures is not None else "statpriv.figures has no make_figures"
    except Exception as exc:   # not there yet, or broken
        make_figures = None
        missing = f"{type(exc).__name__}: {exc}"
    if make_figures is None:
        print(f"note: statpriv.figures.make_figures is not available yet ({missing})",
              file=sys.stderr)
        row(q, "all figures", "statpriv.figures.make_figures",
            note=f"not available yet ({missing})")
    elif quick:
        row(q, "all figures", "statpriv.figures.make_figures", note="skipped (--quick)")
    else:
        with tempfile.TemporaryDirectory() as out_dir:
            t0 = time.perf_counter()
            try:
                written = make_figures(out_dir)
                elapsed = time.perf_counter() - t0
                row(q, "all figures", "statpriv.figures.make_figures(tmpdir) (one call)",
                    Timing(elapsed, 1, 1, None), value=f"{len(written)} files written",
                    target=check(elapsed, 60.0))
            except Exception as exc:
                row(q, "all figures", "statpriv.figures.make_figures",
                    note=f"failed after {time.perf_counter() - t0:.1f} s: "
                         f"{type(exc).__name__}: {exc}")
    return rows, notes


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="fast smoke run (fewer samples; no mpmath reference, no quad at "
                             "n = 10^4, no figure regeneration)")
    args = parser.parse_args(argv)

    start = time.perf_counter()
    lines = header()
    lines[0] = lines[0].replace("statpriv benchmark", "statpriv noisy-count benchmark")
    rows, notes = run(args.quick)
    lines.append(f"- mode: {'--quick' if args.quick else 'full'}; time = median per call "
                 "after one warm-up; repeats×loops = samples × calls per sample")
    lines.append(f"- targets (n = 10^6, single point δ(ε={EPS})): Laplace b=3 ≤ 1 ms, "
                 "Gaussian σ=3 ≤ 5 ms; figure regeneration ≤ 60 s. Checked on both the "
                 "prebuilt-curve query and build + 1 query rows.")
    for note in notes:
        lines.append(f"- {note}")
    lines.append("")
    cols = ["query", "case", "method", "median time", "time / statpriv query",
            "time / statpriv build+query", "value returned", "rel. error",
            "target", "repeats×loops"]
    lines += markdown_table(cols, rows)
    lines.append("")
    lines.append(f"total wall time of this run: {time.perf_counter() - start:.1f} s")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
