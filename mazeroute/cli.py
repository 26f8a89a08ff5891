"""The ``mazeroute`` command line: route, wavefront, batch, check, generate, bench, engines.

Every failure a user can cause (a bad file, a bad option, a GPU that is not there)
ends as one line on stderr naming the file and the field at fault, with exit status
2 and no traceback. Outputs are written under temporary names and renamed, so an
interrupted or failed run never leaves a half-written file.

Examples
--------
>>> args = build_parser().parse_args(["route", "chip.yaml", "--order", "hpwl"])
>>> args.backend, args.order, args.func.__name__
('auto', 'hpwl', 'cmd_route')
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from . import __version__
from .contract import check_routes
from .engines import ENGINES, gpu_available, strategies
from .errors import EngineUnavailable, InputError
from .generate import perfect_maze, random_layout
from .io import write_csv, write_text
from .layout import Layout, load_layout, save_layout
from .report import SUMMARY_FIELDS, format_report, summary_row
from .router import ORDERS, Router, RouteResult, net_order

PROG = "mazeroute"
#: Per-net rows printed to the terminal; the report file always has every net.
PRINTED_ROWS = 40


# -- shared pieces -------------------------------------------------------------------
def _engine_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("engine")
    g.add_argument("--backend", default="auto", choices=["auto", "cpu", "gpu"],
                   help="where the wavefront runs (default: auto = GPU when CuPy and a CUDA "
                        "device are present, else CPU)")
    g.add_argument("--strategy", default=None, metavar="NAME",
                   help="BFS strategy by name: " + ", ".join(strategies())
                        + " (see `mazeroute engines`); default: the backend's fastest")
    g.add_argument("--order", default="file", choices=ORDERS,
                   help="net order: as in the file, or shortest half-perimeter first "
                        "(default: file)")


def _progress_bar(stream=sys.stderr) -> Callable[[int, int, str], None]:
    """A one-line progress bar on a terminal; plain occasional lines otherwise."""
    tty = stream.isatty()
    last = [0.0]

    def show(done: int, total: int, label: str = "") -> None:
        now = time.monotonic()
        if done < total and now - last[0] < (0.1 if tty else 5.0):
            return
        last[0] = now
        frac = done / total if total else 1.0
        bar = "#" * int(frac * 30)
        line = f"[{bar:<30}] {done}/{total} {label}"
        if tty:
            stream.write("\r" + line[:100].ljust(100) + ("\n" if done >= total else ""))
        else:
            stream.write(line + "\n")
        stream.flush()

    return show


def _route(layout: Layout, args, progress: bool) -> RouteResult:
    router = Router(layout, args.backend, args.strategy)
    if router.notice and not args.quiet and not progress:     # else the report says it
        print(f"{PROG}: note: {router.notice}", file=sys.stderr)
    bar = _progress_bar() if progress and len(layout.nets) >= 50 else None
    return router.run(args.order, (lambda k, n, r: bar(k, n, "nets")) if bar else None)


def _write_outputs(result: RouteResult, out: Path, png: bool, scale: int | None,
                   html: bool = False) -> list[Path]:
    """routes.json, report.txt, (optionally) layout.png and view.html in ``out``; each atomic."""
    written = []
    routes = out / "routes.json"
    write_text(routes, json.dumps(result.to_json(), indent=1) + "\n")
    written.append(routes)
    report = out / "report.txt"
    write_text(report, format_report(result))
    written.append(report)
    if png:
        from .render import save_layout_png
        written.append(save_layout_png(result.layout, result, out / "layout.png", scale=scale))
    if html:
        from .view import save_view_html
        written.append(save_view_html(result.layout, result, out / "view.html",
                                      congestion=getattr(result, "congestion", None)))
    return written


def _default_out(layout: Layout) -> Path:
    return Path("outputs") / layout.name


# -- commands -------------------------------------------------------------------------
def cmd_route(args) -> int:
    layout = load_layout(args.layout, args.nets)
    result = _route(layout, args, progress=not args.quiet)
    out = Path(args.output) if args.output else _default_out(layout)
    written = _write_outputs(result, out, not args.no_png, args.scale, args.html)
    if not args.quiet:
        print(format_report(result, max_rows=PRINTED_ROWS), end="")
        print("wrote " + ", ".join(str(p) for p in written))
    unrouted = len(result.nets) - result.routed
    return 1 if args.fail_unrouted and unrouted else 0


def cmd_wavefront(args) -> int:
    layout = load_layout(args.layout, args.nets)
    names = [n.name for n in layout.nets]
    if args.net is None:
        if not names:
            raise InputError("the layout has no nets", file=args.layout, field="nets")
        args.net = names[0]
    if args.net not in names:
        shown = ", ".join(names[:10]) + (", ..." if len(names) > 10 else "")
        raise InputError(f"no net {args.net!r} in the layout (nets: {shown})", field="--net")
    index = names.index(args.net)
    router = Router(layout, args.backend, args.strategy)
    if router.notice and not args.quiet:
        print(f"{PROG}: note: {router.notice}", file=sys.stderr)
    others = [p for i, n in enumerate(layout.nets) if i != index for p in n.pins]
    if not args.alone:
        order = net_order(layout, args.order)
        for i in order[:order.index(index)]:
            others += router.route_net(i).cells
    levels = router.full_wavefront(index)
    net_route = router.route_net(index)
    net = layout.nets[index]
    target = None
    path = None
    if net_route.routed:
        path = net_route.cells
        target = net.pins[1] if len(net.pins) == 2 else None
    elif len(net.pins) == 2:
        target = net.pins[1]
    from .render import save_wavefront_gif, save_wavefront_png
    title = (f"{layout.name}: net {net.name}, wavefront from {list(net.pins[0])} "
             f"({router.engine})")
    out = save_wavefront_png(layout, levels, args.output, roots=[net.pins[0]], target=target,
                             path_cells=path, title=title, others=others)
    written = [out]
    if args.gif:
        written.append(save_wavefront_gif(layout, levels, args.gif, roots=[net.pins[0]],
                                          target=target, path_cells=path, others=others))
    if args.html:
        from .view import save_wavefront_html
        written.append(save_wavefront_html(layout, levels, args.html, roots=[net.pins[0]],
                                           target=target, path_cells=path, others=others,
                                           title=title))
    if not args.quiet:
        from .engines import UNREACHED
        reached = levels[levels != UNREACHED]
        status = (f"routed, length {net_route.length}, {net_route.bends} bends"
                  if net_route.routed else "unrouted (no path)")
        print(f"net {net.name}: {reached.size} cells reached, {int(reached.max()) + 1} levels; "
              f"{status}")
        print("wrote " + ", ".join(str(p) for p in written))
    return 0


def _collect(inputs: Sequence[str]) -> list[Path]:
    files: list[Path] = []
    for item in inputs:
        p = Path(item)
        if p.is_dir():
            found = sorted(q for q in p.rglob("*") if q.suffix in (".yaml", ".yml")
                           and q.is_file())
            if not found:
                print(f"{PROG}: warning: {p}: no .yaml layouts in this folder", file=sys.stderr)
            files += found
        else:
            files.append(p)       # a missing file is reported by the loader, in its row
    return list(dict.fromkeys(files))


def cmd_batch(args) -> int:
    files = _collect(args.inputs)
    if not files:
        raise InputError("no layout files found", field="inputs")
    out = Path(args.output)
    rows, invalid, used = [], 0, set()
    bar = None if args.quiet else _progress_bar()
    for k, f in enumerate(files):
        try:
            layout = load_layout(f)
            name = layout.name
            n = 2
            while name in used:            # two layouts of one name keep separate folders
                name, n = f"{layout.name}-{n}", n + 1
            used.add(name)
            result = _route(layout, args, progress=False)
            _write_outputs(result, out / name, not args.no_png, None, args.html)
            rows.append(summary_row(str(f), result))
        except InputError as e:
            invalid += 1
            rows.append(summary_row(str(f), error=str(e.with_file(f))))
            print(f"{PROG}: error: {e.with_file(f)}", file=sys.stderr)
        if bar:
            bar(k + 1, len(files), f.name)
    summary = out / f"summary.{args.summary}"
    if args.summary == "csv":
        write_csv(summary, SUMMARY_FIELDS, rows)
    else:
        write_text(summary, json.dumps(rows, indent=1) + "\n")
    ok = len(rows) - invalid
    if not args.quiet:
        nets = sum(int(r["nets"] or 0) for r in rows)
        routed = sum(int(r["routed"] or 0) for r in rows)
        print(f"{ok}/{len(rows)} layouts routed ({routed}/{nets} nets), {invalid} invalid; "
              f"summary in {summary}")
    return 2 if invalid else 0


def cmd_check(args) -> int:
    layout = load_layout(args.layout, args.nets)
    print(f"{args.layout}: ok: {layout.name}, {layout.width} x {layout.height} cells, "
          f"{len(layout.rects)} blockages ({int(layout.blocked.sum())} blocked cells), "
          f"{len(layout.nets)} nets")
    if args.routes:
        try:
            routes = json.loads(Path(args.routes).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise InputError("no such file", file=args.routes) from None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
            raise InputError(f"not a readable JSON file: {e}", file=args.routes) from None
        if not isinstance(routes, dict):
            raise InputError("a routes file is a JSON object", file=args.routes)
        problems = check_routes(layout, routes, sequential=args.sequential)
        for p in problems:
            print(f"{args.routes}: {p}")
        if problems:
            return 1
        print(f"{args.routes}: ok: every promise of FORMATS.md holds"
              + (" (shortest in sequential mode too)" if args.sequential else ""))
    return 0


def cmd_view(args) -> int:
    from .view import routes_result, save_view_html

    layout = load_layout(args.layout, args.nets)
    result = None
    if args.routes:
        try:
            routes = json.loads(Path(args.routes).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise InputError("no such file", file=args.routes) from None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
            raise InputError(f"not a readable JSON file: {e}", file=args.routes) from None
        try:
            result = routes_result(layout, routes)
        except ValueError as e:
            raise InputError(str(e), file=args.routes, field="nets") from None
        problems = check_routes(layout, routes)
        if problems:
            more = f" (and {len(problems) - 1} more; see `{PROG} check --routes`)" \
                if len(problems) > 1 else ""
            raise InputError(f"does not fit the layout: {problems[0]}{more}",
                             file=args.routes)
    out = save_view_html(layout, result, args.output)
    if not args.quiet:
        print(f"wrote {out}")
    return 0


def cmd_generate(args) -> int:
    if args.width < 1 or args.height < 1:
        raise InputError("width and height must be >= 1", field="--width/--height")
    if not 0 <= args.density < 1:
        raise InputError(f"must be in [0, 1), got {args.density}", field="--density")
    if args.nets < 0:
        raise InputError(f"must be >= 0, got {args.nets}", field="--nets")
    if args.kind == "maze":
        layout = perfect_maze(args.width, args.height, nets=args.nets, pins=args.pins,
                              seed=args.seed, name=args.name, span=args.span)
    else:
        layout = random_layout(args.width, args.height, density=args.density, nets=args.nets,
                               pins=args.pins, seed=args.seed, name=args.name,
                               span=args.span)
    out = Path(args.output) if args.output else Path(f"{layout.name}.yaml")
    save_layout(layout, out)
    if not args.quiet:
        print(f"wrote {out}: {layout.width} x {layout.height}, {len(layout.rects)} blockages "
              f"({layout.blocked.mean():.0%} blocked), {len(layout.nets)} nets")
    return 0


def cmd_engines(args) -> int:
    gpu = gpu_available()
    print(f"{'backend/strategy':<18} {'graph':<5} {'figure':<12} here  summary")
    for (backend, name), spec in ENGINES.items():
        here = "yes" if backend == "cpu" or gpu else "no"
        print(f"{backend + '/' + name:<18} {spec.form:<5} {spec.figure:<12} {here:<5} "
              f"{spec.summary}")
    return 0


def cmd_bench(args) -> int:
    from . import bench
    return bench.run(args)


# -- parser ---------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG, description="Maze routing for chip layouts (Lee's algorithm) with CPU and "
        "GPU breadth-first wavefront engines.",
        epilog="Layout and routes formats: see FORMATS.md. Exit status: 0 ok, 1 a check "
               "failed (or unrouted nets with --fail-unrouted), 2 bad input.")
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)

    r = sub.add_parser("route", help="route every net of a layout",
                       description="Route every net; write routes.json, layout.png and "
                       "report.txt into the output folder and print the report.")
    r.add_argument("layout", help="layout YAML file")
    r.add_argument("--nets", metavar="NETLIST", help="route this netlist (a YAML with just "
                   "'nets:') over the layout's blockages instead of the layout's own nets")
    r.add_argument("-o", "--output", metavar="DIR",
                   help="output folder (default: outputs/<layout name>/)")
    r.add_argument("--no-png", action="store_true", help="skip the picture")
    r.add_argument("--scale", type=int, help="pixels per cell in the picture (default: auto)")
    r.add_argument("--html", action="store_true",
                   help="also write view.html, an interactive viewer (one offline file)")
    r.add_argument("--fail-unrouted", action="store_true",
                   help="exit with status 1 when some net could not be routed")
    r.add_argument("-q", "--quiet", action="store_true", help="print nothing on success")
    _engine_options(r)
    r.set_defaults(func=cmd_route)

    w = sub.add_parser("wavefront", help="draw one net's BFS wavefront as a heat map",
                       description="Route the nets before NET (in --order), then draw NET's "
                       "complete wavefront from its root with the chosen path on top "
                       "(PMPP Fig. 15.5).")
    w.add_argument("layout", help="layout YAML file")
    w.add_argument("--net", help="net name (default: the first net)")
    w.add_argument("--nets", metavar="NETLIST", help="netlist file to use instead of the "
                   "layout's nets")
    w.add_argument("-o", "--output", default="wavefront.png", metavar="PNG",
                   help="picture to write (default: wavefront.png)")
    w.add_argument("--gif", metavar="GIF", help="also write an animated GIF of the wavefront "
                   "growing level by level")
    w.add_argument("--html", metavar="HTML", help="also write an interactive page with a "
                   "level slider (one offline file)")
    w.add_argument("--alone", action="store_true",
                   help="ignore the wires of the nets routed before this one")
    w.add_argument("-q", "--quiet", action="store_true")
    _engine_options(w)
    w.set_defaults(func=cmd_wavefront)

    b = sub.add_parser("batch", help="route many layouts; write a summary table",
                       description="Route every layout given (folders are searched for "
                       ".yaml/.yml files). Each layout's outputs go to OUT/<name>/; a bad "
                       "layout is reported and skipped. Exit status 2 if any was invalid.")
    b.add_argument("inputs", nargs="+", metavar="FILE_OR_DIR")
    b.add_argument("-o", "--output", default="outputs", metavar="DIR",
                   help="output folder (default: outputs)")
    b.add_argument("--summary", default="csv", choices=["csv", "json"],
                   help="summary table format (default: csv)")
    b.add_argument("--no-png", action="store_true", help="skip the pictures")
    b.add_argument("--html", action="store_true",
                   help="also write each layout's view.html (interactive viewer)")
    b.add_argument("-q", "--quiet", action="store_true")
    _engine_options(b)
    b.set_defaults(func=cmd_batch)

    c = sub.add_parser("check", help="validate a layout (and optionally a routes file)",
                       description="Check a layout against FORMATS.md without routing; with "
                       "--routes also check a routes file's promises about it.")
    c.add_argument("layout")
    c.add_argument("--nets", metavar="NETLIST")
    c.add_argument("--routes", metavar="JSON", help="routes file to check against the layout")
    c.add_argument("--sequential", action="store_true",
                   help="also require each two-pin net to be shortest given the nets "
                        "committed before it")
    c.set_defaults(func=cmd_check)

    v = sub.add_parser("view", help="write an interactive HTML viewer of a layout",
                       description="Write one self-contained HTML file (no network needed to "
                       "open it) showing the layout and, with --routes, a routes.json written "
                       "by `route`: pan, zoom, search and highlight nets, find unrouted ones.")
    v.add_argument("layout", help="layout YAML file")
    v.add_argument("--nets", metavar="NETLIST", help="netlist file to use instead of the "
                   "layout's nets")
    v.add_argument("--routes", metavar="JSON", help="routes file of this layout (checked "
                   "against it first)")
    v.add_argument("-o", "--output", default="view.html", metavar="HTML",
                   help="page to write (default: view.html)")
    v.add_argument("-q", "--quiet", action="store_true")
    v.set_defaults(func=cmd_view)

    g = sub.add_parser("generate", help="write a reproducible synthetic layout",
                       description="Random rectangular blockages at a density, or a perfect "
                       "maze (one-cell corridors), with random nets; the same seed gives the "
                       "same file.")
    g.add_argument("kind", choices=["rects", "maze"])
    g.add_argument("-W", "--width", type=int, default=64)
    g.add_argument("-H", "--height", type=int, default=64)
    g.add_argument("--density", type=float, default=0.25,
                   help="blocked fraction for rects (default: 0.25)")
    g.add_argument("--nets", type=int, default=10, help="number of nets (default: 10)")
    g.add_argument("--pins", type=int, default=2, help="pins per net (default: 2)")
    g.add_argument("--span", type=int, metavar="CELLS",
                   help="keep each net's pins within this Manhattan distance of its root "
                        "(local nets, as on a real chip; default: anywhere)")
    g.add_argument("--seed", type=int, default=0)
    g.add_argument("--name", help="layout name (default: from kind, size and seed)")
    g.add_argument("-o", "--output", metavar="YAML",
                   help="file to write (default: <name>.yaml)")
    g.add_argument("-q", "--quiet", action="store_true")
    g.set_defaults(func=cmd_generate)

    e = sub.add_parser("engines", help="list the BFS engines and whether they run here")
    e.set_defaults(func=cmd_engines)

    try:
        from . import bench
    except ImportError:        # only while the benchmark module is absent from a checkout
        bench = None
    if bench is not None:
        k = sub.add_parser("bench", help="time every engine against SciPy and the CPU engine",
                           description="Benchmark the BFS engines (table, CSV and bar chart).")
        bench.add_arguments(k)
        k.set_defaults(func=cmd_bench)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (never raises for user errors)."""
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (InputError, EngineUnavailable) as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    return 2


__all__ = ["main", "build_parser"]
