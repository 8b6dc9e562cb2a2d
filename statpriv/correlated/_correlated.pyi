# Type stubs of _correlated.pyx.  Python code reaches this module through
# statpriv._lazy (typed as Any there); the arrays are numpy arrays.
from typing import Any, Sequence

from statpriv._core import CurveCore

def lattice_log_law(k: int, N: int, joint: Any) -> Any: ...
def lattice_log_law_by_records(k: int, N: int, joint: Any) -> Any: ...

def two_window_law(N: int, joint: Any, m_lo: int, m_hi: int, c_lo: int, c_hi: int,
                   cut: float) -> Any: ...

def three_box_law(N: int, joint: Any, window: Any, cut: float, threads: int = ...) -> Any: ...

class BoxCore(CurveCore):
    def __init__(self, N: int, joint: Any, window: Any, cut: float, shifts: Any,
                 tail: float, threads: int = ...) -> None: ...

def window_resolved(N: int, joint: Any, m_lo: int, c_lo: int, law: Any, d_row: int,
                    d_col: int, cell_floor: float, partner_floor: float) -> Any: ...

class WindowCore(CurveCore):
    def __init__(self, law: Any, d_row: int, d_col: int, tail: float,
                 resolved: Sequence[Any]) -> None: ...

class MaxCore(CurveCore):
    def __init__(self, cores: Sequence[CurveCore]) -> None: ...
