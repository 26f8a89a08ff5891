"""The one exception type that reaches users: bad input, reported in one line."""

from __future__ import annotations

import reprlib
from pathlib import Path

#: Most characters of a user's value that a message quotes.
QUOTE_LIMIT = 80


class _Repr(reprlib.Repr):
    """``repr`` that stops early: work and text stay small however big the value."""

    def __init__(self):
        super().__init__()
        self.maxlevel = 3
        self.maxlist = self.maxtuple = self.maxdict = self.maxset = 8
        self.maxstring = self.maxother = QUOTE_LIMIT + 8
        self.maxlong = 40

    def repr_int(self, x, level):
        # repr() of an int past 4300 digits raises, and its cost grows with the digits
        if x.bit_length() > 256:
            return f"<an integer of {x.bit_length() * 30103 // 100000 + 1} digits>"
        return super().repr_int(x, level)


_repr = _Repr()


def quote(value, limit: int = QUOTE_LIMIT) -> str:
    """``repr(value)`` cut to about ``limit`` characters, for an error message.

    Control and format characters come out escaped (as ``repr`` writes them), so a
    message stays one printable line; a long value ends in ``...`` and its size.

    Examples
    --------
    >>> quote("clk")
    "'clk'"
    >>> quote("x" * 1000, limit=10)
    "'xxxxxxxxx... (1000 characters)"
    >>> quote("a\\u202eb")
    "'a\\\\u202eb'"
    >>> quote(list(range(1000)))
    '[0, 1, 2, 3, 4, 5, 6, 7, ...] (1000 items)'
    """
    if isinstance(value, str):
        text = repr(value[:limit + 1])
        if len(value) <= limit and len(text) <= limit + 2:
            return text
        return f"{text[:limit]}... ({len(value)} characters)"
    try:
        text = _repr.repr(value)
    except Exception:         # a value whose repr fails still gets a message
        text = f"<{type(value).__name__}>"
    cut = len(text) > limit
    if cut:
        text = text[:limit] + "..."
    if (cut or "..." in text) and isinstance(value, (list, tuple, dict, set, frozenset)):
        text += f" ({len(value)} items)"
    return text


def interrupt_behind(e: BaseException | None) -> KeyboardInterrupt | None:
    """The Ctrl-C or SIGTERM behind ``e``, if any: a signal that lands while compiled
    code calls back into Python (Numba loading a cached function) surfaces as a
    ``SystemError`` whose cause is the interrupt.

    >>> try:
    ...     try:
    ...         raise KeyboardInterrupt()
    ...     except KeyboardInterrupt as k:
    ...         raise SystemError("returned a result with an exception set") from k
    ... except SystemError as e:
    ...     type(interrupt_behind(e)).__name__, interrupt_behind(ValueError())
    ('KeyboardInterrupt', None)
    """
    seen = set()
    while e is not None and id(e) not in seen:
        if isinstance(e, KeyboardInterrupt):
            return e
        seen.add(id(e))
        e = e.__cause__ or e.__context__
    return None


def reraise_interrupt(e: BaseException) -> None:
    """Raise the interrupt behind ``e`` (:func:`interrupt_behind`), if there is one: a
    handler that turns any error into a report (a batch's row, a benchmark's note) calls
    it first, so that Ctrl-C stops the run instead of becoming a failed layout."""
    behind = interrupt_behind(e)
    if behind is not None:
        raise behind from None


class InputError(Exception):
    """A layout, netlist or option that mazeroute cannot use.

    The message always names the file (when there is one) and the offending
    field, so the CLI can print it as a single line and exit with status 2.
    A file name that is not printable text is shown escaped.

    Parameters
    ----------
    message : str
        What is wrong, without the file or field.
    file : str or Path, optional
        The file at fault, if any.
    field : str, optional
        The field or option at fault (``width``, ``nets[2].pins``, ``--scale``), if any.

    Examples
    --------
    >>> str(InputError("width must be an integer >= 1, got -3", file="a.yaml", field="width"))
    'a.yaml: width: width must be an integer >= 1, got -3'
    """

    def __init__(self, message: str, *, file: str | Path | None = None, field: str | None = None):
        self.message = message
        self.file = None if file is None else str(file)
        self.field = field
        super().__init__(self.__str__())

    def __str__(self) -> str:
        file = self.file
        if file is not None and not file.isprintable():
            file = quote(file, 400)
        parts = [p for p in (file, self.field) if p]
        return ": ".join([*parts, self.message])

    def with_file(self, file: str | Path) -> InputError:
        """The same error, attributed to ``file`` when it names none yet."""
        if self.file is not None:
            return self
        return InputError(self.message, file=file, field=self.field)


class EngineUnavailable(Exception):
    """A backend or strategy that this machine cannot run (e.g. ``gpu`` without CuPy)."""
