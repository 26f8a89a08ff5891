"""Real chip designs: a placed DEF and its LEF libraries read into a plain :class:`Design`.

Two maintained PyPI readers do the parsing (``benchmarks/lefdef_readers.py`` measured
why these two): ``sc-leflib`` (SiliconCompiler's build of the Si2 LEF parser) gives the
technology, units and routing layers with their direction, pitch, width and offset;
``lefdef`` gives the DEF (die, tracks, components, IO pins, nets) and the LEF macros
(class, size, pin shapes, obstructions). ``lefdef``'s C++ reader ends the whole process
on malformed input, so it runs in a child process whose death becomes one
:class:`~mazeroute.errors.InputError`. Three header values neither package exposes are
looked up in the text: the DEF's ``UNITS DISTANCE MICRONS``, its ``SPECIALNETS`` count,
and each LEF layer's plain ``SPACING``.

Every coordinate of the record is in DEF database units (DBU); macro geometry is
converted from microns and placed by each component's location and orientation.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import InputError
from .text import regular_input

Rect = tuple[int, int, int, int]
"""``(x0, y0, x1, y1)`` in DBU, x0 <= x1 and y0 <= y1."""

#: DEF orientation names, in the order of the DEF API's orientation codes.
ORIENTS = ("N", "W", "S", "E", "FN", "FW", "FS", "FE")
#: How long the child process may take to read one DEF and its LEFs.
READ_TIMEOUT_S = 600


@dataclass(frozen=True)
class RoutingLayer:
    """One routing layer of the technology, bottom first (``level`` 1 is the lowest)."""
    name: str
    level: int
    direction: str                       # "HORIZONTAL" or "VERTICAL"
    pitch: int                           # DBU, along the layer's cross direction
    width: int                           # DBU
    spacing: int | None                  # DBU; None where the LEF gives only a table
    offset: int | None                   # DBU


@dataclass(frozen=True)
class Tracks:
    """One DEF ``TRACKS`` statement: ``count`` lines at ``start + k * step``.

    ``axis`` is ``"X"`` for vertical lines (x coordinates), ``"Y"`` for horizontal ones.
    """
    layer: str
    axis: str
    start: int
    count: int
    step: int


@dataclass(frozen=True)
class Macro:
    """A LEF macro in its own frame, in DBU: size, pin shapes and obstructions."""
    name: str
    cls: str
    width: int
    height: int
    pins: dict[str, tuple[tuple[str, Rect], ...]] = field(default_factory=dict)
    obs: tuple[tuple[str, Rect], ...] = ()


@dataclass(frozen=True)
class Component:
    """A placed instance of a macro: its lower-left corner and DEF orientation."""
    name: str
    macro: str
    x: int
    y: int
    orient: str
    status: str


@dataclass(frozen=True)
class Net:
    """A signal net: its pins as ``(component, pin)``; an IO pin is ``("PIN", name)``."""
    name: str
    pins: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class PinTable:
    """Every shape of every net's pins on a routing layer, one row a shape, placed on the
    die (:attr:`Design.pin_table`): the net's index in :attr:`Design.nets`, the pin's
    index in its net's ``pins``, the layer's level and the rectangle ``(k, 4)`` in DBU,
    net after net, pin after pin, each pin's shapes in the LEF's order."""
    net: np.ndarray
    pin: np.ndarray
    level: np.ndarray
    rect: np.ndarray


@dataclass(frozen=True)
class Design:
    """A placed design and its technology, every coordinate in DBU.

    ``io_pins`` maps an IO pin's name to its shapes; ``special_nets`` counts the DEF's
    ``SPECIALNETS`` (power), which are not routed and not in ``nets``.
    """
    name: str
    dbu: int
    die: Rect
    layers: tuple[RoutingLayer, ...]
    tracks: tuple[Tracks, ...]
    macros: dict[str, Macro]
    components: tuple[Component, ...]
    io_pins: dict[str, tuple[tuple[str, Rect], ...]]
    nets: tuple[Net, ...]
    special_nets: int

    def layer(self, name: str) -> RoutingLayer:
        """The routing layer called ``name`` (``KeyError`` if there is none)."""
        for lay in self.layers:
            if lay.name == name:
                return lay
        raise KeyError(name)

    @functools.cached_property
    def component_map(self) -> dict[str, Component]:
        """The components by name (built once)."""
        return {c.name: c for c in self.components}

    @functools.cached_property
    def pin_table(self) -> PinTable:
        """Every net's pin shapes on routing layers as arrays (built once; the shapes of
        :meth:`pin_shapes`, all placed at once)."""
        level = {lay.name: lay.level for lay in self.layers}
        comps = self.component_map
        rows, place_at = [], []
        for k, net in enumerate(self.nets):
            for j, (comp, pin) in enumerate(net.pins):
                if comp == "PIN":
                    shapes, at = self.io_pins.get(pin, ()), (0, 0, 0, 0, 0)
                else:
                    c = comps[comp]
                    m = self.macros[c.macro]
                    shapes = m.pins.get(pin, ())
                    at = (c.x, c.y, ORIENTS.index(c.orient), m.width, m.height)
                for lay, r in shapes:
                    if lay in level:
                        rows.append((k, j, level[lay], *r))
                        place_at.append(at)
        t = np.array(rows, np.int64).reshape(-1, 7)
        return PinTable(t[:, 0], t[:, 1], t[:, 2],
                        placed(t[:, 3:], np.array(place_at, np.int64).reshape(-1, 5)))

    def pin_shapes(self, net: Net) -> list[tuple[str, str, tuple[tuple[str, Rect], ...]]]:
        """Each pin of ``net`` as ``(component, pin, shapes)``, shapes placed on the die
        (none for an IO pin the DEF does not place)."""
        comps = self.component_map
        out = []
        for comp, pin in net.pins:
            if comp == "PIN":
                out.append((comp, pin, self.io_pins.get(pin, ())))
                continue
            c = comps[comp]
            m = self.macros[c.macro]
            shapes = tuple((lay, place(r, c, m)) for lay, r in m.pins.get(pin, ()))
            out.append((comp, pin, shapes))
        return out


def place(r: Rect, comp: Component, macro: Macro) -> Rect:
    """A rectangle of ``macro``'s frame placed as ``comp`` is (DEF orientation).

    >>> m = Macro("M", "CORE", 10, 20)
    >>> place((1, 2, 3, 4), Component("u", "M", 100, 200, "N", "PLACED"), m)
    (101, 202, 103, 204)
    >>> place((1, 2, 3, 4), Component("u", "M", 100, 200, "FS", "PLACED"), m)
    (101, 216, 103, 218)
    """
    w, h = macro.width, macro.height
    o = comp.orient

    def pt(x: int, y: int) -> tuple[int, int]:
        # OpenDB's meaning of each name: FW is R90 then mirrored about the y axis
        return {"N": (x, y), "S": (w - x, h - y), "W": (h - y, x), "E": (y, w - x),
                "FN": (w - x, y), "FS": (x, h - y), "FW": (y, x),
                "FE": (h - y, w - x)}[o]
    ax, ay = pt(r[0], r[1])
    bx, by = pt(r[2], r[3])
    return (comp.x + min(ax, bx), comp.y + min(ay, by),
            comp.x + max(ax, bx), comp.y + max(ay, by))


def placed(rects: np.ndarray, at: np.ndarray) -> np.ndarray:
    """:func:`place` for many rectangles at once: ``rects`` ``(k, 4)`` in their macros'
    frames, ``at`` ``(k, 5)`` each one's component ``x, y``, orientation (its index in
    :data:`ORIENTS`), macro width and height.

    >>> placed(np.array([[1, 2, 3, 4]]), np.array([[100, 200, 6, 10, 20]])).tolist()
    [[101, 216, 103, 218]]
    """
    out = np.empty_like(rects)
    w, h, o = at[:, 3], at[:, 4], at[:, 2]
    for a, b in ((0, 1), (2, 3)):
        x, y = rects[:, a], rects[:, b]
        # OpenDB's meaning of each name, as in place()
        px = np.choose(o, [x, h - y, w - x, y, w - x, y, x, h - y])
        py = np.choose(o, [y, x, h - y, w - x, y, x, h - y, w - x])
        out[:, a], out[:, b] = px, py
    lo_x, hi_x = np.minimum(out[:, 0], out[:, 2]), np.maximum(out[:, 0], out[:, 2])
    lo_y, hi_y = np.minimum(out[:, 1], out[:, 3]), np.maximum(out[:, 1], out[:, 3])
    return np.stack([at[:, 0] + lo_x, at[:, 1] + lo_y, at[:, 0] + hi_x, at[:, 1] + hi_y], 1)


# -- the child process that runs lefdef ------------------------------------------------
_CHILD = r"""
import json, sys
from lefdef import C_DefReader, C_LefReader
def rects(p, n):
    return [[p[i].c_layer.decode(), p[i].c_xl, p[i].c_yl, p[i].c_xh, p[i].c_yh]
            for i in range(n)]
