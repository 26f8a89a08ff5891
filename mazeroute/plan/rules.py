"""Every threshold the planner decides by, in one frozen record.

Each field carries, in its metadata, what it decides (``why``) and where the measurement
behind its value is written up (``evidence``: a page and section of the docs). A run
that wants other rules passes its own record (``dataclasses.replace(DEFAULT_RULES,
...)``) to :func:`mazeroute.plan.make_plan`; nothing patches a module's globals.

Examples
--------
>>> from dataclasses import replace
>>> DEFAULT_RULES.min_gpu_cells
65536
>>> replace(DEFAULT_RULES, min_gpu_cells=1024).min_gpu_cells
1024
>>> rule_docs()["tree_span"]["evidence"]
'docs/auto.md#sequential-routing'
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

_WAVE = "docs/auto.md#whole-wavefronts"
_ROUTE = "docs/auto.md#sequential-routing"
_SAMPLE = "docs/auto.md#features"
_STACK = "docs/auto.md#multi-layer-layouts"
_NEGOTIATE = "docs/auto.md#negotiated-routing"


def _rule(value, why: str, evidence: str):
    return field(default=value, metadata={"why": why, "evidence": evidence})


@dataclass(frozen=True)
class Rules:
    """The planner's thresholds (see :data:`DEFAULT_RULES`, and ``docs/auto.md`` for the
    rule each one belongs to)."""

    # -- whole wavefronts ----------------------------------------------------------------
    min_gpu_cells: int = _rule(
        1 << 16, "below this many free cells a CPU wavefront (and a negotiated route) costs "
        "less than setting up the device", _WAVE)
    max_gpu_corridor: float = _rule(
        0.6, "from this share of free cells with at most two free neighbours a layout is a "
        "maze of one-cell corridors", _WAVE)
    min_gpu_loops: float = _rule(
        0.001, "a maze with at least this many independent cycles per free cell has a short, "
        "wide wavefront and goes to the GPU; fewer (but some) to the CPU", _WAVE)
    min_gpu_loops_large: float = _rule(
        0.0002, "min_gpu_loops from large_cells free cells on", _WAVE)
    large_cells: int = _rule(1 << 20, "where min_gpu_loops_large takes over", _WAVE)
    min_cpu_euler: float = _rule(
        0.0003, "sampled patches holding at least this many more pieces than holes per free "
        "cell have walls running across them (corridors)", _WAVE)
    min_cpu_wall: float = _rule(
        0.2, "with at least this share of free cells beside a wall, corridors may be wider "
        "than a cell", _WAVE)
    max_cpu_width: float = _rule(
        14, "corridors whose probes visit fewer cells than this per level go to the CPU",
        _WAVE)
    min_lines_run: float = _rule(
        128, "straight runs at least this long make corridors winding (whole-line scans)",
        _WAVE)
    lines_balance: float = _rule(
        2000, "winding corridors go to the GPU from width times run of this on", _WAVE)
    count_cells: int = _rule(
        1 << 18, "grids of up to this many cells have their free cells counted exactly",
        _SAMPLE)
    sure_cells: int = _rule(
        4, "bigger grids trust the patches' estimate of free cells from this many times "
        "min_gpu_cells on", _SAMPLE)
    probe_cells: int = _rule(1 << 13, "cells a corridor-width probe visits", _SAMPLE)
    field_corridor: float = _rule(
        0.1, "from this corridor share (and below a maze's) the probes append cells without "
        "branching on the mask; a speed choice, never a different answer", _SAMPLE)
    patch: int = _rule(128, "side of a sampled patch", _SAMPLE)
    patches: int = _rule(4, "sampled patches per side (up to patches squared)", _SAMPLE)
    # -- sequential routing --------------------------------------------------------------
    max_pins: int = _rule(
        32, "nets of up to this many pins go in the GPU's batched launches (the kernel's "
        "capacity); more pins are searched in groups of disjoint boxes", _ROUTE)
    maze_span_line: float = _rule(
        200, "a maze routes on the CPU with at most this many free cells per cell of the "
        "median branch's span times its loops' spacing", _ROUTE)
    min_maze_loops: float = _rule(
        0.0001, "the least loops per free cell the maze line assumes", _ROUTE)
    maze_spanning: float = _rule(
        0.75, "nets whose median branch spans this times the square root of a maze's free "
        "cells go by the maze's size alone", _ROUTE)
    maze_spanning_cells: int = _rule(
        300_000, "such spanning nets route on the CPU below this many free cells", _ROUTE)
    tree_span: float = _rule(
        280, "trees (3 to max_pins pins) whose median span exceeds this route on the CPU on "
        "grids under tree_cells", _ROUTE)
    tree_cells: int = _rule(1 << 19, "where the tree_span rule stops", _ROUTE)
    group_span: float = _rule(
        128, "nets of more than max_pins pins route on the GPU only with a median span of at "
        "most this", _ROUTE)
    span_cells: int = _rule(
        300_000, "below this many free cells the nets' span decides routing both ways",
        _ROUTE)
    gpu_cells_per_span: float = _rule(
        1300, "the GPU routes only where the grid has more free cells than this per cell of "
        "the median branch's span", _ROUTE)
    dense_wall: float = _rule(
        0.3, "a field of blockages with this share of free cells beside one is dense", _ROUTE)
    gpu_cells_per_span_dense: float = _rule(
        600, "gpu_cells_per_span on a dense field of blockages", _ROUTE)

    # -- negotiated routing ----------------------------------------------------------------
    min_gpu_negotiate_cells: int = _rule(
        1 << 16, "negotiated routing takes the CPU's weighted search on grids of fewer cells: "
        "a device call's fixed cost outweighs the small boxes' searches", _NEGOTIATE)

    # -- multi-layer layouts ---------------------------------------------------------------
    min_gpu_stack_cells: int = _rule(
        1 << 24, "a multi-layer layout's whole wavefront runs on the GPU under auto from "
        "this many free cells (all layers); routing a stack stays on the CPU, whose "
        "windowed searches were as fast as the GPU's sequentially and in negotiation but "
        "on the largest stacks measured", _STACK)


#: The rules in force.
DEFAULT_RULES = Rules()


def rule_docs() -> dict[str, dict[str, str]]:
    """``{field name: {"why": ..., "evidence": ..., "value": ...}}`` for every rule."""
    return {f.name: {"why": f.metadata["why"], "evidence": f.metadata["evidence"],
                     "value": getattr(DEFAULT_RULES, f.name)} for f in fields(Rules)}
