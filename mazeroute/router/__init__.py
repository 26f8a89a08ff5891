"""Routing: the nets of a layout turned into wires, by one of the routing modes.

``sequential`` (:mod:`.sequential`) is Lee's textbook loop: nets one after another, each
wire a blockage for the nets after it.

Examples
--------
>>> from mazeroute.layout import parse_layout
>>> lay = parse_layout({"width": 5, "height": 3, "blockages": [[2, 0, 2, 1]],
...                     "nets": [{"name": "a", "pins": [[0, 0], [4, 0]]}]})
>>> route(lay, backend="cpu").nets[0].length
8
"""

from __future__ import annotations

from ..layout import Layout
from .result import ROUTES_FORMAT, NetRoute, RouteResult
from .sequential import ORDERS, Router, net_order

MODES = ("sequential",)


def route(layout: Layout, *, backend: str = "auto", strategy: str | None = None,
          order: str = "file", mode: str = "sequential") -> RouteResult:
    """Route every net of ``layout`` in ``mode``; see :class:`Router`."""
    if mode == "sequential":
        return Router(layout, backend, strategy).run(order)
    raise ValueError(f"unknown routing mode {mode!r}; choose from {', '.join(MODES)}")


__all__ = ["MODES", "ORDERS", "ROUTES_FORMAT", "NetRoute", "RouteResult", "Router",
           "net_order", "route"]