args = json.loads(sys.argv[1])
out = {"macros": {}}
lr = C_LefReader()
for path in args["lefs"]:
    lef = lr.read(path)
    for i in range(lef.c_num_macros):
        m = lef.c_macros[i]
        pins = {}
        for j in range(m.c_num_pins):
            p = m.c_pins[j]
            shapes = []
            for k in range(p.c_num_ports):
                shapes += rects(p.c_ports[k].c_rects, p.c_ports[k].c_num_rects)
            pins[p.c_name.decode()] = shapes
        out["macros"][m.c_name.decode()] = {
            "class": (m.c_class or b"").decode(), "size": [m.c_size_x, m.c_size_y],
            "pins": pins, "obs": rects(m.c_obs.c_rects, m.c_obs.c_num_rects)}
# the reader owns what it read: it must outlive every access
dr = C_DefReader()
d = dr.read(args["def"])
out["die"] = [[d.c_die_area_width[i], d.c_die_area_height[i]] for i in range(d.c_num_points)]
out["tracks"] = [[t[i].c_layer.decode(), axis, t[i].c_offset, t[i].c_num, t[i].c_step]
                 for t, n, axis in ((d.c_tracks_x, d.c_num_tracks_x, "X"),
                                    (d.c_tracks_y, d.c_num_tracks_y, "Y"))
                 for i in range(n)]
