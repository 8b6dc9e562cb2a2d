"""Curves as values: equality by parameters and a JSON-safe dictionary form.

A curve built by a public factory remembers the call (statpriv.curve.recipe).
That call is the curve's value: two curves are equal when they were built by
the same factory from equal arguments (the factory's defaults filled in, so
``counting(10, 0.5) == counting(n=10, pi=0.5, noise=None)``), and the call
written as plain JSON data rebuilds the curve in another process, language
or year:

    {"statpriv_schema": 1, "kind": "counting", "args": [1000, 0.3],
     "kwargs": {"noise": {"kind": "Laplace", "args": [1.0], "kwargs": {}, "then": []}},
     "then": []}

``kind`` is the factory's public dotted name under ``statpriv``
(``"dp.gaussian"``, ``"shuffle.clones"``, ``"PrivacyCurve.subsample"``);
``then`` the attributes read from its result (``["worst_case"]`` of a
partial-knowledge object).  Arguments are encoded recursively:

* None, bools, ints, strings and finite floats as themselves;
* a non-finite float as ``{"float": "inf"}`` (``"-inf"``, ``"nan"``), so that
  ``json.dumps(d, allow_nan=False)`` accepts every dictionary;
* lists and tuples as lists; a numpy array as ``{"ndarray": [...], "dtype":
  "float64"}`` (boolean, integer and float dtypes up to float64); numpy
  scalars as Python numbers;
* a dict argument as ``{"dict": {...}}`` (string keys);
* a curve, a privacy-loss distribution made by ``curve.privacy_loss_distribution``
  or a noise object (statpriv.Gaussian(2.0)) as its own call, nested.

Only the factories named in ``KINDS`` -- the public API -- are rebuilt:
``from_dict`` never imports or calls anything a dictionary names, so a
dictionary from an untrusted source can build curves and nothing else (the
cost of building one is the factory's, which refuses sizes it cannot afford).
"""
from __future__ import annotations

import functools
import inspect
import math
from typing import TYPE_CHECKING, Any, Callable, Dict, Optional, Tuple, Union

import numpy as np

if TYPE_CHECKING:
    from statpriv.curve.recipe import Recipe

__all__ = ["KINDS", "SCHEMA_VERSION", "from_dict", "to_dict", "value_key"]

SCHEMA_VERSION = 1

# The factories from_dict may call, by their public dotted names under
# ``statpriv``: every public function or method that returns a curve (or a
# value holding curves), the noise kinds and the privacy-loss distribution of
# a curve and its curve again.
KINDS = (
    "counting", "secret_sample", "from_log_pmfs", "compose",
    "partial_knowledge", "histogram_partial_knowledge", "thresholded", "k_anonymity",
    "correlated_counts",
    "dp.gaussian", "dp.laplace", "dp.geometric", "dp.randomized_response",
    "shuffle.clones", "shuffle.randomized_response",
    "Gaussian", "Laplace", "Geometric", "noise.Noise.dp_curve",
    "PrivacyCurve.subsample", "PrivacyCurve.privacy_loss_distribution",
    "pld.PrivacyLossDistribution.to_curve",
)
# the numpy dtypes an encoded array may have (kinds: bool, signed, unsigned, float)
_ARRAY_KINDS = "biuf"
_TAGS = ("kind", "float", "ndarray", "dict")


@functools.lru_cache(maxsize=None)
def _registry() -> Tuple[Dict[str, Callable[..., Any]], Dict[int, str]]:
    """({name: callable}, {id of a callable or of what it wraps: name})."""
    import statpriv
    by_name: Dict[str, Callable[..., Any]] = {}
    by_id: Dict[int, str] = {}
    for name in KINDS:
        obj: Any = functools.reduce(getattr, name.split("."), statpriv)
        by_name[name] = obj
        # the public object, and the functions it wraps (a deprecation
        # wrapper around a factory, the factory around its body): a recipe
        # holds one of them
        while obj is not None and id(obj) not in by_id:
            by_id[id(obj)] = name
            obj = getattr(obj, "__wrapped__", None)
    return by_name, by_id


def kind_of(function: object) -> Optional[str]:
    """The public dotted name of a factory (a key of KINDS), or None."""
    return _registry()[1].get(id(function))


def _recipe_of(value: Any) -> Optional[Tuple[Optional[str], Recipe]]:
    """(kind name or None, function, args, kwargs, then) of a value that
    remembers its call, else None."""
    recipe = getattr(value, "_recipe", None)
    if recipe is not None and not callable(recipe):
        return kind_of(recipe.function), recipe
    cls = type(value)
    name = kind_of(cls)
    if name is not None:                       # a noise object: its class and parameter
        function, args = value.__reduce__()[:2]
        if function is cls:
            from statpriv.curve.recipe import Recipe
            return name, Recipe(cls, tuple(args), {})
    return None


