"""mazeroute: maze routing for chip layouts with CPU and GPU wavefront engines.

The data flows left to right:

    readers -> layout -> plan -> engines -> router -> (contract, report, render, view)
    -> batch -> distributed -> cli

and each stage imports only from the stages to its left (the four in parentheses side
by side). The readers build the layout's types (:class:`Layout`, :class:`Net`,
:class:`GridGraph`), and the small shared helpers (errors, io, keys, limits, compiled)
serve every stage. The command line's pieces sit at its end: ``cli_options`` (the
parsers) and ``cli_signals`` (how a run stops); the batch's at its place:
``batch_files`` (its inputs and output folders) and ``batch_memory`` (what a run needs);
the viewer's page template is ``view_template``.

Examples
--------
>>> import mazeroute
>>> lay = mazeroute.parse_layout({"width": 6, "height": 4,
...     "nets": [{"name": "clk", "pins": [[0, 0], [5, 3]]}]})
>>> mazeroute.route(lay, backend="cpu").nets[0].length
8
"""

import importlib

from .compiled import ensure_cache_dir as _ensure_cache_dir
from .compiled import lock_numba_cache as _lock_numba_cache

__version__ = "0.1.0"
_ensure_cache_dir()     # before any compiled function is defined
_lock_numba_cache()     # before any is saved or loaded

#: Where each name of the public API lives. They load when first used, so that the
#: command line (``python -m mazeroute``) starts its signal handling before the heavy
#: modules load: a Ctrl-C then is one line, however early it comes.
_EXPORTS = {
    "ENGINES": ".engines", "UNREACHED": ".engines", "bfs": ".engines",
    "make_problem": ".engines", "InputError": ".errors", "CSRGraph": ".graph",
    "GridGraph": ".graph", "fig15_1_graph": ".graph", "Layout": ".layout", "Net": ".layout",
    "load_layout": ".readers", "parse_layout": ".readers", "save_layout": ".layout",
    "Router": ".router", "route": ".router",
}
__all__ = [*_EXPORTS, "__version__"]


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module 'mazeroute' has no attribute {name!r}")
    value = getattr(importlib.import_module(_EXPORTS[name], __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})
