"""The ``mazeroute`` command line: route, wavefront, batch, view, check, generate, bench,
engines, warmup.

Every failure a user can cause (a bad file, a bad option, an output that cannot be
written, a GPU that is not there) ends as one line on stderr naming the file or path
and the field at fault, with exit status 2 and no traceback. Every option is checked,
and the run's memory (engine and picture) estimated against the memory available,
before any routing or writing. A run writes only inside the folder the user named
(a layout's name becomes a safe folder name first), holds a lock on that folder, and
replaces its outputs together: a failed or interrupted run leaves all the old files or
all the new ones, and no temporary file. Ctrl-C and SIGTERM stop a run the same way
(exit status 130 and 143); a batch keeps a summary of every layout finished so far.

Examples
--------
>>> args = build_parser().parse_args(["route", "chip.yaml", "--order", "hpwl"])
>>> args.backend, args.order, args.func.__name__
('auto', 'hpwl', 'cmd_route')
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import signal
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from . import limits
from .batch import (
    FOLDER_KINDS,
    OUTPUT_NAMES,
    PICTURE_NAME_WIDTH,
    PROG,
    BatchOptions,
    Summary,
    collect,
    load_base,
    read_summary,
    refuse_inputs,
    route_layout,
    run_serial,
    same_file,
    sweep_temporaries,
)
from .batch import load_one as _load
from .batch import say as _say
from .batch_layers import (
    refuse_for_stack,
    refuse_wavefront,
    stack_picture,
    stack_wavefront,
)
from .cli_check import answer_target, cmd_check, write_answer
from .cli_options import (
    MAX_SCALE_OPTION,
    add_batch,
    add_check,
    add_generate,
    add_route,
    add_view,
    add_wavefront,
    main_parser,
)
from .cli_signals import SIGNALLED as _SIGNALLED
from .cli_signals import Terminated
from .cli_signals import sigterm_as_interrupt as _sigterm_as_interrupt
from .compiled import add_parser as add_warmup_parser
from .compiled import notice_first_compile
from .contract import check_routes, load_routes
from .engines import ENGINES, gpu_available, resolve
from .errors import EngineUnavailable, InputError, reraise_interrupt
from .generate import netlist_text, nets_on, perfect_maze, random_layout
from .io import (
    OutputError,
    OutputSet,
    check_output_file,
    check_output_folder,
    ensure_inside,
    output_folder,
    safe_folder_name,
    signals_held,
    write_text,
)
from .layout import Layout, save_layout
from .limits import MAX_CELLS
from .readers import check_scen_limit, no_nets
from .report import format_report, safe_text
from .router import DEFAULT_MODE, Router, net_order
from .router.congestion import MAX_OPTION_FLOAT, MAX_OPTION_INT, REROUTE_ORDERS

#: Per-net rows printed to the terminal; the report file always has every net.
PRINTED_ROWS = 40
#: Host bytes per cell that ``generate`` needs at its peak (a maze's rectangles).
GENERATE_BYTES_PER_CELL = 64
#: Folder that ``route`` writes into without ``-o``.
DEFAULT_OUTPUTS = Path("outputs")


# -- shared pieces -------------------------------------------------------------------
def _check_engine(args) -> str | None:
    """Refuse an unknown or absent engine (and bad mode options) before any work; return
    auto's notice."""
    # wavefront takes --mode too; commands without one draw or route sequentially
    negotiate = getattr(args, "mode", "sequential") == "negotiate"
    for option, name in (("order", "--order"), ("strategy", "--strategy")):
        if negotiate and getattr(args, option, None) is not None:
            raise InputError("applies to --mode sequential only (negotiate routes in its "
                             "own order with the weighted search)", field=name)
    for option, name, ok, bound in (
            ("max_iterations", "--max-iterations", lambda v: 1 <= v <= MAX_OPTION_INT,
             f"1 .. {MAX_OPTION_INT}"),
            ("time_limit", "--time-limit", lambda v: 0 < v <= MAX_OPTION_FLOAT,
             f"> 0 and at most {MAX_OPTION_FLOAT:g} seconds"),                # NaN too
            ("wait_factor", "--wait-factor", lambda v: 0 <= v <= MAX_OPTION_FLOAT,
             f"0 .. {MAX_OPTION_FLOAT:g}"),
            ("min_wait", "--min-wait", lambda v: 0 <= v <= MAX_OPTION_FLOAT,
             f"0 .. {MAX_OPTION_FLOAT:g} seconds"),
            ("fill_steps", "--fill-steps", lambda v: 0 <= v <= MAX_OPTION_INT,
             f"0 .. {MAX_OPTION_INT}"),
            ("window_work", "--window-work", lambda v: 0 <= v <= MAX_OPTION_INT,
             f"0 .. {MAX_OPTION_INT}"),
            ("snapshot_nets", "--snapshot-nets", lambda v: 1 <= v <= MAX_OPTION_INT,
             f"1 .. {MAX_OPTION_INT}"),
            ("group_nets", "--group-nets", lambda v: 0 <= v <= MAX_OPTION_INT,
             f"0 .. {MAX_OPTION_INT}"),
            ("reroute_order", "--reroute-order", lambda v: v in REROUTE_ORDERS,
             " or ".join(REROUTE_ORDERS))):
        value = getattr(args, option, None)
        if value is None:
            continue
        if not ok(value):
            raise InputError(f"must be {bound}, got {value}", field=name)
        if not negotiate:
            raise InputError("applies to --mode negotiate only", field=name)
    if getattr(args, "congestion", None) is not None:
        if not negotiate:
            raise InputError("the congestion picture needs --mode negotiate",
                             field="--congestion")
        check_output_file(args.congestion)
        _not_an_input(args, ("--congestion", args.congestion))
    try:
        return resolve(args.backend, args.strategy)[1]
    except InputError as e:
        # resolve names its Python arguments; here they are the options the user typed
        if e.field in ("backend", "strategy"):
            raise InputError(e.message, field=f"--{e.field}") from None
        raise
    except EngineUnavailable as e:
        # a strategy alone (auto's backend) names the strategy, else the backend asked for
        field = "--strategy" if args.backend == "auto" and args.strategy else "--backend"
        raise EngineUnavailable(f"{field}: {e}") from None


