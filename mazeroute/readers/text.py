"""Reading a user's input file, bounded; and the small pieces the line formats share.

:func:`read_text` is the one way any input file is read (a layout, a netlist, a puzzle, a
map, a scenario, a routes file, a summary): only a regular file of UTF-8 text, at most
:data:`~mazeroute.limits.MAX_INPUT_BYTES`, so that nothing read can block (a FIFO with no
writer) or grow without bound (a device). :func:`regular_input` refuses the same special
files in the same words before a batch walks its inputs.

Examples
--------
>>> read_text("/dev/null")
Traceback (most recent call last):
...
mazeroute.errors.InputError: /dev/null: is a character device, not a regular file
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from .. import limits
from ..errors import InputError, quote


def read_text(path: str | os.PathLike, head: int | None = None) -> str:
    """The text of a user's input file.

    Parameters
    ----------
    path : str or path-like
        The file. Anything but a regular file (a folder, FIFO, socket or device, a
        broken link) is refused at once: nothing here can block.
    head : int, optional
        Read only this many bytes from the start (for recognising a format), dropping a
        line cut in two and any bytes that are not UTF-8; the size bound does not apply.

    Returns
    -------
    str
        The text as it is in the file (a byte-order mark included: formats differ on it).

    Raises
    ------
    InputError
        Naming the file: missing, not a regular file, larger than
        :data:`~mazeroute.limits.MAX_INPUT_BYTES`, binary (a NUL byte), not UTF-8.
    """
    whole = head is None
    try:
        st = os.stat(path)
    except FileNotFoundError:
        broken = os.path.islink(path)
        raise InputError("is a broken symbolic link" if broken else "no such file",
                         file=path) from None
    except (OSError, ValueError) as e:
        raise InputError(f"cannot read: {_reason(e)}", file=path) from None
    _regular(st, path, whole)
    try:
        # O_NONBLOCK: should the path become a FIFO after the stat, opening it still
        # returns at once, and the fstat below refuses it
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        raise InputError(f"cannot read: {_reason(e)}", file=path) from None
    cap = limits.MAX_INPUT_BYTES if whole else head
    try:
        with os.fdopen(fd, "rb") as fh:
            _regular(os.fstat(fh.fileno()), path, whole)
            data = fh.read(cap + 1)
    except OSError as e:
        raise InputError(f"cannot read: {_reason(e)}", file=path) from None
    if len(data) > cap:
        if whole:
            _too_large(path)
        data = data[:data.rfind(b"\n") + 1] or data[:cap]
    if b"\0" in data:
        raise InputError("is a binary file, not text", file=path)
    try:
        return data.decode("utf-8", errors="strict" if whole else "replace")
    except UnicodeDecodeError as e:
        raise InputError(f"not UTF-8 text (bad byte at offset {e.start})", file=path) from None


def regular_input(path: str | Path) -> None:
    """Refuse a FIFO, a device or a socket (reading one may never end), or a broken
    link, in :func:`read_text`'s words, without reading anything.

    Missing files and folders pass: the loader that takes them names them.

    Raises
    ------
    InputError
        Naming the file and what it is.
    """
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        if os.path.lexists(path):
            raise InputError("is a broken symbolic link", file=path) from None
        return
    except (OSError, ValueError) as e:
        raise InputError(f"cannot read: {_reason(e)}", file=path) from None
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise InputError(f"is {_kind(mode)}, not a regular file", file=path)


def _regular(st: os.stat_result, path, whole: bool) -> None:
    mode = st.st_mode
    if stat.S_ISREG(mode):
        if whole and st.st_size > limits.MAX_INPUT_BYTES:
            _too_large(path)
        return
    if stat.S_ISDIR(mode):
        raise InputError("is a directory, not a layout file", file=path)
    raise InputError(f"is {_kind(mode)}, not a regular file", file=path)


def _kind(mode: int) -> str:
    return ("a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode)
            else "a character device" if stat.S_ISCHR(mode)
            else "a block device" if stat.S_ISBLK(mode) else "not a file")


def _too_large(path) -> None:
    raise InputError(f"is larger than the {limits.MAX_INPUT_BYTES / 2**20:g} MiB an input "
                     "file may be", file=path)


def _reason(e: BaseException) -> str:
    return getattr(e, "strerror", None) or quote(str(e))


# -- pieces of the line formats (numberlink, ADC, Moving AI, scenarios) ------------------
def stem_name(file, suffix: int = 0) -> str:
    """A layout name from the file's name, for formats that have no name field: its
    stem with characters that are not printable as ``_``, cut to leave ``suffix``
    characters (a puzzle's number) within :data:`~mazeroute.limits.MAX_NAME` (the user
    cannot name the layout otherwise, so the file name must never make it invalid)."""
    stem = "".join(c if c.isprintable() else "_" for c in Path(str(file)).stem) or "layout"
    return stem[:limits.MAX_NAME - suffix]


def line_error(message: str, file, line: int | None) -> InputError:
    """An :class:`InputError` naming ``file`` and its ``line`` (none when ``None``)."""
    return InputError(message, file=file, field=None if line is None else f"line {line}")


def number(digits: str, file, line: int) -> int:
    """A number of a puzzle file: at most :data:`~mazeroute.limits.MAX_DIGITS` digits (as
    for a layout's integers), else an error."""
    if len(digits) > limits.MAX_DIGITS:
        raise line_error(f"a number of {len(digits)} digits is too large", file, line)
    return int(digits)


def excerpt(s: str, width: int = 40) -> str:
    """A quoted, shortened excerpt of a line for an error message."""
    return repr(s if len(s) <= width else s[:width] + "...")
