"""The ``groute`` command: global routing of a placed design (LEF/DEF) on its GCell grid,
route guides out; or of a global routing contest's input (ISPD 2024's ``.cap`` with its
``.net``, ISPD 2007/2008's ``.gr``), the contest's route file out."""

from __future__ import annotations

import argparse
import contextlib
import gzip
import os
import time
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .errors import InputError

DESCRIPTION = (
    "Read a placed design (DEF) and its LEF files, build the GCell grid as OpenROAD's "
    "global router does, route every signal net on it (each net's Steiner tree by pattern "
    "routes, then the nets over capacity ripped up and rerouted by pattern routes and 3-D "
    "maze routing, negotiated against the edges' capacities) and write route guides in "
    "the ISPD 2018 / OpenROAD format, which OpenROAD's detailed router reads, with a "
    "report of the routing. A global routing contest's input routes the same way, "
    "recognised by its content: an ISPD 2024 .cap file (with its .net file, --net) "
    "writes the contest's .route file, an ISPD 2007/2008 .gr file its .out file.")

#: The options only a LEF/DEF design takes, as ``args`` attributes and their flags.
_DEF_ONLY = (("lef", "--lef"), ("min_layer", "--min-layer"), ("max_layer", "--max-layer"),
             ("adjust", "--adjust"), ("html", "--html"))


def add_groute(sub) -> argparse.ArgumentParser:
    """The ``groute`` parser, joined to :func:`cmd_groute`."""
    from .cli_design import design_options

    p = sub.add_parser("groute", help="global routing of a LEF/DEF design (route guides) "
                                      "or of a contest's input (its route file)",
                       description=DESCRIPTION)
    design_options(p)
    for action in p._actions:
        if action.dest == "design":
            action.metavar = "INPUT"
            action.help = ("the placed design (DEF), an ISPD 2024 .cap file or an ISPD "
                           "2007/2008 .gr file (gzipped or not)")
        elif action.dest == "lef":
            action.required = False           # a contest's input carries no LEF
            action.help += " (DEF input only, required there)"
    p.add_argument("--net", metavar="FILE.net",
                   help="the ISPD 2024 .net file of a .cap input (required there)")
    p.add_argument("--via-cost", type=int, default=2, metavar="N",
                   help="a via's price in GCell steps (default: 2)")
    p.add_argument("--max-iterations", type=int, default=30, metavar="N",
                   help="the most rounds of rip-up and reroute (default: 30)")
    p.add_argument("--present", choices=("pathfinder", "logistic"), default="pathfinder",
                   help="the present-congestion cost: VPR's, growing with the tracks past "
                        "capacity, or CUGR's logistic, rising before capacity is reached "
                        "(default: pathfinder)")
    p.add_argument("--group", type=int, default=1, metavar="N",
                   help="nets the maze search reroutes together on one set of costs "
                        "(default: 1, PathFinder's order: each net sees the nets rerouted "
                        "before it); more nets a group make fewer, larger GPU launches")
    p.add_argument("--first-pass", choices=("pattern", "maze"), default="pattern",
                   help="how every net is routed first: pattern routes (each net's Steiner "
                        "tree, each edge an L or Z shape, layers by dynamic programming, all "
                        "nets at once), or the 3-D maze search. After pattern routes, the "
                        "nets in conflict are rerouted by pattern routes, and after a round "
                        "of them that did not lower the overflow by one of the maze search, "
                        "which can detour; after a maze first pass, by the maze search "
                        "(default: pattern)")
    p.add_argument("--pattern-rounds", type=int, default=16, metavar="N",
                   help="the first pass's rounds: each round's nets are priced against "
                        "the use of the rounds before it (default: 16)")
    p.add_argument("--refine", action=argparse.BooleanOptionalAction, default=True,
                   help="end by giving each net of three GCells or more its maze tree "
                        "in its pins' box where that costs less in steps and vias and "
                        "fits in the room the other nets leave (default: on)")
    p.add_argument("--backend", choices=("cpu", "gpu"), default="cpu",
                   help="where the searches run: the CPU's engines, or the GPU's sweeps "
                        "with many nets a launch; the same guides (default: cpu)")
    p.add_argument("-o", "--output", metavar="DIR",
                   help="output folder (default: outputs/<design name>/): <design>.guide "
                        "(DEF), <name>.route (.cap) or <name>.out (.gr), and groute.txt")
    p.add_argument("--html", action="store_true",
                   help="also write view.html: the viewer with the GCell layers, each net's "
                        "tree and each GCell's use over capacity (DEF designs)")
    p.set_defaults(func=cmd_groute)
    return p


