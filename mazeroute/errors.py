"""The one exception type that reaches users: bad input, reported in one line."""

from __future__ import annotations

import reprlib
from pathlib import Path

#: Longest quoted value in a message: a hostile file's values must not flood a terminal.
QUOTE_LIMIT = 80
#: Longest message: the quoted values, the file name and the field together.
MESSAGE_LIMIT = 300

_repr = reprlib.Repr()
_repr.maxstring = _repr.maxother = QUOTE_LIMIT
_repr.maxlist = _repr.maxtuple = _repr.maxdict = _repr.maxset = 6
_repr.maxlevel = 3


def quote(value: object, limit: int = QUOTE_LIMIT) -> str:
    """``repr(value)`` cut to ``limit`` characters, never expanding more of ``value`` than
    it shows (a YAML alias bomb is a small file of a huge value).

    >>> len(quote("x" * 10**6)) <= 80, quote([1, 2]), quote(list(range(10**6)))
    (True, '[1, 2]', '[0, 1, 2, 3, 4, 5, ...]')
    """
    text = _repr.repr(value)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _one_line(text: str, limit: int = MESSAGE_LIMIT) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


class InputError(Exception):
    """A layout, netlist or option that mazeroute cannot use.

    The message always names the file (when there is one) and the offending
    field, so the CLI can print it as a single line and exit with status 2.

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
        parts = [p for p in (self.file, self.field) if p]
        return _one_line(": ".join([*parts, self.message]))

    def with_file(self, file: str | Path) -> InputError:
        """The same error, attributed to ``file`` when it names none yet."""
        if self.file is not None:
            return self
        return InputError(self.message, file=file, field=self.field)


class EngineUnavailable(Exception):
    """A backend or strategy that this machine cannot run (e.g. ``gpu`` without CuPy)."""
