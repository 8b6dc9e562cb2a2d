"""PrivacyCurve: one object per privacy curve, with delta(eps) and epsilon(delta).

For distributions P (target record present / positive) and Q (absent /
negative) of what the attacker sees,

    delta_plus(eps)  = H_eps(P || Q) = sum_x (P(x) - e^eps Q(x))_+
    delta_minus(eps) = H_eps(Q || P)
    delta(eps)       = max(delta_plus, delta_minus)

(docs/mathematics.md §1, Breutigam & Reischuk Def. 5).  delta is non-increasing in eps, lies in
[0, 1] and equals the total-variation distance at eps = 0; eps may be any
real.  The float path evaluates C kernels (exact to ~1e-13 relative and
rounded up where a tail is bounded rather than summed); ``precision="mp"``
evaluates the independent mpmath brute force in statpriv.oracle instead.
"""
from __future__ import annotations

import math
from typing import (TYPE_CHECKING, Any, Callable, ClassVar, Dict, List, Optional, Sequence,
                    Tuple, TypeVar, Union, cast, overload)

import numpy as np
from numpy.typing import ArrayLike, NDArray

from statpriv import _core, _progress, _validate, _xprec
from statpriv.curve._queries import CurveQueries
from statpriv.curve.recipe import Recipe, factory

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes

    from statpriv.laws.pair import LogPmfs
    from statpriv.laws.pld import PrivacyLossDistribution

_Curve = TypeVar("_Curve", bound="PrivacyCurve")
# What an array-valued query takes (one real number is a float)
_Arrayish = Union[NDArray[Any], Sequence[float], Sequence[Sequence[float]]]
# The mpmath brute force: reference(eps_list, direction) -> list of mpmath.mpf
Reference = Callable[[List[float], str], List[Any]]

# The direction codes of the C kernels (csrc: SP_PLUS, SP_MINUS, SP_MAX).
_DIRECTIONS = {"plus": _core.PLUS, "minus": _core.MINUS, "max": _core.MAX}
# Arrays longer than this are evaluated in chunks of it, with a progress bar
# when the whole takes seconds (e.g. a connect-the-dots export of a noisy
# curve: 1e5 eps at ~50 us each); the values are the same, each element is
# evaluated on its own.
CHUNK = 1024
# epsilon(delta, certified=True): at most this many doubling steps up from the
# float answer (2^-50 of it doubled 120 times covers any finite eps)
CERTIFY_STEPS = 120


def _in_chunks(evaluate: Callable[[NDArray[np.float64], int], NDArray[np.float64]],
               flat: NDArray[np.float64], direction: int, what: str) -> NDArray[np.float64]:
    """evaluate(flat, direction), CHUNK elements at a time (a long array)."""
    with _progress.bar(flat.size, f"{what} at {flat.size:,} values", unit="value") as bar:
        return np.concatenate([np.asarray(evaluate(flat[i:j], direction))
                               for i, j in _progress.chunks(flat.size, CHUNK, bar)])


