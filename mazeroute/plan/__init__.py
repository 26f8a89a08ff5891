"""One decision, then the search: every engine choice a run needs, made in one place.

:func:`make_plan` measures the layout once (:class:`~.features.Measure`), reads the
thresholds from one frozen :class:`~.rules.Rules` record, and returns a frozen
:class:`Plan`: the engine for wavefronts and sequential routing, the weighted search of
negotiation, the backend of negotiation's sequential floor, how ``gpu/grid`` runs a
whole wavefront, what a GPU fault falls back to, and the notice a user is given. No
other module chooses a backend.

Examples
--------
>>> import numpy as np
>>> plan = make_plan(np.ones((16, 16), bool), "cpu")
>>> plan.backend, plan.strategy, plan.fallback
('cpu', 'grid', None)
>>> make_plan(np.ones((16, 16), bool), "auto").fallback
'cpu'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..errors import EngineUnavailable, InputError
from ..graph import CSRGraph, GridGraph
from ..layout import Layout
from . import device
from .decide import grid_mode, negotiation_prefers_cpu, routing_prefers_cpu, wavefront_prefers_cpu
from .device import device_errors, first_line, gpu_available, gpu_status
from .features import Features, Measure
from .registry import DEFAULT_STRATEGY, ENGINES, NET_SEARCHES, EngineSpec, strategies
from .rules import DEFAULT_RULES, Rules

__all__ = ["Plan", "make_plan", "Rules", "DEFAULT_RULES", "Features", "Measure",
           "EngineSpec", "ENGINES", "NET_SEARCHES", "strategies", "gpu_available",
           "gpu_status", "device_errors", "first_line", "MODES", "groute_backend"]

#: What a plan is made for: one whole wavefront (or a graph's BFS), sequential routing,
#: negotiated routing.
MODES = ("wavefront", "sequential", "negotiate")


@dataclass(frozen=True)
class Plan:
    """Every engine choice of one run.

    Attributes
    ----------
    requested : the backend the user asked for (``auto``, ``cpu``, ``gpu``).
    mode : what the plan is for (:data:`MODES`).
    backend, strategy : the wavefront engine (sequential routing's too).
    negotiation : the weighted search's backend (negotiate plans; else None).
    floor : the backend of negotiation's sequential floor (negotiate plans; else None):
        under ``auto``, sequential routing's choice for the layout.
    grid_mode, host_targets : how ``gpu/grid`` runs a whole wavefront, and whether its
        searches with targets run on the host's grid (None unless the engine is
        ``gpu/grid``).
    fallback : the backend a run goes on with after a GPU fault (None: the fault is an
        error, as when the GPU was asked for by name).
    notice : one line for the user (no usable GPU under ``auto``), or None.
    features : what was measured of the layout to decide.
    floor_beside : whether the floor routes on a thread beside negotiation's phases
        after legalise (negotiate plans): where both it and negotiation are the device's,
        so that the phases, the host's work, hide it.
    """

    requested: str
    mode: str
    backend: str
    strategy: str
    negotiation: str | None = None
    floor: str | None = None
    grid_mode: str | None = None
    host_targets: bool | None = None
    fallback: str | None = None
    notice: str | None = None
    features: Features | None = None
    floor_beside: bool = False

    @property
    def engine(self) -> str:
        """``backend/strategy`` of the wavefront engine."""
        return f"{self.backend}/{self.strategy}"

    @property
    def spec(self) -> EngineSpec:
        """The registry entry of the wavefront engine."""
        return ENGINES[(self.backend, self.strategy)]


def _check_names(backend: str, strategy: str | None) -> list[str]:
    backends = sorted({"cpu", "gpu"} | {s.backend for s in ENGINES.values()})
    if backend not in (*backends, "auto"):
        raise InputError(f"unknown backend {backend!r}; choose from auto, "
                         + ", ".join(backends), field="backend")
    if strategy is not None and strategy not in strategies():
        raise InputError(f"unknown strategy {strategy!r}; choose from "
                         + ", ".join(strategies()), field="strategy")
    return backends


def _no_gpu() -> EngineUnavailable:
    why = device.gpu_status()[1] or "none is usable"
    return EngineUnavailable(f"backend 'gpu' needs CuPy and a CUDA device: {why} (install "
                             "mazeroute[gpu] on a machine with a CUDA GPU, or use "
                             "--backend cpu)")


def groute_backend(requested: str, ready: bool = False) -> str:
    """Where global routing's searches run: ``requested`` (``cpu`` or ``gpu``), the
    GPU's only where one is usable (:class:`EngineUnavailable` otherwise); with
    ``ready``, the GPU's context is made too."""
    if requested not in ("cpu", "gpu"):
        raise InputError(f"unknown backend {requested!r}; choose from cpu, gpu",
                         field="backend")
    if requested == "gpu":
        if not device.gpu_available():
            raise _no_gpu()
        if ready:
            device.open_device()
    return requested


