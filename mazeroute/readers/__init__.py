r"""Every input format as layouts: YAML, numberlink puzzles, ADC problems, Moving AI maps;
and the nets of a netlist (``--nets``): a YAML of ``nets:``, or a Moving AI scenario.

One module a format (:mod:`.yaml`, :mod:`.numberlink`, :mod:`.adc`, :mod:`.movingai`,
:mod:`.scen`), one bounded file reader for them all (:func:`~.text.read_text`), and
recognition by content (:mod:`.sniff`); the limits they enforce are
:mod:`mazeroute.limits`'s.

:func:`load_layouts` is the one entry point the command line uses: it refuses what is not
a regular file of sensible size, recognises the format by content (:func:`sniff_format`),
or takes the one it is told, and returns the file's layouts. A numberlink file may hold
several puzzles, so every reader returns a list (one layout for the other formats).

Bad input raises :class:`~mazeroute.errors.InputError` in one line that names the file
and, for the text formats, the line at fault.

Examples
--------
>>> import tempfile
>>> with tempfile.TemporaryDirectory() as d:
...     p = Path(d) / "two.yaml"                # the extension does not matter
...     _ = p.write_text("# two puzzles\n3 2\na.a\nb.b\n\n2 2\nxy\nxy\n0 0\n")
...     layouts = load_layouts(p)
>>> [(lay.name, lay.width, lay.height, len(lay.nets)) for lay in layouts]
[('two-1', 3, 2, 2), ('two-2', 2, 2, 2)]
>>> layouts[0].nets[1].name, layouts[0].nets[1].pins
('b', [(0, 1), (2, 1)])
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..errors import InputError
from ..layout import Layout, with_nets
from ..limits import MAX_INPUT_BYTES
from .adc import parse_adc, read_adc
from .movingai import MOVINGAI_CHARS, movingai_layout, movingai_rows, parse_movingai, read_movingai
from .numberlink import parse_numberlink, read_numberlink
from .scen import SCEN_FIELDS, check_scen_limit, is_scen, no_nets, read_scen
from .sniff import SNIFF_BYTES, sniff_format, sniff_text
from .text import read_text, regular_input
from .yaml import load_layout, load_netlist, parse_layout, parse_yaml

#: The ``--format`` choices; ``auto`` recognises the format by content.
FORMATS = ("auto", "yaml", "numberlink", "adc", "movingai")


# -- the entry point ------------------------------------------------------------------
def load_layouts(path: str | Path, fmt: str = "auto", netlist: str | Path | None = None,
                 scen_limit: int | None = None) -> list[Layout]:
    r"""Read every layout of an input file, in any format of :data:`FORMATS`.

    Parameters
    ----------
    path : str or Path
        The input file. Anything but a regular file (a folder, a FIFO, a device) is
        refused without blocking, and so is a file over :data:`MAX_INPUT_BYTES`.
    fmt : str
        ``"auto"`` (recognise by content, see :func:`sniff_format`) or one of
        ``"yaml"``, ``"numberlink"``, ``"adc"``, ``"movingai"`` to force a reader.
    netlist : str or Path, optional
        A netlist file whose nets replace those of every layout read: a YAML of just
        ``nets:``, or a Moving AI scenario (:func:`read_scen`), recognised by content.
    scen_limit : int, optional
        Read only the first rows of a scenario ``netlist`` (it may hold thousands).

    Returns
    -------
    list of Layout
        One layout per numberlink puzzle; exactly one for the other formats.

    Raises
    ------
    InputError
        One line naming the file and, where there is one, the line or field at fault. A
        forced format that does not fit says what the content looks like.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = Path(d) / "q.txt"
    ...     _ = p.write_text("SIZE 5X4\r\nLINE_NUM 2\r\nLINE#1 (0,0)-(4,2)\r\n"
    ...                      "LINE#2 (0,3)-(4,3)\r\n")
    ...     lay, = load_layouts(p)
    ...     try:
    ...         load_layouts(p, fmt="numberlink")
    ...     except InputError as e:
    ...         error = e.message
    >>> lay.name, [(n.name, n.pins) for n in lay.nets]
    ('q', [('1', [(0, 0), (4, 2)]), ('2', [(0, 3), (4, 3)])])
    >>> error.endswith("(--format numberlink was forced, but the content looks like adc)")
    True
    """
    if fmt not in FORMATS:
        raise InputError(f"unknown format {fmt!r}; choose from {', '.join(FORMATS)}",
                         field="--format")
    text = read_text(path).removeprefix("\ufeff")
    found = sniff_text(text)
    if found == "def" and fmt == "auto":
        raise InputError("is a DEF design, not a layout: give its LEF files with --lef to "
                         "`route`, `view` or `check`, or run `mazeroute groute "
                         "DESIGN.def --lef TECH.lef`", file=path)
    use = found if fmt == "auto" else fmt
    try:
        layouts = _READERS[use](text, path)
    except InputError as e:
        if use == found == "yaml" and fmt == "auto" and ":" not in text:
            # no key of any mapping: most likely another format gone wrong in its header
            raise InputError(f"{e.message} (nor is it numberlink, `W H` first; ADC, `SIZE "
                             "WxH` first; or a Moving AI map: --format names one to see "
                             "what it finds)", file=e.file, field=e.field) from None
        if use == found:
            raise
        raise InputError(f"{e.message} (--format {fmt} was forced, but the content looks "
                         f"like {found})", file=e.file, field=e.field) from None
    if netlist is not None:
        if is_scen(netlist):
            return [with_nets(lay, read_scen(netlist, lay, scen_limit), netlist)
                    for lay in layouts]
        check_scen_limit(scen_limit, netlist)
        nets = load_netlist(netlist)
        layouts = [with_nets(lay, nets, netlist) for lay in layouts]
    elif scen_limit is not None:
        raise InputError("takes the first rows of a Moving AI scenario: give one with "
                         "--nets FILE.scen", field="--scen-limit")
    return layouts


def _refuse_scen(text: str, file) -> list[Layout]:
    del text
    raise InputError("is a Moving AI scenario: it holds nets, not a grid; route the map it "
                     "names with --nets FILE.scen", file=file)


def _read_yaml(text: str, file) -> list[Layout]:
    del text  # load_layout reads the file itself and owns YAML's error messages
    return [load_layout(file)]


_READERS: dict[str, Callable[[str, str | Path], list[Layout]]] = {
    "yaml": _read_yaml, "numberlink": parse_numberlink, "adc": parse_adc,
    "movingai": parse_movingai, "scen": _refuse_scen}

__all__ = ["FORMATS", "MAX_INPUT_BYTES", "MOVINGAI_CHARS", "SCEN_FIELDS", "SNIFF_BYTES",
           "check_scen_limit", "is_scen", "load_layout", "load_layouts", "load_netlist",
           "movingai_layout", "movingai_rows", "no_nets", "parse_layout", "parse_yaml",
           "read_adc", "read_movingai", "read_numberlink", "read_scen", "read_text",
           "regular_input", "sniff_format"]