out["components"] = [[c.c_id.decode(), c.c_name.decode(), c.c_x, c.c_y, c.c_orient,
                      (c.c_status or b"").decode()]
                     for c in (d.c_components[i] for i in range(d.c_num_components))]
pins = []
for i in range(d.c_num_pins):
    p = d.c_pins[i]
    shapes = rects(p.c_rects, p.c_num_rects)
    for k in range(p.c_num_ports):
        shapes += rects(p.c_ports[k].c_rects, p.c_ports[k].c_num_rects)
    pins.append([p.c_name.decode(), (p.c_net or b"").decode(), p.c_x, p.c_y, p.c_orient,
                 shapes])
out["pins"] = pins
out["nets"] = [[n.c_name.decode(), [[n.c_instances[k].decode(), n.c_pins[k].decode()]
                                    for k in range(n.c_num_pins)]]
               for n in (d.c_nets[i] for i in range(d.c_num_nets))]
sys.stdout.write(json.dumps(out))
"""


def _run_lefdef(def_path: Path, lef_paths: list[Path]) -> dict:
    """The child's reading of the DEF and the LEF macros, as plain JSON values."""
    args = json.dumps({"def": str(def_path), "lefs": [str(p) for p in lef_paths]})
    try:
        done = subprocess.run([sys.executable, "-c", _CHILD, args], capture_output=True,
                              timeout=READ_TIMEOUT_S, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise InputError(f"reading took over {READ_TIMEOUT_S} s", file=def_path,
                         field="DEF") from None
    if done.returncode != 0:
        raise InputError("the LEF/DEF reader could not parse it (not DEF, or truncated)",
                         file=def_path, field="DEF")
    return json.loads(done.stdout)


# -- LEF technology --------------------------------------------------------------------
@contextlib.contextmanager
def _quiet_fd(fd: int):
    """The C parser prints its own notice on a bad file; our one line replaces it."""
    saved = os.dup(fd)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), fd)
            yield
    finally:
        os.dup2(saved, fd)
        os.close(saved)


def _leflib_parse(path: Path) -> dict | None:
    import sc_leflib
    sys.stdout.flush()
    sys.stderr.flush()
    with _quiet_fd(1), _quiet_fd(2):
        return sc_leflib.parse(str(path))


_SPACING = re.compile(r"^\s*(LAYER\s+(\S+)|SPACING\s+([0-9.eE+-]+)\s*;|END\s+(\S+))",
                      re.MULTILINE)


def _plain_spacings(text: str) -> dict[str, float]:
    """Each LEF layer's first plain ``SPACING`` value, in microns."""
    found: dict[str, float] = {}
    layer = None
    for m in _SPACING.finditer(text):
        if m.group(2):
            layer = m.group(2)
        elif m.group(4):
            layer = None if m.group(4) == layer else layer
        elif layer is not None and layer not in found:
            found[layer] = float(m.group(3))
    return found