def _note(args, notice: str | None) -> None:
    """Tell the user ``notice`` (auto's engine choice on a machine without a GPU, a
    picture skipped) in one line on stderr, unless ``-q``: never on stdout, where the
    report goes, and never in the report, which says what was routed, not where."""
    if notice and not getattr(args, "quiet", False):
        _say("note", notice)


def _progress_bar(stream=None) -> Callable[[int, int, str], None]:
    """A one-line progress bar on a terminal; plain occasional lines otherwise."""
    # sys.stderr as it is now, as the error lines use it, not the one at import time
    stream = sys.stderr if stream is None else stream
    tty = stream.isatty()
    last = [0.0]

    def show(done: int, total: int, label: str = "") -> None:
        now = time.monotonic()
        if done < total and now - last[0] < (0.1 if tty else 5.0):
            return
        last[0] = now
        frac = done / total if total else 1.0
        bar = "#" * int(frac * 30)
        line = f"[{bar:<30}] {done}/{total} {safe_text(label, 56)}"
        if tty:
            stream.write("\r" + line[:100].ljust(100) + ("\n" if done >= total else ""))
        else:
            stream.write(line + "\n")
        stream.flush()

    return show


def _check_scale(scale: int | None) -> None:
    if scale is not None and not 1 <= scale <= MAX_SCALE_OPTION:
        raise InputError(f"must be 1 .. {MAX_SCALE_OPTION} pixels per cell, got {scale}",
                         field="--scale")