def input_kind(path: str | Path) -> str:
    """``"cap"``, ``"gr"`` or ``"def"``: what ``path`` holds, by its first line that is
    not blank (gzipped or not), never its name.

    Raises
    ------
    InputError
        Naming the file: missing, a folder, a FIFO, a device or a socket (nothing here
        can block), or not readable.
    """
    from .readers.text import read_text, regular_input

    regular_input(path)
    if not Path(path).is_file():
        read_text(path, head=1)               # names what is wrong with it
    try:
        # non-blocking: a FIFO swapped in after the look above cannot hang the open
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        with os.fdopen(fd, "rb") as fh:
            gzipped = fh.read(2) == b"\x1f\x8b"
            fh.seek(0)
            raw = gzip.GzipFile(fileobj=fh) if gzipped else fh
            text = raw.read(1 << 16).decode("utf-8", "replace")
    except (OSError, EOFError, zlib.error):
        return "def"                          # the DEF reader names what is wrong
    first = next((line.split() for line in text.splitlines() if line.strip()), [])
    if len(first) == 4 and first[0] == "grid" and all(t.isdigit() for t in first[1:]):
        return "gr"
    if len(first) == 3 and all(t.isdigit() for t in first):
        return "cap"
    return "def"


def _check_options(args: argparse.Namespace, kind: str) -> None:
    for name, v, least in (("--via-cost", args.via_cost, 1),
                           ("--max-iterations", args.max_iterations, 1),
                           ("--group", args.group, 1),
                           ("--pattern-rounds", args.pattern_rounds, 1)):
        if v < least:
            raise InputError(f"must be at least {least}, got {v}", field=name)
    if kind == "def":
        if not args.lef:
            raise InputError("a DEF design needs its LEF files (--lef FILE.lef)",
                             file=args.design, field="--lef")
        if args.net:
            raise InputError("applies to an ISPD 2024 .cap input only", field="--net")
        return
    for attr, flag in _DEF_ONLY:
        if getattr(args, attr):
            raise InputError(f"applies to a DEF design only, not a .{kind} file",
                             file=args.design, field=flag)
    if kind == "cap" and not args.net:
        raise InputError("an ISPD 2024 .cap file needs its .net file (--net FILE.net)",
                         file=args.design, field="--net")
    if kind == "gr" and args.net:
        raise InputError("applies to an ISPD 2024 .cap input only, not a .gr file",
                         file=args.design, field="--net")


def _progress(it: int, overflow: int, rerouted: int) -> None:
    print(f"iteration {it}: {rerouted} nets routed, overflow {overflow}", flush=True)


def _route(problem, args: argparse.Namespace, backend: str):
    """``problem`` routed with the command's options on ``backend``."""
    from .router.groute import GRouteOptions, global_route

    options = GRouteOptions(via_cost=args.via_cost, max_iterations=args.max_iterations,
                            present=args.present, group=args.group,
                            pattern=args.first_pass == "pattern",
                            pattern_rounds=args.pattern_rounds, refine=args.refine)
    return global_route(problem, options, _progress, backend=backend)


def _refined(result) -> str:
    """The report's line on refinement."""
    if result.refined is None:
        return "refinement: off (--no-refine)"
    tried, took = result.refined
    return (f"refinement: {took} of {tried} nets of three GCells or more took a cheaper "
            "maze tree" if tried else "refinement: no net of three GCells or more")


def cmd_groute(args: argparse.Namespace) -> int:
    """Route the design or contest input, write its outputs and report; 0 when no edge
    overflows."""
    kind = input_kind(args.design)
    _check_options(args, kind)
    with _backend_beside(args) as backend:
        if kind == "def":
            return _groute_def(args, backend)
        return _groute_contest(args, kind, backend)


@contextlib.contextmanager
def _backend_beside(args: argparse.Namespace):
    """The command's backend, checked in a thread beside the reading of the input (for
    the GPU: CuPy imported, the device queried and its context made, which take about as
    long as reading a design); yields the call that waits for it and gives it."""
    from .plan import groute_backend

    if args.backend != "gpu":
        yield lambda: groute_backend(args.backend)
        return
    with ThreadPoolExecutor(1) as pool:
        yield pool.submit(groute_backend, args.backend, True).result


