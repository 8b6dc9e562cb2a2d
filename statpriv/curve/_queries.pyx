# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, embedsignature=True
"""The compiled half of the curve room: PrivacyCurve's queries on one number.

``CurveQueries`` is statpriv.curve.PrivacyCurve's base class.  A query of
one float at the default precision goes straight to the typed core's scalar
methods (CurveCore.log_delta1 & co.: the same C call as the array path, bit
for bit), with no Python frame around the C evaluation: an accountant's hot
loop pays almost nothing for the object.  Everything else -- arrays, bools,
strings, precision="mp", a core written in Python -- goes to PrivacyCurve's
validating route (``_log_delta``, ``_delta``, ``_epsilon``, in Python).
"""
from cpython.float cimport PyFloat_AS_DOUBLE, PyFloat_Check
from cpython.long cimport PyLong_AsLongLongAndOverflow, PyLong_CheckExact

from statpriv._core cimport CurveCore
from statpriv._csrc cimport SP_MAX, SP_MINUS, SP_PLUS


cdef str _FLOAT = "float"
# ints up to 2^53 are exact doubles; larger ones take the validating route
cdef long long _EXACT_INT = 9007199254740992


cdef inline bint _as_double(object x, double *out):
    """x as a double where it is one: a float (numpy.float64 included, a
    float subclass) or an int within 2^53.  Anything else (bools, strings,
    arrays, larger ints) goes to PrivacyCurve's validating route."""
    cdef int overflow = 0
    cdef long long v
    if PyFloat_Check(x):
        out[0] = PyFloat_AS_DOUBLE(x)
        return True
    if PyLong_CheckExact(x):
        v = PyLong_AsLongLongAndOverflow(x, &overflow)
        if overflow == 0 and -_EXACT_INT <= v <= _EXACT_INT:
            out[0] = <double> v
            return True
    return False


cdef inline int _direction(object direction):
    """The direction code of "plus", "minus", "max" (-1 for anything else)."""
    if type(direction) is not str:
        return -1
    if direction == "max":
        return SP_MAX
    if direction == "plus":
        return SP_PLUS
    if direction == "minus":
        return SP_MINUS
    return -1