# -- commands -------------------------------------------------------------------------
def cmd_route(args) -> int:
    from .cli_groute import is_def, route_def

    if is_def(args):
        return route_def(args)
    _check_scale(args.scale)
    if args.output:
        check_output_folder(args.output)
    try:
        notice = _check_engine(args)
    except EngineUnavailable as e:     # a multi-layer layout says why in its own words
        notice = e
    layout = _load(args.layout, args.nets, args.format, args.puzzle, args.scen_limit)
    refuse_for_stack(layout, backend=args.backend, strategy=args.strategy)
    if isinstance(notice, EngineUnavailable):
        raise notice
    if not layout.nets:
        raise no_nets(args.nets or args.layout)
    if args.output:
        out = root = Path(args.output)
    else:
        root = DEFAULT_OUTPUTS
        out = root / safe_folder_name(layout.name)
        ensure_inside(out, root)
        check_output_folder(out)
    # no output may replace an input file (a layout saved as routes.json in -o)
    refuse_inputs([out / name for name in OUTPUT_NAMES],
                  [p for p in (args.layout, args.nets) if p])
    if args.congestion and any(same_file(args.congestion, out / n) for n in OUTPUT_NAMES):
        raise InputError(f"{safe_text(args.congestion, 200, middle=True)} is one of the "
                         "route's own outputs in -o", field="--congestion")
    answer = answer_target(args, out)
    picture = stack_picture(layout, not args.no_png, args.scale, args.mode, args.overlay)
    with output_folder(out):
        _note(args, picture.notice)
        _note(args, notice)
        bar = (_progress_bar() if not args.quiet
               and (len(layout.nets) >= 50 or args.mode == "negotiate") else None)
        result, written = route_layout(layout, out, args, picture, root=root, progress=bar)
        if answer is not None:
            write_answer(answer, result)
            written.append(answer)
    if args.congestion:
        png = Path(args.congestion)
        from .render import save_congestion_png
        with OutputSet(None) as files:
            try:
                save_congestion_png(result, files.stage(png))
            except OSError as e:
                raise OutputError.from_os(e, png) from None
        written.append(png)
    if not args.quiet:
        # negotiation's iterations and phases were shown live: the report has their totals
        print(format_report(result, max_rows=PRINTED_ROWS, live=bar is not None), end="")
        print("wrote " + ", ".join(safe_text(p, 200, middle=True) for p in written))
    unrouted = len(result.nets) - result.routed
    return 1 if args.fail_unrouted and unrouted else 0


def _wavefront_outputs(args) -> tuple[Path, Path | None, Path | None, str]:
    """``wavefront``'s picture, GIF and page, checked before any work, and the picture's
    type."""
    png = Path(args.output)
    gif = Path(args.gif) if args.gif else None
    html = Path(args.html) if args.html else None
    for given in (args.output, args.gif, args.html):
        if given:
            check_output_file(given)
    if gif is not None and png.resolve() == gif.resolve():
        raise InputError("names the same file as -o", field="--gif")
    if html is not None and html.resolve() in {png.resolve(), gif and gif.resolve()}:
        raise InputError("names the same file as -o or --gif", field="--html")
    _not_an_input(args, ("-o", args.output), ("--gif", args.gif), ("--html", args.html))
    from .render_wavefront import picture_format
    try:
        png_format = picture_format(png)           # the type its name says, or refused
    except ValueError as e:
        raise InputError(str(e), field="-o") from None
    if args.mode is None:       # sequential's own options ask for sequential's search
        args.mode = ("sequential" if args.order or args.strategy or args.alone
                     else DEFAULT_MODE)
    if args.mode == "negotiate" and args.alone:
        raise InputError("applies to --mode sequential only", field="--alone")
    return png, gif, html, png_format


def _wavefront_net(args, layout: Layout) -> int:
    """The index of ``--net`` in the layout (default: its first net)."""
    names = [n.name for n in layout.nets]
    if args.net is None:
        if not names:
            raise InputError("the layout has no nets", file=args.nets or args.layout,
                             field="nets")         # with --nets, the netlist is at fault
        args.net = names[0]
    if args.net not in names:
        shown = ", ".join(safe_text(n, 20) for n in names[:10]) + (", ..." if len(names) > 10
                                                                   else "")
        raise InputError(f"no net {safe_text(args.net, 40)!r} in the layout (nets: {shown})",
                         file=args.nets or args.layout, field="--net")
    return names.index(args.net)


