"""Moving AI maps (``.map``): a grid of characters under an optional ``type``/``height``/
``width``/``map`` header, without nets."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..errors import InputError
from ..layout import Layout
from ..limits import check_size
from .text import excerpt as _show
from .text import line_error as _err
from .text import read_text

#: The cell characters of a Moving AI map (``. G S`` passable; ``@ O T W`` blocked).
MOVINGAI_CHARS = frozenset(".GS@OTW")


def movingai_rows(text: str, path: str | Path) -> tuple[dict[str, str], list[tuple[int, str]]]:
    r"""A Moving AI map's text split up: its header (``type``, ``height``, ``width``, each
    word to its value) and its non-blank map rows with their line numbers (trailing
    whitespace off); an :class:`InputError` naming ``path`` when a header has no ``map``
    line or there are no rows.

    One statement of the format, so that the reader that checks a file and the one
    that builds its grid see the same rows: a byte-order mark, and spaces round the
    header's words, are not part of the map.

    >>> movingai_rows("\ufefftype octile \nheight 1\nwidth 2\n map \n.@  \n", "m.map")
    ({'type': 'octile', 'height': '1', 'width': '2'}, [(5, '.@')])
    """
    lines = list(enumerate(text.removeprefix("\ufeff").splitlines(), 1))
    header: dict[str, str] = {}
    if lines and lines[0][1].strip().startswith("type"):
        for k, (_, line) in enumerate(lines):
            word = line.strip()
            if word == "map":
                lines = lines[k + 1:]
                break
            key, _, value = word.partition(" ")
            header[key] = value.strip()
        else:
            raise InputError("a Moving AI header (type, height, width) ends with a 'map' "
                             "line; none found", file=path, field=f"line {lines[-1][0]}")
    rows = [(no, line.rstrip()) for no, line in lines if line.strip()]
    if not rows:
        raise InputError("no map rows", file=path)
    return header, rows


def movingai_layout(rows: list[str], path: str | Path) -> Layout:
    """The layout (no nets) of a Moving AI map's ``rows``: ``.``, ``G`` and ``S`` are
    passable, everything else (``@ O T W``) is blocked, and so are the cells a short
    row leaves out."""
    width = max(len(r) for r in rows)
    # the size the rows span (a short row is padded), checked before it is made
    check_size(width, len(rows), path, "map")
    passable = np.zeros(256, bool)
    passable[list(b".GS")] = True
    blocked = np.ones((len(rows), width), bool)
    # row by row, a byte a cell (any character beyond Latin-1 becomes "?", blocked):
    # a map of short rows padded to a long one stays at the grid's own size in memory
    for y, r in enumerate(rows):
        if r:
            codes = np.frombuffer(r.encode("latin-1", errors="replace"), np.uint8)
            blocked[y, :codes.size] = ~passable[codes]
    return Layout(Path(path).stem, width, len(rows), [], [], blocked, str(path))


def read_movingai(path: str | Path) -> Layout:
    """A Moving AI ``.map`` grid (header optional) as a layout without nets
    (:func:`movingai_rows`, :func:`movingai_layout`)."""
    _, rows = movingai_rows(read_text(path), path)
    return movingai_layout([r for _, r in rows], path)


# -- checked here, so that a forced format fails on what is no map --
def parse_movingai(text: str, file: str | Path) -> list[Layout]:
    """The map of ``text`` (read from ``file``), its characters and header checked."""
    header, rows = movingai_rows(text, file)
    for no, s in rows:
        bad = set(s) - MOVINGAI_CHARS
        if bad:
            c = min(bad, key=s.index)
            raise _err(f"{c!r} at column {s.index(c) + 1} is not a Moving AI map character "
                       "(. G S passable; @ O T W blocked)", file, no)
    for key, actual in (("height", len(rows)), ("width", max(len(s) for _, s in rows))):
        if key in header and header[key] != str(actual):
            raise _err(f"the header says {key} {_show(header[key])}, the map has {actual}",
                       file, None)
    return [movingai_layout([s for _, s in rows], file)]

