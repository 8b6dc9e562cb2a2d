"""Check the layering of statpriv: the C kernels (csrc/) and the Python package.

    python tools/check_layers.py            # both; exit status 1 on any error
    python tools/check_layers.py --graph    # also print every Python room's imports

Python (statpriv/**/*.py and .pyx): every import is read from the source --
module level and inside functions, ``_lazy.module("...")`` and
``importlib.import_module("...")`` included, those under ``if TYPE_CHECKING:``
(annotations only) not -- and each module is placed in a
layer by the table LAYERS (bottom first).  Errors: an import of a module in a
higher layer; an import cycle among modules (lazy imports count); a module
that no layer claims.  A module's imports of its own ancestor packages (a
kind importing its room's base class from the room's __init__) are the
room's front door, not an edge.

C (csrc/, see csrc/statpriv.h): an include cycle among the headers;
pair_tail.h/.c including a mechanism header (a mechanism may include
pair_tail.h, never the reverse); a direction flag other than enum
sp_direction (`int plus`); a csrc header missing from statpriv.h.
"""
import ast
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CSRC = os.path.join(ROOT, "csrc")
PACKAGE = os.path.join(ROOT, "statpriv")
MECHANISMS = ("laplace.h", "geometric.h", "gaussian.h", "dp.h")

# (layer name, module prefixes), bottom first: a module may import its own
# layer and the layers below, never above.
LAYERS = [
    ("bottom", ("statpriv._validate", "statpriv._progress", "statpriv._lazy", "statpriv._xprec",
                "statpriv._threads",
                "statpriv._connect_dots",
                "statpriv._core", "statpriv._csrc", "statpriv.oracle", "statpriv.reference")),
    ("curve", ("statpriv.curve",)),
    ("laws", ("statpriv.laws",)),
    ("noise", ("statpriv.noise",)),
    ("mechanisms", ("statpriv.counting", "statpriv.discrete", "statpriv.dp",
                    "statpriv.partial_knowledge", "statpriv.thresholding", "statpriv.shuffle",
                    "statpriv.correlated")),
    ("accounting", ("statpriv.accounting",)),
    ("analysis", ("statpriv.analysis", "statpriv.papers", "statpriv.empirical",
                  "statpriv.cli", "statpriv.__main__", "statpriv")),
]


# -- C ------------------------------------------------------------------------

def _includes(path):
    with open(path) as fh:
        return re.findall(r'#include "([^"]+)"', fh.read())


def c_errors():
    """(headers checked, errors) of csrc/."""
    errors = []
    graph = {os.path.basename(f): _includes(f) for f in glob.glob(os.path.join(CSRC, "*.h"))}
    errors += [f"C include cycle: {' -> '.join(c)}" for c in _cycles(graph)]
    for name in ("pair_tail.h", "pair_tail.c"):
        bad = [h for h in _includes(os.path.join(CSRC, name)) if h in MECHANISMS]
        if bad:
            errors.append(f"{name} includes mechanism headers {bad}")
    for path in sorted(glob.glob(os.path.join(CSRC, "*.[ch]"))):
        with open(path) as fh:
            text = fh.read()
        # comments blanked (newlines kept, so line numbers stay right)
        code = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group()), text, flags=re.S)
        for lineno, line in enumerate(code.splitlines(), 1):
            if re.search(r"\bint\s+plus\b", line.split("//")[0]):
                errors.append(f"{os.path.basename(path)}:{lineno}: `int plus` flag "
                              "(use enum sp_direction)")
    umbrella = set(_includes(os.path.join(CSRC, "statpriv.h")))
    missing = sorted(set(graph) - umbrella - {"statpriv.h"})
    if missing:
        errors.append(f"headers not in statpriv.h: {missing}")
    return len(graph), errors


# -- Python --------------------------------------------------------------------

def _module_name(path):
    rel = os.path.relpath(path, ROOT)
    name = os.path.splitext(rel)[0].replace(os.sep, ".")
    return name[:-len(".__init__")] if name.endswith(".__init__") else name


def python_modules():
    """{module name: path} of statpriv's .py and .pyx files."""
    paths = glob.glob(os.path.join(PACKAGE, "**", "*.py"), recursive=True)
    paths += glob.glob(os.path.join(PACKAGE, "**", "*.pyx"), recursive=True)
    return {_module_name(p): p for p in sorted(paths)}


def _string_arg(call):
    if call.args and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str):
        return call.args[0].value
    return None


