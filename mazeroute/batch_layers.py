"""Routing a multi-layer layout from the command line and the batch: the checks its
options get, its picture, and the call to the 3-D router.

``route`` and each layout of ``batch`` route a layout with a stack of layers through
:func:`route_stack`, on the CPU: the GPU engines route one layer only, so ``--backend
gpu`` is refused in one line and ``auto`` routes on the CPU.

Examples
--------
>>> from mazeroute.readers import parse_layout
>>> flat = parse_layout({"width": 3, "height": 1, "nets": []})
>>> refuse_for_stack(flat, backend="gpu", strategy="sweep") is None   # one layer: anything
True
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from .batch_memory import PICTURE_NAME_WIDTH, Picture, plan_picture
from .errors import InputError
from .layout import Layout, Net
from .report import safe_text
from .router import DEFAULT_MODE, PathFinderOptions, RouteResult

#: ``--backend gpu`` on a multi-layer layout.
GPU_REFUSED = "the GPU engines do not route multi-layer layouts yet; use --backend cpu"
#: The note of a multi-layer layout's run: it draws no ``layout.png``.
#: ``view`` on a multi-layer layout.
NOT_DRAWN = ("draws layouts of one layer only; a multi-layer layout is routed by "
             "`mazeroute route` and checked by `mazeroute check`")
#: ``wavefront --html`` on a multi-layer layout.
NO_STACK_PAGE = ("the wavefront page shows layouts of one layer only; draw a multi-layer "
                 "layout's wavefront with -o and --gif")


def refuse_for_stack(layout: Layout, *, backend: str = "auto", strategy: str | None = None,
                     html: bool = False, congestion: str | None = None) -> None:
    """Refuse, in one line, the options that cannot route or draw ``layout``'s layers:
    ``--backend gpu``, a 2-D BFS ``--strategy``, and the viewer (``html``) and heat map
    (``congestion``), which show one layer. Nothing for a layout of one layer.

    Raises
    ------
    InputError
        Naming the option.
    """
    if layout.stack is None:
        return
    if backend == "gpu":
        raise InputError(GPU_REFUSED, field="--backend")
    if strategy is not None:
        raise InputError("picks a BFS engine of one layer; a multi-layer layout is routed "
                         "by the 3-D engines (leave it out)", field="--strategy")
    if html:
        raise InputError("the viewer shows layouts of one layer only", field="--html")
    if congestion:
        raise InputError("the heat map shows layouts of one layer only", field="--congestion")


def refuse_wavefront(layout: Layout, *, backend: str = "auto", strategy: str | None = None,
                     html: bool = False) -> None:
    """Refuse, in one line, what ``wavefront`` cannot do on ``layout``'s layers:
    ``--backend gpu``, a 2-D BFS ``--strategy`` and the page (``html``), whose level
    slider shows one layer. Nothing for a layout of one layer.

    Raises
    ------
    InputError
        Naming the option.
    """
    if layout.stack is None:
        return
    if html:
        raise InputError(NO_STACK_PAGE, field="--html")
    refuse_for_stack(layout, backend=backend, strategy=strategy)


def refuse_drawing(layout: Layout) -> None:
    """Refuse a multi-layer layout in ``view``: its viewer shows one layer.

    Raises
    ------
    InputError
        Naming the layout's file.
    """
    if layout.stack is not None:
        raise InputError(NOT_DRAWN, file=layout.source)


def stack_picture(layout: Layout, wanted: bool, scale: int | None = None,
                  mode: str = DEFAULT_MODE, overlay: bool = False) -> Picture:
    """:func:`~mazeroute.batch_memory.plan_picture`, with ``overlay`` (a multi-layer
    layout's layers in one panel; the memory is weighed for the panels side by side,
    the larger picture)."""
    picture = plan_picture(layout, wanted, scale, mode)
    return dataclasses.replace(picture, overlay=overlay and layout.stack is not None)


def display_stack(layout: Layout) -> Layout:
    """A multi-layer layout with names safe to draw (escaped, bounded), for its picture,
    as :func:`~mazeroute.batch_memory.display_layout` makes one of a single layer."""
    nets = [Net(safe_text(n.name, PICTURE_NAME_WIDTH), n.pins) for n in layout.nets]
    return dataclasses.replace(layout, name=safe_text(layout.name, PICTURE_NAME_WIDTH),
                               nets=nets)


def route_stack(layout: Layout, args, given: dict,
                progress: Callable | None = None) -> RouteResult:
    """Route multi-layer ``layout`` on the CPU in the mode of ``args``.

    Parameters
    ----------
    layout : Layout
        A layout with a stack of layers.
    args
        A command line or :class:`~mazeroute.batch.BatchOptions`: ``mode``, ``order``,
        ``backend``, ``strategy``.
    given : dict
        The routing options given (:func:`~mazeroute.batch.routing_options`).
    progress : callable, optional
        Called with each negotiation iteration's stats.

    Returns
    -------
    RouteResult
        One route per net, cells ``(x, y, z)``.
    """
    refuse_for_stack(layout, backend=args.backend, strategy=getattr(args, "strategy", None))
    from .router.layered import route_layered
    mode = getattr(args, "mode", DEFAULT_MODE)
    options = None
    if mode == "negotiate":
        fields = {f.name for f in dataclasses.fields(PathFinderOptions)}
        chosen = {k: v for k, v in given.items() if k in fields}
        if "max_iterations" in chosen:      # a cap the user chose, as negotiate() reads it
            chosen["budget_cells"] = None
        options = PathFinderOptions(**chosen) if chosen else None
    return route_layered(layout, mode, options=options,
                         order=getattr(args, "order", None) or "file",
                         progress=progress if mode == "negotiate" else None)


def stack_wavefront(layout: Layout, index: int, mode: str = DEFAULT_MODE,
                    order: str = "file", alone: bool = False) -> tuple:
    """Net ``index``'s 3-D BFS wavefront from its first pin, on the CPU, with the stack's
    rules (directions, via cost, via sites).

    Sequential mode blocks the wires of the nets before it in ``order`` (none with
    ``alone``); negotiate mode blocks every other net's negotiated wire, a plain BFS
    rather than the costs the negotiation's own search saw. Other nets' pins are
    blocked in both.

    Returns
    -------
    tuple
        ``(levels, others, net_route, engine)``: the ``(L, H, W)`` levels, the cells
        ``(x, y, z)`` other nets hold, the net's route and the engine that routed it.
    """
    import numpy as np

    from .engines.grid3d import bfs3d
    from .router import net_order
    from .router.layered import route_layered
    from .router.layered_tree import Board, grow_tree, net_route
    board = Board(layout)
    route = result = None
    engine = "cpu/grid3d"
    if mode == "negotiate":
        result = route_layered(layout, "negotiate")
        before = [i for i in range(len(layout.nets)) if i != index]
        route, engine = result.nets[index], result.engine
    else:
        sequence = net_order(layout, order)
        before = [] if alone else sequence[:sequence.index(index)]
        if before:
            result = route_layered(layout, "sequential", order=order)
    for i in before:
        if result.nets[i].routed:
            board.commit(i, np.asarray(result.nets[i].cells, np.int64).reshape(-1, 3))
    free = board.free_for(index)
    if route is None:      # the net's own tree on this board, as sequential mode grows it
        route = net_route(board, index, grow_tree(board.rules, free, board.pins[index]),
                          0, 0.0)
    levels = bfs3d(free, board.pins[index][:1], **board.rules.kwargs())
    zs, ys, xs = np.nonzero(~free & ~layout.blocked)
    return levels, list(zip(xs.tolist(), ys.tolist(), zs.tolist())), route, engine


__all__ = ["GPU_REFUSED", "NOT_DRAWN", "NO_STACK_PAGE", "display_stack", "refuse_drawing",
           "refuse_for_stack", "refuse_wavefront", "route_stack", "stack_picture",
           "stack_wavefront"]
