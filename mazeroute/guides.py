"""Route guides in the ISPD 2018 / OpenROAD guide format, written and read back.

A guide file lists, for each net, the rectangles (in DEF database units) and layers its
wires may use::

    net_a
    (
    51300 102600 57000 108300 metal1
    51300 102600 57000 114000 metal2
    )

A net's name stands alone on its line, ``(`` and ``)`` on theirs, and each line between
them is ``x0 y0 x1 y1 LAYER`` with ``x0 < x1`` and ``y0 < y1``. OpenROAD's
``write_guides`` and its detailed router use this format, as the ISPD 2018 and 2019
detailed-routing contests did.

:func:`read_guides` is strict: a file that does not keep to the format is refused with
one line naming the file, the line number and what is wrong.
"""

from __future__ import annotations

import re
from pathlib import Path

from .errors import InputError, quote
from .io import atomic_path
from .readers.text import line_error, read_text

Guide = tuple[int, int, int, int, str]
"""``(x0, y0, x1, y1, layer)``: one guide rectangle, in DBU, on a layer named as in LEF."""

#: An integer as the format writes it: ASCII digits, an optional minus sign, bounded.
_INT = re.compile(r"-?[0-9]{1,30}")


def _token_ok(text: str) -> bool:
    """Whether ``text`` can stand as a net or layer name on a guide line."""
    return bool(text) and text not in ("(", ")") and text.isprintable() \
        and not any(c.isspace() for c in text)


def write_guides(path: str | Path, guides: dict[str, list[Guide]]) -> None:
    """Write ``guides`` to ``path`` in the guide format, nets in the dict's order.

    The file is written beside its final name and renamed onto it, so a reader never
    sees half of it.

    Parameters
    ----------
    path : str or Path
        The guide file to write (its folder is made if missing).
    guides : dict of str to list of (int, int, int, int, str)
        Each net's rectangles ``(x0, y0, x1, y1, layer)`` in DBU.

    Raises
    ------
    InputError
        A net or layer name that the format cannot hold (empty, with white space, or a
        lone parenthesis), or a rectangle that is not ``x0 < x1`` and ``y0 < y1``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.guide"
    >>> write_guides(p, {"n1": [(0, 0, 10, 20, "metal2")]})
    >>> print(p.read_text(), end="")
    n1
    (
    0 0 10 20 metal2
    )
    """
    lines: list[str] = []
    for net, rects in guides.items():
        if not _token_ok(net):
            raise InputError(f"a net name the guide format cannot hold: {quote(net)}",
                             file=path, field="net")
        lines += [net, "("]
        for rect in rects:
            x0, y0, x1, y1, layer = rect
            if not _token_ok(layer):
                raise InputError(f"a layer name the guide format cannot hold: "
                                 f"{quote(layer)}", file=path, field=f"net {net}")
            if not (x0 < x1 and y0 < y1):
                raise InputError(f"an empty rectangle {rect}", file=path,
                                 field=f"net {net}")
            lines.append(f"{int(x0)} {int(y0)} {int(x1)} {int(y1)} {layer}")
        lines.append(")")
    with atomic_path(path) as tmp:
        tmp.write_text("".join(s + "\n" for s in lines), encoding="utf-8")


def _rect(words: list[str], path, number: int) -> Guide:
    """One ``x0 y0 x1 y1 LAYER`` line, checked."""
    if len(words) == 4 and all(_INT.fullmatch(w) for w in words):
        raise line_error("a rectangle without its layer name", path, number)
    if len(words) != 5:
        raise line_error(f"expected 'x0 y0 x1 y1 LAYER', got {len(words)} fields",
                         path, number)
    for w in words[:4]:
        if not _INT.fullmatch(w):
            raise line_error(f"{quote(w, 40)} is not an integer", path, number)
    x0, y0, x1, y1 = (int(w) for w in words[:4])
    if not (x0 < x1 and y0 < y1):
        raise line_error(f"an empty rectangle ({x0} {y0} {x1} {y1}): needs x0 < x1 and "
                         "y0 < y1", path, number)
    return x0, y0, x1, y1, words[4]


def read_guides(path: str | Path) -> dict[str, list[Guide]]:
    """Read a guide file: each net's rectangles, nets in the file's order.

    Parameters
    ----------
    path : str or Path
        A guide file (OpenROAD's ``write_guides``, a contest's ``.guide``).

    Returns
    -------
    dict of str to list of (int, int, int, int, str)
        Each net's rectangles ``(x0, y0, x1, y1, layer)`` in DBU, in the file's order.

    Raises
    ------
    InputError
        One line naming the file, the line and the fault: an unbalanced parenthesis, a
        rectangle outside a net, a number that is not an integer, a missing layer name,
        an empty rectangle, a net listed twice, or a file that is not text.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.guide"
    >>> _ = p.write_text("n1\\n(\\n0 0 10 20 metal2\\n)\\n")
    >>> read_guides(p)
    {'n1': [(0, 0, 10, 20, 'metal2')]}
    >>> _ = p.write_text("n1\\n(\\n0 0 10 20\\n)\\n")
    >>> read_guides(p)
    Traceback (most recent call last):
    ...
    mazeroute.errors.InputError: ...: line 3: a rectangle without its layer name
    """
    text = read_text(path)
    guides: dict[str, list[Guide]] = {}
    first_seen: dict[str, int] = {}
    net: str | None = None           # the net whose name was read
    opened = 0                       # the line of the open '(' (0: none)
    for number, line in enumerate(text.splitlines(), start=1):
        words = line.split()
        if not words:
            continue
        if opened:
            if words == [")"]:
                opened, net = 0, None
            elif "(" in words:
                raise line_error(f"'(' inside net {quote(net)}, whose '(' on line "
                                 f"{opened} is not closed", path, number)
            else:
                guides[net].append(_rect(words, path, number))
            continue
        if net is not None:
            if words != ["("]:
                raise line_error(f"expected '(' after net name {quote(net)}, got "
                                 f"{quote(line.strip(), 40)}", path, number)
            opened = number
            continue
        if words == [")"]:
            raise line_error("')' without a matching '('", path, number)
        if words == ["("]:
            raise line_error("'(' without a net name before it", path, number)
        if len(words) != 1:
            raise line_error(f"expected a net name, got {quote(line.strip(), 40)} (a "
                             "rectangle outside a net's parentheses?)", path, number)
        net = words[0]
        if net in first_seen:
            raise line_error(f"net {quote(net)} is listed twice (first on line "
                             f"{first_seen[net]})", path, number)
        first_seen[net] = number
        guides[net] = []
    if opened:
        raise line_error(f"the file ends inside net {quote(net)}: its '(' is never closed",
                         path, opened)
    if net is not None:
        raise line_error(f"the file ends after net name {quote(net)}, without its '('",
                         path, first_seen[net])
    return guides


__all__ = ["Guide", "write_guides", "read_guides"]
