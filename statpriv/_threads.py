"""One call run in a second thread, for work that releases the GIL.

The compiled kernels (the curves' sums, connect-the-dots, the tilted sums)
and scipy.fft's transforms run without the GIL, so two independent pieces
of one query -- the two directions of an asymmetric curve -- can use two
cores.  A thread per call (no pool kept between calls: no global state);
the caller gets the value or the exception back when it asks."""
from __future__ import annotations

import threading
from typing import Any, Callable, Dict

__all__ = ["in_thread"]


def in_thread(fn: Callable[..., Any], *args: Any) -> Callable[[], Any]:
    """fn(*args) started in a new thread; the returned function waits for it
    and gives its value (or raises its exception)."""
    box: Dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = fn(*args)
        except BaseException as err:        # noqa: BLE001 - re-raised by result()
            box["error"] = err
    thread = threading.Thread(target=run, name="statpriv-second", daemon=True)
    thread.start()

    def result() -> Any:
        thread.join()
        if "error" in box:
            raise box["error"]
        return box["value"]
    return result