def _negotiated_wavefront(args, layout: Layout, index: int):
    """The net's own search in the negotiation, on the costs it saw, under its route:
    ``(levels, others, net_route, engine, seen)``."""
    import numpy as np

    from .engines import UNREACHED
    from .router.negotiate import negotiate
    from .router.watch import Watch, distance_field
    watch = Watch(index)
    result = negotiate(layout, args.backend, watch=watch)
    seen = watch.taken or watch.last
    if seen is None:
        levels = np.full((layout.height, layout.width), UNREACHED, np.uint32)
        others = [p for i, n in enumerate(layout.nets) if i != index for p in n.pins]
    else:
        levels = distance_field(seen)
        ys, xs = np.nonzero(~seen.passable & ~layout.blocked)
        others = list(zip(xs.tolist(), ys.tolist()))
    return levels, others, result.nets[index], result.engine, seen


def _sequential_wavefront(args, layout: Layout, index: int, notice: str | None):
    """The net's BFS wavefront after the nets before it in ``--order`` (unless
    ``--alone``): ``(levels, others, net_route, engine, None)``."""
    router = Router(layout, args.backend, args.strategy)
    if router.notice and router.notice != notice and not args.quiet:
        _say("note", router.notice)            # a GPU fault, not auto's choice
    others = [p for i, n in enumerate(layout.nets) if i != index for p in n.pins]
    if not args.alone:
        order = net_order(layout, args.order or "file")
        for i in order[:order.index(index)]:
            others += router.route_net(i).cells
    levels = router.full_wavefront(index)
    return levels, others, router.route_net(index), router.engine, None


def _write_wavefront(layout: Layout, levels, outputs: tuple, about: str, *, roots: list,
                     target, path, others) -> list[Path]:
    """Write the picture, the GIF and the page together; the paths written."""
    png, gif, html, png_format = outputs
    from .render import save_wavefront_gif, save_wavefront_png
    if layout.stack is not None:                 # a panel per layer
        from .render_wavefront_layers import save_stack_wavefront_gif as save_wavefront_gif
        from .render_wavefront_layers import save_stack_wavefront_png as save_wavefront_png
    title = about.replace("$", r"\$") if layout.stack is None else about  # Matplotlib's
    with OutputSet(None) as files:                 # the picture, GIF and page together
        try:
            save_wavefront_png(layout, levels, files.stage(png), roots=roots,
                               target=target, path_cells=path, title=title, others=others,
                               format=png_format)
        except OSError as e:
            raise OutputError.from_os(e, png) from None
        if gif is not None:
            try:
                save_wavefront_gif(layout, levels, files.stage(gif), roots=roots,
                                   target=target, path_cells=path, others=others)
            except OSError as e:
                raise OutputError.from_os(e, gif) from None
        if html is not None:
            from .view import save_wavefront_html
            try:
                save_wavefront_html(layout, levels, files.stage(html), roots=roots,
                                    target=target, path_cells=path, others=others,
                                    title=about)
            except OSError as e:
                raise OutputError.from_os(e, html) from None
    return [png] + [p for p in (gif, html) if p is not None]


