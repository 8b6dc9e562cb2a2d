# Type stubs of _correlated.pyx.  Python code reaches this module through
# statpriv._lazy (typed as Any there); the arrays are numpy arrays.
from typing import Any, Sequence

from statpriv._core import CurveCore

def lattice_log_law(k: int, N: int, joint: Any) -> Any: ...
def lattice_log_law_by_records(k: int, N: int, joint: Any) -> Any: ...

def two_window_law(N: int, joint: Any, m_lo: int, m_hi: int, c_lo: int, c_hi: int,
                   cut: float) -> Any: ...

class WindowCore(CurveCore):
    def __init__(self, law: Any, d_row: int, d_col: int, tail: float) -> None: ...

class MaxCore(CurveCore):
    def __init__(self, cores: Sequence[CurveCore]) -> None: ...
