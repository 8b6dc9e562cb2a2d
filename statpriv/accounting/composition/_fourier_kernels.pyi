# Type stubs of statpriv/accounting/composition/_fourier_kernels.pyx.
from typing import Tuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

_F = NDArray[np.float64]

TILT_BLOCK: int

def power(z: ArrayLike, k: int) -> NDArray[np.complex128]: ...
def rotate_left(x: NDArray[np.float64], first: int) -> NDArray[np.float64]: ...
def suffix_sums(u: ArrayLike, a: float, b: float, scale: float,
                factor: float = ...) -> Tuple[_F, _F]: ...
def tilted_sums(mass: ArrayLike, log_mass: ArrayLike, offset: int, h: float, thetas: ArrayLike,
                floor_nats: float, moments: bool = ...) -> Tuple[_F, _F, _F]: ...