def cmd_wavefront(args) -> int:
    outputs = _wavefront_outputs(args)
    try:
        notice = _check_engine(args)
    except EngineUnavailable as e:     # a multi-layer layout says why in its own words
        notice = e
    layout = _load(args.layout, args.nets, args.format, args.puzzle, args.scen_limit)
    refuse_wavefront(layout, backend=args.backend, strategy=args.strategy)
    if isinstance(notice, EngineUnavailable):
        raise notice
    index = _wavefront_net(args, layout)
    _note(args, notice)
    from .engines import UNREACHED
    if layout.stack is not None:
        levels, others, net_route, engine = stack_wavefront(
            layout, index, args.mode, args.order or "file", alone=args.alone,
            backend=args.backend)
        seen = None
    elif args.mode == "negotiate":
        levels, others, net_route, engine, seen = _negotiated_wavefront(args, layout, index)
    else:
        levels, others, net_route, engine, seen = _sequential_wavefront(args, layout, index,
                                                                         notice)
    net = layout.nets[index]
    target = None
    path = None
    if net_route.routed:
        path = net_route.cells
        target = net.pins[1] if len(net.pins) == 2 else None
    elif len(net.pins) == 2:
        target = net.pins[1]
    about = (f"{safe_text(layout.name, PICTURE_NAME_WIDTH)}: net "
             f"{safe_text(net.name, PICTURE_NAME_WIDTH)}, wavefront from "
             f"{list(net.pins[0])} ({engine}"
             + (f", costs of its search in {seen.phase})" if seen else ")"))
    written = _write_wavefront(layout, levels, outputs, about, roots=[net.pins[0]],
                               target=target, path=path, others=others)
    if not args.quiet:
        reached = levels[levels != UNREACHED]
        status = (f"routed, length {net_route.length}, {net_route.bends} bends"
                  if net_route.routed else "unrouted (no path)")
        top = int(reached.max()) + 1 if reached.size else 0
        print(f"net {safe_text(net.name, 40)}: {reached.size} cells reached, "
              + (f"{top} levels" if seen is None else
                 f"costs 0 .. {top - 1} base cell costs (its search in {seen.phase})")
              + f"; {status}")
        print("wrote " + ", ".join(safe_text(p, 200, middle=True) for p in written))
    return 0


def _not_an_input(args, *outputs: tuple[str, str | None]) -> None:
    """Refuse, before any work, an output file that is one of the command's input files:
    writing the picture or page would destroy the layout, netlist or routes it reads."""
    inputs = [p for p in (args.layout, getattr(args, "nets", None),
                          getattr(args, "routes", None)) if p]
    for field, out in outputs:
        if out:
            refuse_inputs([out], inputs, field)


def _check_batch(args) -> str | None:
    """The batch's own options, checked before any work; auto's notice.

    With ``--scheduler`` the workers are other machines: an engine missing here may be
    there, so only its name is checked.
    """
    if args.workers < 1:
        raise InputError(f"must be >= 1, got {args.workers}", field="--workers")
    if args.gpus and args.backend == "cpu":
        raise InputError("gives each GPU a worker; it cannot go with --backend cpu",
                         field="--gpus")
    check_scen_limit(args.scen_limit)
    if args.scen_limit is not None and not args.layout:
        raise InputError("takes the first rows of each .scen netlist routed over a map: "
                         "give the map with --layout", field="--scen-limit")
    try:
        return _check_engine(args)
    except EngineUnavailable:
        if args.scheduler is None:
            raise
        return None


def _inside(path: str | Path, folder: Path) -> bool:
    """Whether ``path`` lies inside ``folder`` (links resolved, as :func:`ensure_inside`
    has it)."""
    try:
        ensure_inside(path, folder)
    except (OutputError, OSError, RuntimeError):
        return False
    return True