def no_gpu_notice() -> str:
    """The one line a run under ``auto`` gives when it finds no usable GPU."""
    return f"{device.gpu_status()[1] or 'no usable CUDA device'}; using the CPU engine"


def _subject(subject) -> tuple[np.ndarray | None, Layout | None, str]:
    """The free mask (None for a plain graph), the layout (if any) and the graph kind."""
    if subject is None:
        return None, None, "grid"
    if isinstance(subject, Layout):
        return ~subject.blocked, subject, "grid"
    if isinstance(subject, CSRGraph):
        return None, None, "csr"
    if isinstance(subject, GridGraph):
        return subject.free, None, "grid"
    return np.asarray(subject, dtype=bool), None, "grid"


def _spans(layout: Layout) -> tuple[np.ndarray, np.ndarray]:
    """Pins per net, and each net's pin box half-perimeter."""
    counts = np.fromiter((len(n.pins) for n in layout.nets), np.int64, len(layout.nets))
    xy = np.array([p for n in layout.nets for p in n.pins], np.int64).reshape(-1, 2)
    at = np.cumsum(counts) - counts
    spans = (np.maximum.reduceat(xy, at) - np.minimum.reduceat(xy, at)).sum(axis=1)
    return counts, spans


def _pick(backend: str, strategy: str | None, kind: str, has_gpu: bool,
          prefers_cpu) -> str:
    """The wavefront engine's backend under the request (``auto``: the GPU where a
    usable one is present and ``prefers_cpu()`` says no)."""
    if backend != "auto":
        return backend
    if strategy is not None:
        offering = [b for b in ("gpu", "cpu") if (b, strategy) in ENGINES]
        if "gpu" in offering and not has_gpu:
            offering.remove("gpu")
        if not offering:
            raise EngineUnavailable(f"strategy {strategy!r} runs only on the GPU, and no "
                                    "CUDA device with CuPy was found")
        return offering[0]
    if not has_gpu:
        return "cpu"
    return "cpu" if kind == "grid" and prefers_cpu() else "gpu"


def _offered(backend: str, strategy: str, kind: str) -> str:
    """``strategy``, where ``backend`` offers it for this kind of graph."""
    spec = ENGINES.get((backend, strategy))
    if spec is None:
        raise InputError(f"strategy {strategy!r} has no {backend} engine; {backend} offers "
                         + ", ".join(strategies(backend)), field="strategy")
    if spec.form == "grid" and kind != "grid":
        raise InputError(f"strategy {strategy!r} works on grids only, not on a plain graph",
                         field="strategy")
    return strategy


def _stack_plan(backend: str, mode: str, has_gpu: bool, free_cells: int,
                rules: Rules) -> Plan:
    """A multi-layer layout's plan: its 3-D engines' backend (strategy ``grid3d``);
    under ``auto`` the GPU for a whole wavefront from ``rules.min_gpu_stack_cells``
    free cells on, the CPU for routing."""
    big = mode == "wavefront" and free_cells >= rules.min_gpu_stack_cells
    chosen = backend if backend != "auto" else ("gpu" if has_gpu and big else "cpu")
    neg = chosen if mode == "negotiate" else None
    notice = no_gpu_notice() if backend == "auto" and not has_gpu else None
    return Plan(backend, mode, chosen, "grid3d", neg, neg, None, None,
                "cpu" if backend == "auto" else None, notice)


