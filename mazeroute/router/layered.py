"""Routing a multi-layer layout on the CPU: :func:`route_layered`.

A layout with a stack of layers (:class:`~mazeroute.layers.Stack`) is routed on the 3-D
engines of :mod:`mazeroute.engines.grid3d`, in one of the two modes of the 2-D router:

* ``sequential``: Lee's loop. Nets one after another (file order, or shortest HPWL
  first); each net's tree grows from its first pin by a multi-source BFS from the tree
  so far to its remaining pins, stopping at the nearest, and the backtrace with the
  fewest vias, then the fewest bends, among the shortest paths; a routed wire blocks
  every later net, and every other net's pins block a net. A single layer whose wires
  run both ways is the 2-D layout itself, and is backtraced as the 2-D router
  backtraces, so that it gets the 2-D router's wires.
* ``negotiate``: PathFinder's negotiated congestion (:mod:`.layered_negotiate`), whose
  result is legal and never routes fewer nets than sequential routing in file order.

Examples
--------
>>> from mazeroute.layers import Layer, Stack
>>> from mazeroute.layout import Layout, Net
>>> stack = Stack((Layer("M1", "horizontal"), Layer("M2", "vertical")), via_cost=2)
>>> lay = Layout("demo", 4, 3, nets=[Net("a", [(0, 0, 0), (3, 2, 1)])], stack=stack)
>>> res = route_layered(lay, "sequential")
>>> net = res.nets[0]
>>> net.cells[0], net.cells[-1], net.length, net.vias, net.bends
((0, 0, 0), (3, 2, 1), 5, 1, 0)
"""

from __future__ import annotations

from collections.abc import Callable

from ..layout import Layout, check_layout
from ..plan import make_plan
from .layered_negotiate import negotiate_layered
from .layered_tree import route_sequential
from .negotiation.options import PathFinderOptions
from .result import IterationStats, RouteResult
from .sequential import net_order

__all__ = ["route_layered", "route_sequential", "LAYERED_MODES"]

#: The modes of :func:`route_layered`.
LAYERED_MODES = ("sequential", "negotiate")


def route_layered(layout: Layout, mode: str = "negotiate", *,
                  options: PathFinderOptions | None = None, order: str = "file",
                  progress: Callable[[IterationStats], None] | None = None,
                  backend: str = "cpu", kernels=None) -> RouteResult:
    """Route every net of a multi-layer layout.

    Parameters
    ----------
    layout : Layout
        A layout with a stack of layers; one built in Python is checked first
        (:func:`~mazeroute.layout.check_layout`).
    mode : {"negotiate", "sequential"}
        PathFinder's negotiated congestion, or Lee's algorithm one net after another.
    options : PathFinderOptions, optional
        Negotiate mode: the options that apply to it (``first_iter_pres_fac``,
        ``initial_pres_fac``, ``pres_fac_mult``, ``max_pres_fac``, ``acc_fac``,
        ``max_iterations``, ``time_limit``, ``stall_iterations``).
    order : {"file", "hpwl"}
        Sequential mode's net order.
    progress : callable, optional
        Negotiate mode: called with each iteration's :class:`IterationStats`;
        sequential mode: called as ``progress(done, total, net_route)``.
    backend : {"cpu", "gpu", "auto"}
        Where the searches run: the CPU engines over the whole grid, or the GPU's sweeps
        in windows provably as good (:mod:`.layered_search`); the routes are the same.
        ``auto`` is the planner's choice (:func:`mazeroute.plan.make_plan`).
    kernels : object, optional
        The GPU's sweeps (tests run them emulated on the CPU).

    Returns
    -------
    RouteResult
        One :class:`NetRoute` per net, in file order, cells ``(x, y, z)``; engine
        ``cpu/grid3d`` (sequential) or ``cpu/weighted3d`` (negotiate), ``gpu/...`` on
        the GPU.

    Raises
    ------
    InputError
        For a layout that breaks a rule of the format.
    ValueError
        For a layout without layers, an unknown mode or order, or options given to
        sequential mode.

    Examples
    --------
    >>> from mazeroute.layers import Layer, Stack
    >>> from mazeroute.layout import Layout, Net
    >>> stack = Stack((Layer("M1"), Layer("M2")))
    >>> lay = Layout("x", 3, 3, nets=[Net("a", [(0, 1, 0), (2, 1, 0)]),
    ...                              Net("b", [(1, 0, 0), (1, 2, 0)])], stack=stack)
    >>> res = route_layered(lay)                 # a hops over b on M2
    >>> res.routed, [n.vias for n in res.nets]
    (2, [2, 0])
    """
    if layout.stack is None:
        raise ValueError("route_layered routes a multi-layer layout; this one has no layers")
    if mode not in LAYERED_MODES:
        raise ValueError(f"unknown mode {mode!r}; choose from {', '.join(LAYERED_MODES)}")
    check_layout(layout)
    if kernels is None:
        backend = make_plan(layout, backend, mode=mode).backend
    if mode == "sequential":
        if options is not None:
            raise ValueError("options apply to negotiate mode only")
        return route_sequential(layout, order, progress, backend, kernels)
    net_order(layout, order)                    # an unknown order is refused alike
    return negotiate_layered(layout, options or PathFinderOptions(), progress, backend,
                             kernels)
