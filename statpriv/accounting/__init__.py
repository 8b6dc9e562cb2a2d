"""The accounting room: composing curves and speaking other accountants' language.

- composition: ``compose`` (grid FFT or the exact product), the composed
  curve with its certified bracket, and the closed-form guarantees
  (``basic_composition``, ``bounded_dependency_composition``);
- renyi: ``rdp_to_dp`` (Renyi DP to (eps, delta));
- dp_accounting: ``StatprivCurveEvent`` and ``StatprivPLDAccountant``, statpriv
  curves inside Google's dp-accounting (the export itself,
  ``to_dp_accounting``, is the curve's own: statpriv.curve.export);
- accountant: ``Accountant``, releases composed as they happen (a budget that
  pickles);
- audit: ``audit`` and ``audit_pld``, another accountant's numbers against the
  exact curve;
- calibration: ``calibrate``, the parameter value at which a family of curves
  just meets (epsilon, delta).

Everything here builds on curves and their privacy-loss distributions
(statpriv.laws.pld) and is imported by nothing below it (tools/check_layers.py).
"""
from typing import Any
from statpriv.accounting.accountant import Accountant
from statpriv.accounting.audit import AuditResult, audit, audit_pld
from statpriv.accounting.calibration import calibrate
from statpriv.accounting.composition import (ComposedCurve, basic_composition,
                                             bounded_dependency_composition, compose)
from statpriv.accounting.renyi import rdp_to_dp
from statpriv.curve.export import MAX_GRID, to_dp_accounting

__all__ = ["Accountant", "AuditResult", "ComposedCurve", "MAX_GRID", "StatprivCurveEvent",
           "StatprivPLDAccountant", "audit", "audit_pld", "basic_composition", "calibrate",
           "bounded_dependency_composition", "compose", "rdp_to_dp", "to_dp_accounting"]


def __getattr__(name: Any) -> Any:
    # the dp-accounting subclasses are built on first use (an optional import)
    if name in ("StatprivCurveEvent", "StatprivPLDAccountant"):
        from statpriv.accounting import dp_accounting
        return dp_accounting._classes()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
