# Type stubs of statpriv/curve/_queries.pyx: PrivacyCurve's public queries.
# One real number in gives a float out, an array (or a list) of them gives an
# array of that shape; precision="mp" gives mpmath.mpf values (a scalar or an
# object array), typed Any (mpmath has no type information).
from typing import Any, Literal, Optional, Sequence, Union, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray

_Arrayish = Union[NDArray[Any], Sequence[float], Sequence[Sequence[float]]]

class CurveQueries:
    def _bind_core(self, core: object) -> None: ...

    @overload
    def log_delta(self, eps: float, precision: Literal["float"] = ..., *,
                  max_terms: None = ...) -> float: ...
    @overload
    def log_delta(self, eps: _Arrayish, precision: Literal["float"] = ..., *,
                  max_terms: None = ...) -> NDArray[np.float64]: ...
    @overload
    def log_delta(self, eps: ArrayLike, precision: str = ..., *,
                  max_terms: Optional[float] = ...) -> Any: ...

    @overload
    def log_delta_plus(self, eps: float, precision: Literal["float"] = ..., *,
                       max_terms: None = ...) -> float: ...
    @overload
    def log_delta_plus(self, eps: _Arrayish, precision: Literal["float"] = ..., *,
                       max_terms: None = ...) -> NDArray[np.float64]: ...
    @overload
    def log_delta_plus(self, eps: ArrayLike, precision: str = ..., *,
                       max_terms: Optional[float] = ...) -> Any: ...

    @overload
    def log_delta_minus(self, eps: float, precision: Literal["float"] = ..., *,
                        max_terms: None = ...) -> float: ...
    @overload
    def log_delta_minus(self, eps: _Arrayish, precision: Literal["float"] = ..., *,
                        max_terms: None = ...) -> NDArray[np.float64]: ...
    @overload
    def log_delta_minus(self, eps: ArrayLike, precision: str = ..., *,
                        max_terms: Optional[float] = ...) -> Any: ...

    @overload
    def delta(self, eps: float, precision: Literal["float"] = ..., *,
              max_terms: None = ...) -> float: ...
    @overload
    def delta(self, eps: _Arrayish, precision: Literal["float"] = ..., *,
              max_terms: None = ...) -> NDArray[np.float64]: ...
    @overload
    def delta(self, eps: ArrayLike, precision: str = ..., *,
              max_terms: Optional[float] = ...) -> Any: ...

    @overload
    def delta_plus(self, eps: float, precision: Literal["float"] = ..., *,
                   max_terms: None = ...) -> float: ...
    @overload
    def delta_plus(self, eps: _Arrayish, precision: Literal["float"] = ..., *,
                   max_terms: None = ...) -> NDArray[np.float64]: ...
    @overload
    def delta_plus(self, eps: ArrayLike, precision: str = ..., *,
                   max_terms: Optional[float] = ...) -> Any: ...

    @overload
    def delta_minus(self, eps: float, precision: Literal["float"] = ..., *,
                    max_terms: None = ...) -> float: ...
    @overload
    def delta_minus(self, eps: _Arrayish, precision: Literal["float"] = ..., *,
                    max_terms: None = ...) -> NDArray[np.float64]: ...
    @overload
    def delta_minus(self, eps: ArrayLike, precision: str = ..., *,
                    max_terms: Optional[float] = ...) -> Any: ...

    @overload
    def epsilon(self, delta: float, direction: str = ..., *, certified: bool = ...) -> float: ...
    @overload
    def epsilon(self, delta: _Arrayish, direction: str = ..., *,
                certified: bool = ...) -> NDArray[np.float64]: ...
    @overload
    def epsilon(self, delta: ArrayLike, direction: str = ..., *,
                certified: bool = ...) -> Union[float, NDArray[np.float64]]: ...
