"""Routing a multi-layer layout from the command line and the batch: the checks its
options get, its picture, and the call to the 3-D router.

``route`` and each layout of ``batch`` route a layout with a stack of layers through
:func:`route_stack`, on the 3-D engines of the backend the planner picks (the same
routes on the CPU and the GPU).

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


def refuse_for_stack(layout: Layout, *, backend: str = "auto",
                     strategy: str | None = None) -> None:
    """Refuse, in one line, the options that cannot route ``layout``'s layers: a 2-D BFS
    ``--strategy`` (the viewer and the heat map show every layer). Nothing for a layout
    of one layer.

    Raises
    ------
    InputError
        Naming the option.
    """
    if layout.stack is None:
        return
    if strategy is not None:
        raise InputError("picks a BFS engine of one layer; a multi-layer layout is routed "
                         "by the 3-D engines (leave it out)", field="--strategy")


def refuse_wavefront(layout: Layout, *, backend: str = "auto",
                     strategy: str | None = None) -> None:
    """Refuse, in one line, what ``wavefront`` cannot do on ``layout``'s layers: a 2-D
    BFS ``--strategy`` (its page has the level slider on each layer). Nothing for a
    layout of one layer.

    Raises
    ------
    InputError
        Naming the option.
    """
    if layout.stack is None:
        return
    refuse_for_stack(layout, backend=backend, strategy=strategy)


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
    """Route multi-layer ``layout`` in the mode of ``args``, on ``args.backend``.

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
                         progress=progress if mode == "negotiate" else None,
                         backend=args.backend)


def stack_wavefront(layout: Layout, index: int, mode: str = DEFAULT_MODE,
                    order: str = "file", alone: bool = False, backend: str = "auto") -> tuple:
    """Net ``index``'s 3-D BFS wavefront from its first pin, with the stack's rules
    (directions, via cost, via sites), on the 3-D engines the planner picks for
    ``backend``.

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
    import importlib

    import numpy as np

    from .plan import make_plan
    from .plan.registry import STACK_ENGINES
    from .router import net_order
    from .router.layered import route_layered
    from .router.layered_tree import Board, grow_tree, net_route
    board = Board(layout)
    route = result = None
    wave = make_plan(layout, backend, mode="wavefront").backend
    bfs3d = importlib.import_module(STACK_ENGINES[wave]).bfs3d
    engine = f"{wave}/grid3d"
    backend = make_plan(layout, backend, mode=mode).backend      # the routes before it
    if mode == "negotiate":
        result = route_layered(layout, "negotiate", backend=backend)
        before = [i for i in range(len(layout.nets)) if i != index]
        route, engine = result.nets[index], result.engine
    else:
        sequence = net_order(layout, order)
        before = [] if alone else sequence[:sequence.index(index)]
        if before:
            result = route_layered(layout, "sequential", order=order, backend=backend)
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


__all__ = ["display_stack", "refuse_for_stack", "refuse_wavefront", "route_stack",
           "stack_picture", "stack_wavefront"]