def _is_type_checking(test):
    """Whether an if-test is ``TYPE_CHECKING`` or ``typing.TYPE_CHECKING``."""
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports_py(name, path, modules):
    """The statpriv modules ``name`` imports (lazily or not), with line numbers."""
    with open(path) as fh:
        tree = ast.parse(fh.read(), path)
    package = name if path.endswith("__init__.py") else name.rpartition(".")[0]
    # imports under ``if TYPE_CHECKING:`` are read by type checkers only
    # (annotations), never run: no edge
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            node.body = []
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1] + ([base] if base else []))
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.append((sub if sub in modules else base, node.lineno))
        elif isinstance(node, ast.Call):
            func = node.func
            attr = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if attr in ("module", "import_module") and _string_arg(node):
                found.append((_string_arg(node), node.lineno))
    return found


def _imports_pyx(path, modules):
    found = []
    with open(path) as fh:
        for lineno, line in enumerate(fh, 1):
            m = re.match(r"\s*(?:from\s+([\w.]+)\s+c?import\s+([\w, *]+)|c?import\s+([\w.]+))", line)
            if not m:
                continue
            if m.group(3):
                found.append((m.group(3), lineno))
                continue
            for alias in (a.strip() for a in m.group(2).split(",")):
                sub = f"{m.group(1)}.{alias}"
                found.append((sub if sub in modules else m.group(1), lineno))
    return found


def layer_of(module):
    """(index, name) of the layer whose longest prefix matches, or None."""
    best = None
    for index, (layer, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            # "statpriv" itself is the package's front door only
            if module == prefix or (prefix != "statpriv" and module.startswith(prefix + ".")):
                if best is None or len(prefix) > best[2]:
                    best = (index, layer, len(prefix))
    return None if best is None else best[:2]


def python_graph():
    """{module: {imported statpriv module: first line}} (ancestor packages left out)."""
    modules = python_modules()
    graph = {}
    for name, path in modules.items():
        raw = _imports_pyx(path, modules) if path.endswith(".pyx") else \
            _imports_py(name, path, modules)
        edges = {}
        for target, lineno in raw:
            if target != "statpriv" and not target.startswith("statpriv."):
                continue
            while target not in modules and "." in target:   # a name inside a module
                target = target.rpartition(".")[0]
            if target == name or name.startswith(target + "."):
                continue                 # itself, or its own room's front door
            edges.setdefault(target, lineno)
        graph[name] = edges
    return graph


def python_errors():
    """(modules checked, errors) of statpriv/."""
    graph = python_graph()
    errors = []
    for name in sorted(graph):
        own = layer_of(name)
        if own is None:
            errors.append(f"{name}: no layer in tools/check_layers.py claims it")
            continue
        for target, lineno in sorted(graph[name].items()):
            other = layer_of(target)
            if other is not None and other[0] > own[0]:
                errors.append(f"{name}:{lineno} ({own[1]}) imports {target} ({other[1]}): "
                              "upward")
    simple = {m: list(edges) for m, edges in graph.items()}
    errors += [f"import cycle: {' -> '.join(c)}" for c in _cycles(simple)]
    return len(graph), errors


def _cycles(graph):
    """The cycles of a directed graph, one per strongly connected component
    (Tarjan's algorithm, iterative), each as a closed path."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    counter = [0]
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        top = stack.pop()
                        on_stack.discard(top)
                        component.append(top)
                        if top == node:
                            break
                    if len(component) > 1:
                        out.append(_closed_path(graph, sorted(component)))
                continue
            if child not in graph:
                continue
            if child not in index:
                index[child] = low[child] = counter[0]
                counter[0] += 1
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph.get(child, ())))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return out


def _closed_path(graph, component):
    """A cycle through the first node of a strongly connected component."""
    members, start = set(component), component[0]
    path, seen = [start], {start}
    while True:
        step = next((n for n in sorted(graph[path[-1]]) if n in members), None)
        if step == start or step is None or step in seen:
            return path + [step if step is not None else start]
        path.append(step)
        seen.add(step)


def main(argv):
    headers, c_errs = c_errors()
    modules, py_errs = python_errors()
    if "--graph" in argv:
        for name, edges in sorted(python_graph().items()):
            print(f"{name} [{layer_of(name)[1] if layer_of(name) else '?'}]: "
                  f"{', '.join(sorted(edges)) or '-'}")
    for e in c_errs + py_errs:
        print(e)
    print(f"{headers} C headers, {len(c_errs)} layering errors; "
          f"{modules} Python modules, {len(py_errs)} layering errors")
    return 1 if c_errs or py_errs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
