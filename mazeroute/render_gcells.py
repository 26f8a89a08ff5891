"""Congestion heat maps of a global route: a panel per routing layer of a design's GCell
grid, each GCell coloured by how full its edges are.

On a layer, a GCell lies on two edges along the layer's direction (one at each side;
one at the grid's border, none on a grid one GCell across), and takes the larger of
their use/capacity ratios (:func:`gcell_ratios`). Ratios up to 1 are shades of
:data:`USE_CMAP`, from near white (unused) to dark blue (full); above 1, over capacity,
they are shades of :data:`OVER_CMAP`, so an overflowing GCell stands out whatever the
scale. A GCell whose edges have no capacity and carry nothing is :data:`NO_CAPACITY`;
demand on an edge of capacity 0 counts as over capacity, in the darkest red.

The panels are small multiples laid out as :mod:`mazeroute.render_layers` lays out a
layout's layers (lowest layer first, :data:`~mazeroute.render_layers.PANELS_PER_ROW` to a
row, then the next row), with axes in microns; each panel's title gives the layer's
name, direction and usage (its demand as a percentage of its capacity, as the
congestion table reports it) and the count of its edges over capacity. One colour bar,
from 0 to the largest finite ratio (at least 1), reads on every panel. The panels are the
grid's routing layers, and any layer outside them that carries wires.

The figure is drawn on Matplotlib's Agg canvas (never ``pyplot``) and written through
:func:`mazeroute.io.atomic_path`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .errors import InputError
from .evaluate import LayerEdges
from .gcells import GCellGrid
from .io import atomic_path
from .readers.lefdef import Design
from .render_layers import DIRECTION_MARK, PANELS_PER_ROW

#: Colours of ratios from 0 to 1 (the low end of the map, near white, is unused).
USE_CMAP = "Blues"
#: Colours of ratios above 1, from just over capacity to the largest ratio.
OVER_CMAP = "Reds"
#: The parts of the two maps used: ``(low, high)`` fractions of each.
USE_RANGE = (0.03, 1.0)
OVER_RANGE = (0.45, 1.0)
#: A GCell whose edges on the layer have no capacity and carry nothing.
NO_CAPACITY = (0.78, 0.78, 0.78, 1.0)
#: Inches of a panel's longer side, and pixels an inch.
PANEL_INCHES = 3.2
DPI = 110
#: The name a heat map must have.
SUFFIX = ".png"


def check_png(path: str | Path, field: str | None = None) -> Path:
    """``path`` as a :class:`~pathlib.Path`, refused unless it names a PNG file.

    Raises
    ------
    InputError
        for another suffix (or none), naming the file and ``field``.

    >>> check_png("out/gcd.PNG").name
    'gcd.PNG'
    >>> check_png("gcd.jpg", field="--heatmap")
    Traceback (most recent call last):
    ...
    mazeroute.errors.InputError: gcd.jpg: --heatmap: a heat map is written as PNG: name it .png
    """
    path = Path(path)
    if path.suffix.lower() != SUFFIX:
        raise InputError("a heat map is written as PNG: name it .png", file=path,
                         field=field)
    return path


def gcell_ratios(demand: np.ndarray, capacity: np.ndarray, horizontal: bool) -> np.ndarray:
    """Each GCell's ratio on a layer, ``[y, x]``: the larger use/capacity of the two edges
    it lies on along the layer's direction.

    ``demand`` and ``capacity`` are a :class:`~mazeroute.evaluate.LayerEdges`' arrays.
    An edge with demand but no capacity has ratio ``inf``; a GCell whose edges have
    neither (or that has no edge) gets ``nan``.

    >>> d = np.array([[0, 3, 1]]); c = np.array([[2, 2, 4]])   # one row of 4 GCells
    >>> gcell_ratios(d, c, horizontal=True).tolist()
    [[0.0, 1.5, 1.5, 0.25]]
    >>> gcell_ratios(np.array([[1, 0]]), np.array([[0, 0]]), horizontal=True).tolist()
    [[inf, inf, nan]]
    >>> gcell_ratios(np.zeros((1, 2)), np.zeros((1, 2)), horizontal=False).tolist()
    [[nan, nan], [nan, nan]]
    """
    d = np.asarray(demand, dtype=float)
    c = np.asarray(capacity, dtype=float)
    if not horizontal:              # columns of vertical edges are rows of horizontal ones
        return gcell_ratios(d.T, c.T, True).T
    with np.errstate(divide="ignore", invalid="ignore"):
        edge = np.where(c > 0, d / np.where(c > 0, c, 1.0),
                        np.where(d > 0, np.inf, np.nan))
    gap = np.full((edge.shape[0], 1), np.nan)
    with np.errstate(invalid="ignore"):
        return np.fmax(np.hstack([gap, edge]), np.hstack([edge, gap]))


def _colours(ratio: np.ndarray, top: float) -> np.ndarray:
    """``(ny, nx, 4)`` RGBA of the ratios, on a scale from 0 to ``top`` (module notes)."""
    import matplotlib

    use, over = matplotlib.colormaps[USE_CMAP], matplotlib.colormaps[OVER_CMAP]
    rgba = np.empty(ratio.shape + (4,))
    rgba[...] = NO_CAPACITY
    known = ~np.isnan(ratio)
    low = known & (ratio <= 1)
    high = known & (ratio > 1)
    rgba[low] = use(USE_RANGE[0] + (USE_RANGE[1] - USE_RANGE[0]) * ratio[low])
    if high.any():
        r = ratio[high]
        t = np.where(np.isinf(r), 1.0, (np.minimum(r, top) - 1) / max(top - 1, 1e-12))
        rgba[high] = over(OVER_RANGE[0] + (OVER_RANGE[1] - OVER_RANGE[0]) * t)
    return rgba


def _bar_cmap(top: float, shades: int = 512):
    """One colour map for the bar, 0 to ``top``: the two maps joined at 1."""
    from matplotlib.colors import ListedColormap

    values = (np.arange(shades) + 0.5) * top / shades
    return ListedColormap(_colours(values[None, :], top)[0], name="gcell_use")


def shown_layers(grid: GCellGrid, usage: Sequence[LayerEdges]) -> list[LayerEdges]:
    """The layers that get a panel: the grid's routing layers, and any other layer that
    carries wires, lowest first."""
    return [e for e in usage
            if grid.min_layer <= e.level <= grid.max_layer or e.demand.any()]


def _panel_title(e: LayerEdges) -> str:
    total = int(e.capacity.sum())
    used = 100.0 * int(e.demand.sum()) / total if total else 0.0
    over = int((e.demand > e.capacity).sum())
    mark = DIRECTION_MARK["horizontal" if e.horizontal else "vertical"]
    return (f"{e.name}  {mark}  {used:.1f}% used\n"
            f"{over} edge{'s' * (over != 1)} over capacity")


def congestion_figure(design: Design, grid: GCellGrid, usage: Sequence[LayerEdges], *,
                      title: str | None = None):
    """The heat maps as a Matplotlib :class:`~matplotlib.figure.Figure` on an Agg
    canvas (module notes); its first axes are the panels, in the order drawn.

    Parameters
    ----------
    design : Design
        The design: its name and database units.
    grid : GCellGrid
        Its GCell grid (:func:`mazeroute.gcells.gcell_grid`).
    usage : sequence of LayerEdges
        Each layer's edges (:func:`mazeroute.evaluate.edge_usage`).
    title : str, optional
        The figure's title; by default the design's name and the grid's size.
    """
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import Normalize
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch

    layers = shown_layers(grid, usage)
    if not layers:
        raise ValueError("no layer to draw: the grid has no routing layer")
    ratios = [gcell_ratios(e.demand, e.capacity, e.horizontal) for e in layers]
    finite = [float(r[np.isfinite(r)].max()) for r in ratios if np.isfinite(r).any()]
    top = max([1.0] + finite)
    xs, ys = grid.xs / design.dbu, grid.ys / design.dbu
    cols = min(len(layers), PANELS_PER_ROW)
    rows = -(-len(layers) // cols)
    w, h = float(xs[-1] - xs[0]), float(ys[-1] - ys[0])
    pw, ph = (PANEL_INCHES, PANEL_INCHES * h / w) if w >= h else \
        (PANEL_INCHES * w / h, PANEL_INCHES)
    fig = Figure(figsize=(cols * (pw + 0.9) + 1.4, rows * (ph + 1.1) + 1.3), dpi=DPI,
                 layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(rows, cols, squeeze=False).ravel()
    for ax, e, ratio in zip(axes, layers, ratios):
        ax.pcolorfast(xs, ys, _colours(ratio, top))
        ax.set_aspect("equal")
        ax.set_xlim(xs[0], xs[-1])
        ax.set_ylim(ys[0], ys[-1])
        over = bool((e.demand > e.capacity).any())
        ax.set_title(_panel_title(e), fontsize=9, color="#b00000" if over else "black")
        ax.set_xlabel("x (µm)", fontsize=8)
        ax.set_ylabel("y (µm)", fontsize=8)
        ax.tick_params(labelsize=7)
    for ax in axes[len(layers):]:
        ax.set_visible(False)
    bar = fig.colorbar(ScalarMappable(Normalize(0.0, top), _bar_cmap(top)),
                       ax=list(axes[:len(layers)]), fraction=0.04, pad=0.02)
    bar.set_label("use / capacity (the fuller of a GCell's two edges)", fontsize=8)
    bar.ax.axhline(1.0, color="black", linewidth=1.0)
    bar.ax.tick_params(labelsize=7)
    over_mid = matplotlib.colormaps[OVER_CMAP](sum(OVER_RANGE) / 2)
    fig.legend(handles=[Patch(facecolor=over_mid, label="over capacity (> 1)"),
                        Patch(facecolor=NO_CAPACITY, label="no capacity")],
               loc="outside lower center", ncol=2, fontsize=8, frameon=False)
    nx, ny = grid.shape
    fig.suptitle(title or f"{design.name}: GCell congestion, {nx} x {ny} GCells",
                 fontsize=11)
    return fig


def save_congestion_png(path: str | Path, design: Design, grid: GCellGrid,
                        usage: Sequence[LayerEdges], *, title: str | None = None) -> Path:
    """Write :func:`congestion_figure` as a PNG, atomically; return the path.

    Raises
    ------
    InputError
        when ``path`` does not end in ``.png`` (:func:`check_png`), before drawing.

    Examples
    --------
    >>> import tempfile
    >>> from mazeroute.evaluate import edge_usage
    >>> from mazeroute.gcells import gcell_grid
    >>> from mazeroute.readers.lefdef import Design, Net, RoutingLayer, Tracks
    >>> m1 = RoutingLayer("m1", 1, "HORIZONTAL", 10, 4, 4, 5)
    >>> m2 = RoutingLayer("m2", 2, "VERTICAL", 10, 4, 4, 5)
    >>> d = Design("t", 1000, (0, 0, 300, 300), (m1, m2),
    ...            (Tracks("m1", "Y", 5, 30, 10), Tracks("m2", "X", 5, 30, 10)),
    ...            {}, (), {}, (Net("n", ()),), 0)
    >>> g = gcell_grid(d)
    >>> use = edge_usage(d, g, {"n": [(0, 0, 150, 300, "m2")]})
    >>> out = Path(tempfile.mkdtemp()) / "t.png"
    >>> save_congestion_png(out, d, g, use).read_bytes()[:4]
    b'\\x89PNG'
    """
    path = check_png(path)
    fig = congestion_figure(design, grid, usage, title=title)
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=DPI)
    return path


__all__ = ["check_png", "gcell_ratios", "shown_layers", "congestion_figure",
           "save_congestion_png"]
