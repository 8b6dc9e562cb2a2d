"""Check the layering of csrc/ (see csrc/statpriv.h).

    python tools/check_csrc_layers.py

Fails (exit 1) on: an include cycle among the headers; pair_tail.h/.c
including a mechanism header (laplace, geometric, gaussian, dp, ...: a
mechanism may include pair_tail.h, never the reverse); a direction flag other
than enum sp_direction (`int plus`); a csrc header missing from statpriv.h.
"""
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CSRC = os.path.join(ROOT, "csrc")
MECHANISMS = ("laplace.h", "geometric.h", "gaussian.h", "dp.h")


def includes(path):
    with open(path) as fh:
        return re.findall(r'#include "([^"]+)"', fh.read())


def main():
    errors = []
    graph = {os.path.basename(f): includes(f) for f in glob.glob(os.path.join(CSRC, "*.h"))}
    state = {}

    def visit(node, path):
        if state.get(node) == 1:
            errors.append("include cycle: " + " -> ".join(path + [node]))
            return
        if state.get(node) == 2:
            return
        state[node] = 1
        for dep in graph.get(node, []):
            visit(dep, path + [node])
        state[node] = 2

    for node in sorted(graph):
        visit(node, [])
    for name in ("pair_tail.h", "pair_tail.c"):
        bad = [h for h in includes(os.path.join(CSRC, name)) if h in MECHANISMS]
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
    umbrella = set(includes(os.path.join(CSRC, "statpriv.h")))
    missing = sorted(set(graph) - umbrella - {"statpriv.h"})
    if missing:
        errors.append(f"headers not in statpriv.h: {missing}")
    for e in errors:
        print(e)
    print(f"{len(graph)} headers, {len(errors)} layering errors")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
