"""mazeroute: maze routing for chip layouts with CPU and GPU wavefront engines.

The data flows left to right, and each module imports only from its left:
layout -> graph -> engines -> backtrace -> router -> render -> cli.

Examples
--------
>>> import mazeroute
>>> lay = mazeroute.parse_layout({"width": 6, "height": 4,
...     "nets": [{"name": "clk", "pins": [[0, 0], [5, 3]]}]})
>>> mazeroute.route(lay, backend="cpu").nets[0].length
8
"""

from .engines import ENGINES, UNREACHED, bfs, make_problem
from .errors import InputError
from .graph import CSRGraph, GridGraph, fig15_1_graph
from .layout import Layout, Net, load_layout, parse_layout, save_layout
from .router import Router, route

__version__ = "0.1.0"
__all__ = ["ENGINES", "UNREACHED", "bfs", "make_problem", "InputError", "CSRGraph",
           "GridGraph", "fig15_1_graph", "Layout", "Net", "load_layout", "parse_layout",
           "save_layout", "Router", "route", "__version__"]