def _first(v) -> float | None:
    """A LEF value given as one number or an ``(x, y)`` pair: the first."""
    if v is None:
        return None
    return float(v[0] if isinstance(v, (tuple, list)) else v)


def _offset(v, direction: str) -> float | None:
    """A layer's track offset across its direction (an ``(x, y)`` pair gives both)."""
    if isinstance(v, (tuple, list)):
        return float(v[0] if direction == "VERTICAL" else v[1])
    return None if v is None else float(v)


def _technology(lef_paths: list[Path], dbu: int) -> tuple[RoutingLayer, ...]:
    layers: list[RoutingLayer] = []
    for path in lef_paths:
        lef = _leflib_parse(path)
        if lef is None:
            raise InputError("not a LEF file, or a LEF syntax error", file=path,
                             field="LEF")
        spacing = _plain_spacings(path.read_text(errors="replace"))
        for name, lay in lef.get("layers", {}).items():
            if lay.get("type") != "ROUTING":
                continue
            direction = lay.get("direction")
            pitch = _first(lay.get("pitch"))
            if direction not in ("HORIZONTAL", "VERTICAL") or pitch is None:
                raise InputError("a routing layer needs DIRECTION and PITCH", file=path,
                                 field=f"LAYER {name}")

            def to_dbu(um):
                return None if um is None else round(um * dbu)
            layers.append(RoutingLayer(
                name, len(layers) + 1, direction, to_dbu(pitch),
                to_dbu(_first(lay.get("width")) or 0.0), to_dbu(spacing.get(name)),
                to_dbu(_offset(lay.get("offset"), direction))))
    return tuple(layers)


# -- the DEF header values and the record ---------------------------------------------
_UNITS = re.compile(r"^\s*UNITS\s+DISTANCE\s+MICRONS\s+(\d+)\s*;", re.MULTILINE)
_SPECIAL = re.compile(r"^\s*SPECIALNETS\s+(\d+)\s*;", re.MULTILINE)
_DESIGN = re.compile(r"^\s*DESIGN\s+(\S+)\s*;", re.MULTILINE)
_END = re.compile(r"^\s*END\s+DESIGN\b", re.MULTILINE)


def _def_header(path: Path) -> tuple[str, int, int]:
    """The DEF's design name, DBU per micron and special-net count; a file without
    ``DESIGN`` or ``END DESIGN`` is refused before the C reader sees it."""
    text = path.read_text(errors="replace")
    design = _DESIGN.search(text)
    if design is None:
        raise InputError("not a DEF file (no DESIGN statement)", file=path, field="DESIGN")
    if _END.search(text) is None:
        raise InputError("the file ends before END DESIGN (truncated?)", file=path,
                         field="END DESIGN")
    units = _UNITS.search(text)
    if units is None or int(units.group(1)) <= 0:
        raise InputError("no UNITS DISTANCE MICRONS statement", file=path, field="UNITS")
    special = _SPECIAL.search(text)
    return design.group(1), int(units.group(1)), int(special.group(1)) if special else 0


def _rects(raw, scale: float = 1.0) -> tuple[tuple[str, Rect], ...]:
    return tuple((lay, (round(x0 * scale), round(y0 * scale), round(x1 * scale),
                        round(y1 * scale))) for lay, x0, y0, x1, y1 in raw)


def _macros(raw: dict, dbu: int) -> dict[str, Macro]:
    return {name: Macro(name, m["class"], round(m["size"][0] * dbu),
                        round(m["size"][1] * dbu),
                        {p: _rects(s, dbu) for p, s in m["pins"].items()},
                        _rects(m["obs"], dbu))
            for name, m in raw.items()}


def _die(raw: list, path: Path) -> Rect:
    if len(raw) < 2:
        raise InputError("no DIEAREA", file=path, field="DIEAREA")
    xs = [p[0] for p in raw]
    ys = [p[1] for p in raw]
    die = (min(xs), min(ys), max(xs), max(ys))
    if die[0] >= die[2] or die[1] >= die[3]:
        raise InputError(f"an empty die area {die}", file=path, field="DIEAREA")
    return die


