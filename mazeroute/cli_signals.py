"""How the command line stops: SIGTERM and Ctrl-C alike, and never inside the compiler.

:func:`sigterm_as_interrupt` turns SIGTERM into :class:`Terminated` (a
:class:`KeyboardInterrupt`, so every cleanup that Ctrl-C runs runs for it too) and notes
each signal in :data:`SIGNALLED`, so that the command's exit status says it was stopped
even when Python had to swallow the exception.

Examples
--------
>>> with sigterm_as_interrupt():
...     pass
>>> issubclass(Terminated, KeyboardInterrupt)
True
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where Ctrl-C raises :class:`KeyboardInterrupt`, so both clean up."""


#: SIGTERMs and Ctrl-Cs received while a command ran: an exception raised from a signal
#: handler can be swallowed (Python ignores exceptions raised in some callbacks), and
#: then the command finishes; its exit status still says it was interrupted.
SIGNALLED: list[int] = []


def deferred(signum: int) -> bool:
    """Whether a signal that lands inside Numba's compiler (this thread holds its lock:
    a function compiled, or loaded from its cache, at its first call) is put off until
    the compiler is done, then sent again. Raised in there, the interrupt can land in a
    callback that LLVM calls (one that hands it the cached machine code), which Python
    must ignore, and the code then run is garbage: a segmentation fault (as an interrupt
    of a negotiation's first iterations on a busy host can show)."""
    lock = getattr(sys.modules.get("numba.core.compiler_lock"), "global_compiler_lock", None)
    if lock is None or not lock.is_locked():
        return False

    def again():
        with lock:                  # blocks until the main thread's compile is done
            pass
        os.kill(os.getpid(), signum)

    threading.Thread(target=again, daemon=True).start()
    return True


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """Turn SIGTERM (``timeout``, CI cancellation) into :class:`Terminated` meanwhile,
    note every SIGTERM and Ctrl-C in :data:`SIGNALLED`, and keep quiet about an
    interrupt that Python had to swallow (raised inside a callback of compiled code):
    :func:`mazeroute.cli.main` reports it once the command has returned."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def raise_terminated(signum, frame):
        SIGNALLED.append(signum)
        if not deferred(signum):
            raise Terminated()

    def raise_interrupt(signum, frame):
        SIGNALLED.append(signum)
        if not deferred(signum):
            raise KeyboardInterrupt()

    def unraisable(u):
        if not isinstance(u.exc_value, KeyboardInterrupt):
            hook(u)

    hook = sys.unraisablehook
    old = signal.signal(signal.SIGTERM, raise_terminated)
    old_int = signal.signal(signal.SIGINT, raise_interrupt)
    sys.unraisablehook = unraisable
    try:
        yield
    finally:
        sys.unraisablehook = hook
        signal.signal(signal.SIGTERM, old)
        signal.signal(signal.SIGINT, old_int)