def cmd_batch(args) -> int:
    out = Path(args.output)
    check_output_folder(out)
    notice = _check_batch(args)
    dask = args.scheduler is not None or args.gpus or args.workers > 1
    gpus = None
    if dask:
        from . import distributed
        distributed.require_dask("--scheduler" if args.scheduler else
                                 "--gpus" if args.gpus else "--workers")
        if args.gpus:
            gpus = distributed.visible_gpus()
            if not gpus:
                raise InputError("no GPU is visible here (CuPy, nvidia-smi and "
                                 "CUDA_VISIBLE_DEVICES show none)", field="--gpus")
    base = load_base(args.layout) if args.layout else None
    files = collect(args.inputs, scen=base is not None)
    if base is not None:         # a folder holding the base and its netlists: not the base
        files = [f for f in files if not same_file(f, args.layout)]
    files = [str(f) for f in files]
    if not files:
        raise InputError(f"nothing to route (batch takes {FOLDER_KINDS}, and .scen "
                         "scenarios with --layout)", field="inputs")
    where, base_path = out, args.layout
    if args.scheduler:           # other machines: paths that mean the same everywhere
        files = [str(Path(f).absolute()) for f in files]
        where = out.absolute()
        base_path = base_path and str(Path(base_path).absolute())
    path = out / f"summary.{args.summary}"
    # input files inside the output folder: no layout's outputs may replace them
    inputs = files + ([args.layout] if args.layout else [])
    if any(same_file(path, f) for f in inputs):
        raise InputError(f"{safe_text(path, 200, middle=True)} is an input file of this "
                         "command; writing the summary would destroy it", field="--summary")
    inside = tuple(str(Path(f).absolute()) for f in inputs if _inside(f, out))
    options = dataclasses.replace(BatchOptions.from_args(args), protect=inside)
    bar = None if args.quiet else _progress_bar()
    with output_folder(out):
        if path.is_dir() and not path.is_symlink():
            raise OutputError(path, "is a folder, so the summary cannot be written")
        _note(args, notice)
        summary = Summary(path, args.summary, read_summary(out) if args.resume else None)
        try:
            if not dask:
                run_serial(files, out, options, summary, base, bar)
            else:
                client = (distributed.remote_client(args.scheduler) if args.scheduler
                          else distributed.local_client(args.workers, gpus))
                with client as c:
                    distributed.run_batch(c, files, where, options, summary,
                                          base=base_path, progress=bar)
        except KeyboardInterrupt:
            with signals_held():
                if not dask:
                    summary.interrupt()
                else:                # this cluster's workers are stopped by now
                    folders = summary.interrupt(
                        "interrupted; its task was cancelled (--resume keeps any layout "
                        "it finished)")
                    if not args.scheduler:
                        sweep_temporaries(out, folders)
                summary.write()
            raise
    rows = summary.rows
    failed = sum(r["status"] != "ok" for r in rows)
    if not args.quiet:
        invalid = sum(r["status"] == "invalid" for r in rows)
        nets = sum(int(r["nets"] or 0) for r in rows)
        routed = sum(int(r["routed"] or 0) for r in rows)
        kept = f", {summary.resumed} kept from the last run" if args.resume else ""
        print(f"{len(rows) - failed}/{len(rows)} layouts routed ({routed}/{nets} nets), "
              f"{invalid} invalid, {failed - invalid} failed{kept}; summary in "
              f"{safe_text(path, 200, middle=True)}")
    return 2 if failed else 0


def cmd_view(args) -> int:
    from .cli_groute import is_def, view_def
    from .view import routes_result, save_view_html

    if is_def(args):
        return view_def(args)
    out = Path(args.output)
    check_output_file(args.output)
    _not_an_input(args, ("-o", args.output))
    layout = _load(args.layout, args.nets, args.format, args.puzzle, args.scen_limit)
    result = None
    if args.routes:
        routes = load_routes(args.routes)
        problems = check_routes(layout, routes)
        if problems:
            more = f" (and {len(problems) - 1} more; see `{PROG} check --routes`)" \
                if len(problems) > 1 else ""
            raise InputError(f"does not fit the layout: {safe_text(problems[0])}{more}",
                             file=args.routes)
        try:
            result = routes_result(layout, routes)
        except ValueError as e:
            raise InputError(str(e), file=args.routes, field="nets") from None
    with OutputSet(None) as files:
        try:
            save_view_html(layout, result, files.stage(out))
        except OSError as e:
            raise OutputError.from_os(e, out) from None
    if not args.quiet:
        print(f"wrote {safe_text(out, 200, middle=True)}")
    return 0


#: ``generate``'s defaults for a new layout: options that describe one, which --on refuses.
_NEW_LAYOUT = {"width": 64, "height": 64, "density": 0.25}


def _check_net_options(args) -> None:
    """The options of ``generate``'s nets, for a new layout and with ``--on`` alike."""
    if args.nets < 0:
        raise InputError(f"must be >= 0, got {args.nets}", field="--nets")
    if args.pins < 2:
        raise InputError(f"a net needs at least 2 pins, got {args.pins}", field="--pins")
    if args.span is not None and args.span < 1:
        raise InputError(f"must be >= 1, got {args.span}", field="--span")
    if args.seed < 0:
        raise InputError(f"must be >= 0, got {args.seed}", field="--seed")


