"""The plotting helpers every figure of statpriv shares (statpriv.papers.*,
statpriv.empirical.demo): one look for all of them, defined once.

matplotlib is an optional extra (``pip install ".[plot]"`` from a statpriv checkout), imported
only when a figure is made, through its non-interactive Agg canvas: no
pyplot, so the user's backend is never changed.
"""
import math
import os
from typing import Any

import numpy as np

__all__ = ["figure", "save", "style", "note", "nan_zeros", "max_rel_diff", "COLORS", "EXACT",
           "APPROX"]

COLORS = ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple")
# Exact curves: a wide, slightly transparent band; the normal approximation: a thin
# dashed line of the same colour on top, so it stays visible where the two coincide.
EXACT = dict(lw=3.0, alpha=0.55, solid_capstyle="butt")
APPROX = dict(lw=1.3, ls=(0, (4, 2.5)))


def figure(ncols: Any = 1, width: Any = 6.4, height: Any = 4.6) -> Any:
    """A matplotlib Figure on the Agg canvas (no pyplot, the user's backend untouched)
    and its ``ncols`` axes side by side."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as exc:
        raise ImportError('statpriv\'s figures need matplotlib, an optional extra: '
                          'pip install ".[plot]" from a statpriv checkout') from exc
    fig = Figure(figsize=(width * ncols, height), layout="constrained")
    FigureCanvasAgg(fig)
    axes = [fig.add_subplot(1, ncols, i + 1) for i in range(ncols)]
    return fig, axes


def save(fig: Any, out_dir: Any, name: Any, dpi: Any) -> Any:
    """Write ``fig`` as out_dir/name.png; returns the path."""
    path = os.path.join(os.fspath(out_dir), f"{name}.png")
    fig.savefig(path, dpi=dpi)
    return path


def style(ax: Any, xlabel: Any, ylabel: Any, title: Any, *, logy: Any = True,
          legend_loc: Any = "best") -> None:
    """Labels, title, a log y axis (unless ``logy=False``), grid and legend."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=9.5)
    if logy:
        ax.set_yscale("log")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=7.5, loc=legend_loc)


def nan_zeros(values: Any) -> Any:
    """delta = 0 cannot be drawn on a log axis: leave a gap instead of a clipped spike."""
    return np.where(values > 0.0, values, np.nan)


def max_rel_diff(approx: Any, exact: Any) -> Any:
    """The largest |approx / exact - 1| where exact > 0 (nan if nowhere)."""
    ok = exact > 0
    return float(np.max(np.abs(approx[ok] / exact[ok] - 1.0))) if ok.any() else math.nan


def note(ax: Any, text: Any, loc: Any = "lower left") -> None:
    """A boxed note inside the axes; loc = "<upper|center|lower> <left|center|right>"."""
    vertical, horizontal = loc.split()
    y, va = {"upper": (0.97, "top"), "center": (0.5, "center"),
             "lower": (0.03, "bottom")}[vertical]
    x, ha = {"left": (0.02, "left"), "center": (0.5, "center"),
             "right": (0.98, "right")}[horizontal]
    ax.text(x, y, text, transform=ax.transAxes, fontsize=7.5, ha=ha, va=va,
            bbox=dict(boxstyle="round", fc="white", ec="0.7", alpha=0.9))
