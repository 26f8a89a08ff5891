"""The layers suite: the multi-layer engines on the CPU and the GPU in one process.

Three parts, each over ``--seeds`` seeds of :func:`~mazeroute.generate3d.random_layout3d`
stacks whose layers alternate horizontal and vertical:

``wave``
    one whole 3-D wavefront from a free cell of layer 0 (8 layers of 2048 x 2048, 25 %
    rectangles a layer): ``grid3d.bfs3d`` against ``gpu_grid3d.bfs3d``, whose answer
    is a host array (the copy back is timed). The CPU runs once a seed, after a small
    stack warmed its compiled code; the GPU runs once untimed on the seed's stack, then
    ``repeats`` timed times, their median counting. The levels must be equal.
``sequential``, ``negotiate``
    :func:`~mazeroute.router.layered.route_layered` in that mode on 4 layers of 1024 x
    1024 (10 % rectangles, two-pin nets of span 16; 4,000 and 8,000 nets), the CPU then
    the GPU on each seed, after both were warmed in both modes on small stacks. Each run
    gives its seconds, nets routed, a digest of the routes and the contract checker's
    findings; the GPU's also the bytes a cell CuPy's memory pool holds after it, which
    is the pool's peak (the pool is emptied between parts, never between seeds).

Each part ends with a row of medians over its seeds. A part's sides and spans shrink by
``scale`` and its net counts by its square, for quick runs.

Examples
--------
>>> route_check("ab", "ab", 0, 0), route_check("ab", "cd", 0, 0), route_check("ab", None, 1)
('ok', 'DIFFERENT', 'INVALID')
"""

from __future__ import annotations

import hashlib
import json
import math
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from .. import engines
from ..errors import InputError
from ..generate3d import random_layout3d
from ..layout import Layout
from .measure import DEFAULT_REPEATS, NA, error_note, median, release, time_runs

#: Seeds of each part when ``--seeds`` is not given.
LAYERS_SEEDS = 3
#: The seed of the warm-up stacks (any seed the timed parts do not start from).
WARM_SEED = 12345
#: Checks that make the suite's exit status 1.
BAD_CHECKS = ("ERROR", "WRONG", "INVALID", "DIFFERENT")


@dataclass(frozen=True)
class LayersPart:
    """One part of the suite: its stack, and the routing mode (None: the wavefront)."""

    name: str
    side: int
    layers: int
    density: float
    nets: int = 0
    span: int = 16
    mode: str | None = None

    def dims(self, scale: float = 1.0) -> tuple[int, int, int]:
        """The side, nets and span at ``scale`` (sides and spans times it, nets times
        its square)."""
        side = max(16, round(self.side * scale))
        nets = max(1, round(self.nets * scale * scale)) if self.nets else 0
        return side, nets, max(4, round(self.span * scale))

    def layout(self, seed: int, scale: float = 1.0) -> Layout:
        """The part's stack for ``seed`` at ``scale``."""
        side, nets, span = self.dims(scale)
        return random_layout3d(side, side, self.layers, density=self.density, nets=nets,
                               span=span, seed=seed, directions=directions(self.layers))


PARTS = {p.name: p for p in (
    LayersPart("wave", 2048, 8, 0.25),
    LayersPart("sequential", 1024, 4, 0.10, nets=4000, mode="sequential"),
    LayersPart("negotiate", 1024, 4, 0.10, nets=8000, mode="negotiate"))}


@dataclass
class LayersRow:
    """One part and seed (or ``seed == "median"``: medians over the seeds) of the layers
    table and of ``layers.csv``. NaN or None: not measured (no GPU, a failure, or a
    column the part has not)."""

    part: str
    seed: str
    size: str                  # layers x height x width
    nets: int
    cpu_s: float
    gpu_s: float               # a wave: the median of the timed runs
    ratio: float               # cpu_s / gpu_s; the median row: of the medians
    levels: int | None = None  # a wave: its deepest level
    cpu_routed: int | None = None
    gpu_routed: int | None = None
    cpu_contract: int | None = None   # the contract checker's findings (0: valid)
    gpu_contract: int | None = None   # the median row: summed over the seeds
    cpu_digest: str = ""
    gpu_digest: str = ""
    gpu_bytes_per_cell: float = NA    # CuPy's pool after the route / the stack's cells
    check: str = "-"           # ok, WRONG (levels), DIFFERENT, INVALID, ERROR; -: no GPU
    note: str = ""