class PrivacyCurve(CurveQueries):
    """The privacy curve delta(eps) of one mechanism, and what follows from it.

    Get a curve from a factory -- statpriv.counting, secret_sample,
    thresholded, k_anonymity, partial_knowledge, the dp.* and shuffle.*
    mechanisms, from_log_pmfs, compose -- not from the constructor.  Its
    queries: ``delta(eps)``, ``delta_plus(eps)`` / ``delta_minus(eps)`` (each
    direction), ``log_delta(eps)`` (finite where delta underflows) and
    ``epsilon(delta)``; one number in gives a float, an array gives an array
    of its shape.  Beyond them: ``renyi(alpha)``,
    ``privacy_loss_distribution()``, ``log_pmfs()``, ``subsample(q)``,
    ``compose(times)`` and ``to_dp_accounting()``.

    Curves are immutable: ``description``, ``exact``, ``laws`` and
    ``params`` are read-only and no public attribute can be added.  A curve
    built by a public factory remembers the call (``params``) and pickles by
    repeating it: a curve is rebuilt, not its C state copied.  That call is
    the curve's value (statpriv.curve.values): ``==`` compares it (the same
    factory, equal arguments by name with the defaults filled in), every
    curve is hashable with a hash consistent with ``==`` (a curve built
    otherwise equals only itself and hashes by identity), and ``to_dict``
    writes it as JSON-safe data that ``statpriv.from_dict`` rebuilds.  In a
    notebook a curve shows its parameters and a few values
    (``_repr_html_``); ``plot`` and ``table`` draw and tabulate it.

    Examples
    --------
    >>> import statpriv
    >>> curve = statpriv.counting(1000, 0.5)
    >>> curve.description, curve.exact, curve.params
    ('counting n=1000, pi=0.5', True, {'n': 1000, 'pi': 0.5})
    >>> print(f"{curve.delta(0.1):.6e}  {curve.epsilon(1e-3):.6f}")
    1.619205e-03  0.112816
    """

    # the public factory call that built the curve (statpriv.curve.recipe)
    _recipe: Optional[Recipe] = None

    def __init__(self, core: Any, reference: Optional[Reference] = None,
                 description: str = "privacy curve", exact: bool = True, *,
                 laws: Any = None) -> None:
        """A curve of a compiled evaluator (the factories build curves so).

        Parameters
        ----------
        core : statpriv._core.CurveCore
            The C evaluator of ln delta (or any object with the same
            ``log_delta(eps, direction)`` and ``epsilon(log_target, direction)``).
        reference : callable(eps_list, direction) -> list of mpmath.mpf, optional
            The mpmath brute force for ``precision="mp"``.
        description : str
            What the curve is, for repr.
        exact : bool
            False for labelled approximations (``approx="normal"``).
        laws : optional, keyword only
            What the curve knows of its pair of laws, given at construction: a
            ``statpriv.laws.Laws`` value (discrete atoms), a lazy source, the
            noise pair of a worst-case DP curve (``statpriv.noise.DPPair``) or a
            privacy-loss distribution.  It answers ``log_pmfs()`` (where
            ``has_log_pmfs``), ``privacy_loss_distribution(h, tail, description)``
            and, where the kind has them, a closed-form ``renyi(alpha,
            direction)`` and a native ``dp_accounting_pld(h)``; None: the curve
            has none of these (delta and epsilon only).
        """
        self._core = core
        self._bind_core(core)            # one float: straight to the compiled core
        self._reference = reference
        self._description = str(description)
        self._exact = bool(exact)
        self._laws = laws

    def __setattr__(self, name: str, value: Any) -> None:
        if not name.startswith("_"):
            raise AttributeError(f"PrivacyCurve objects are immutable: cannot set {name!r}")
        object.__setattr__(self, name, value)

    @property
    def description(self) -> str:
        """What the curve is (read-only)."""
        return self._description

    @property
    def exact(self) -> bool:
        """False for labelled approximations (``approx="normal"``); read-only."""
        return self._exact

    @property
    def laws(self) -> Any:
        """What the curve knows of its pair of laws (see the class docstring), or None."""
        return self._laws

    @property
    def params(self) -> Dict[str, Any]:
        """The arguments of the public factory call that built the curve, by
        name (a new dict); empty for a curve built otherwise."""
        return {} if self._recipe is None else self._recipe.arguments()

    def __reduce__(self) -> Tuple[Callable[..., Any], Tuple[Any, ...]]:
        if self._recipe is None:
            raise TypeError(f"cannot pickle <PrivacyCurve {self.description}>: it was not built "
                            "by a public statpriv factory, so it cannot be rebuilt")
        return self._recipe.reduce()

    def __repr__(self) -> str:
        return f"<PrivacyCurve {self.description}>"

    # -- a curve is a value: its factory call (statpriv.curve.values) ------
    def _value(self) -> Tuple[Any, ...]:
        """The value of the factory call (values.value_key), computed once."""
        key: Optional[Tuple[Any, ...]] = self.__dict__.get("_value_key")
        if key is None:
            from statpriv.curve import values
            key = values.value_key(cast(Recipe, self._recipe))
            object.__setattr__(self, "_value_key", key)
        return key

    def __eq__(self, other: object) -> bool:
        """Equal parameters: the same public factory called with equal arguments
        (by name, defaults filled in; nested curves and noise compared the same
        way; 10 == 10.0 as in Python).  A curve not built by a public factory
        equals only itself."""
        if not isinstance(other, PrivacyCurve):
            return NotImplemented
        if self is other:
            return True
        if self._recipe is None or other._recipe is None:
            return False
        return self._value() == other._value()

    def __hash__(self) -> int:
        """Consistent with ==: the hash of the factory call's value (every curve
        is hashable; one not built by a public factory hashes by identity)."""
        if self._recipe is None:
            return object.__hash__(self)
        return hash(self._value())

    def to_dict(self) -> Dict[str, Any]:
        """The curve as JSON-safe data: its factory call, rebuilt by statpriv.from_dict.

        Returns
        -------
        dict
            ``{"statpriv_schema": 1, "kind": <the factory's public dotted
            name>, "args": [...], "kwargs": {...}, "then": [...]}``; the
            arguments encoded recursively (curves, noise objects and
            privacy-loss distributions as their own calls, numpy arrays as
            ``{"ndarray": [...], "dtype": ...}``, non-finite floats as
            ``{"float": "inf"}``), so that ``json.dumps(d, allow_nan=False)``
            accepts it.  The schema is statpriv.curve.values'.

        Raises
        ------
        TypeError
            The curve was not built by a public factory (it cannot be
            rebuilt; it does not pickle either).

        Examples
        --------
        >>> import json, statpriv
        >>> curve = statpriv.counting(1000, 0.3, noise=statpriv.Laplace(2.0))
        >>> d = curve.to_dict()
        >>> d["kind"], d["args"], d["kwargs"]["noise"]["kind"]
        ('counting', [1000, 0.3], 'Laplace')
        >>> again = statpriv.from_dict(json.loads(json.dumps(d, allow_nan=False)))
        >>> again == curve, again.delta(0.1) == curve.delta(0.1)
        (True, True)
        """
        from statpriv.curve import values
        if self._recipe is None:
            raise TypeError(f"cannot convert <PrivacyCurve {self.description}> to a dict: it "
                            "was not built by a public statpriv factory, so it cannot be "
                            "rebuilt")
        return values.to_dict(self)

    # -- notebooks (statpriv.curve.notebook) --------------------------------
    def plot(self, ax: Optional[Axes] = None, eps: Optional[ArrayLike] = None,
             log: bool = True) -> Axes:
        """Draw delta_plus, delta_minus and delta against eps on one axes.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Where to draw (default: a new figure's axes).
        eps : array_like, optional
            The eps values (default: 200 points from 0 to where delta
            reaches 1e-12, see statpriv.curve.notebook.default_eps).
        log : bool
            Log-scale delta axis (default).  Where some delta underflows
            float64 (below ~1e-308) the axis is ln delta instead, from
            ``log_delta`` (labelled so); delta = 0 exactly is not drawn
            (where delta is 0 at every eps, a linear axis shows the zeros
            and says so).  False: linear delta.

        Returns
        -------
        matplotlib.axes.Axes

        Raises
        ------
        ImportError
            matplotlib is not installed (``pip install ".[plot]"``).

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> import statpriv
        >>> ax = statpriv.counting(1000, 0.3).plot()
        >>> [line.get_label() for line in ax.get_lines()]
        ['δ(ε) = max(δ₊, δ₋)', 'δ₊(ε) = H_ε(P‖Q)', 'δ₋(ε) = H_ε(Q‖P)']
        """
        from statpriv.curve import notebook
        return notebook.plot(self, ax=ax, eps=eps, log=log)

    def table(self, eps: Optional[ArrayLike] = None) -> pd.DataFrame:
        """delta in each direction at each eps, as a pandas DataFrame.

        Parameters
        ----------
        eps : float or array_like, optional
            The eps values (default: 11 points from 0 to where delta reaches
            1e-12, statpriv.curve.notebook.default_eps).

        Returns
        -------
        pandas.DataFrame
            Columns eps, delta_plus, delta_minus, delta, log_delta (ln delta:
            finite where delta underflows float64), one row per eps: the
            curve's array queries of each direction (looped in C), delta
            their maximum (as curve.delta, to the bit).

        Raises
        ------
        ImportError
            pandas is not installed (``pip install pandas``).

        Examples
        --------
        >>> import statpriv
        >>> statpriv.dp.gaussian(1.0).table([0.0, 1.0]).round(6)
           eps  delta_plus  delta_minus     delta  log_delta
        0  0.0    0.382925     0.382925  0.382925  -0.959916
        1  1.0    0.126937     0.126937  0.126937  -2.064066
        """
        from statpriv.curve import notebook
        return notebook.table(self, eps)

    def _repr_html_(self) -> str:
        """The notebook view: the description, the parameters and a table of
        delta at a few eps (statpriv.curve.notebook.html)."""
        from statpriv.curve import notebook
        return notebook.html(self)

    # -- evaluation: delta, log_delta (each direction) and epsilon are the
    # compiled base's (statpriv.curve._queries.CurveQueries): one float goes to
    # the core, everything else comes here
    def _log_delta(self, eps: object, direction: str, precision: str,
                   max_terms: Optional[float] = None) -> Any:
        _validate.choice("precision", precision, ("float", "mp"))
        arr = _validate.real_array("eps", eps, allow_inf=True)
        scalar = arr.ndim == 0
        if max_terms is not None:
            if precision != "mp":
                raise ValueError("max_terms applies to precision='mp' only")
            max_terms = _validate.real("max_terms", max_terms, low=0.0, low_open=True,
                                       allow_inf=True)
        if precision == "mp":
            if self._reference is None:
                raise ValueError("this curve has no mpmath reference")
            from statpriv import oracle             # the size guard (max_terms)
            from statpriv.oracle._common import reporting
            with oracle.term_budget(max_terms), \
                    _progress.bar(None, "mpmath reference", unit="term") as bar, \
                    reporting(bar):
                values = self._reference([float(e) for e in arr.ravel()], direction)
            import mpmath
            logs = [mpmath.log(v) if v > 0 else mpmath.mpf("-inf") for v in values]
            out = np.array(logs, dtype=object).reshape(arr.shape)
            return out[()] if scalar else out
        flat = np.ascontiguousarray(arr.ravel())
        evaluate, d = self._core.log_delta, _DIRECTIONS[direction]
        out = (evaluate(flat, d) if flat.size <= CHUNK
               else _in_chunks(evaluate, flat, d, "delta")).reshape(arr.shape)
        return float(out[()]) if scalar else out

    def _delta(self, eps: object, direction: str, precision: str,
               max_terms: Optional[float] = None) -> Any:
        logs = self._log_delta(eps, direction, precision, max_terms)
        if precision == "mp":
            import mpmath
            exp = np.frompyfunc(mpmath.exp, 1, 1)
            return mpmath.exp(logs) if np.ndim(logs) == 0 else exp(logs)
        return math.exp(logs) if np.ndim(logs) == 0 else np.exp(logs)

    # -- inverse ----------------------------------------------------------
    def _epsilon(self, delta: object, direction: str) -> Union[float, NDArray[np.float64]]:
        """epsilon() of anything but one float (the validating route, arrays)."""
        _validate.choice("direction", direction, tuple(_DIRECTIONS))
        arr = _validate.real_array("delta", delta, low=0.0, high=1.0)
        scalar = arr.ndim == 0
        with np.errstate(divide="ignore"):
            log_target = np.ascontiguousarray(np.log(arr).ravel())
        evaluate, d = self._core.epsilon, _DIRECTIONS[direction]
        out = (evaluate(log_target, d) if log_target.size <= CHUNK
               else _in_chunks(evaluate, log_target, d, "epsilon")).reshape(arr.shape)
        return float(out[()]) if scalar else out

    def _epsilon_certified(self, delta: object,
                           direction: str) -> Union[float, NDArray[np.float64]]:
        """epsilon(delta, certified=True): the float answer, stepped up until the
        certified upper end of delta there is <= delta (steps from 2^-50 of
        eps, doubling; at most CERTIFY_STEPS of them)."""
        _validate.choice("direction", direction, tuple(_DIRECTIONS))
        arr = _validate.real_array("delta", delta, low=0.0, high=1.0)
        found = np.asarray(self._epsilon(arr, direction), dtype=np.float64)
        out = np.empty(arr.shape)
        for index, target in np.ndenumerate(arr):
            eps, step = float(found[index]), 0.0
            for _ in range(CERTIFY_STEPS):
                if eps == math.inf or self._certified(eps, direction, log=False)[1] <= target:
                    break
                step = max(2.0 * step, abs(eps) * 2.0 ** -50, 2.0 ** -60)
                eps = float(found[index]) + step
            else:
                raise ValueError(f"{self.description}: could not certify delta <= {target} "
                                 f"within {CERTIFY_STEPS} steps above eps = {found[index]!r}")
            out[index] = eps
        return float(out[()]) if arr.ndim == 0 else out

    def log_pmfs(self) -> "LogPmfs":
        """The discrete laws behind the curve, as statpriv.laws.LogPmfs.

        A named tuple (support_start, log_p, log_q, log_rest_p, log_rest_q):
        ln P(x), ln Q(x) on the atoms x = support_start, support_start + 1,
        ... (P: target positive/present, Q: negative/absent).  For large
        counts the arrays are a window of the laws -- the atoms within a fixed
        number of nats of the largest (statpriv.laws.windows.window) -- and
        log_rest_p, log_rest_q are ln of bounds on the mass outside it, which
        the curve adds to delta; -inf when the arrays are the whole laws.

        Available on curves of discrete laws without noise: from_log_pmfs,
        counting with iid pi and no sampling, counting with per-record pi
        (with or without Poisson sampling), secret_sample.  Other curves
        (noise added, sampling of iid records, worst-case DP) raise ValueError.

        Returns
        -------
        statpriv.laws.LogPmfs
            The named tuple above.

        Examples
        --------
        >>> import statpriv
        >>> laws = statpriv.counting(3, 0.5).log_pmfs()
        >>> laws.support_start, [round(float(v), 4) for v in laws.log_p.tolist()]
        (0, [-inf, -1.3863, -0.6931, -1.3863])
        """
        laws = self._laws
        if laws is None or not laws.has_log_pmfs:
            raise ValueError(f"{self.description}: no discrete laws are available for this "
                             "curve (noisy, sampled or continuous mechanisms)")
        return cast("LogPmfs", laws.log_pmfs())

    # -- certified enclosures (statpriv.oracle.arb) ---------------------------
    def delta_interval(self, eps: ArrayLike, direction: str = "max", *,
                       digits: Optional[int] = None) -> Tuple[Any, Any]:
        """(lower, upper): delta(eps) proven to lie between them (Arb ball arithmetic).

        The definition delta_plus(eps) = sum_x (P(x) - e^eps Q(x))_+
        (delta_minus: P and Q swapped, delta their maximum) summed in Arb
        balls, P and Q computed in Arb from the mechanism's parameters (not
        from the float kernels): a term whose sign the ball cannot decide
        adds its positive part's upper end to the upper sum only; the mass
        outside a window of atoms is bounded (a geometric series from the
        window's edge with the monotone pmf ratio) and added to the upper
        end only.  The ends are rounded outward to floats.  Needs the
        optional extra ``certified`` (python-flint).  Covered: counting with
        iid or per-record pi, unsampled, sampled with or without replacement
        (sample_size, iid pi) or Poisson-sampled, noiseless or with Laplace
        (closed-form cells), geometric (exact sums) or Gaussian noise (one
        proven sign change); secret_sample (hypergeometric laws, log-concave
        tails); from_log_pmfs (the given floats taken as exact); dp.laplace,
        dp.gaussian and dp.geometric at sensitivity 1 without sampling (the
        curve's float parameters taken as exact); dp.geometric at an integer
        sensitivity, Poisson-sampled or not (its lumps in Arb); dp.laplace and dp.gaussian
        Poisson-sampled (add/remove: the exact reduction to the unsampled
        closed form; replace-one: the crossing bracketed, proven by signs);
        dp.randomized_response (its laws from eps0 and k); compositions, exact or on
        a grid, whose parts are all discrete kinds among these (the product
        laws' own delta, not the grid's bound; the mass outside the product
        of the parts' windows by the union bound); thresholded counts
        (passive: the joint law of (b, release); active: the max over b of
        the pairs' ends); partial_knowledge(...).worst_case and
        shuffle.randomized_response (the max over every vertex's pair, N up
        to ~2000 others); k_anonymity, both curves (the others' counts in
        the two categories summed over the 2-D lattice, W(m) g_m(a), on
        windows of m and a | m, the mass off them bounded); correlated_counts
        with method="exact" (the law of the count vectors built in Arb on the
        whole lattice; one pair, or the max over every pair and its swap)
        and with method="histogram" (its curve is k_anonymity's upper curve
        at k = 1, and so is its interval); curve.subsample of the discrete
        kinds among these (the parent's window mixed, q P + (1-q) Q against
        Q; without replacement each direction its own pair) and of the
        closed forms (the exact reduction of each direction).  docs/precision.md,
        "Certified intervals".

        Parameters
        ----------
        eps : float or array_like
            Any real (+-inf allowed).
        direction : {"max", "plus", "minus"}
            delta = max(delta_plus, delta_minus), or one direction.
        digits : int, optional
            The ends as decimal strings of this many significant digits (2 to
            1000), rounded outward from the Arb ends themselves rather than
            to floats: the enclosure's own width (~1e-40 relative at 192
            bits) instead of float64's.  For reference data.

        Returns
        -------
        (float, float) or (numpy.ndarray, numpy.ndarray)
            The lower and upper ends (arrays of eps's shape for an array;
            str, or object arrays of str, with ``digits``).

        Raises
        ------
        NotImplementedError
            The curve's kind has no certified laws yet (randomized response,
            compositions with continuous or noisy parts, ...), or it is a
            labelled approximation.
        ValueError
            The sum would be too long (the estimated cost is in the message),
            or a bad eps or direction.
        ImportError
            python-flint is not installed (``pip install "statpriv[certified]"``).

        Examples
        --------
        >>> import statpriv
        >>> curve = statpriv.counting(1000, 0.5)
        >>> lower, upper = curve.delta_interval(0.01)   # delta = 0.02065555306422242041...
        >>> lower, upper
        (0.02065555306422242, 0.020655553064222423)
        >>> bool(abs(curve.delta(0.01) / lower - 1) < 1e-13)    # the float path: ~1e-16 off
        True
        """
        return self._certified(eps, direction, log=False, digits=digits)

    def log_delta_interval(self, eps: ArrayLike, direction: str = "max", *,
                           digits: Optional[int] = None) -> Tuple[Any, Any]:
        """(lower, upper): ln delta(eps) proven to lie between them (finite where
        delta underflows float64); as ``delta_interval``, whose ends' logs in
        Arb these are, rounded outward (-inf where the lower end is 0).

        Parameters
        ----------
        eps : float or array_like
            Any real (+-inf allowed).
        direction : {"max", "plus", "minus"}
            delta = max(delta_plus, delta_minus), or one direction.
        digits : int, optional
            As for ``delta_interval``: decimal strings of the ends of ln delta.

        Returns
        -------
        (float, float) or (numpy.ndarray, numpy.ndarray)
            The lower and upper ends of ln delta.

        Examples
        --------
        >>> import statpriv
        >>> lower, upper = statpriv.counting(10**6, 0.5).log_delta_interval(0.5)
        >>> f"{lower:.6f}", bool(lower < upper < lower + 1e-9)
        ('-30317.721455', True)
        """
        return self._certified(eps, direction, log=True, digits=digits)

    def _certified(self, eps: object, direction: str, log: bool,
                   digits: Optional[int] = None) -> Tuple[Any, Any]:
        _validate.choice("direction", direction, tuple(_DIRECTIONS))
        if digits is not None:
            digits = _validate.count("digits", digits, low=2, high=1000)
        arr = _validate.real_array("eps", eps, allow_inf=True)
        source = getattr(self._laws, "certified_laws", None)
        laws = source() if source is not None and self._exact else None
        if laws is None:
            kind = "a labelled approximation" if not self._exact else "this kind of curve"
            raise NotImplementedError(
                f"{self.description}: no certified interval for {kind}; covered: counting "
                "(iid or per-record pi; sample_size with or without replacement or Poisson "
                "sampling; no noise or Laplace, Geometric, Gaussian noise), secret_sample, "
                "from_log_pmfs, dp.laplace, dp.gaussian, dp.geometric (sampled too), "
                "dp.randomized_response, "
                "compositions of the discrete ones, "
                "thresholded, partial-knowledge worst cases, shuffled randomized response, "
                "k_anonymity, correlated_counts, curve.subsample of these")
        from statpriv.oracle import arb
        arb.flint()                                   # ImportError naming the extra
        flat = [float(e) for e in arr.ravel()]
        if not flat:
            empty = np.empty(arr.shape)
            return empty, empty.copy()
        logs = np.asarray(self._log_delta(arr, direction, "float"), dtype=np.float64)
        hints = logs.ravel().tolist()        # size the windows only: not part of the proof
        lower, upper = arb.enclose(laws, flat, direction, hints, log=log, digits=digits)
        if arr.ndim == 0:
            return lower[0], upper[0]
        dtype: Any = object if digits is not None else np.float64
        return (np.array(lower, dtype=dtype).reshape(arr.shape),
                np.array(upper, dtype=dtype).reshape(arr.shape))

    # -- dp-accounting conventions ----------------------------------------
    @overload
    def get_delta_for_epsilon(self, epsilon: float) -> float: ...
    @overload
    def get_delta_for_epsilon(self, epsilon: _Arrayish) -> NDArray[np.float64]: ...
    @overload
    def get_delta_for_epsilon(self, epsilon: ArrayLike) -> Union[float, NDArray[np.float64]]: ...

    def get_delta_for_epsilon(self, epsilon: ArrayLike) -> Union[float, NDArray[np.float64]]:
        """dp-accounting's name for ``delta(epsilon)`` (vectorised the same way).

        Parameters
        ----------
        epsilon : float or array of floats
            As ``eps`` of ``delta``.

        Returns
        -------
        float or numpy.ndarray
            delta(epsilon).

        Examples
        --------
        >>> import statpriv
        >>> curve = statpriv.counting(1000, 0.5)
        >>> curve.get_delta_for_epsilon(0.1) == curve.delta(0.1)
        True
        """
        _validate.real_array("epsilon", epsilon, allow_inf=True)     # errors name epsilon
        return cast(Union[float, NDArray[np.float64]], self.delta(epsilon))

    @overload
    def get_epsilon_for_delta(self, delta: float) -> float: ...
    @overload
    def get_epsilon_for_delta(self, delta: _Arrayish) -> NDArray[np.float64]: ...
    @overload
    def get_epsilon_for_delta(self, delta: ArrayLike) -> Union[float, NDArray[np.float64]]: ...

    def get_epsilon_for_delta(self, delta: ArrayLike) -> Union[float, NDArray[np.float64]]:
        """dp-accounting's name for ``epsilon(delta)`` (vectorised the same way).

        Parameters
        ----------
        delta : float in [0, 1] or array of floats
            As ``delta`` of ``epsilon``.

        Returns
        -------
        float or numpy.ndarray
            epsilon(delta).

        Examples
        --------
        >>> import statpriv
        >>> curve = statpriv.counting(1000, 0.5)
        >>> curve.get_epsilon_for_delta(1e-3) == curve.epsilon(1e-3)
        True
        """
        return self.epsilon(delta)

    @_validate.renamed(tail_mass="tail_mass_truncation")
    def to_dp_accounting(self, value_discretization_interval: float = 1e-4, *, method: str = "auto",
                         tail_mass_truncation: float = 1e-15) -> Any:
        """A pessimistic dp-accounting PrivacyLossDistribution of this curve.

        delta(eps) <= its delta(eps) <= (1 + c) delta(eps - h) + T, h =
        value_discretization_interval, c and T small (see
        statpriv.curve.export.to_dp_accounting; needs the optional extra
        ``accounting``).

        Parameters
        ----------
        value_discretization_interval : float > 0, optional
            The grid spacing h of the losses (default 1e-4).
        method : str, keyword only
            How the PLD is built (default "auto"; see
            statpriv.curve.export.to_dp_accounting).
        tail_mass_truncation : float > 0, keyword only
            The tail mass T that may be moved pessimistically (default 1e-15).

        Returns
        -------
        dp_accounting.pld.privacy_loss_distribution.PrivacyLossDistribution
            A PLD never below the curve.

        Examples
        --------
        >>> import statpriv
        >>> curve = statpriv.counting(1000, 0.5)
        >>> pld = curve.to_dp_accounting(1e-3)
        >>> bool(pld.get_delta_for_epsilon(0.1) >= curve.delta(0.1))
        True
        """
        from statpriv.curve import export
        return export.to_dp_accounting(self, value_discretization_interval,
                                       method=method,
                                       tail_mass_truncation=tail_mass_truncation)

    def total_variation(self) -> float:
        """delta(0): the total-variation distance between P and Q.

        Returns
        -------
        float
            The total-variation distance, delta(0).

        Examples
        --------
        >>> import statpriv
        >>> print(f"{statpriv.counting(1000, 0.5).total_variation():.6f}")
        0.025225
        """
        return self.delta(0.0)

    # -- accounting (the curve's laws: statpriv.laws.pld, statpriv.laws.renyi) --
    def privacy_loss_distribution(self, value_discretization_interval: Optional[float] = None, *,
                                  tail_mass_truncation: float = 1e-15,
                                  ) -> "PrivacyLossDistribution":
        """The privacy-loss distribution (statpriv.laws.pld.PrivacyLossDistribution).

        Both directions: the atoms (loss ln P(x)/Q(x), probability P(x)) and
        (ln Q(x)/P(x), Q(x)), the mass at +inf and the mass a window leaves
        out (reported as ``tail_mass``, counted in delta, never dropped), so
        that delta_plus(eps) = E_P[(1 - e^(eps - L))_+] reproduces the curve.
        Exact (extended precision from the pmfs) on every curve with discrete
        outcomes: counts without noise or with geometric noise, sampled,
        per-record, secret sample, from_log_pmfs and dp.geometric; a
        composition returns its grid PLD.  dp.gaussian and dp.laplace give a
        pessimistic discretization on the grid value_discretization_interval
        * Z (default 1e-4; losses rounded up, the upper tail beyond
        tail_mass_truncation moved to +inf).  Counts with Laplace or Gaussian
        noise raise ValueError.

        Parameters
        ----------
        value_discretization_interval : float in (0, 1], optional
            The grid spacing of a discretized PLD (default None: 1e-4); exact
            PLDs ignore it.
        tail_mass_truncation : float in (0, 0.5], keyword only
            The upper tail mass moved to +inf by a discretization (default 1e-15).

        Returns
        -------
        statpriv.laws.pld.PrivacyLossDistribution
            Both directions (``plus``, ``minus``) with ``delta(eps)``.

        Examples
        --------
        >>> import statpriv
        >>> pld = statpriv.counting(3, 0.5).privacy_loss_distribution()
        >>> [round(float(x), 4) for x in pld.plus.losses], round(pld.plus.infinity_mass, 12)
        ([-0.6931, 0.6931], 0.25)
        """
        h = 1e-4 if value_discretization_interval is None else value_discretization_interval
        h = _validate.real("value_discretization_interval", h, low=0.0, high=1.0,
                           low_open=True)    # a coarser grid moves every loss by > 1 nat
        tail = _validate.real("tail_mass_truncation", tail_mass_truncation, low=0.0, high=0.5,
                              low_open=True)
        if self._laws is None:
            raise ValueError(f"{self.description}: no privacy-loss distribution is available for "
                             "this curve (counts with Laplace or Gaussian noise, labelled "
                             "approximations)")
        pld = cast("PrivacyLossDistribution",
                   self._laws.privacy_loss_distribution(h, tail, self.description))
        if self._recipe is None:
            return pld
        # (a copy that remembers the call: its to_curve() pickles, compares
        # and converts to a dict through it)
        return cast("PrivacyLossDistribution", Recipe(
            PrivacyCurve.privacy_loss_distribution, (self, value_discretization_interval),
            {"tail_mass_truncation": tail_mass_truncation}).attach(pld))

    @overload
    def renyi(self, alpha: float, direction: str = "max") -> float: ...
    @overload
    def renyi(self, alpha: _Arrayish, direction: str = "max") -> NDArray[np.float64]: ...
    @overload
    def renyi(self, alpha: ArrayLike,
              direction: str = "max") -> Union[float, NDArray[np.float64]]: ...

    def renyi(self, alpha: ArrayLike, direction: str = "max") -> Union[float, NDArray[np.float64]]:
        """Renyi divergence D_alpha(P||Q) ("plus"), D_alpha(Q||P) ("minus") or the max.

        ``D_alpha(P||Q) = ln(sum_x P(x)^alpha Q(x)^(1 - alpha)) / (alpha - 1)
        = ln E_Q[e^(alpha L)] / (alpha - 1)`` with ``L = ln P/Q``, for alpha
        in (0, 1) and (1, inf); the KL divergence E_P[L] at alpha = 1 and
        max L at alpha = inf.  +inf where the supports differ (alpha >= 1).

        Parameters
        ----------
        alpha : float > 0 or array of floats
            One order, or an array of orders (the log moments of all orders
            are summed in one pass in C, each order's value the same as alone).
        direction : {"max", "plus", "minus"}, optional
            D_alpha(P||Q) ("plus"), D_alpha(Q||P) ("minus") or their maximum
            (default).

        Returns
        -------
        float or numpy.ndarray
            A float for one order, else an array of the shape of ``alpha``.

        Notes
        -----
        Closed forms (unit sensitivity, no sampling): dp.gaussian
        ``alpha / (2 sigma^2)``; dp.laplace(b)
        ``ln(a/(2a-1) e^((a-1)/b) + (a-1)/(2a-1) e^(-a/b)) / (a-1)`` (Mironov,
        "Renyi differential privacy", Table II); dp.geometric(g)
        ``ln((g^(1-a) + g^a) / (1+g)) / (a-1)``.  Log-space sums over the exact
        PLD otherwise (sampled dp curves: their PLD).  See statpriv.laws.renyi.

        Examples
        --------
        >>> import statpriv
        >>> statpriv.dp.gaussian(2.0).renyi(4.0)
        0.5
        """
        _validate.choice("direction", direction, ("plus", "minus", "max"))
        closed_form = getattr(self._laws, "renyi", None)
        if closed_form is not None:
            return cast(Union[float, NDArray[np.float64]], closed_form(alpha, direction))
        try:
            pld = self.privacy_loss_distribution()
        except ValueError as exc:
            raise ValueError(f"renyi(alpha={alpha!r}) needs a curve with a privacy-loss "
                             f"distribution (discrete outcomes, dp.*, compositions): "
                             f"{exc}") from None
        return pld.renyi(alpha, direction)

    # statpriv.compose, set by statpriv.accounting.composition when it is
    # imported (the curve layer imports nothing above it)
    _composer: ClassVar[Optional[Callable[..., "PrivacyCurve"]]] = None

    def compose(self, times: int = 1, **options: Any) -> "PrivacyCurve":
        """This mechanism run ``times`` times on the same data.

        The same as ``statpriv.compose(self, times=times, **options)``: the
        grid composition with its certified bracket.

        Parameters
        ----------
        times : int >= 1, optional
            How many times the mechanism runs (default 1).
        **options
            Passed on to statpriv.compose: ``epsilon_error``,
            ``delta_error``, ...

        Returns
        -------
        ComposedCurve
            The composed curve (a PrivacyCurve with ``delta_bounds`` and
            ``epsilon_bounds``).

        Examples
        --------
        >>> import statpriv
        >>> sgd = statpriv.dp.gaussian(1.0, sampling_prob=0.01)    # DP-SGD, add/remove
        >>> lower, upper = sgd.compose(1000).epsilon_bounds(1e-5)
        >>> print(f"{lower:.4f} <= eps <= {upper:.4f}")
        1.8282 <= eps <= 1.8282
        """
        composer = cast(Callable[..., "PrivacyCurve"], PrivacyCurve._composer)
        return composer(self, times=times, **options)

    @factory
    def subsample(self, sampling_prob: float, *, sampling: str = "poisson",
                  relation: Optional[str] = None) -> "PrivacyCurve":
        """This mechanism run on a random sample of the records, by its pair (P, Q).

        The pair of the sampled mechanism (Balle, Barthe & Gaboardi, "Privacy
        amplification by subsampling: tight analyses via couplings and
        divergences"; Zhu, Dong & Wang, "Optimal accounting of differential
        privacy via characteristic function"), q = sampling_prob:

        * ``sampling="poisson"`` (each record kept with probability q),
          relation add/remove: P is the release with the target's record in,
          Q without; the sampled pair is (q P + (1-q) Q, Q), so
          delta_plus(eps) = q delta_plus(eps'), e^eps' = 1 + (e^eps - 1)/q,
          and delta_minus(eps) = c delta_minus(eps''), c = 1 - (1-q) e^eps,
          e^eps'' = q e^eps / c (0 from eps = -ln(1-q) on): exact, from this
          curve's own delta (dp-accounting's subsampled PLDs are these pairs).
        * ``sampling="without_replacement"`` (a q fraction of the records,
          drawn without replacement), relation replace-one: P and Q are the
          releases with the target's value and with another; each direction
          is dominated by its own pair, (q P + (1-q) Q, Q) and (q Q + (1-q)
          P, P): delta_plus(eps) = q delta_plus(eps'), delta_minus(eps) = q
          delta_minus(eps') -- the tight bound (the sample keeps the others'
          records fixed in the worst case).

        The other two combinations have no pair derived from (P, Q) alone
        (Poisson sampling under replace-one needs the release without the
        record; sampling a fixed fraction under add/remove changes the
        sample size) and raise ValueError.  dp.gaussian / dp.laplace /
        dp.geometric sampled by Poisson are their ``sampling_prob=`` curves.

        Parameters
        ----------
        sampling_prob : float in [0, 1]
            q (1: the curve itself; 0: nothing is released).
        sampling : {"poisson", "without_replacement"}, keyword only
        relation : {"add_remove", "replace_one"} or None, keyword only
            The neighbouring relation, implied by ``sampling`` when None;
            given, it must be the one that goes with it.

        Returns
        -------
        PrivacyCurve
            Its delta from this curve's compiled evaluator (a C reduction,
            csrc/poisson_sampling.h); exact laws where this curve has
            discrete ones (the privacy-loss distribution, Renyi
            divergences), else none (known by its delta); ``precision="mp"``
            applies the same reduction to this curve's mpmath reference.

        Examples
        --------
        >>> import statpriv
        >>> rr = statpriv.dp.randomized_response(1.0)
        >>> sampled = rr.subsample(0.1, sampling="without_replacement")
        >>> print(f"{sampled.delta(0.05):.10f}")   # 0.1 delta(ln(1 + (e^0.05 - 1)/0.1))
        0.0324227942
        """
        q = _validate.real("sampling_prob", sampling_prob, low=0.0, high=1.0)
        sampling = _validate.choice("sampling", sampling, ("poisson", "without_replacement"))
        natural = "add_remove" if sampling == "poisson" else "replace_one"
        if relation is not None:
            relation = _validate.choice("relation", relation, ("add_remove", "replace_one"))
            if relation != natural:
                raise ValueError(
                    f"sampling={sampling!r} goes with relation={natural!r}, got "
                    f"relation={relation!r}: "
                    + ("Poisson sampling under replace-one needs the release without the "
                       "record, which the pair (P, Q) does not give"
                       if sampling == "poisson" else
                       "a fixed fraction sampled under add/remove changes the sample size"))
        if not isinstance(self._core, _core.CurveCore):
            raise ValueError(f"{self.description}: subsample needs a curve with a compiled "
                             "evaluator (not a privacy-loss distribution's grid)")
        if q == 1.0:
            return self
        import mpmath
        with mpmath.workdps(40):
            l1g_hi, l1g_lo = _xprec.dd(mpmath.log1p(-mpmath.mpf(q)))
        wor = sampling == "without_replacement"
        core = _core.SampledShiftCurveCore(self._core, q, l1g_hi, l1g_lo, without_replacement=wor)
        inner = self._core.positive
        plus = (inner >> _core.PLUS) & 1 if q > 0.0 else 0
        minus = (inner >> _core.MINUS) & 1 if wor and q > 0.0 else 0
        core.positive = (plus << _core.PLUS) | (minus << _core.MINUS) | ((plus | minus) << _core.MAX)
        source = getattr(self._laws, "subsample", None)
        laws = None if source is None else source(q, sampling, core)
        # laws with exact log ratios (randomized response, from_log_pmfs):
        # the sampled pair's own atoms, its ratios formed from the parent's
        # exact ones -- the reduction's change of eps rounds eps' (an ulp of
        # it moves delta by 1e-9 relative next to a zero point)
        exact = getattr(laws, "exact_core", None)
        exact_core = None if exact is None else exact()
        if exact_core is not None:
            core = exact_core
        parent = getattr(self._laws, "certified_laws", None)
        if laws is not None and parent is not None:
            laws = laws.with_certified(_subsampled_certified(parent, q, sampling))
        reference = (None if self._reference is None
                     else _subsampled_reference(self._reference, q, wor))
        return PrivacyCurve(core, reference, f"{self.description}, subsampled q={q} ({sampling})",
                            self._exact, laws=laws)

    def _with_recipe(self: _Curve, recipe: Recipe) -> _Curve:
        """A fresh copy of this curve that remembers ``recipe`` (statpriv.curve.recipe)."""
        twin = type(self).__new__(type(self))
        twin.__dict__.update(self.__dict__)
        twin.__dict__.pop("_value_key", None)      # the value of the other call
        twin._bind_core(self._core)
        object.__setattr__(twin, "_recipe", recipe)
        return twin


