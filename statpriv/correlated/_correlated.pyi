# Type stubs of _correlated.pyx.  Python code reaches this module through
# statpriv._lazy (typed as Any there); the arrays are numpy arrays.
from typing import Any, Sequence

from statpriv._core import CurveCore

def lattice_log_law(k: int, N: int, joint: Any) -> Any: ...
def lattice_log_law_by_records(k: int, N: int, joint: Any) -> Any: ...

class MaxCore(CurveCore):
    def __init__(self, cores: Sequence[CurveCore]) -> None: ...
