"""Moving AI scenarios (``.scen``): the nets of a map, one start and goal a row."""

from __future__ import annotations

import re
from pathlib import Path

from ..errors import InputError
from ..layout import Layout, Net
from .sniff import sniff_format
from .text import excerpt as _show
from .text import line_error as _err
from .text import number as _int
from .text import read_text

_SCEN_VERSION = re.compile(r"version\s+1(?:\.0)?", re.ASCII)
_DIGITS = re.compile(r"[0-9]+", re.ASCII)
#: The fields of a scenario row, in order.
SCEN_FIELDS = ("bucket", "map", "width", "height", "start_x", "start_y", "goal_x", "goal_y",
               "optimal_length")


def is_scen(path: str | Path) -> bool:
    """Whether ``path`` holds a Moving AI scenario (by content, :func:`sniff_format`); a
    file that cannot be read is left to the reader that names the problem."""
    try:
        return sniff_format(Path(path)) == "scen"
    except InputError:
        return False


def check_scen_limit(limit: int | None, netlist: str | Path | None = None) -> None:
    """Refuse a ``--scen-limit`` under 1, or one given with a netlist that is no scenario."""
    if limit is None:
        return
    if limit < 1:
        raise InputError(f"must be >= 1, got {limit}", field="--scen-limit")
    if netlist is not None and not is_scen(netlist):
        raise InputError(f"takes the first rows of a Moving AI scenario; "
                         f"{_show(str(netlist), 80)} is not one", field="--scen-limit")


def read_scen(path: str | Path, layout: Layout, limit: int | None = None) -> list[Net]:
    r"""The nets of a Moving AI scenario file, on the map ``layout``.

    The file is ``version 1`` (or ``version 1.0``), then one row a line: ``bucket map
    width height start_x start_y goal_x goal_y optimal_length``, tab or space separated.
    Row ``k`` (from 1) becomes the two-pin net ``s<k>`` from its start to its goal. The
    row's map size must be the map's; its cells lie on the grid, free, and no pin is
    shared between rows. ``limit``: read only the first rows (a scenario holds
    thousands, many sharing cells).

    Raises
    ------
    InputError
        Naming the file, the line and the field at fault.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = Path(d) / "room.map.scen"
    ...     _ = p.write_text("version 1\n0\troom.map\t4\t2\t0\t0\t3\t1\t4\n"
    ...                      "0\troom.map\t4\t2\t3\t0\t0\t1\t4\n")
    ...     nets = read_scen(p, Layout("room", 4, 2))
    ...     first, = read_scen(p, Layout("room", 4, 2), limit=1)
    >>> [(n.name, n.pins) for n in nets], first.name
    ([('s1', [(0, 0), (3, 1)]), ('s2', [(3, 0), (0, 1)])], 's1')
    """
    check_scen_limit(limit)
    text = read_text(path).removeprefix("\ufeff")
    rows = [(no, s) for no, s in enumerate(text.splitlines(), 1) if s.strip()]
    if not rows or not _SCEN_VERSION.fullmatch(rows[0][1].strip()):
        got = f", got {_show(rows[0][1].strip())}" if rows else " (the file is empty)"
        raise _err(f"a Moving AI scenario starts with 'version 1'{got}", path,
                   rows[0][0] if rows else None)
    nets: list[Net] = []
    owner: dict[tuple[int, int], tuple[str, int]] = {}
    for no, s in rows[1:limit + 1 if limit else None]:
        nets.append(_scen_net(s, no, f"s{len(nets) + 1}", layout, owner, path))
    return nets


def _scen_net(s: str, no: int, name: str, layout: Layout,
              owner: dict[tuple[int, int], tuple[str, int]], file) -> Net:
    """One scenario row as a net (``owner``: the pins so far, their net and line)."""
    parts = [f.strip() for f in (s.split("\t") if "\t" in s else s.split())]
    if len(parts) != len(SCEN_FIELDS):
        raise _err(f"expected {len(SCEN_FIELDS)} fields ({' '.join(SCEN_FIELDS)}), got "
                   f"{len(parts)}", file, no)
    value = {}
    for k, field in enumerate(SCEN_FIELDS):
        if field in ("map", "optimal_length"):
            continue
        if not _DIGITS.fullmatch(parts[k]):
            raise InputError(f"must be an integer >= 0, got {_show(parts[k])}", file=file,
                             field=f"line {no} {field}")
        value[field] = _int(parts[k], file, no)
    for field, actual in (("width", layout.width), ("height", layout.height)):
        if value[field] != actual:
            raise InputError(f"the scenario's map has {field} {value[field]}, the map "
                             f"routed has {actual}", file=file, field=f"line {no} {field}")
    pins = []
    for end in ("start", "goal"):
        x, y = value[f"{end}_x"], value[f"{end}_y"]
        where = f"line {no} {end}_x/{end}_y"
        if x >= layout.width or y >= layout.height:
            raise InputError(f"{end} ({x}, {y}) lies outside the {layout.width} x "
                             f"{layout.height} map", file=file, field=where)
        if layout.blocked[y, x]:
            raise InputError(f"{end} ({x}, {y}) lies on a blocked cell of the map",
                             file=file, field=where)
        if (x, y) in pins:
            raise InputError(f"start and goal are the same cell ({x}, {y}); a net joins "
                             "two", file=file, field=where)
        if (x, y) in owner:
            other, line = owner[(x, y)]
            raise InputError(f"{end} ({x}, {y}) is also a pin of {other} (line {line}); nets "
                             "share no pin (--scen-limit N reads the first N rows)",
                             file=file, field=where)
        pins.append((x, y))
    for cell in pins:
        owner[cell] = (name, no)
    return Net(name, pins)


def no_nets(file: str | Path | None, batch: bool = False) -> InputError:
    """The error for a layout with no nets to route (a Moving AI map has none): how to
    give them, on the command line ``route`` (or ``batch``) has."""
    how = ("route netlists over it with `batch --layout MAP NETLIST.yaml` or FILE.scen"
           if batch else "give them with --nets NETLIST.yaml or --nets FILE.scen (a Moving "
           "AI scenario)")
    return InputError(f"no nets to route: {how}, or draw random ones with `mazeroute "
                      "generate --on MAP --nets 100 --span 40 -o NETLIST.yaml`", file=file,
                      field="nets")