def directions(layers: int) -> list[str]:
    """Layer directions alternating horizontal and vertical, from horizontal."""
    return [("horizontal", "vertical")[z % 2] for z in range(layers)]


def parse_parts(text: str | None) -> list[str]:
    """``--parts``: a comma list of :data:`PARTS` names, in the suite's order.

    Parameters
    ----------
    text : str or None
        Names separated by commas; None or ``all``: every part.

    Returns
    -------
    list of str
        The names, each once, in the order of :data:`PARTS`.

    Raises
    ------
    InputError
        For an unknown name or an empty list (field ``--parts``).
    """
    if text is None or text.strip() == "all":
        return list(PARTS)
    names = {t.strip() for t in text.split(",") if t.strip()}
    unknown = sorted(names - set(PARTS))
    if unknown or not names:
        raise InputError(f"unknown part {', '.join(unknown) or repr(text)}; choose from "
                         f"{', '.join(PARTS)} or all", field="--parts")
    return [p for p in PARTS if p in names]


def route_check(cpu_digest: str, gpu_digest: str | None, cpu_contract: int,
                gpu_contract: int | None = None) -> str:
    """The check of one seed's routes.

    Parameters
    ----------
    cpu_digest, gpu_digest : str
        The backends' digests (:func:`digest`); ``gpu_digest`` None without a GPU.
    cpu_contract, gpu_contract : int
        The contract checker's findings on each backend's routes.

    Returns
    -------
    str
        ``INVALID`` when the contract finds something on either (a broken route is the
        worse news), else ``DIFFERENT`` when the digests differ, else ``ok``.
    """
    if cpu_contract or gpu_contract:
        return "INVALID"
    return "DIFFERENT" if gpu_digest is not None and gpu_digest != cpu_digest else "ok"