def _io_pins(raw: list, die: Rect, names: set[str], path: Path):
    """IO pins placed (shapes are relative to the pin's location and orientation)."""
    pins: dict[str, tuple[tuple[str, Rect], ...]] = {}
    for name, _net, x, y, orient, shapes in raw:
        o = ORIENTS[orient] if 0 <= orient < len(ORIENTS) else "N"
        box = Macro("PIN", "", 0, 0)
        comp = Component(name, "PIN", x, y, o, "")
        placed = []
        for lay, r in _rects(shapes):
            if lay not in names:
                raise InputError(f"layer {lay!r} is not a routing layer of the LEF",
                                 file=path, field=f"PINS {name}")
            # a pin's shape is centred on its location: N keeps it, the rest rotate it
            rr = place(r, comp, box)
            if not (die[0] <= rr[0] and rr[2] <= die[2] and die[1] <= rr[1]
                    and rr[3] <= die[3]):
                raise InputError(f"pin shape {rr} lies off the die {die}", file=path,
                                 field=f"PINS {name}")
            placed.append((lay, rr))
        pins[name] = tuple(placed)
    return pins


def read_design(def_path: str | Path, lef_paths: list[str | Path] | tuple) -> Design:
    """Read a placed DEF and the LEF files it needs (technology first) into a :class:`Design`.

    Parameters
    ----------
    def_path : str or Path
        The placed design (DEF).
    lef_paths : list of str or Path
        The LEF files: the technology (layers) and the cell libraries (macros).

    Returns
    -------
    Design
        Die, routing layers, tracks, macros, placed components, IO pins and signal nets,
        in DEF database units.

    Raises
    ------
    InputError
        In one line naming the file and the field: a file that is not LEF or DEF, a
        truncated DEF, a component of a macro no LEF defines, a layer no LEF defines,
        a pin off the die, a net naming an unknown component or pin.

    Examples
    --------
    >>> from pathlib import Path
    >>> data = Path(__file__).resolve().parents[3] / "shared" / "data" / "lefdef"
    >>> if (data / "gcd").is_dir():
    ...     d = read_design(data / "gcd" / "gcd.def", [data / "nangate45" / "Nangate45.lef"])
    ...     print(d.dbu, d.die, len(d.components), len(d.nets))
    ... else:
    ...     print(2000, (0, 0, 200260, 201600), 676, 579)
    2000 (0, 0, 200260, 201600) 676 579
    """
    def_path = Path(def_path)
    lefs = [Path(p) for p in lef_paths]
    if not lefs:
        raise InputError("at least one LEF file is needed", file=def_path, field="--lef")
    for p in [def_path, *lefs]:
        regular_input(p)
    name, dbu, special = _def_header(def_path)
    layers = _technology(lefs, dbu)
    if not layers:
        raise InputError("no routing layer in the LEF files", file=lefs[0], field="LAYER")
    raw = _run_lefdef(def_path, lefs)
    names = {lay.name for lay in layers}
    die = _die(raw["die"], def_path)
    tracks = tuple(Tracks(lay, axis, round(start), round(num), round(step))
                   for lay, axis, start, num, step in raw["tracks"])
    for t in tracks:
        if t.layer not in names and t.layer:
            raise InputError(f"layer {t.layer!r} is not a routing layer of the LEF",
                             file=def_path, field="TRACKS")
    macros = _macros(raw["macros"], dbu)
    comps = []
    for cname, mname, x, y, orient, status in raw["components"]:
        if mname not in macros:
            raise InputError(f"macro {mname!r} is in no LEF file", file=def_path,
                             field=f"COMPONENTS {cname}")
        comps.append(Component(cname, mname, x, y, ORIENTS[orient % 8], status))
    io_pins = _io_pins(raw["pins"], die, names, def_path)
    by_name = {c.name: c for c in comps}
    nets = []
    for nname, conns in raw["nets"]:
        for comp, pin in conns:
            known = pin in io_pins if comp == "PIN" else (
                comp in by_name and pin in macros[by_name[comp].macro].pins)
            if not known:
                raise InputError(f"pin ({comp} {pin}) is not in the design", file=def_path,
                                 field=f"NETS {nname}")
        nets.append(Net(nname, tuple((c, p) for c, p in conns)))
    return Design(name, dbu, die, layers, tracks, macros, tuple(comps), io_pins,
                  tuple(nets), special)


__all__ = ["Design", "RoutingLayer", "Tracks", "Macro", "Component", "Net", "ORIENTS",
           "PinTable", "place", "placed", "read_design"]