def _encode_float(x: float) -> Union[float, Dict[str, str]]:
    return x if math.isfinite(x) else {"float": repr(x)}


def _encode(value: Any, strict: bool) -> Any:
    """The JSON-safe form of one argument (see the module docstring).  Not
    strict: what cannot be encoded is kept by identity (value_key)."""
    if type(value) is float:                   # (the common case first: long pi lists)
        return _encode_float(value)
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, np.integer)) and not isinstance(value, np.bool_):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, (float, np.floating)) and np.dtype(type(value)).itemsize <= 8:
        return _encode_float(float(value))
    if isinstance(value, (list, tuple)):
        return [_encode(v, strict) for v in value]
    if isinstance(value, np.ndarray) and value.dtype.kind in _ARRAY_KINDS \
            and value.dtype.itemsize <= 8:
        items = value.ravel().tolist() if value.ndim <= 1 else value.tolist()
        if value.dtype.kind == "f" and not np.isfinite(value).all():
            items = _encode(items, strict)
        # (as a value an array is its elements: equal to the list of them)
        return {"ndarray": items, "dtype": value.dtype.name} if strict else items
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {"dict": {k: _encode(v, strict) for k, v in value.items()}}
    found = _recipe_of(value)
    if found is not None and not strict:
        return value_key(found[1])               # nested calls compare as values too
    if found is not None and found[0] is not None:
        return _encode_call(*found, strict)
    if strict:
        what = (f"{type(value).__name__} built by {found[1].function.__qualname__}, which "
                "is not a public factory" if found is not None else
                f"{type(value).__name__} (not built by a public statpriv factory)"
                if hasattr(value, "_recipe") else type(value).__name__)
        raise TypeError(f"cannot encode an argument of type {what} as JSON data")
    return {"object": id(value)}


def _encode_call(name: Optional[str], recipe: Recipe, strict: bool) -> Dict[str, Any]:
    return {"kind": name,
            "args": [_encode(a, strict) for a in recipe.args],
            "kwargs": {k: _encode(v, strict) for k, v in recipe.kwargs.items()},
            "then": list(recipe.then)}


def to_dict(value: Any) -> Dict[str, Any]:
    """The JSON-safe dictionary of a value built by a public factory.

    Parameters
    ----------
    value : PrivacyCurve, statpriv.noise.Noise or PrivacyLossDistribution
        A curve built by a public factory, a noise object, or the
        privacy-loss distribution of such a curve
        (``curve.privacy_loss_distribution(...)``).

    Returns
    -------
    dict
        ``{"statpriv_schema": 1, "kind": ..., "args": [...], "kwargs":
        {...}, "then": [...]}``, encoded as the module docstring says.

    Raises
    ------
    TypeError
        The value (or an argument of its call) was not built by a public
        factory, or an argument has a type the schema does not cover.

    Examples
    --------
    >>> import statpriv
    >>> from statpriv.curve.values import to_dict
    >>> to_dict(statpriv.Gaussian(2.0))
    {'statpriv_schema': 1, 'kind': 'Gaussian', 'args': [2.0], 'kwargs': {}, 'then': []}
    """
    found = _recipe_of(value)
    if found is None:
        raise TypeError(f"cannot convert {value!r} to a dictionary: it was not built by a "
                        "public statpriv factory, so it cannot be rebuilt")
    if found[0] is None:
        function = found[1].function
        raise TypeError(f"cannot convert {value!r} to a dictionary: it was built by "
                        f"{function.__module__}.{function.__qualname__}, which is not a "
                        "public factory from_dict rebuilds (it pickles)")
    out: Dict[str, Any] = {"statpriv_schema": SCHEMA_VERSION}
    out.update(_encode(value, strict=True))
    return out


