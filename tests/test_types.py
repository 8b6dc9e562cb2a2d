"""statpriv's types: what a type checker needs is shipped and annotated.

The full check -- ``mypy --strict statpriv tools/typed_example.py`` -- takes
~40 s on a cold cache, so it is a step of .ci/run, not a test here; these
are the cheap invariants behind it: the PEP 561 marker, a stub beside every
compiled module, and annotations on every parameter and return of the
public API (so that strict user code gets types, not "untyped call").
"""
import ast
import glob
import importlib.machinery
import inspect
import os

import pytest

import statpriv
from statpriv import dp, empirical, shuffle
from statpriv.accounting.composition.composed import ComposedCurve
from statpriv.partial_knowledge import HistogramPartialKnowledge, PartialKnowledge
from statpriv.partial_knowledge.vertices import WorstCaseCurve

PACKAGE = os.path.dirname(statpriv.__file__)
QUERIES = ("delta", "delta_plus", "delta_minus", "log_delta", "log_delta_plus",
           "log_delta_minus", "epsilon")


def test_py_typed_marker_is_in_the_package():
    assert os.path.isfile(os.path.join(PACKAGE, "py.typed"))


def test_every_compiled_module_has_a_stub():
    # the compiled modules themselves (an installed wheel has no .pyx sources)
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    modules = [path for path in glob.glob(os.path.join(PACKAGE, "**", "*"), recursive=True)
               if path.endswith(suffixes)]
    assert len(modules) >= 10
    stems = [next(path[:-len(s)] for s in suffixes if path.endswith(s)) for path in modules]
    missing = [stem for stem in stems if not os.path.isfile(stem + ".pyi")]
    assert missing == []


def _stub_functions(path):
    """{name: FunctionDef} of the functions and methods a stub declares."""
    with open(path) as fh:
        tree = ast.parse(fh.read(), path)
    return {node.name: node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}


def _unannotated(fn):
    """The parameters (and 'return') of an ast FunctionDef without annotations."""
    args = fn.args
    params = args.posonlyargs + args.args + args.kwonlyargs + [a for a in (args.vararg,
                                                                          args.kwarg) if a]
    missing = [a.arg for a in params if a.annotation is None and a.arg not in ("self", "cls")]
    return missing + (["return"] if fn.returns is None else [])


def test_stubs_are_fully_annotated():
    for stub in glob.glob(os.path.join(PACKAGE, "**", "*.pyi"), recursive=True):
        bad = {name: _unannotated(fn) for name, fn in _stub_functions(stub).items()
               if _unannotated(fn)}
        assert bad == {}, stub


def test_the_compiled_queries_are_typed_in_their_stub():
    # PrivacyCurve's queries live in the compiled base class: their types are
    # the stub's (an overload per input kind), not inspect's
    declared = _stub_functions(os.path.join(PACKAGE, "curve", "_queries.pyi"))
    assert set(QUERIES) <= set(declared)
    assert set(QUERIES) <= set(dir(statpriv.PrivacyCurve))


def _public_callables():
    """(qualified name, callable) of the public API: statpriv's exports, the
    dp / shuffle / empirical factories, and the public methods and properties
    of the classes they return (those written in Python)."""
    found = []
    modules = [(statpriv, statpriv.__all__), (dp, [n for n in dir(dp) if not n.startswith("_")
                                                   and callable(getattr(dp, n))
                                                   and getattr(getattr(dp, n), "__module__",
                                                               "") == "statpriv.dp"]),
               (shuffle, ["clones", "randomized_response"]), (empirical, empirical.__all__)]
    classes = {ComposedCurve, WorstCaseCurve, PartialKnowledge, HistogramPartialKnowledge}
    for module, names in modules:
        for name in names:
            value = getattr(module, name)
            if inspect.isclass(value):
                classes.add(value)
            elif inspect.isfunction(value):
                found.append((f"{module.__name__}.{name}", value))
    for cls in classes:
        for klass in cls.__mro__:
            if not klass.__module__.startswith("statpriv") or not hasattr(klass, "__dict__"):
                continue
            for name, member in vars(klass).items():
                if name.startswith("_") and name != "__init__":
                    continue
                if isinstance(member, property):
                    member = member.fget
                elif isinstance(member, (staticmethod, classmethod)):
                    member = member.__func__
                if inspect.isfunction(member):
                    found.append((f"{klass.__qualname__}.{name}", member))
    return found


def test_the_public_api_is_annotated():
    callables = _public_callables()
    assert len(callables) > 80
    bad = {}
    for name, fn in callables:
        signature = inspect.signature(fn)
        missing = [p.name for p in signature.parameters.values()
                   if p.annotation is inspect.Parameter.empty and p.name not in ("self", "cls")]
        if signature.return_annotation is inspect.Signature.empty:
            missing.append("return")
        if missing:
            bad[name] = missing
    assert bad == {}


@pytest.mark.parametrize("name", ["statpriv.counting", "statpriv.dp.gaussian", "statpriv.compose"])
def test_factories_keep_their_signature_through_the_recipe_decorator(name):
    # @factory wraps the factory; the type checker and inspect see the wrapped one
    module, _, attr = name.rpartition(".")
    fn = getattr(__import__(module, fromlist=[attr]), attr)
    assert inspect.signature(fn).return_annotation in ("PrivacyCurve", "ComposedCurve")


def test_help_opens_with_what_a_curve_is_not_the_constructor():
    doc = inspect.getdoc(statpriv.counting(10, 0.5))
    first = doc.split("\n\n")[0]
    assert "delta(eps)" in first
    assert "core" not in doc.split("\n\n", 2)[1]        # no constructor parameters up front
