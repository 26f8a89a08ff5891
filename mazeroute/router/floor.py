"""Sequential mode's routes as negotiated routing's floor: :func:`sequential_routes`.

Negotiation keeps them when they connect more nets than it did.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import numpy as np

from ..engines import make_net_search
from ..engines.weighted import COST_DTYPE, NetRequest
from ..layout import Layout
from ..plan import make_plan
from ..plan.device import device_scope
from .result import NetRoute, RouteResult, wire_bends
from .sequential import Router
from .watch import Watch


def sequential_routes(layout: Layout, backend: str = "auto", beat: int | None = None,
                      until: Callable[[], bool] | None = None,
                      watch: Watch | None = None) -> RouteResult | None:
    """Sequential mode's routes (file order, each wire a blockage for the nets after it),
    computed by the weighted search on unit costs over the whole grid.

    ``beat``: the routes are wanted only if they connect more than ``beat`` nets: None
    is returned when they do not, and the run stops as soon as so many nets are
    certain to stay unrouted that they cannot (None: always a result).

    The floor is sequential mode's own router (:class:`~.sequential.Router`; on the GPU
    ``gpu/grid``, many nets a launch), whose routes these are by definition, and which
    is the faster of the two on every CPU layout measured. A time limit on the CPU
    (``until``, asked between nets) or a watched net needs a loop over the nets: there
    the weighted search on unit costs routes them, whose wires are exactly the
    router's (unit costs make it a BFS with the BFS backtrace; a test holds them equal).

    ``until``: a clock's verdict, asked before each net (on the GPU, before the run):
    once it says True no more nets are routed and None is returned (a time limit ran
    out). ``watch``: keeps what the net it watches sees (:mod:`.watch`; on the CPU).
    """
    give_up = None if beat is None else len(layout.nets) - beat - 1
    if until is not None and until():
        return None
    if backend == "auto":
        backend = make_plan(layout, "auto", mode="negotiate").floor
    if backend == "gpu":
        return Router(layout, "gpu", "grid").run(max_unrouted=give_up)
    if until is None and (watch is None or watch.net is None):
        return Router(layout, backend).run(max_unrouted=give_up)
    start = time.perf_counter()
    h, w = layout.height, layout.width
    owner = np.full((h, w), -1, np.int32)
    pins = [np.array(net.pins, np.int64).reshape(-1, 2) for net in layout.nets]
    for i, p in enumerate(pins):
        owner[p[:, 1], p[:, 0]] = i
    search = make_net_search(backend, ~layout.blocked, owner)
    cost = np.ones((h, w), COST_DTYPE)
    none = np.zeros(0, np.int64)
    nets, order = [], 0
    for i, net in enumerate(layout.nets):
        if until is not None and until():
            return None
        t0 = time.perf_counter()
        request = NetRequest(i, pins[i], (0, 0, w - 1, h - 1))
        if watch is not None:
            watch.look(search, cost, [request], "sequential floor", unit=1)
        xy = search.route(cost, [request], None if i == 0 else none)[0]
        r = NetRoute(net.name, list(net.pins))
        if xy is not None:
            search.set_owner(xy, i)
            if watch is not None:
                watch.took(i)
            r.routed, r.order, r.length = True, order, len(xy) - 1
            r.bends = wire_bends(xy, net.pins)
            r.set_cells(xy)
            order += 1
        r.seconds = time.perf_counter() - t0
        nets.append(r)
        if give_up is not None and len(nets) - order > give_up:
            return None
    engine = f"{getattr(search, 'backend', backend)}/weighted"
    return RouteResult(layout, nets, engine, "file", time.perf_counter() - start)


class FloorThread:
    """:func:`sequential_routes` of ``layout`` on ``backend`` with ``beat``, on a thread
    of its own from now on; :meth:`join` gives its result (or raises what it raised).

    Examples
    --------
    >>> from mazeroute.layout import Layout, Net
    >>> lay = Layout("two", 8, 8, nets=[Net("a", [(0, 0), (5, 5)])])
    >>> FloorThread(lay, "cpu", beat=0).join().routed
    1
    """

    def __init__(self, layout: Layout, backend: str, beat: int | None = None):
        self._result: RouteResult | None = None
        self._error: BaseException | None = None
        # the caller's device, not the default one, where a host has several
        scope = device_scope()
        self._thread = threading.Thread(target=self._run,
                                        args=(layout, backend, beat, scope),
                                        name="mazeroute-floor", daemon=True)
        self._thread.start()

    def _run(self, layout: Layout, backend: str, beat: int | None, scope) -> None:
        try:
            with scope():
                self._result = sequential_routes(layout, backend, beat=beat)
        except BaseException as e:     # raised again on the caller's thread, at join
            self._error = e

    def join(self) -> RouteResult | None:
        """The routes, once the thread has ended (None: they could not beat ``beat``)."""
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._result

    def wait(self) -> None:
        """Wait for the thread to end, whatever it found or raised (a run that ends by
        an error of its own leaves no thread behind it)."""
        self._thread.join()