def _negotiation_engines(backend: str, has_gpu: bool, nets: bool,
                         routes_on_cpu: Callable[[], bool],
                         measure: Measure | None) -> tuple[str, str]:
    """Negotiation's engine and its floor's. The floor is sequential routing, so under
    ``auto`` it takes sequential routing's choice (``routes_on_cpu``, asked only then)."""
    floor = "gpu" if has_gpu and not (backend == "auto" and nets and routes_on_cpu()) \
        else "cpu"
    negotiation = backend if backend != "auto" else (
        "gpu" if has_gpu and "gpu" in NET_SEARCHES and not negotiation_prefers_cpu(measure)
        else "cpu")
    return negotiation, floor


def make_plan(subject, backend: str = "auto", strategy: str | None = None,
              mode: str = "wavefront", rules: Rules = DEFAULT_RULES) -> Plan:
    """Decide every engine a run needs.

    Parameters
    ----------
    subject : Layout, GridGraph, CSRGraph, (height, width) bool array of free cells, or None
        What is searched. Sequential and negotiate plans read a layout's nets; None
        checks the names only (``auto`` then means the GPU wherever one is usable).
    backend : {"auto", "cpu", "gpu"}
        ``auto`` chooses by the rules where a usable GPU is present, else the CPU.
    strategy : str, optional
        A registry strategy name; None takes the backend's default.
    mode : {"wavefront", "sequential", "negotiate"}
        What the plan is for.
    rules : Rules
        The thresholds; :data:`DEFAULT_RULES` unless a benchmark passes its own.

    Returns
    -------
    Plan
        The frozen record of every choice.

    Raises
    ------
    InputError
        For an unknown backend, strategy or mode, or a strategy the chosen backend or
        graph does not offer.
    EngineUnavailable
        For ``backend="gpu"`` (or a GPU-only strategy) without a usable GPU.

    Examples
    --------
    >>> import numpy as np
    >>> from mazeroute.layout import Layout, Net
    >>> lay = Layout("two", 32, 32, nets=[Net("a", [(0, 0), (5, 5)])])
    >>> p = make_plan(lay, "auto", mode="negotiate")
    >>> p.negotiation in ("cpu", "gpu"), p.fallback
    (True, 'cpu')
    """
    if mode not in MODES:
        raise InputError(f"unknown mode {mode!r}; choose from " + ", ".join(MODES),
                         field="mode")
    backends = _check_names(backend, strategy)
    free, layout, kind = _subject(subject)
    has_gpu = "gpu" in backends and backend in ("auto", "gpu") and device.gpu_available()
    if backend == "gpu" and not has_gpu:
        raise _no_gpu()
    if layout is not None and layout.stack is not None:
        return _stack_plan(backend, mode, has_gpu, int(free.sum()), rules)
    measure = Measure(free, rules) if free is not None else None
    nets = layout is not None and len(layout.nets) > 0

    def routes_on_cpu() -> bool:        # sequential routing's own rule
        return routing_prefers_cpu(measure, *_spans(layout))

    def prefers_cpu() -> bool:
        if measure is None:          # names only: no layout to weigh
            return False
        if mode == "sequential" and nets and strategy is None:
            return routes_on_cpu()
        return wavefront_prefers_cpu(measure)[0]

    chosen = _pick(backend, strategy, kind, has_gpu, prefers_cpu)
    strategy = _offered(chosen, strategy or DEFAULT_STRATEGY[(chosen, kind)], kind)
    negotiation = floor = None
    if mode == "negotiate":
        negotiation, floor = _negotiation_engines(backend, has_gpu, nets, routes_on_cpu,
                                                  measure)
    gmode = host = None
    if (chosen, strategy) == ("gpu", "grid") and measure is not None:
        gmode, host = grid_mode(measure)
    notice = no_gpu_notice() if backend == "auto" and "gpu" in backends and not has_gpu \
        else None
    return Plan(backend, mode, chosen, strategy, negotiation, floor, gmode, host,
                "cpu" if backend == "auto" else None, notice,
                measure.frozen() if measure is not None else None,
                floor_beside=negotiation == floor == "gpu")
