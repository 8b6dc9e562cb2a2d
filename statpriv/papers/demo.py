"""The demo table: how much the randomness of the data protects people.

Worst-case DP of a noiseless count is delta = 1 (the attacker who knows all
other records reads the target off the count); with a rate-lambda sample it
is lambda (Smith 2009).  The statistical-privacy curves below are exact.
"""
import math
from typing import Any, Dict, Tuple

from statpriv.counting import counting

CASES: Tuple[Tuple[str, Dict[str, Any], float], ...] = (
    ("referendum, 10^6 voters, pi = 0.5", dict(n=10**6, pi=0.5), 1.0),
    ("rare condition, 10^4 patients, pi = 0.01", dict(n=10**4, pi=0.01), 1.0),
    ("survey sample 1000 of 10^5, pi = 0.3", dict(n=10**5, pi=0.3, sample_size=1000), 0.01),
    ("10% sample of 10^4 patients, pi = 0.01", dict(n=10**4, pi=0.01, sample_size=1000), 0.1),
)
EPSILONS = (0.01, 0.1, 0.5, 1.0)


def _fmt(curve: Any, eps: Any) -> Any:
    log_delta = curve.log_delta(eps)
    if log_delta == -math.inf:
        return "0"
    if log_delta < -700:
        return f"10^{log_delta / math.log(10):.1f}"
    return f"{math.exp(log_delta):.3g}"


def run(out: Any = print) -> None:
    out("statpriv demo: exact delta(eps) of a noiseless count, "
        "attacker knows everything but the others' values")
    header = f"{'case':44s}" + "".join(f"{'eps=' + str(e):>12s}" for e in EPSILONS) + \
        f"{'worst-case DP':>15s}"
    out(header)
    out("-" * len(header))
    for label, kwargs, dp_delta in CASES:
        curve = counting(**kwargs)
        row = f"{label:44s}" + "".join(f"{_fmt(curve, e):>12s}" for e in EPSILONS)
        out(row + f"{dp_delta:>15g}")
    curve = counting(10**6, 0.5)
    out("")
    out(f"referendum: smallest eps with delta <= 1e-9 is {curve.epsilon(1e-9):.5f} "
        f"(worst-case DP: no finite eps for any delta < 1)")
