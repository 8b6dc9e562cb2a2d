"""A curve in a notebook: a plot, a table and an HTML view.

``PrivacyCurve.plot`` draws delta_plus, delta_minus and delta on one axes,
``PrivacyCurve.table`` returns them as a pandas DataFrame and
``PrivacyCurve._repr_html_`` is what Jupyter shows for a curve: its
description, the parameters of the call that built it and delta at a few
eps.  Every value comes from the curve's array queries (one call per
direction, looped in C); matplotlib and pandas are optional and imported
only here, when used.
"""
from __future__ import annotations

import html as _html
import math
from typing import TYPE_CHECKING, Any, Dict, Optional

import numpy as np
from numpy.typing import ArrayLike, NDArray

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes

    from statpriv.curve import PrivacyCurve

__all__ = ["HTML_EPS", "default_eps", "html", "plot", "table"]

# delta at these eps in the HTML view (fixed: a glance across scales, at the
# cost of one array query per direction)
HTML_EPS = (0.0, 0.01, 0.1, 0.5, 1.0, 2.0)
# the default eps range ends where delta reaches this
_DEFAULT_FLOOR = 1e-12
# the log-scale axis shows delta; below this ln delta is drawn instead
_LOG_AXIS_FLOOR = math.log(np.finfo(float).tiny)
_LABELS = {"delta": "δ(ε) = max(δ₊, δ₋)", "delta_plus": "δ₊(ε) = H_ε(P‖Q)",
           "delta_minus": "δ₋(ε) = H_ε(Q‖P)"}


def default_eps(curve: PrivacyCurve, num: int = 200) -> NDArray[np.float64]:
    """``num`` eps values from 0 to where the curve's delta reaches 1e-12.

    Parameters
    ----------
    curve : PrivacyCurve
    num : int
        How many values (at least 2).

    Returns
    -------
    numpy.ndarray
        ``linspace(0, e, num)`` with e = curve.epsilon(1e-12); e = 1 where
        that is 0 (delta is at most 1e-12 everywhere) and 10 where it is
        infinite (delta stays above 1e-12: supports that do not overlap).

    Examples
    --------
    >>> import statpriv
    >>> from statpriv.curve.notebook import default_eps
    >>> eps = default_eps(statpriv.dp.laplace(1.0), num=3)
    >>> [round(float(e), 4) for e in eps]
    [0.0, 0.5, 1.0]
    """
    end = curve.epsilon(_DEFAULT_FLOOR)
    if not math.isfinite(end):
        end = 10.0
    elif end <= 0.0:
        end = 1.0
    return np.linspace(0.0, end, int(num))


def _eps(curve: PrivacyCurve, eps: Optional[ArrayLike], num: int) -> NDArray[np.float64]:
    if eps is None:
        return default_eps(curve, num)
    from statpriv import _validate
    return np.atleast_1d(_validate.real_array("eps", eps, allow_inf=True)).astype(float).ravel()


def _log_deltas(curve: PrivacyCurve,
                eps: NDArray[np.float64]) -> Dict[str, NDArray[np.float64]]:
    """{column: ln delta at eps}: one array query per direction; delta is
    their maximum (its definition, and the bits of curve.log_delta: every
    kind's delta is the larger direction to the bit, tests/test_mechanisms.py)."""
    plus = np.asarray(curve.log_delta_plus(eps), dtype=float)
    minus = np.asarray(curve.log_delta_minus(eps), dtype=float)
    return {"delta": np.maximum(plus, minus), "delta_plus": plus, "delta_minus": minus}


def table(curve: PrivacyCurve, eps: Optional[ArrayLike] = None) -> pd.DataFrame:
    """PrivacyCurve.table: columns eps, delta_plus, delta_minus, delta, log_delta."""
    try:
        import pandas as pd
    except ImportError:
        raise ImportError("PrivacyCurve.table needs pandas: pip install pandas "
                          '(or pip install ".[data]")') from None
    eps = _eps(curve, eps, 11)
    logs = _log_deltas(curve, eps)
    return pd.DataFrame({"eps": eps, "delta_plus": np.exp(logs["delta_plus"]),
                         "delta_minus": np.exp(logs["delta_minus"]),
                         "delta": np.exp(logs["delta"]), "log_delta": logs["delta"]})


