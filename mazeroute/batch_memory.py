"""What routing one layout needs before it starts: the memory to route it, and whether
its picture fits besides.

:func:`plan_picture` refuses, in one line, a layout whose routing cannot fit in the memory
available (rather than a run that the system kills later), and skips the picture with a
notice when it alone does not fit.

Examples
--------
>>> from mazeroute.readers import parse_layout
>>> lay = parse_layout({"width": 8, "height": 4, "nets": []})
>>> plan_picture(lay, wanted=False)
Picture(draw=False, scale=None, notice='', overlay=False)
"""

from __future__ import annotations

from dataclasses import dataclass

from . import limits
from .errors import InputError
from .layout import Layout, Net
from .limits import BYTES_PER_CELL, NEGOTIATE_BYTES_PER_CELL
from .report import safe_text
from .router import DEFAULT_MODE

#: Longest layout or net name in a picture's title or legend.
PICTURE_NAME_WIDTH = 60


@dataclass
class Picture:
    """Whether a run draws ``layout.png``, at what scale, and why not (``notice``)."""

    draw: bool
    scale: int | None = None
    notice: str = ""
    #: a multi-layer layout's layers in one panel, not a panel each
    overlay: bool = False


def routing_bytes(layout: Layout, mode: str = DEFAULT_MODE) -> int:
    """Host memory that routing ``layout`` in ``mode`` needs, roughly (every layer's
    cells, for a multi-layer layout)."""
    per = NEGOTIATE_BYTES_PER_CELL if mode == "negotiate" else BYTES_PER_CELL
    layers = 1 if layout.stack is None else len(layout.stack.layers)
    return layout.width * layout.height * layers * per


def _amount(size: int) -> str:
    """``size`` bytes for a message: GiB, or MiB below one GiB."""
    return f"{size / 2**30:.1f} GiB" if size >= 2**30 else f"{size / 2**20:.1f} MiB"


def plan_picture(layout: Layout, wanted: bool, scale: int | None = None,
                 mode: str = DEFAULT_MODE) -> Picture:
    """Decide about memory and the picture before routing.

    Routing in ``mode`` (:func:`routing_bytes`) must fit in the memory available, else
    an :class:`InputError` (a one-line refusal, not a run that the system kills later).
    With the picture (its bytes a pixel) the whole run must fit too; when the picture
    alone does not (or has more than :data:`~mazeroute.render.MAX_PICTURE_PIXELS`
    pixels), it is skipped with a notice; with an explicit ``scale`` that is an
    :class:`InputError` instead (the user asked for exactly that picture).
    """
    engine = routing_bytes(layout, mode)
    have = limits.available_memory()
    if have and engine > have:
        raise InputError(f"{layout.width} x {layout.height} cells needs about "
                         f"{_amount(engine)} to route in {mode} mode, more than the "
                         f"{_amount(have)} of memory available"
                         + (" (sequential mode needs less)" if mode == "negotiate"
                            and routing_bytes(layout, "sequential") <= have else ""),
                         file=layout.source, field="width")
    if not wanted:
        return Picture(False)
    from . import render
    s = scale if scale is not None else render.cell_scale(layout.width, layout.height)
    iw, ih = render.image_size(layout, s)
    need = iw * ih * render.PICTURE_BYTES_PER_PIXEL
    if iw * ih > render.MAX_PICTURE_PIXELS:
        why = (f"a {iw} x {ih} picture has more than the {render.MAX_PICTURE_PIXELS} pixels "
               "allowed")
    elif have and engine + need > have:
        why = (f"a {iw} x {ih} picture needs about {need / 2**30:.1f} GiB besides routing's "
               f"{engine / 2**30:.1f} GiB, and {have / 2**30:.1f} GiB are available")
    else:
        return Picture(True, scale)
    if scale is not None:
        raise InputError(f"{why}; use a smaller --scale or --no-png", file=layout.source,
                         field="--scale")
    return Picture(False, None, f"no layout.png: {why}")


def display_layout(layout: Layout) -> Layout:
    """The same layout with names safe to draw (escaped, bounded), for the picture."""
    nets = [Net(safe_text(n.name, PICTURE_NAME_WIDTH), n.pins) for n in layout.nets]
    return Layout(safe_text(layout.name, PICTURE_NAME_WIDTH), layout.width, layout.height,
                  layout.rects, nets, layout.blocked, layout.source)
