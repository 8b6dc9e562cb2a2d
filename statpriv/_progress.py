"""Progress bars for the calls that can still take seconds: one helper, used
by every such call (the per-record convolution, the partial-knowledge
bracket and epsilon search, compose, the connect-the-dots export, the
Gaussian-kernel empirical deltas, the callable leave-one-out, the figures).

``bar(total, desc)`` is a context manager that yields an object with
``update(n)`` (n units of work done, out of ``total``) or None when no bar
can be wanted.  The decision:

* ``seconds`` (an estimate of the whole call's cost, when the call has a
  calibrated one): below SECONDS no bar at all (None: a C loop then gets no
  callback, the fast path is untouched); above, the bar is shown at once.
* no estimate: the bar appears once DELAY seconds have passed and the
  elapsed time, projected over ``total`` from the work reported so far,
  exceeds SECONDS (``total`` None: once SECONDS have passed; tqdm then
  counts without a percentage).  Before that tqdm is not even imported.
* ``show=True`` / ``show=False`` forces it on (even off a terminal) / off.

The bar is tqdm.auto's with ``disable=None`` (off when stderr is not a
terminal) and ``leave=False`` (erased when done).  A C loop reports through
statpriv._core's callback (``progress=`` of binomial_sum_window) every
``step(total)`` units; a KeyboardInterrupt raised there abandons the work.
Nothing here is global mutable state: the thresholds are constants (tests
monkeypatch them).
"""
from __future__ import annotations

import contextlib
import time
from typing import Any, Dict, Iterator, Optional, Tuple

__all__ = ["SECONDS", "DELAY", "STEPS", "bar", "chunks", "step"]

# Show a bar for a call expected to take more than this (seconds).
SECONDS = 3.0
# Without a cost estimate: decide after this long, from the projected total.
DELAY = 1.0
# A C loop reports about this many times over its whole work.
STEPS = 200


def chunks(size: int, chunk: int, progress: Optional[_Bar]) -> Iterator[Tuple[int, int]]:
    """(start, stop) of the pieces of range(size), ``chunk`` long, for a loop
    that evaluates element-wise work piece by piece; each piece is reported
    to ``progress`` (a bar, or None) once the loop asks for the next one."""
    for start in range(0, size, chunk):
        stop = min(size, start + chunk)
        yield start, stop
        if progress is not None:
            progress.update(stop - start)


def step(total: float) -> float:
    """The work between two reports of a C loop (``step=`` of its wrapper)."""
    return max(float(total) / STEPS, 1.0)


class _Bar:
    """update(n) adds n units of work; the tqdm bar is created on the first
    update that finds the call long enough (at once if ``now``)."""

    __slots__ = ("total", "kwargs", "start", "done", "tqdm", "now")
    total: Optional[float]
    kwargs: Dict[str, Any]
    start: float
    done: float
    tqdm: Any
    now: bool

    def __init__(self, total: Optional[float], now: bool, kwargs: Dict[str, Any]) -> None:
        self.total = None if total is None else float(total)
        self.now, self.kwargs = now, kwargs
        self.start, self.done, self.tqdm = time.perf_counter(), 0.0, None
        if now:
            self._open()

    def _open(self) -> None:
        from tqdm.auto import tqdm       # imported only for a long call
        self.tqdm = tqdm(total=self.total, initial=self.done, **self.kwargs)

    def update(self, n: float = 1) -> None:
        self.done += n
        if self.tqdm is not None:
            self.tqdm.update(n)
            return
        elapsed = time.perf_counter() - self.start
        if self.total is None:
            if elapsed >= SECONDS:
                self._open()
        elif elapsed >= DELAY and elapsed * self.total >= SECONDS * self.done:
            self._open()

    def close(self) -> None:
        if self.tqdm is not None:
            self.tqdm.close()


@contextlib.contextmanager
def bar(total: Optional[float], desc: str, *, unit: str = "it", unit_scale: bool = False,
        seconds: Optional[float] = None, show: Optional[bool] = None) -> Iterator[Optional[_Bar]]:
    """A progress bar over ``total`` units of work (None: unknown; module
    docstring): yields an object with update(n), or None when no bar can be
    wanted."""
    if show is False or (show is None and seconds is not None and seconds < SECONDS):
        yield None
        return
    kwargs = dict(desc=desc, unit=unit, unit_scale=unit_scale, leave=False,
                  disable=None if show is None else False)
    progress = _Bar(total, show is True or seconds is not None, kwargs)
    try:
        yield progress
    finally:
        progress.close()