def plot(curve: PrivacyCurve, ax: Optional[Axes] = None, eps: Optional[ArrayLike] = None,
         log: bool = True) -> Axes:
    """PrivacyCurve.plot (see its docstring)."""
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError('PrivacyCurve.plot needs matplotlib: pip install ".[plot]" '
                          '(or pip install "statpriv[plot]")') from None
    eps = _eps(curve, eps, 200)
    logs = _log_deltas(curve, eps)
    if ax is None:
        ax = plt.figure(figsize=(6.4, 4.2), constrained_layout=True).add_subplot()
    drawn = np.concatenate([v[np.isfinite(v)] for v in logs.values()])
    log = bool(log) and drawn.size > 0          # delta = 0 throughout: a linear axis, at 0
    in_log_nats = log and drawn.min() < _LOG_AXIS_FLOOR
    styles: Dict[str, Dict[str, Any]] = {"delta": dict(color="0.6", linewidth=4.5, alpha=0.6, zorder=1),
              "delta_plus": dict(color="tab:blue", linewidth=1.5, zorder=2),
              "delta_minus": dict(color="tab:orange", linewidth=1.5, linestyle="--", zorder=3)}
    for column in ("delta", "delta_plus", "delta_minus"):
        values = logs[column]
        if in_log_nats:
            y = np.where(np.isfinite(values), values, np.nan)       # delta = 0: not drawn
        else:
            y = np.exp(values)
            if log:
                y = np.where(y > 0.0, y, np.nan)
        ax.plot(eps, y, label=_LABELS[column], **styles[column])
    if drawn.size == 0:
        ax.text(0.5, 0.5, "δ = 0 at every ε shown", transform=ax.transAxes, ha="center",
                va="center", color="0.3")
        ax.set_ylim(-0.05, 1.0)
    ax.set_xlabel("ε")
    if in_log_nats:
        ax.set_ylabel("ln δ")
        ax.text(0.02, 0.03, "δ underflows float64 here: ln δ shown (log_delta)",
                transform=ax.transAxes, fontsize=8, color="0.3")
    else:
        ax.set_ylabel("δ")
        if log:
            ax.set_yscale("log")
    ax.set_title(_short(curve.description, 70), fontsize=10)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(title="P: target in, Q: target out", fontsize=9, title_fontsize=8)
    return ax


def _short(text: str, width: int) -> str:
    return text if len(text) <= width else text[:width - 1] + "…"


def _fmt_delta(log_value: float) -> str:
    """delta from its log: %.6g, exp(ln) where it underflows, 0 where it is 0."""
    if log_value == -math.inf:
        return "0"
    value = math.exp(log_value)
    return f"{value:.6g}" if value > 0.0 else f"exp({log_value:.6g})"


def html(curve: PrivacyCurve) -> str:
    """The notebook view of a curve: description, parameters, delta at HTML_EPS."""
    esc = _html.escape
    rows = "".join(f"<tr><td><code>{esc(k)}</code></td><td><code>{esc(_short(repr(v), 80))}"
                   f"</code></td></tr>" for k, v in curve.params.items())
    params = (f"<table><tr><th>parameter</th><th>value</th></tr>{rows}</table>" if rows else
              "<p><i>no factory parameters (not built by a public factory)</i></p>")
    try:
        eps = np.array(HTML_EPS)
        logs = _log_deltas(curve, eps)
        body = "".join(
            f"<tr><td>{e:g}</td>" + "".join(
                f"<td>{_fmt_delta(float(logs[c][i]))}</td>"
                for c in ("delta_plus", "delta_minus", "delta")) + "</tr>"
            for i, e in enumerate(HTML_EPS))
        values = ("<table><tr><th>ε</th><th>δ₊</th><th>δ₋</th><th>δ</th></tr>"
                  f"{body}</table>")
    except Exception as exc:                 # a view never fails; say why instead
        values = f"<p><i>δ not evaluated: {esc(type(exc).__name__)}: {esc(str(exc))}</i></p>"
    exact = "" if curve.exact else " <b>(approximation)</b>"
    return (f"<div><p><b>PrivacyCurve</b> {esc(curve.description)}{exact}</p>"
            f"{params}{values}</div>")
