"""The layering of statpriv (tools/check_layers.py): no upward import (lazy ones
included), no import cycle, every module in a layer; the C headers likewise."""
import importlib.util
import pathlib

TOOL = pathlib.Path(__file__).resolve().parents[1] / "tools" / "check_layers.py"


def _tool():
    spec = importlib.util.spec_from_file_location("check_layers", TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_python_layers_hold():
    modules, errors = _tool().python_errors()
    assert modules > 50
    assert errors == []


def test_c_layers_hold():
    headers, errors = _tool().c_errors()
    assert headers > 20
    assert errors == []


def test_the_check_sees_an_upward_import_and_a_cycle():
    # the check itself: a fake bottom module importing the accounting room,
    # and two modules importing each other
    tool = _tool()
    graph = {"statpriv._validate": {"statpriv.accounting": 3},
             "statpriv.accounting": {"statpriv._validate": 1}}
    assert tool.layer_of("statpriv._validate")[1] == "bottom"
    assert tool.layer_of("statpriv.accounting.composition.grid")[1] == "accounting"
    assert tool.layer_of("statpriv._nowhere") is None
    cycles = tool._cycles({m: list(e) for m, e in graph.items()})
    assert cycles == [["statpriv._validate", "statpriv.accounting", "statpriv._validate"]] or \
        cycles == [["statpriv.accounting", "statpriv._validate", "statpriv.accounting"]]