def _check_generate(args) -> str:
    """Every ``generate`` option, checked before any work; the layout's name."""
    _check_net_options(args)
    if args.on is not None:
        flags = (("kind", args.kind), ("--width", args.width), ("--height", args.height),
                 ("--density", args.density), ("--name", args.name))
        for flag, value in flags:
            if value is not None:
                raise InputError("describes a new layout; --on draws nets for the one given",
                                 field=flag)
        if args.nets < 1:
            raise InputError(f"must be >= 1 with --on, got {args.nets}", field="--nets")
        return ""
    if args.kind is None:
        raise InputError("give the layout to make (rects or maze), or --on MAP to draw "
                         "random nets for a map", field="kind")
    for option, default in _NEW_LAYOUT.items():
        if getattr(args, option) is None:
            setattr(args, option, default)
    if args.width < 1 or args.height < 1:
        raise InputError("width and height must be >= 1", field="--width/--height")
    cells = args.width * args.height
    if cells > MAX_CELLS:
        raise InputError(f"{args.width} x {args.height} cells is more than the {MAX_CELLS} "
                         "a layout may have", field="--width/--height")
    need = cells * GENERATE_BYTES_PER_CELL
    have = limits.available_memory()
    if have and need > have:
        raise InputError(f"{args.width} x {args.height} cells needs about "
                         f"{need / 2**30:.1f} GiB, more than the {have / 2**30:.1f} GiB of "
                         "memory available", field="--width/--height")
    if not 0 <= args.density < 1:
        raise InputError(f"must be in [0, 1), got {args.density}", field="--density")
    if args.nets * args.pins > cells:
        raise InputError(f"{args.nets} nets of {args.pins} pins need {args.nets * args.pins}"
                         f" cells, the layout has {cells}", field="--nets")
    if args.name is None:
        return f"{args.kind}-{args.width}x{args.height}-s{args.seed}"
    if not args.name or len(args.name) > 200 or not args.name.isprintable():
        raise InputError(f"must be 1 to 200 printable characters, got "
                         f"{safe_text(args.name, 40)!r}", field="--name")
    return args.name


#: The generator's parameter names, as ``generate``'s flags.
_GENERATE_FLAGS = {"nets": "--nets", "pins": "--pins", "span": "--span",
                   "density": "--density", "size": "--width/--height"}


def _generate_nets(args) -> int:
    """``generate --on MAP``: a netlist of random nets for the map's grid."""
    if args.output:
        check_output_file(args.output)
    layout = _load(args.on)
    out = Path(args.output or safe_folder_name(layout.name) + "-nets.yaml")
    check_output_file(out)
    refuse_inputs([out], [args.on])
    try:
        nets = nets_on(layout, args.nets, args.pins, args.seed, args.span)
    except InputError as e:
        raise InputError(e.message, file=args.on,
                         field=_GENERATE_FLAGS.get(e.field or "", e.field)) from None
    try:
        write_text(out, netlist_text(nets))
    except OSError as e:
        raise OutputError.from_os(e, out) from None
    if not args.quiet:
        print(f"wrote {safe_text(out, 200, middle=True)}: {len(nets)} nets of {args.pins} "
              f"pins for {safe_text(layout.name, 80)} ({layout.width} x {layout.height}); "
              f"route them with --nets {safe_text(out, 200, middle=True)}")
    return 0