cdef class CurveQueries:
    """The public queries of statpriv.curve.PrivacyCurve, its base class (see
    the module docstring): delta, log_delta in each direction and epsilon."""
    cdef CurveCore _fast       # the compiled core of scalar queries, or None

    def _bind_core(self, core):
        """Answer scalar queries with ``core`` when it is a compiled CurveCore."""
        self._fast = core if isinstance(core, CurveCore) else None

    cdef inline bint _direct(self, object eps, object precision, object max_terms,
                             double *x):
        return (self._fast is not None and max_terms is None
                and (precision is _FLOAT or (type(precision) is str and precision == _FLOAT))
                and _as_double(eps, x))

    def log_delta(self, eps, precision="float", *, max_terms=None):
        """ln delta(eps): finite even where delta underflows float64 (1e-308).

        Parameters
        ----------
        eps : float or array of floats
            Any shape, +-inf allowed; bools and strings raise
            ParameterTypeError (a TypeError and a ValueError), NaN raises
            ValueError.
        precision : {"float", "mp"}, optional
            "float" (default): the C core; "mp": mpmath.mpf values from the
            brute-force reference (50 digits).
        max_terms : int, keyword only
            Raises the budget of the "mp" brute force, which refuses (ValueError,
            up front) sizes it estimates to take more than about a minute per
            eps value (see statpriv.oracle.estimate_terms).

        Returns
        -------
        float or numpy.ndarray
            ln delta(eps), -inf where delta = 0; an array of the shape of ``eps``.

        Examples
        --------
        >>> import statpriv
        >>> print(f"{statpriv.counting(10**6, 0.5).log_delta(0.5):.1f}")   # delta < 1e-13000
        -30317.7
        """
        cdef double x = 0.0
        if self._direct(eps, precision, max_terms, &x):
            return self._fast.log_delta1(x, SP_MAX)
        return self._log_delta(eps, "max", precision, max_terms)

    def log_delta_plus(self, eps, precision="float", *, max_terms=None):
        """ln delta_plus(eps) = ln H_eps(P || Q).

        Parameters
        ----------
        eps : float or array of floats
            Any shape, +-inf allowed; bools and strings raise
            ParameterTypeError (a TypeError and a ValueError), NaN raises
            ValueError.
        precision : {"float", "mp"}, optional
            "float" (default): the C core; "mp": mpmath.mpf values from the
            brute-force reference (50 digits).
        max_terms : int, keyword only
            Raises the budget of the "mp" brute force, which refuses (ValueError,
            up front) sizes it estimates to take more than about a minute per
            eps value (see statpriv.oracle.estimate_terms).

        Returns
        -------
        float or numpy.ndarray
            ln delta_plus(eps); an array of the shape of ``eps``.

        Examples
        --------
        >>> import statpriv
        >>> print(f"{statpriv.counting(1000, 0.5).log_delta_plus(0.5):.6f}")
        -37.839521
        """
        cdef double x = 0.0
        if self._direct(eps, precision, max_terms, &x):
            return self._fast.log_delta1(x, SP_PLUS)
        return self._log_delta(eps, "plus", precision, max_terms)

    def log_delta_minus(self, eps, precision="float", *, max_terms=None):
        """ln delta_minus(eps) = ln H_eps(Q || P).

        Parameters
        ----------
        eps : float or array of floats
            Any shape, +-inf allowed; bools and strings raise
            ParameterTypeError (a TypeError and a ValueError), NaN raises
            ValueError.
        precision : {"float", "mp"}, optional
            "float" (default): the C core; "mp": mpmath.mpf values from the
            brute-force reference (50 digits).
        max_terms : int, keyword only
            Raises the budget of the "mp" brute force, which refuses (ValueError,
            up front) sizes it estimates to take more than about a minute per
            eps value (see statpriv.oracle.estimate_terms).

        Returns
        -------
        float or numpy.ndarray
            ln delta_minus(eps); an array of the shape of ``eps``.

        Examples
        --------
        >>> import statpriv
        >>> print(f"{statpriv.counting(1000, 0.5).log_delta_minus(0.5):.6f}")
        -37.839521
        """
        cdef double x = 0.0
        if self._direct(eps, precision, max_terms, &x):
            return self._fast.log_delta1(x, SP_MINUS)
        return self._log_delta(eps, "minus", precision, max_terms)

    def delta(self, eps, precision="float", *, max_terms=None):
        """delta(eps) = max(delta_plus, delta_minus); float or array like eps.

        At eps = +inf delta is the limit of the curve: the mass one law puts
        where the other has none.

        Parameters
        ----------
        eps : float or array of floats
            Any shape, +-inf allowed; bools and strings raise
            ParameterTypeError (a TypeError and a ValueError), NaN raises
            ValueError.
        precision : {"float", "mp"}, optional
            "float" (default): the C core; "mp": mpmath.mpf values from the
            brute-force reference (50 digits).
        max_terms : int, keyword only
            Raises the budget of the "mp" brute force, which refuses (ValueError,
            up front) sizes it estimates to take more than about a minute per
            eps value (see statpriv.oracle.estimate_terms).

        Returns
        -------
        float, numpy.ndarray or mpmath.mpf
            delta(eps) in [0, 1]; an array of the shape of ``eps``.

        Examples
        --------
        >>> import statpriv
        >>> curve = statpriv.counting(1000, 0.5)
        >>> print(f"{curve.delta(0.1):.10e}")
        1.6192050965e-03
        >>> [f"{d:.10e}" for d in curve.delta([0.0, 0.5, 1.0])]   # arrays too
        ['2.5225018178e-02', '3.6855698469e-17', '1.2888752844e-52']
        """
        cdef double x = 0.0
        if self._direct(eps, precision, max_terms, &x):
            return self._fast.delta1(x, SP_MAX)
        return self._delta(eps, "max", precision, max_terms)

    def delta_plus(self, eps, precision="float", *, max_terms=None):
        """delta_plus(eps) = sum_x (P(x) - e^eps Q(x))_+, P: target positive.

        Parameters
        ----------
        eps : float or array of floats
            Any shape, +-inf allowed; bools and strings raise
            ParameterTypeError (a TypeError and a ValueError), NaN raises
            ValueError.
        precision : {"float", "mp"}, optional
            "float" (default): the C core; "mp": mpmath.mpf values from the
            brute-force reference (50 digits).
        max_terms : int, keyword only
            Raises the budget of the "mp" brute force, which refuses (ValueError,
            up front) sizes it estimates to take more than about a minute per
            eps value (see statpriv.oracle.estimate_terms).

        Returns
        -------
        float, numpy.ndarray or mpmath.mpf
            delta_plus(eps); an array of the shape of ``eps``.

        Examples
        --------
        >>> import statpriv
        >>> sampled = statpriv.dp.gaussian(1.0, sampling_prob=0.1)   # add/remove: not symmetric
        >>> print(f"{sampled.delta_plus(0.1):.6e}  {sampled.delta_minus(0.1):.6e}")
        1.847193e-02  7.526745e-06
        """
        cdef double x = 0.0
        if self._direct(eps, precision, max_terms, &x):
            return self._fast.delta1(x, SP_PLUS)
        return self._delta(eps, "plus", precision, max_terms)

    def delta_minus(self, eps, precision="float", *, max_terms=None):
        """delta_minus(eps) = sum_x (Q(x) - e^eps P(x))_+.

        Parameters
        ----------
        eps : float or array of floats
            Any shape, +-inf allowed; bools and strings raise
            ParameterTypeError (a TypeError and a ValueError), NaN raises
            ValueError.
        precision : {"float", "mp"}, optional
            "float" (default): the C core; "mp": mpmath.mpf values from the
            brute-force reference (50 digits).
        max_terms : int, keyword only
            Raises the budget of the "mp" brute force, which refuses (ValueError,
            up front) sizes it estimates to take more than about a minute per
            eps value (see statpriv.oracle.estimate_terms).

        Returns
        -------
        float, numpy.ndarray or mpmath.mpf
            delta_minus(eps); an array of the shape of ``eps``.

        Examples
        --------
        >>> import statpriv
        >>> curve = statpriv.counting(1000, 0.5)      # pi = 1/2: symmetric
        >>> curve.delta_minus(0.1) == curve.delta_plus(0.1)
        True
        """
        cdef double x = 0.0
        if self._direct(eps, precision, max_terms, &x):
            return self._fast.delta1(x, SP_MINUS)
        return self._delta(eps, "minus", precision, max_terms)

    def epsilon(self, delta, direction="max", *, certified=False):
        """Smallest eps >= 0 with delta(eps) <= delta (searched in C).

        Returns inf where no finite eps reaches the target (e.g. a noiseless
        count never goes below max(pi, 1-pi)^(n-1)).  The returned eps is
        rounded up by the curve's own error bound: delta(epsilon(d)) <= d holds
        for the float curve and the TRUE delta there is <= d (1 + 1e-12).
        epsilon(1) = 0 for every curve (delta <= 1); epsilon(0) is the smallest
        float with delta = 0 exactly, inf where delta > 0 at every finite eps.

        Parameters
        ----------
        delta : float in [0, 1] or array of floats
            The target delta.
        direction : {"max", "plus", "minus"}, optional
            Search delta = max(delta_plus, delta_minus) (default), delta_plus or
            delta_minus.
        certified : bool, keyword only
            True: the returned eps carries a proof -- the upper end of
            ``delta_interval(eps, direction)`` (Arb ball sums) is <= delta --
            stepped up from the float answer where needed (the extra
            ``certified``; the kinds of ``delta_interval`` only).

        Returns
        -------
        float or numpy.ndarray
            eps (inf where no finite eps reaches the target); an array of the
            shape of ``delta``.

        Examples
        --------
        >>> import statpriv
        >>> print(f"{statpriv.counting(1000, 0.5).epsilon(1e-3):.10f}")
        0.1128158312
        >>> statpriv.dp.laplace(2.0).epsilon(0.0)     # delta = 0 from eps = 1/b on
        0.5
        >>> statpriv.counting(1000, 0.5).epsilon(0.0)   # a noiseless count never reaches 0
        inf
        """
        cdef double x = 0.0
        cdef int d
        if certified:
            return self._epsilon_certified(delta, direction)
        if self._fast is not None and _as_double(delta, &x):
            d = _direction(direction)
            if d >= 0:
                return self._fast.epsilon_of_delta1(x, d)
        return self._epsilon(delta, direction)
