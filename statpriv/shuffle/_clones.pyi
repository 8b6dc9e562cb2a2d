# Type stubs of _clones.pyx.  Python code reaches this module through
# statpriv._lazy (typed as Any there); the signatures give the argument names,
# the arrays are numpy arrays.
from typing import Any

from statpriv._core import CurveCore


class ClonesCurveCore(CurveCore):
    def __init__(self, n: Any, eps0: Any) -> None: ...
    def log_inner(self, clones: Any, eps: Any) -> Any: ...