def _groute_def(args: argparse.Namespace, backend) -> int:
    from .cli_design import design_and_grid
    from .guides import write_guides
    from .io import OutputSet, check_output_folder, output_folder, safe_folder_name
    from .router.groute import GRouteProblem, design_pins, wirelength_um
    from .router.groute_guides import guides_of

    t0 = time.perf_counter()
    design, grid = design_and_grid(args)
    pins = design_pins(design, grid)
    problem = GRouteProblem.of_grid(grid, pins)
    result = _route(problem, args, backend())
    guides = guides_of(result.routes, grid)
    vias = sum(t.vias for t in result.routes.values())
    wl = wirelength_um(result, grid, design.dbu)
    routed = sum(t.routed for t in result.routes.values())
    nx, ny = grid.shape
    local = sum(len(set(p)) == 1 for p in pins.values())
    lines = [f"design {design.name}: {len(design.nets)} signal nets, {len(pins)} of two "
             f"pins or more ({local} of them inside one GCell)",
             f"GCell grid {nx} x {ny}, layers {grid.layers[grid.min_layer - 1].name}-"
             f"{grid.layers[grid.max_layer - 1].name}",
             f"routed {routed} of {len(pins)} nets in {result.iterations} iterations, "
             f"overflow {result.overflow}", _refined(result),
             f"wirelength {wl:.0f} um (GCell centre to centre), vias {vias}"]
    from .evaluate import congestion_table, evaluate

    ev = evaluate(design, grid, guides)      # the guides as OpenROAD measures them
    lines += [f"guides: wirelength {int(ev.wirelength_um)} um, vias {ev.vias} "
              f"({ev.tree_vias} without those of the nets inside one GCell), nets "
              f"connected {ev.connected} of {ev.routable} (OpenROAD's measures)",
              f"seconds {time.perf_counter() - t0:.2f} (routing {result.seconds:.2f})",
              "", congestion_table(ev)]
    out = Path(args.output) if args.output else Path("outputs") / safe_folder_name(
        design.name)
    check_output_folder(out)
    written = []
    with output_folder(out), OutputSet(out) as files:
        guide = f"{safe_folder_name(design.name)}.guide"
        write_guides(files.stage(guide), guides)
        files.stage("groute.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
        written = [out / guide, out / "groute.txt"]
        if args.html:
            from .router.groute import as_layout
            from .view import save_view_html

            layout, routes, use = as_layout(design.name, grid, problem, result)
            save_view_html(layout, routes, files.stage("view.html"), congestion=use,
                           title=f"{design.name}: global route, GCells")
            written.append(out / "view.html")
    print("\n".join(lines))
    print("wrote " + ", ".join(str(p) for p in written))
    return 0 if result.overflow == 0 else 1


def _input_name(path: str | Path) -> str:
    """A contest input's name: its file name without ``.gz`` and ``.cap`` or ``.gr``."""
    name = Path(path).name
    for suffix in (".gz", ".cap", ".gr"):
        if name.lower().endswith(suffix):
            name = name[:-len(suffix)]
    return name or "design"


def _groute_contest(args: argparse.Namespace, kind: str, backend) -> int:
    """Route a contest's input; write its route file and the report."""
    from .io import OutputSet, check_output_folder, output_folder, safe_folder_name
    from .readers.contest import read_cap, read_gr, read_net
    from .router.groute_contest import (
        cap_problem,
        gr_problem,
        segment_table,
        write_route_2008,
        write_route_2024,
    )

    t0 = time.perf_counter()
    if kind == "cap":
        source = cap = read_cap(args.design)
        problem = cap_problem(cap, read_net(args.net, cap))
    else:
        source = gr = read_gr(args.design)
        try:
            problem = gr_problem(gr)
        except InputError as e:
            raise e.with_file(args.design) from None
    result = _route(problem, args, backend())
    trees = result.routes.values()
    overflow = result.overflow                 # counted on the edges by the router
    name = _input_name(args.design)
    lines = [f"{'ISPD 2024' if kind == 'cap' else 'ISPD 2007/2008'} input {name}: "
             f"{len(problem.pins)} nets, GCell grid {source.nx} x {source.ny}, "
             f"{source.layers} layers (wires from layer {problem.lowest}, from 0)",
             f"routed {sum(t.routed for t in trees)} of {len(problem.pins)} nets in "
             f"{result.iterations} iterations, overflow {overflow} (tracks past capacity, "
             "summed over the edges)", _refined(result),
             f"wirelength {sum(t.steps for t in trees)} GCell steps, vias "
             f"{sum(t.vias for t in trees)}"]
    if kind == "cap":
        table = segment_table(result.routes.values())
        cost = _contest_cost(cap, problem, table)
        lines.append(f"contest cost {cost.total:.6g} (wire {cost.wire:.6g}, via "
                     f"{cost.via:.6g}, overflow {cost.overflow:.6g}; the .cap's weights)")
    lines.append(f"seconds {time.perf_counter() - t0:.2f} (routing {result.seconds:.2f})")
    out = Path(args.output) if args.output else Path("outputs") / safe_folder_name(name)
    check_output_folder(out)
    routes = f"{safe_folder_name(name)}.{'route' if kind == 'cap' else 'out'}"
    with output_folder(out), OutputSet(out) as files:
        if kind == "cap":
            write_route_2024(files.stage(routes), result, problem, table)
        else:
            write_route_2008(files.stage(routes), result, problem, gr)
        files.stage("groute.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    print(f"wrote {out / routes}, {out / 'groute.txt'}")
    return 0 if overflow == 0 else 1


def _contest_cost(cap, problem, table):
    """The ISPD 2024 contest's cost of the routes whose :func:`segment_table` is ``table``,
    by :mod:`mazeroute.evaluate`'s formula and demand rules, with the ``.cap``'s weights:
    each net's wires as boxes of GCells, its vias as the sites of their lower layers."""
    import numpy as np

    from .engines.base import distinct
    from .evaluate import ContestWeights, cost_of_arrays
    from .readers.contest import HORIZONTAL
    from .router.groute_contest import cap_grid

    h, v = cap.edge_capacity()
    horizontal = [d == HORIZONTAL for d in cap.directions.tolist()]
    caps = [(h if hz else v)[z].astype(np.float64) for z, hz in enumerate(horizontal)]
    segs, cut = table
    net = np.repeat(np.arange(len(cut) - 1), np.diff(cut))
    wire = segs[:, 2] == segs[:, 5]
    w, s = segs[wire], segs[~wire]
    boxes = np.column_stack([w[:, 2] + 1, w[:, 0], w[:, 1], w[:, 3], w[:, 4]])
    # each net's via sites once: the rows (net, level, x, y) as one mixed-radix key
    row = np.column_stack([net[~wire], s[:, 2] + 1, s[:, 0], s[:, 1]])
    radix = tuple((row.max(0, initial=0) + 1).tolist())
    sites = np.column_stack(np.unravel_index(
        distinct(np, np.ravel_multi_index(tuple(row.T), radix)), radix))
    weights = ContestWeights(cap.wire_cost, cap.via_cost,
                             tuple(cap.overflow_weights.tolist()))
    return cost_of_arrays(cap_grid(cap), caps, horizontal, net[wire], boxes, sites,
                          int((~wire).sum()), problem.lowest + 1, weights)


# -- DEF designs given to route, view and check ---------------------------------------------
def is_def(args: argparse.Namespace) -> bool:
    """Whether the command's input is a DEF design (by its content); ``--lef`` with any
    other input is refused."""
    from .readers.sniff import sniff_format

    found = sniff_format(Path(args.layout)) == "def"
    if getattr(args, "lef", None) and not found:
        raise InputError("applies to a DEF design only", file=args.layout, field="--lef")
    return found


def _design_command(argv: list[str]) -> int:
    """Run ``groute``, ``gcells`` or ``evaluate`` on ``argv`` as the CLI would."""
    from .cli_design import add_gcells

    parser = argparse.ArgumentParser(prog="mazeroute")
    sub = parser.add_subparsers()
    add_groute(sub)
    add_gcells(sub)
    args = parser.parse_args(argv)
    return args.func(args)


def _lefs(args: argparse.Namespace) -> list[str]:
    if not args.lef:
        raise InputError("a DEF design needs its LEF files (--lef FILE.lef)",
                         file=args.layout, field="--lef")
    return [a for f in args.lef for a in ("--lef", f)]


def route_def(args: argparse.Namespace) -> int:
    """``route`` of a DEF design: its global route, as ``groute`` writes it."""
    argv = ["groute", args.layout, *_lefs(args)]
    if args.output:
        argv += ["-o", args.output]
    if args.backend == "gpu":
        argv += ["--backend", "gpu"]
    return _design_command(argv)


def view_def(args: argparse.Namespace) -> int:
    """``view`` of a DEF design: its global route's viewer page, written to ``-o``."""
    import shutil
    import tempfile

    from .io import check_output_file

    out = Path(args.output)
    check_output_file(args.output)
    lefs = _lefs(args)
    work = Path(tempfile.mkdtemp(prefix=".mazeroute-view-", dir=out.parent))
    try:
        status = _design_command(["groute", args.layout, *lefs, "-o", str(work), "--html"])
        os.replace(work / "view.html", out)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if not args.quiet:
        print(f"wrote {out}")
    return status


def check_def(args: argparse.Namespace) -> int:
    """``check`` of a DEF design: its GCell grid (``gcells``), and with ``--routes`` its
    guides judged (``evaluate``)."""
    lefs = _lefs(args)
    if args.routes:
        return _design_command(["evaluate", args.layout, *lefs, "--guides", args.routes])
    return _design_command(["gcells", args.layout, *lefs])
