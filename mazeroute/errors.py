"""The one exception type that reaches users: bad input, reported in one line."""

from __future__ import annotations

from pathlib import Path


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
        return ": ".join([*parts, self.message])

    def with_file(self, file: str | Path) -> InputError:
        """The same error, attributed to ``file`` when it names none yet."""
        if self.file is not None:
            return self
        return InputError(self.message, file=file, field=self.field)


class EngineUnavailable(Exception):
    """A backend or strategy that this machine cannot run (e.g. ``gpu`` without CuPy)."""
