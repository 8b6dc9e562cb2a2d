"""Renyi divergences at many orders: statpriv against opacus' and autodp's RDP.

    python bench/bench_renyi.py           # full run (about half a minute)
    python bench/bench_renyi.py --quick   # smoke run (a few seconds)

An RDP accountant asks a mechanism for D_alpha at a list of orders at every
step.  Each row times one such call at 63 orders (1.25 .. 3.75 by 1/4, then
4 .. 55): statpriv's ``curve.renyi(orders)`` (one array in, one C loop),
opacus' ``compute_rdp(q=1, noise_multiplier=sigma, steps=1, orders)``
(opacus.accountants.analysis.rdp) and autodp's RDP of the same mechanism
(``rdp_bank.RDP_gaussian`` / ``RDP_laplace``, one call per order), and
reports the values at two orders side by side with the largest relative
difference over all 63; the last row times the sums over an exact
privacy-loss distribution (statpriv only, one C call for all orders).  opacus and autodp are optional: a missing one is
reported in the header and its cells marked "-".  Times are medians of
best-of-5 batches (bench_overhead.per_call); compare ratios within one run.
"""
import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from bench_counting import header, markdown_table  # noqa: E402
from bench_overhead import fmt_ns, per_call  # noqa: E402

import numpy as np  # noqa: E402

import statpriv  # noqa: E402

ORDERS = np.concatenate([1.0 + np.arange(1, 12) / 4.0, np.arange(4.0, 56.0)])
assert ORDERS.size == 63


def _optional(name):
    try:
        return __import__(name), None
    except Exception as err:                  # noqa: BLE001 - reported in the header
        return None, f"{type(err).__name__}: {err}"


def peers():
    """{name: (module or None, error or None)} of the optional peers."""
    opacus_rdp, err = None, None
    try:
        from opacus.accountants.analysis import rdp as opacus_rdp
    except Exception as e:                    # noqa: BLE001
        err = f"{type(e).__name__}: {e}"
    autodp, autodp_err = _optional("autodp.rdp_bank")
    if autodp is not None:
        from autodp import rdp_bank as autodp
    return {"opacus": (opacus_rdp, err), "autodp": (autodp, autodp_err)}


def methods(kind, param, found):
    """{method: callable() -> array of D_alpha at ORDERS} for one mechanism."""
    if kind == "counting":                  # the exact PLD's sums (csrc/renyi.h), statpriv only
        pld = _noisy_count(param).privacy_loss_distribution()
        return {"statpriv": lambda: pld.renyi(ORDERS)}
    curve = statpriv.dp.gaussian(param) if kind == "gaussian" else statpriv.dp.laplace(param)
    out = {"statpriv": lambda: curve.renyi(ORDERS)}
    opacus_rdp = found["opacus"][0]
    if opacus_rdp is not None and kind == "gaussian":
        out["opacus"] = lambda: opacus_rdp.compute_rdp(q=1.0, noise_multiplier=param, steps=1,
                                                       orders=ORDERS)
    autodp = found["autodp"][0]
    if autodp is not None:
        if kind == "gaussian":
            out["autodp"] = lambda: np.array([autodp.RDP_gaussian({"sigma": param}, float(a))
                                              for a in ORDERS])
        else:
            out["autodp"] = lambda: np.array([autodp.RDP_laplace({"b": param}, float(a))
                                              for a in ORDERS])
    return out


def _noisy_count(n):
    """A curve with an exact PLD and finite divergences: a count plus geometric noise."""
    return statpriv.counting(n, 0.5, noise=statpriv.Geometric(0.5))


def pld_size(n):
    pld = _noisy_count(n).privacy_loss_distribution()
    return f"{pld.plus.size:,} + {pld.minus.size:,}"


def run(quick, found):
    samples, batch_time = (3, 0.002) if quick else (9, 0.01)
    rows = []
    for kind, param in (("gaussian", 1.0), ("gaussian", 20.0), ("laplace", 2.0),
                        ("counting", 1000)):
        fns = methods(kind, param, found)
        times = per_call(fns, samples, batch_time)
        values = {name: np.asarray(fn(), dtype=float) for name, fn in fns.items()}
        base = values["statpriv"]
        for name in ("statpriv", "opacus", "autodp"):
            if name not in fns:
                if kind != "counting":
                    rows.append([f"dp.{kind}({param:g})", name, "-", "-", "-", "-", "-"])
                continue
            v = values[name]
            rel = float(np.max(np.abs(v - base) / np.abs(base)))
            ratio = times[name] / times["opacus"] if "opacus" in times else float("nan")
            label = (f"counting({param}, 0.5, noise=Geometric(0.5)) PLD, {pld_size(param)} atoms"
                     if kind == "counting"
                     else f"dp.{kind}({param:g})")
            rows.append([label, name, fmt_ns(times[name]),
                         "-" if np.isnan(ratio) else f"{ratio:.2f}×",
                         f"{v[ORDERS == 2.0][0]:.12g}", f"{v[ORDERS == 55.0][0]:.12g}",
                         f"{rel:.1e}"])
    return rows, samples, batch_time


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smoke run (fewer, shorter samples)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    found = peers()
    lines = header()
    from importlib import metadata
    for name, (module, err) in found.items():
        version = metadata.version(name) if module is not None else None
        lines.append(f"- {name}: {version or 'not available: ' + str(err)}")
    rows, samples, batch_time = run(args.quick, found)
    lines.append(f"- {ORDERS.size} orders ({ORDERS[0]:g} .. {ORDERS[-1]:g}); time per call = "
                 f"median of {samples} samples, each the best of 5 repeats of a "
                 f"~{batch_time * 1e3:g} ms batch")
    cols = ["mechanism", "method", "time per call (63 orders)", "time / opacus",
            "D_2", "D_55", "max rel. diff. from statpriv"]
    table = markdown_table(cols, rows)
    wall = f"total wall time of this run: {time.perf_counter() - start:.1f} s"
    print("\n".join(lines + [""] + table + ["", wall]))


if __name__ == "__main__":
    main()
