"""Curves remember the public call that built them: parameters and pickling.

A curve holds compiled state (C arrays behind a typed core) that cannot be
copied meaningfully, but it is a deterministic function of the arguments of
the public factory that built it.  ``factory`` wraps each public factory
(statpriv.counting, dp.gaussian, compose, ...) so that the curve it returns
carries that call -- ``curve.params`` -- and pickles (``copy.deepcopy``,
multiprocessing, Dask) by calling the factory again: a curve is rebuilt, not
its C state copied.  The call is attached as the curve is returned, to a
fresh copy: nothing is written on a curve after it was handed out.
"""
from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, Dict, NamedTuple, Optional, Tuple, TypeVar, cast

__all__ = ["Recipe", "factory", "rebuild"]

_Factory = TypeVar("_Factory", bound=Callable[..., Any])


class Recipe(NamedTuple):
    """A public factory call: function(*args, **kwargs), then the attributes in ``then``."""

    function: Callable[..., Any]
    args: Tuple[Any, ...]
    kwargs: Dict[str, Any]
    then: Tuple[str, ...] = ()

    def arguments(self, *, with_defaults: bool = False) -> Dict[str, Any]:
        """The call's arguments by parameter name (a new dict); with_defaults:
        the parameters left at their defaults too."""
        bound = inspect.signature(self.function).bind(*self.args, **self.kwargs)
        if with_defaults:
            bound.apply_defaults()
        return dict(bound.arguments)

    def reduce(self) -> Tuple[Callable[..., Any], Tuple[Any, ...]]:
        """The pickle protocol's (callable, args) that rebuilds the curve: the
        factory by its public dotted name (what ``statpriv.<module>`` holds, a
        deprecation wrapper around it included), not the function object."""
        return rebuild, (self.function.__module__, self.function.__qualname__, self.args,
                         self.kwargs, self.then)

    def attach(self, result: Any) -> Any:
        """``result`` of the call (a curve, or a named tuple of curves) as fresh
        copies that remember this call (each field of a tuple as ``then``)."""
        if hasattr(result, "_with_recipe"):
            return result._with_recipe(self)
        if isinstance(result, tuple) and hasattr(result, "_fields"):
            return type(result)(*(self._replace(then=self.then + (name,)).attach(value)
                                  for name, value in zip(result._fields, result)))
        return result


def neighbouring_relation(curve: Any) -> Optional[str]:
    """The neighbouring relation ("add_remove", "replace_one") the factory call
    of ``curve`` names, its default included; None for a factory without a
    ``relation`` parameter or a curve built otherwise."""
    recipe = getattr(curve, "_recipe", None)
    if recipe is None:
        return None
    try:
        relation = recipe.arguments(with_defaults=True).get("relation")
    except TypeError:
        return None
    return None if relation is None else str(relation)


def rebuild(module: str, qualname: str, args: Tuple[Any, ...], kwargs: Dict[str, Any],
            then: Tuple[str, ...] = ()) -> Any:
    """Call the factory ``module.qualname`` again and follow ``then``: the
    unpickled curve."""
    import importlib
    function: Any = importlib.import_module(module)
    for name in qualname.split("."):
        function = getattr(function, name)
    result = function(*args, **kwargs)
    for name in then:
        result = getattr(result, name)
    return result


def factory(function: _Factory) -> _Factory:
    """Decorator of a public curve factory: its curves remember the call."""
    @functools.wraps(function)
    def build(*args: Any, **kwargs: Any) -> Any:
        return Recipe(build, args, kwargs).attach(function(*args, **kwargs))
    return cast(_Factory, build)
