"""statpriv curves inside Google's dp-accounting library: an event and an accountant.

``StatprivCurveEvent`` is one release whose privacy curve is a statpriv
curve; ``StatprivPLDAccountant`` is dp-accounting's PLDAccountant that also
composes such events, through the curve's pessimistic PLD
(``PrivacyCurve.to_dp_accounting``, statpriv.curve.export).  Both subclass
dp-accounting classes, an optional import (the extra ``accounting``),
so they are built on first use.

Neighbouring relation: statpriv's P is the law of the release when the
target's record is positive (present), Q when it is negative; the
neighbouring datasets differ in the target's value (replace-one), so only an
accountant with ``NeighboringRelation.REPLACE_ONE`` composes a statpriv curve
-- unless the curve's factory call names its relation (the statpriv.dp
curves' ``relation=``, "add_remove" by default): then the accountant's
relation must be that one (ADD_OR_REMOVE_ONE for "add_remove"), as in
statpriv.Accountant.
"""
from typing import Any, Dict

from statpriv.curve.recipe import neighbouring_relation
from statpriv.curve.export import to_dp_accounting

__all__ = ["StatprivCurveEvent", "StatprivPLDAccountant"]

_CLASSES: Dict[str, Any] = {}


def _classes() -> Dict[str, Any]:
    """Build StatprivCurveEvent and StatprivPLDAccountant on first use (they
    subclass dp-accounting classes, an optional import)."""
    if _CLASSES:
        return _CLASSES
    import attr
    from dp_accounting import dp_event, privacy_accountant
    from dp_accounting.pld import pld_privacy_accountant

    relation = privacy_accountant.NeighboringRelation
    # dp-accounting's relations by statpriv's names (statpriv.accounting.RELATIONS)
    names = {relation.ADD_OR_REMOVE_ONE: "add_remove", relation.REPLACE_ONE: "replace_one"}

    @attr.s(frozen=True, slots=True, auto_attribs=True)
    class StatprivCurveEvent(dp_event.DpEvent):
        """A dp-accounting event: one release whose privacy curve is ``curve``
        (a statpriv PrivacyCurve).  The neighbouring relation of a statpriv
        curve is replace-one (the target's value switches), so only an
        accountant with ``NeighboringRelation.REPLACE_ONE`` composes it."""
        curve: Any

    class StatprivPLDAccountant(pld_privacy_accountant.PLDAccountant):
        """dp-accounting's PLDAccountant that also composes StatprivCurveEvent
        (the curve's pessimistic PLD, ``to_dp_accounting`` at the
        accountant's interval, self-composed ``count`` times); every other
        event goes to the parent.  The neighbouring relation defaults to
        REPLACE_ONE, the relation of statpriv's curves; a curve whose factory
        call names another (dp.gaussian(..., relation="add_remove")) needs
        the accountant of that relation.  A mismatch is refused
        (``supports`` is False, ``compose`` raises UnsupportedEventError)."""

        _pld: Any       # the parent's composed PLD

        def __init__(self, neighboring_relation: Any = relation.REPLACE_ONE,
                     value_discretization_interval: Any = 1e-4) -> None:
            super().__init__(neighboring_relation, value_discretization_interval)

        def _maybe_compose(self, event: Any, count: Any, do_compose: Any) -> Any:
            if not isinstance(event, StatprivCurveEvent):
                return super()._maybe_compose(event, count, do_compose)
            own = neighbouring_relation(event.curve)
            mine = names.get(self.neighboring_relation)
            if own is not None and own != mine:
                return self.CompositionErrorDetails(
                    invalid_event=event,
                    error_message=(f"relation: this accountant counts "
                                   f"{self.neighboring_relation} neighbours, but the curve "
                                   f"was built with relation={own!r} "
                                   f"({event.curve.description})"))
            if own is None and self.neighboring_relation != relation.REPLACE_ONE:
                return self.CompositionErrorDetails(
                    invalid_event=event,
                    error_message=("a statpriv curve is a replace-one curve (the target's "
                                   "value switches): use neighboring_relation=REPLACE_ONE, "
                                   f"found {self.neighboring_relation}"))
            if do_compose:
                pld = to_dp_accounting(event.curve, self._value_discretization_interval)
                if count > 1:
                    pld = pld.self_compose(count)
                self._pld = self._pld.compose(pld)
            return None

    for cls in (StatprivCurveEvent, StatprivPLDAccountant):
        cls.__module__, cls.__qualname__ = __name__, cls.__name__     # picklable by name
    _CLASSES.update(StatprivCurveEvent=StatprivCurveEvent,
                    StatprivPLDAccountant=StatprivPLDAccountant)
    return _CLASSES


def __getattr__(name: str) -> Any:
    if name in ("StatprivCurveEvent", "StatprivPLDAccountant"):
        return _classes()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