def _decode(value: Any, where: str) -> Any:
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value
    if isinstance(value, list):
        return [_decode(v, where) for v in value]
    if not isinstance(value, dict):
        raise TypeError(f"{where}: cannot decode a {type(value).__name__}")
    tags = [t for t in _TAGS if t in value]
    if len(tags) != 1:
        raise ValueError(f"{where}: a dictionary must have exactly one of the keys "
                         f"{', '.join(_TAGS)}, got keys {sorted(value)}")
    tag = tags[0]
    if tag == "float":
        text = value["float"]
        if text not in ("inf", "-inf", "nan"):
            raise ValueError(f"{where}: float must be 'inf', '-inf' or 'nan', got {text!r}")
        return float(text)
    if tag == "ndarray":
        dtype = np.dtype(str(value.get("dtype", "float64")))
        if dtype.kind not in _ARRAY_KINDS or dtype.itemsize > 8:
            raise ValueError(f"{where}: ndarray dtype must be a bool, integer or float "
                             f"dtype up to 64 bits, got {dtype.name!r}")
        return np.array(_decode(value["ndarray"], where), dtype=dtype)
    if tag == "dict":
        return {str(k): _decode(v, where) for k, v in value["dict"].items()}
    return _decode_call(value, where)


def _decode_call(d: Dict[str, Any], where: str) -> Any:
    name = d["kind"]
    by_name = _registry()[0]
    if not isinstance(name, str) or name not in by_name:
        raise ValueError(f"{where}: unknown kind {name!r}: from_dict rebuilds only the "
                         f"public factories {', '.join(KINDS)}")
    args = d.get("args", [])
    kwargs = d.get("kwargs", {})
    then = d.get("then", [])
    if not isinstance(args, list) or not isinstance(kwargs, dict) or not isinstance(then, list):
        raise ValueError(f"{where}: {name}: args must be a list, kwargs a dict and then a "
                         "list")
    for step in then:
        if not isinstance(step, str) or not step.isidentifier() or step.startswith("_"):
            raise ValueError(f"{where}: {name}: then must list public attribute names, got "
                             f"{step!r}")
    inner = f"{where} > {name}"
    result = by_name[name](*_decode(args, inner),
                           **{str(k): _decode(v, inner) for k, v in kwargs.items()})
    for step in then:
        result = getattr(result, step)
    return result


def from_dict(d: Dict[str, Any]) -> Any:
    """The curve of a dictionary made by ``PrivacyCurve.to_dict`` (or parsed from its JSON).

    Parameters
    ----------
    d : dict
        ``{"statpriv_schema": 1, "kind": ..., "args": [...], "kwargs": {...},
        "then": [...]}`` (statpriv.curve.values describes the encoding).

    Returns
    -------
    PrivacyCurve
        The factory call repeated: equal (==) to the curve that was
        converted, with the same delta bit for bit.  A dictionary of a noise
        object or a privacy-loss distribution gives that object.

    Raises
    ------
    ValueError
        An unknown ``statpriv_schema`` version, or a ``kind`` that is not a
        public factory (statpriv.curve.values.KINDS; nothing else is ever
        imported or called), or a malformed entry; the factory's own errors
        for bad arguments.

    Examples
    --------
    >>> import json, statpriv
    >>> curve = statpriv.compose(statpriv.dp.gaussian(2.0), times=3)
    >>> text = json.dumps(curve.to_dict(), allow_nan=False)
    >>> statpriv.from_dict(json.loads(text)) == curve
    True
    """
    if not isinstance(d, dict):
        raise TypeError(f"d must be a dict (from PrivacyCurve.to_dict), got {type(d).__name__}")
    version = d.get("statpriv_schema")
    if version is None:
        raise ValueError("d has no 'statpriv_schema' key: not a dictionary made by "
                         "PrivacyCurve.to_dict")
    if version != SCHEMA_VERSION:
        raise ValueError(f"statpriv_schema {version!r} is not supported: this statpriv reads "
                         f"schema {SCHEMA_VERSION} (a newer statpriv wrote it?)")
    if "kind" not in d:
        raise ValueError("d has no 'kind' key")
    return _decode_call(d, "d")


def _freeze(value: Any) -> Any:
    """Encoded data as nested tuples (hashable; 10 == 10.0 as in Python)."""
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in value.items()))
    return value


def value_key(recipe: Recipe) -> Tuple[Any, Any, Tuple[str, ...]]:
    """The value of a factory call, for == and hash: the factory and its
    arguments bound by name with the defaults filled in, encoded as in
    to_dict (arguments that cannot be encoded: by identity), and ``then``."""
    name = kind_of(recipe.function)
    function = recipe.function
    arguments: Dict[str, Any]
    try:
        bound = inspect.signature(function).bind(*recipe.args, **recipe.kwargs)
        bound.apply_defaults()
        arguments = bound.arguments
    except (TypeError, ValueError):              # no signature: the call as made
        arguments = {"args": recipe.args, "kwargs": recipe.kwargs}
    who = name if name is not None else (function.__module__, function.__qualname__)
    return (who, _freeze({k: _encode(v, strict=False) for k, v in arguments.items()}),
            tuple(recipe.then))