def _subsampled_certified(parent: Callable[[], Any], q: float,
                          sampling: str) -> Callable[[], Any]:
    """() -> the Arb laws of a subsampled curve (statpriv.oracle.arb.subsampled)
    from the parent's certified_laws (None where either has none)."""
    def certified() -> Any:
        from statpriv.oracle import arb
        inner = parent()
        return None if inner is None else arb.subsampled(inner, q, sampling)
    return certified


def _subsampled_reference(reference: Reference, q: float, without_replacement: bool) -> Reference:
    """The mpmath reference of a subsampled curve (PrivacyCurve.subsample):
    the reduction of the base curve's reference, in mpmath."""
    def sampled(eps_list: List[float], direction: str) -> List[Any]:
        import mpmath
        with mpmath.workdps(60):
            qq = mpmath.mpf(q)

            def forward(e: Any,
                        d: str) -> Any:             # H_e(q A + (1-q) B || B), H_e(A || B) = base d
                c = mpmath.exp(e) - 1 + qq
                if c <= 0:
                    return -mpmath.expm1(e)
                if qq == 0:
                    return mpmath.mpf(0)
                return qq * reference([mpmath.log(c / qq)], d)[0]

            def reverse(e: Any) -> Any:                # H_e(B || q A + (1-q) B), base "minus"
                c = 1 - (1 - qq) * mpmath.exp(e)
                if c <= 0 or qq == 0:
                    return max(c, mpmath.mpf(0))      # q = 0: A = B, H = (1 - e^e)_+
                return c * reference([e + mpmath.log(qq) - mpmath.log(c)], "minus")[0]

            def one(e: Any, d: str) -> Any:
                e = mpmath.mpf(e)
                if without_replacement:
                    return forward(e, d)
                return forward(e, "plus") if d == "plus" else reverse(e)

            out = []
            for e in eps_list:
                values = [one(e, d) for d in (("plus", "minus") if direction == "max"
                                              else (direction,))]
                out.append(max(values))
            return out
    return sampled

