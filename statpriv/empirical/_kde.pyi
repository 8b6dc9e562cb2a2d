# Type stubs of statpriv/empirical/_kde.pyx (the empirical estimators' C loops).
from typing import Tuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

_F = NDArray[np.float64]

GAUSS: int
LAPLACE: int

def laplace_delta(a: ArrayLike, rows: ArrayLike, s: float, eps: float) -> Tuple[_F, _F]: ...
def bound_delta(kernel: int, a: ArrayLike, wa: ArrayLike, rows: ArrayLike, wrows: ArrayLike,
                eps: float, tol: float) -> Tuple[_F, _F, _F]: ...
def hist_delta(inner_edges: ArrayLike, p_mass: ArrayLike, rows: ArrayLike,
               eps: float) -> Tuple[_F, _F]: ...
def hausdorff(a: ArrayLike, rows: ArrayLike) -> _F: ...
def box_delta(kernel: int, a: ArrayLike, rows: ArrayLike, s: ArrayLike, eps: float, tol: float,
              max_boxes: int) -> Tuple[_F, _F, _F]: ...