def cmd_generate(args) -> int:
    name = _check_generate(args)
    if args.on is not None:
        return _generate_nets(args)
    out = Path(args.output) if args.output else Path(safe_folder_name(name) + ".yaml")
    check_output_file(args.output or out)
    try:
        if args.kind == "maze":
            layout = perfect_maze(args.width, args.height, nets=args.nets, pins=args.pins,
                                  seed=args.seed, name=name, span=args.span)
        else:
            layout = random_layout(args.width, args.height, density=args.density,
                                   nets=args.nets, pins=args.pins, seed=args.seed, name=name,
                                   span=args.span)
    except InputError as e:
        # the generator names its Python parameters; the user gave flags
        flag = _GENERATE_FLAGS.get(e.field or "", e.field)
        raise InputError(e.message, file=e.file, field=flag) from None
    try:
        save_layout(layout, out)
    except OSError as e:
        raise OutputError.from_os(e, out) from None
    if not args.quiet:
        print(f"wrote {safe_text(out, 200, middle=True)}: {layout.width} x {layout.height}, "
              f"{len(layout.rects)} blockages ({layout.blocked.mean():.0%} blocked), "
              f"{len(layout.nets)} nets")
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
    """The ``mazeroute`` parser: each command's options, joined to the function that runs it.

    Returns
    -------
    argparse.ArgumentParser
        The parser; a parsed command's ``func`` runs it and returns the exit status.
    """
    p, sub = main_parser()
    add_route(sub).set_defaults(func=cmd_route)
    add_wavefront(sub).set_defaults(func=cmd_wavefront)
    add_batch(sub).set_defaults(func=cmd_batch)
    add_check(sub).set_defaults(func=cmd_check)
    add_view(sub).set_defaults(func=cmd_view)
    add_generate(sub).set_defaults(func=cmd_generate)

    e = sub.add_parser("engines", help="list the BFS engines and whether they run here")
    e.set_defaults(func=cmd_engines)
    add_warmup_parser(sub)
    from .cli_design import add_gcells
    from .cli_groute import add_groute
    add_gcells(sub)
    add_groute(sub)

    try:
        from . import bench
    except ImportError:        # only while the benchmark module is absent from a checkout
        bench = None
    if bench is not None:
        k = sub.add_parser("bench", help="time the wavefront engines, routing and negotiation",
                           description="Benchmark the wavefront engines against SciPy and "
                                       "one another, sequential routing and negotiation; "
                                       "prints the measured tables and writes CSV (and a "
                                       "bar chart for the table suite).")
        bench.add_arguments(k)
        k.set_defaults(func=cmd_bench)
    return p


def _out_of_memory(args: argparse.Namespace) -> str:
    """The one line for a run that ran out of memory: the input it read, and what may
    fit (a smaller layout; without its picture where the command draws one)."""
    where = getattr(args, "layout", None)
    hint = "a smaller layout, or --no-png, may fit" if hasattr(args, "no_png") \
        else "a smaller layout may fit"
    return (f"{safe_text(where, 200, middle=True)}: " if isinstance(where, str) else "") \
        + f"out of memory ({hint})"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (never raises for user errors)."""
    for stream in (sys.stdout, sys.stderr):       # a name never fails to print
        with contextlib.suppress(AttributeError, ValueError):
            stream.reconfigure(errors="backslashreplace")
    _SIGNALLED.clear()
    try:
        with _sigterm_as_interrupt():
            args = build_parser().parse_args(argv)
            notice_first_compile(not getattr(args, "quiet", False))
            try:
                status = args.func(args)
            except (InputError, EngineUnavailable, OutputError) as e:
                _say("error", str(e))
                return 2
            except MemoryError:
                _say("error", _out_of_memory(args))
                return 2
            except OSError as e:
                if isinstance(e, BrokenPipeError):
                    raise
                # the file system refused a path or a write that no check foresaw (a
                # name too long, a full disk): the path and the reason, in one line
                _say("error", f"{e.filename}: {e.strerror}" if e.filename and e.strerror
                     else str(e) or type(e).__name__)
                return 2
            except RecursionError:
                _say("error", "the input is nested too deeply")
                return 2
            except Exception as e:
                reraise_interrupt(e)
                raise
    except KeyboardInterrupt as e:
        if isinstance(e, Terminated):
            _say("error", "terminated (SIGTERM)")
            return 143
        _say("error", "interrupted")
        return 130
    if signal.SIGTERM in _SIGNALLED:    # its exception was swallowed on its way
        _say("error", "terminated (SIGTERM)")
        return 143
    if _SIGNALLED:
        _say("error", "interrupted")
        return 130
    return status


__all__ = ["main", "build_parser"]