def digest(result) -> str:
    """The first 16 hex digits of the SHA-256 of every net's ``(routed, cells)``."""
    text = json.dumps([(n.routed, n.cells) for n in result.nets])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def wave_source(free: np.ndarray) -> tuple[int, int, int]:
    """The wave's source ``(x, y, 0)``: the middle free cell of layer 0 in row order."""
    cells = np.argwhere(free[0])
    y, x = cells[len(cells) // 2]
    return int(x), int(y), 0


def warm_layers(backends: Sequence[str], scale: float = 1.0) -> None:
    """Compile and warm multi-layer routing on each backend in both modes, untimed: the
    stacks of ``mazeroute warmup``, then the negotiate part's stack at a quarter of its
    side (and a sixteenth of its nets)."""
    from ..compiled import layers_warmup
    from ..router.layered import LAYERED_MODES, route_layered

    layers_warmup("gpu" in backends)
    lay = PARTS["negotiate"].layout(WARM_SEED, scale / 4)
    for backend in backends:
        for mode in LAYERED_MODES:
            route_layered(lay, mode, backend=backend)


def warm_wave() -> None:
    """Load the CPU wavefront's compiled code on a small stack (the GPU's is warmed on
    each seed's own stack)."""
    from ..engines import grid3d

    grid3d.bfs3d(np.ones((2, 16, 16), bool), [(0, 0, 0)], directions=directions(2))


def measure_wave(part: LayersPart, seed: int, scale: float, repeats: int, gpu: bool,
                 row: LayersRow) -> None:
    """One seed of the wave, into ``row``: the CPU's time and deepest level, and with
    ``gpu`` the median of ``repeats`` timed GPU runs after an untimed one, and the
    check that both levels are equal."""
    from ..engines import grid3d

    free = ~part.layout(seed, scale).blocked
    src = [wave_source(free)]
    dirs = directions(part.layers)
    start = time.perf_counter()
    cpu = grid3d.bfs3d(free, src, directions=dirs)
    row.cpu_s = time.perf_counter() - start
    row.levels = int(cpu[cpu != grid3d.UNREACHED].max())
    if not gpu:
        return
    from ..engines import gpu_grid3d

    gpu_grid3d.bfs3d(free, src, directions=dirs)     # kernels compiled, memory taken
    times, got = time_runs(lambda: gpu_grid3d.bfs3d(free, src, directions=dirs),
                           max(1, repeats), math.inf, device=True)
    row.gpu_s = median(times)
    row.ratio = row.cpu_s / row.gpu_s
    row.check = "ok" if np.array_equal(got, cpu) else "WRONG"


def measure_route(part: LayersPart, seed: int, scale: float, gpu: bool,
                  row: LayersRow) -> None:
    """One seed of a routing part, into ``row``: the CPU's run then the GPU's, each
    timed alone, then the seed's :func:`route_check`."""
    from ..contract import check_routes
    from ..router.layered import route_layered

    lay = part.layout(seed, scale)
    for backend in ("cpu", "gpu") if gpu else ("cpu",):
        start = time.perf_counter()
        res = route_layered(lay, part.mode, backend=backend)
        setattr(row, f"{backend}_s", time.perf_counter() - start)
        setattr(row, f"{backend}_routed", res.routed)
        setattr(row, f"{backend}_digest", digest(res))
        setattr(row, f"{backend}_contract", len(check_routes(lay, res.to_json())))
        if backend == "gpu":
            import cupy
            row.gpu_bytes_per_cell = (cupy.get_default_memory_pool().total_bytes()
                                      / lay.blocked.size)
    row.ratio = row.cpu_s / row.gpu_s
    row.check = route_check(row.cpu_digest, row.gpu_digest if gpu else None,
                            row.cpu_contract, row.gpu_contract)


def _worst(checks: Sequence[str]) -> str:
    """The check of a part over its seeds: its worst seed's."""
    order = [*BAD_CHECKS, "ok", "-"]
    return min(checks, key=order.index)


def median_row(rows: Sequence[LayersRow]) -> LayersRow:
    """The medians over one part's seed rows: times, nets routed and levels; contract
    findings summed, the pool's largest figure, the worst check."""
    def mid(name: str):
        got = [getattr(r, name) for r in rows if getattr(r, name) is not None]
        return int(statistics.median(got)) if got else None

    def total(name: str):
        got = [getattr(r, name) for r in rows if getattr(r, name) is not None]
        return sum(got) if got else None

    cpu = median([r.cpu_s for r in rows if r.cpu_s == r.cpu_s])
    gpu = median([r.gpu_s for r in rows if r.gpu_s == r.gpu_s])
    per_cell = [r.gpu_bytes_per_cell for r in rows
                if r.gpu_bytes_per_cell == r.gpu_bytes_per_cell]
    return replace(rows[0], seed="median", cpu_s=cpu, gpu_s=gpu, ratio=cpu / gpu,
                   levels=mid("levels"), cpu_routed=mid("cpu_routed"),
                   gpu_routed=mid("gpu_routed"), cpu_contract=total("cpu_contract"),
                   gpu_contract=total("gpu_contract"), cpu_digest="", gpu_digest="",
                   gpu_bytes_per_cell=max(per_cell, default=NA),
                   check=_worst([r.check for r in rows]),
                   note="; ".join(f"seed {r.seed}: {r.note}" for r in rows if r.note))


def _log_row(log: Callable[[str], None], r: LayersRow) -> None:
    which = "median" if r.seed == "median" else f"seed {r.seed}"
    log(f"layers {r.part} {r.size} {which}: cpu {_fmt_s(r.cpu_s, ' s')}, gpu "
        f"{_fmt_s(r.gpu_s, ' s')}, cpu/gpu {_fmt_x(r.ratio)}, {r.check}"
        + (f" ({r.note})" if r.note else ""))


def layers_suite(parts: Sequence[str] = tuple(PARTS), seed: int = 0,
                 seeds: int = LAYERS_SEEDS, repeats: int = DEFAULT_REPEATS,
                 scale: float = 1.0, log: Callable[[str], None] | None = None,
                 on_row: Callable[[list[LayersRow]], None] | None = None
                 ) -> list[LayersRow]:
    """The layers suite's rows: for each part, a row a seed and their medians.

    Parameters
    ----------
    parts : sequence of str
        Names of :data:`PARTS` to run, in that order.
    seed, seeds : int
        The first seed, and how many.
    repeats : int
        Timed GPU runs of the wave a seed (their median counts).
    scale : float
        Sides and spans times ``scale``, net counts times its square.
    log : callable, optional
        Progress lines.
    on_row : callable, optional
        Called with the rows so far after each row (to write partial results).

    Returns
    -------
    list of LayersRow
        A part's seed rows then its median row, part after part. A seed that fails is
        an ``ERROR`` row holding what was measured before; the suite goes on.
    """
    log = log or (lambda s: None)
    gpu = engines.gpu_available()
    backends = ("cpu", "gpu") if gpu else ("cpu",)
    log(f"layers: warming up {', '.join(backends)} (untimed)")
    if any(PARTS[p].mode for p in parts):
        warm_layers(backends, scale)
    if "wave" in parts:
        warm_wave()
    rows: list[LayersRow] = []
    for name in parts:
        part = PARTS[name]
        release("gpu" if gpu else "cpu")     # the pool's figure is this part's own
        side, nets, _ = part.dims(scale)
        done = []
        for s in range(seed, seed + seeds):
            row = LayersRow(name, str(s), f"{part.layers}x{side}x{side}", nets, NA, NA, NA)
            try:
                if part.mode is None:
                    measure_wave(part, s, scale, repeats, gpu, row)
                else:
                    measure_route(part, s, scale, gpu, row)
            except Exception as e:       # one failing seed is a row; the suite goes on
                row.check, row.note = "ERROR", error_note(e)
            done.append(row)
            rows.append(row)
            _log_row(log, row)
            if on_row:
                on_row(rows)
        rows.append(median_row(done))
        _log_row(log, rows[-1])
        if on_row:
            on_row(rows)
    return rows


# -- the table -------------------------------------------------------------------------
def _fmt_s(t: float, unit: str = "") -> str:
    return "n/a" if t != t else f"{t:.3g}{unit}"


def _fmt_x(t: float) -> str:
    return "n/a" if t != t else f"{t:.2f}x"


def _pair(a, b) -> str:
    return f"{'-' if a is None else a} / {'n/a' if b is None else b}"


LEGEND = (
    "wave: one whole 3-D wavefront from a free cell of layer 0, grid3d.bfs3d against "
    "gpu_grid3d.bfs3d (levels copied back to the host), the GPU's time the median of "
    "its timed runs after an untimed one; check: equal levels. sequential, negotiate: "
    "route_layered on each backend, the CPU then the GPU, after both were warmed up; "
    "routed and contract read cpu / gpu, contract being the contract checker's findings "
    "(summed on the median rows); digest: the CPU's routes (the CSV has both); GPU "
    "B/cell: CuPy's memory pool after the route over the stack's cells. check: ok, "
    "DIFFERENT (the backends' routes differ), INVALID (a finding); - without a GPU. "
    "Median rows: medians over the seeds, cpu/gpu the ratio of the medians.")


def _cells(r: LayersRow) -> tuple[str, ...]:
    """One row's cells of the table; a wave has no nets, routes or digests."""
    route = r.part != "wave"
    return (r.part, r.seed, r.size, str(r.nets) if route else "-", _fmt_s(r.cpu_s),
            _fmt_s(r.gpu_s), _fmt_x(r.ratio), "-" if r.levels is None else str(r.levels),
            _pair(r.cpu_routed, r.gpu_routed) if route else "-",
            _pair(r.cpu_contract, r.gpu_contract) if route else "-", r.cpu_digest or "-",
            "n/a" if r.gpu_bytes_per_cell != r.gpu_bytes_per_cell
            else f"{r.gpu_bytes_per_cell:.1f}",
            r.check + (f" ({r.note})" if r.note else ""))


def format_layers(rows: Sequence[LayersRow]) -> str:
    """The layers suite's rows as a Markdown table under a heading naming each part's
    stack, then the legend."""
    parts = {r.part: r for r in rows}
    heading = "## multi-layer engines, CPU against GPU: " + "; ".join(
        f"{p} {r.size}" + (f", {r.nets} nets" if r.nets else "") for p, r in parts.items())
    header = ("part", "seed", "size", "nets", "cpu s", "gpu s", "cpu/gpu", "levels",
              "routed", "contract", "digest", "GPU B/cell", "check")
    lines = [heading, "", "| " + " | ".join(header) + " |",
             "|" + "|".join("---" for _ in header) + "|"]
    # a note may hold a pipe, which would split its cell
    lines += ["| " + " | ".join(c.replace("|", "/") for c in _cells(r)) + " |" for r in rows]
    return "\n".join(lines) + "\n\n" + LEGEND + "\n"


__all__ = ["LAYERS_SEEDS", "PARTS", "BAD_CHECKS", "LayersPart", "LayersRow", "directions",
           "parse_parts", "route_check", "digest", "wave_source", "warm_layers", "warm_wave",
           "measure_wave", "measure_route", "median_row", "layers_suite", "format_layers"]
