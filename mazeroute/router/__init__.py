"""Routing: the nets of a layout turned into wires, by one of the routing modes.

``negotiate`` (:mod:`.negotiate`, the default) is PathFinder's negotiated congestion:
nets share cells while the price of shared cells rises, until none is shared; then the
nets still in conflict are dropped and tried once more, and the result never has fewer
routed nets than sequential mode's. ``sequential`` (:mod:`.sequential`) is Lee's
textbook loop: nets one after another, each wire a blockage for the nets after it, each
two-pin wire the shortest possible at its turn.

Examples
--------
>>> from mazeroute.readers import parse_layout
>>> lay = parse_layout({"width": 5, "height": 3, "blockages": [[2, 0, 2, 1]],
...                     "nets": [{"name": "a", "pins": [[0, 0], [4, 0]]}]})
>>> route(lay, backend="cpu").nets[0].length
8
>>> route(lay, backend="cpu").mode, route(lay, backend="cpu", mode="sequential").mode
('negotiate', 'sequential')
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..layout import Layout, check_layout
from .result import ROUTES_FORMAT, IterationStats, NetRoute, RouteResult

if TYPE_CHECKING:
    from .congestion import PathFinderOptions
    from .negotiate import Negotiator
    from .sequential import ORDERS, Router, net_order

# the routing modes' modules load when first named, so that a program using one
# submodule (the global router's) does not load both modes
_LAZY = {"PathFinderOptions": "congestion", "Negotiator": "negotiate", "ORDERS": "sequential",
         "Router": "sequential", "net_order": "sequential"}


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


MODES = ("sequential", "negotiate")
#: The mode of :func:`route`, ``mazeroute route`` and ``mazeroute batch`` unless told.
DEFAULT_MODE = "negotiate"


def route(layout: Layout, *, backend: str = "auto", strategy: str | None = None,
          order: str | None = None, mode: str = DEFAULT_MODE, max_iterations: int | None = None,
          time_limit: float | None = None, progress: Callable | None = None,
          options: PathFinderOptions | None = None) -> RouteResult:
    """Route every net of ``layout`` in ``mode`` (default ``negotiate``).

    ``sequential``: see :class:`Router` (``backend``, ``strategy``, ``order``, by default
    ``file``; ``progress``
    is called as ``progress(done, total, net_route)``). ``negotiate``: see
    :class:`~.negotiate.Negotiator` (``backend``; ``max_iterations``, ``time_limit`` and
    ``options``; ``progress`` is called with each iteration's :class:`IterationStats`).
    A layout built in Python is checked first (:func:`~mazeroute.layout.check_layout`):
    what the readers refuse is refused here too, with the field named.

    Parameters
    ----------
    layout : Layout
        The layout whose nets to route.
    backend : {"auto", "cpu", "gpu"}
        Where the searches run; ``auto`` picks the GPU when one is usable.
    strategy, order : str, optional
        Sequential mode only: the BFS strategy, and the net order (``file`` or ``hpwl``).
    mode : {"negotiate", "sequential"}
        Negotiated congestion (PathFinder), or Lee's algorithm one net after another.
    max_iterations, time_limit, options : optional
        Negotiate mode only: the rip-up-and-reroute bounds and the PathFinder options.
    progress : callable, optional
        Called as each net (sequential) or iteration (negotiate) is done.

    Returns
    -------
    RouteResult
        Every net's route, in the layout's net order.

    Raises
    ------
    InputError
        For a layout that breaks a rule of the format, or an unknown backend or strategy.
    EngineUnavailable
        For a backend this machine cannot run.
    ValueError
        For an unknown mode, or an option that the mode does not take.

    Examples
    --------
    >>> from mazeroute.readers import parse_layout
    >>> lay = parse_layout({"width": 6, "height": 4, "nets": [
    ...     {"name": "clk", "pins": [[0, 0], [5, 3]]}, {"name": "d", "pins": [[0, 3], [2, 3]]}]})
    >>> res = route(lay, backend="cpu")
    >>> res.routed, [n.length for n in res.nets]
    (2, [8, 2])
    """
    check_layout(layout)
    if mode == "sequential":
        for name, value in (("max_iterations", max_iterations), ("time_limit", time_limit),
                            ("options", options)):
            if value is not None:
                raise ValueError(f"{name}= applies to mode='negotiate' only")
        from .sequential import Router
        return Router(layout, backend, strategy).run(order or "file", progress)
    if mode == "negotiate":
        for name, value in (("order", order), ("strategy", strategy)):
            if value is not None:
                raise ValueError(f"{name}= applies to mode='sequential' only")
        from .negotiate import negotiate
        return negotiate(layout, backend, max_iterations=max_iterations,
                         time_limit=time_limit, progress=progress, options=options)
    raise ValueError(f"unknown routing mode {mode!r}; choose from {', '.join(MODES)}")


__all__ = ["DEFAULT_MODE", "MODES", "ORDERS", "ROUTES_FORMAT", "IterationStats", "NetRoute",
           "Negotiator", "PathFinderOptions", "RouteResult", "Router", "net_order", "route"]
