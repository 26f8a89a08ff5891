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
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from . import __version__
from . import layout as layout_module
from .batch import (
    FOLDER_KINDS,
    MESSAGE_WIDTH,
    OUTPUT_NAMES,
    PICTURE_NAME_WIDTH,
    PROG,
    BatchOptions,
    Summary,
    collect,
    load_all,
    load_base,
    plan_picture,
    read_summary,
    refuse_inputs,
    route_layout,
    run_serial,
    same_file,
    sweep_temporaries,
)
from .batch import say as _say
from .compiled import add_parser as add_warmup_parser
from .compiled import notice_first_compile
from .contract import check_routes, load_routes
from .engines import ENGINES, gpu_available, resolve, strategies
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
from .layout import MAX_CELLS, Layout, save_layout
from .readers import FORMATS, check_scen_limit, no_nets
from .report import format_report, safe_text
from .router import DEFAULT_MODE, MODES, ORDERS, Router, net_order
from .router.congestion import MAX_OPTION_FLOAT, MAX_OPTION_INT, REROUTE_ORDERS

#: Per-net rows printed to the terminal; the report file always has every net.
PRINTED_ROWS = 40
#: Largest ``route --scale`` (pixels per cell).
MAX_SCALE_OPTION = 64
#: Host bytes per cell that ``generate`` needs at its peak (a maze's rectangles).
GENERATE_BYTES_PER_CELL = 64
#: Folder that ``route`` writes into without ``-o``.
DEFAULT_OUTPUTS = Path("outputs")


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where Ctrl-C raises :class:`KeyboardInterrupt`, so both clean up."""


# -- shared pieces -------------------------------------------------------------------
def _engine_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("engine")
    g.add_argument("--backend", default="auto", choices=["auto", "cpu", "gpu"],
                   help="where the wavefront runs (default: auto = GPU when CuPy and a CUDA "
                        "device are present, else CPU)")
    g.add_argument("--strategy", default=None, metavar="NAME",
                   help="BFS strategy by name: " + ", ".join(strategies())
                        + " (see `mazeroute engines`; sequential mode and wavefront); "
                        "default: the backend's fastest")
    g.add_argument("--order", default=None, choices=ORDERS,
                   help="sequential: net order, as in the file or shortest half-perimeter "
                        "first (default: file)")


def _mode_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("routing mode")
    g.add_argument("--mode", default=DEFAULT_MODE, choices=MODES,
                   help="negotiate: negotiated congestion (PathFinder), rip-up and reroute "
                        "until no cell is shared, never fewer nets than sequential mode in file "
                        "order; "
                        "sequential: Lee's algorithm, one net after another, each wire a "
                        "blockage for the next (shortest paths in turn; --order, "
                        f"--strategy) (default: {DEFAULT_MODE})")
    g.add_argument("--max-iterations", type=int, metavar="N",
                   help="negotiate: run up to N rip-up-and-reroute iterations (default: "
                        "50, and on to 1000 while the searches so far covered fewer than "
                        "2^23 cells, as on small layouts; either way it stops sooner when "
                        "no cell is shared, or when overuse stops falling while many nets "
                        "conflict)")
    g.add_argument("--time-limit", type=float, metavar="SECONDS",
                   help="negotiate: bound the whole routing (the loop and the phases "
                        "after it) to about this long; the report says what it cut short "
                        "(default: none)")
    g.add_argument("--fill-steps", type=int, metavar="N",
                   help="negotiate: choices the exact space-filling search may try when "
                        "nets stay unrouted and every net has two pins (0: never; "
                        "default 400000000, about 8 s on one core)")
    g.add_argument("--window-work", type=int, metavar="N",
                   help="negotiate: when two-pin nets stay unrouted after that, re-solve "
                        "windows round their pins exactly (SAT), with the wires crossing "
                        "them, within N of the solver's conflicts in all (0: never; "
                        "default 50000, some seconds on one core)")
    g.add_argument("--snapshot-nets", type=int, metavar="K",
                   help="negotiate: a net waits only for the overlapping nets at least K "
                        "places before it; nearer ones are searched together on the same "
                        "costs: sooner on a GPU, but congested layouts may end with fewer "
                        "nets routed (default 1: PathFinder's order)")
    g.add_argument("--reroute-order", choices=REROUTE_ORDERS, metavar="ORDER",
                   help="negotiate: the order of the nets rerouted in an iteration: colour "
                        "(by first-fit colour of their search boxes' overlap, then hpwl: "
                        "fewer dependent searches, which a GPU waits on) or hpwl (smallest "
                        "pin box first) (default: colour)")


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
            ("fill_steps", "--fill-steps", lambda v: 0 <= v <= MAX_OPTION_INT,
             f"0 .. {MAX_OPTION_INT}"),
            ("window_work", "--window-work", lambda v: 0 <= v <= MAX_OPTION_INT,
             f"0 .. {MAX_OPTION_INT}"),
            ("snapshot_nets", "--snapshot-nets", lambda v: 1 <= v <= MAX_OPTION_INT,
             f"1 .. {MAX_OPTION_INT}"),
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


def _input_options(p: argparse.ArgumentParser, puzzle: bool = True) -> None:
    g = p.add_argument_group("input")
    g.add_argument("--format", default="auto", choices=FORMATS,
                   help="input format (default: auto = recognised by content: layout YAML, "
                        "numberlink or ADC puzzle, Moving AI map)")
    if puzzle:
        g.add_argument("--puzzle", type=int, metavar="K",
                       help="which puzzle of a file holding several (1, 2, ...)")


#: What ``--nets`` reads, for its help.
NETS_HELP = ("a YAML of just 'nets:', or a Moving AI scenario (.scen, recognised by its "
             "'version 1' line: row k is the two-pin net s<k> from start to goal)")


def _scen_option(p: argparse.ArgumentParser, what: str = "--nets") -> None:
    p.add_argument("--scen-limit", type=int, metavar="N",
                   help=f"route only the first N rows of a .scen given as {what} (one "
                        "holds thousands, many sharing cells; default: all)")


def _load(path: str | Path, netlist: str | Path | None = None, fmt: str = "auto",
          puzzle: int | None = None, scen_limit: int | None = None) -> Layout:
    """The one layout a command works on (``puzzle``: which one of a file of several;
    ``scen_limit``: the rows read of a scenario ``netlist``)."""
    layouts = load_all(path, netlist, fmt, scen_limit)
    if puzzle is None and len(layouts) == 1:
        return layouts[0]
    if puzzle is None:
        raise InputError(f"holds {len(layouts)} puzzles: pick one with --puzzle K, or route "
                         "them all with `mazeroute batch`", file=path, field="--puzzle")
    if not 1 <= puzzle <= len(layouts):
        raise InputError(f"must be 1 .. {len(layouts)} for this file, got {puzzle}",
                         file=path, field="--puzzle")
    return layouts[puzzle - 1]


def _check_scale(scale: int | None) -> None:
    if scale is not None and not 1 <= scale <= MAX_SCALE_OPTION:
        raise InputError(f"must be 1 .. {MAX_SCALE_OPTION} pixels per cell, got {scale}",
                         field="--scale")


#: SIGTERMs and Ctrl-Cs received while a command ran: an exception raised from a signal
#: handler can be swallowed (Python ignores exceptions raised in some callbacks), and
#: then the command finishes; its exit status still says it was interrupted.
_SIGNALLED: list[int] = []


def _deferred(signum: int) -> bool:
    """Whether a signal that lands inside Numba's compiler (this thread holds its lock:
    a function compiled, or loaded from its cache, at its first call) is put off until
    the compiler is done, then sent again. Raised in there, the interrupt can land in a
    callback that LLVM calls (one that hands it the cached machine code), which Python
    must ignore, and the code then run is garbage: a segmentation fault (seen in about
    one of five interrupts of a negotiation's first iterations on a busy host)."""
    lock = getattr(sys.modules.get("numba.core.compiler_lock"), "global_compiler_lock", None)
    if lock is None or not lock.is_locked():
        return False

    def again():
        with lock:                  # blocks until the main thread's compile is done
            pass
        os.kill(os.getpid(), signum)

    threading.Thread(target=again, daemon=True).start()
    return True


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """Turn SIGTERM (``timeout``, CI cancellation) into :class:`Terminated` meanwhile,
    note every SIGTERM and Ctrl-C in :data:`_SIGNALLED`, and keep quiet about an
    interrupt that Python had to swallow (raised inside a callback of compiled code):
    :func:`main` reports it once the command has returned."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def raise_terminated(signum, frame):
        _SIGNALLED.append(signum)
        if not _deferred(signum):
            raise Terminated()

    def raise_interrupt(signum, frame):
        _SIGNALLED.append(signum)
        if not _deferred(signum):
            raise KeyboardInterrupt()

    def unraisable(u):
        if not isinstance(u.exc_value, KeyboardInterrupt):
            hook(u)

    hook = sys.unraisablehook
    old = signal.signal(signal.SIGTERM, raise_terminated)
    old_int = signal.signal(signal.SIGINT, raise_interrupt)
    sys.unraisablehook = unraisable
    try:
        yield
    finally:
        sys.unraisablehook = hook
        signal.signal(signal.SIGTERM, old)
        signal.signal(signal.SIGINT, old_int)


# -- commands -------------------------------------------------------------------------
def cmd_route(args) -> int:
    _check_scale(args.scale)
    if args.output:
        check_output_folder(args.output)
    notice = _check_engine(args)
    layout = _load(args.layout, args.nets, args.format, args.puzzle, args.scen_limit)
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
    picture = plan_picture(layout, not args.no_png, args.scale, args.mode)
    with output_folder(out):
        _note(args, picture.notice)
        _note(args, notice)
        bar = (_progress_bar() if not args.quiet
               and (len(layout.nets) >= 50 or args.mode == "negotiate") else None)
        result, written = route_layout(layout, out, args, picture, root=root, progress=bar)
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


def cmd_wavefront(args) -> int:
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
    notice = _check_engine(args)
    layout = _load(args.layout, args.nets, args.format, args.puzzle, args.scen_limit)
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
    index = names.index(args.net)
    _note(args, notice)
    import numpy as np

    from .engines import UNREACHED
    seen = None
    if args.mode == "negotiate":
        # the net's own search in the negotiation, on the costs it saw, under its route
        from .router.negotiate import negotiate
        from .router.watch import Watch, distance_field
        watch = Watch(index)
        result = negotiate(layout, args.backend, watch=watch)
        seen = watch.taken or watch.last
        net_route, engine = result.nets[index], result.engine
        if seen is None:
            levels = np.full((layout.height, layout.width), UNREACHED, np.uint32)
            others = [p for i, n in enumerate(layout.nets) if i != index for p in n.pins]
        else:
            levels = distance_field(seen)
            ys, xs = np.nonzero(~seen.passable & ~layout.blocked)
            others = list(zip(xs.tolist(), ys.tolist()))
    else:
        router = Router(layout, args.backend, args.strategy)
        if router.notice and router.notice != notice and not args.quiet:
            _say("note", router.notice)            # a GPU fault, not auto's choice
        others = [p for i, n in enumerate(layout.nets) if i != index for p in n.pins]
        if not args.alone:
            order = net_order(layout, args.order or "file")
            for i in order[:order.index(index)]:
                others += router.route_net(i).cells
        levels = router.full_wavefront(index)
        net_route = router.route_net(index)
        engine = router.engine
    net = layout.nets[index]
    target = None
    path = None
    if net_route.routed:
        path = net_route.cells
        target = net.pins[1] if len(net.pins) == 2 else None
    elif len(net.pins) == 2:
        target = net.pins[1]
    from .render import save_wavefront_gif, save_wavefront_png
    about = (f"{safe_text(layout.name, PICTURE_NAME_WIDTH)}: net "
             f"{safe_text(net.name, PICTURE_NAME_WIDTH)}, wavefront from "
             f"{list(net.pins[0])} ({engine}"
             + (f", costs of its search in {seen.phase})" if seen else ")"))
    title = about.replace("$", r"\$")            # Matplotlib's; the page takes `about`
    written = [png] + [p for p in (gif, html) if p is not None]
    with OutputSet(None) as files:                 # the picture, GIF and page together
        try:
            save_wavefront_png(layout, levels, files.stage(png), roots=[net.pins[0]],
                               target=target, path_cells=path, title=title, others=others,
                               format=png_format)
        except OSError as e:
            raise OutputError.from_os(e, png) from None
        if gif is not None:
            try:
                save_wavefront_gif(layout, levels, files.stage(gif), roots=[net.pins[0]],
                                   target=target, path_cells=path, others=others)
            except OSError as e:
                raise OutputError.from_os(e, gif) from None
        if html is not None:
            from .view import save_wavefront_html
            try:
                save_wavefront_html(layout, levels, files.stage(html), roots=[net.pins[0]],
                                    target=target, path_cells=path, others=others,
                                    title=about)
            except OSError as e:
                raise OutputError.from_os(e, html) from None
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


def cmd_check(args) -> int:
    if args.sequential and not args.routes:
        raise InputError("checks a routes file: give --routes too", field="--sequential")
    layout = _load(args.layout, args.nets, args.format, args.puzzle, args.scen_limit)
    blocked = f"{int(layout.blocked.sum())} blocked cells"
    if layout.rects:             # a Moving AI map has blocked cells and no rectangles
        blocked = f"{len(layout.rects)} blockages ({blocked})"
    print(f"{safe_text(args.layout, 200, middle=True)}: ok: "
          f"{safe_text(layout.name, 80)}, {layout.width} x {layout.height} cells, "
          f"{blocked}, {len(layout.nets)} nets")
    if args.routes:
        routes = load_routes(args.routes)
        problems = check_routes(layout, routes, sequential=args.sequential)
        shown = safe_text(args.routes, 200, middle=True)
        for p in problems:
            print(f"{shown}: {safe_text(p)}")
        if problems:
            return 1
        print(f"{shown}: ok: every promise of docs/FORMATS.md holds"
              + (" (shortest in sequential mode too)" if args.sequential else ""))
    return 0


def cmd_view(args) -> int:
    from .view import routes_result, save_view_html

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
    have = layout_module.available_memory()
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


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (no usage block), exit status 2 as before."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {safe_text(message, MESSAGE_WIDTH, middle=True)} "
                     f"(see {self.prog} --help)\n")


# -- parser ---------------------------------------------------------------------------
def _add_generate(sub) -> None:
    """The ``generate`` command and its options."""
    g = sub.add_parser("generate", help="write a reproducible synthetic layout, or random "
                       "nets for a map",
                       description="Random rectangular blockages at a density, or a perfect "
                       "maze (one-cell corridors), with random nets; or, with --on, random "
                       "nets for an existing map or layout, written as a netlist for "
                       "--nets. The same seed gives the same file. Give --span: without it "
                       "nets join cells anywhere on the grid, and most of them cannot be "
                       "routed together.",
                       epilog="Examples: `mazeroute generate rects -W 128 -H 128 --nets 40 "
                       "--span 16`; `mazeroute generate --on den520d.map --nets 100 --span "
                       "40 -o nets.yaml`, then `mazeroute route den520d.map --nets "
                       "nets.yaml`.")
    g.add_argument("kind", nargs="?", choices=["rects", "maze"],
                   help="the layout to make (leave out with --on)")
    g.add_argument("--on", metavar="MAP",
                   help="write random nets for this map or layout (any input format; its "
                        "own nets ignored), pins on free cells: a netlist of just 'nets:' "
                        "for `route MAP --nets` (default -o: <name>-nets.yaml)")
    g.add_argument("-W", "--width", type=int, metavar="CELLS",
                   help="grid width in cells (default: 64)")
    g.add_argument("-H", "--height", type=int, metavar="CELLS",
                   help="grid height in cells (default: 64)")
    g.add_argument("--density", type=float,
                   help="blocked fraction for rects (default: 0.25)")
    g.add_argument("--nets", type=int, default=10, help="number of nets (default: 10)")
    g.add_argument("--pins", type=int, default=2, help="pins per net (default: 2)")
    g.add_argument("--span", type=int, metavar="CELLS",
                   help="keep each net's pins within this Manhattan distance of its root "
                        "(local nets, as on a real chip; with --on, in the root's connected "
                        "region too). Default: anywhere on the grid, so that nets are long "
                        "and cross, and most of them cannot be routed together")
    g.add_argument("--seed", type=int, default=0,
                   help="random seed, an integer >= 0: the same seed and options give the "
                        "same file (default: 0)")
    g.add_argument("--name", help="layout name (default: from kind, size and seed)")
    g.add_argument("-o", "--output", metavar="YAML",
                   help="file to write (default: <name>.yaml)")
    g.add_argument("-q", "--quiet", action="store_true")
    g.set_defaults(func=cmd_generate)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog=PROG, description="Maze routing for chip layouts (Lee's algorithm) with CPU and "
        "GPU breadth-first wavefront engines.",
        epilog="Layout and routes formats: see docs/FORMATS.md. Exit status: 0 ok, 1 a check "
               "failed (or unrouted nets with --fail-unrouted), 2 bad input or an output "
               "that cannot be written, 130 interrupted (143 by SIGTERM).")
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)

    r = sub.add_parser("route", help="route every net of a layout",
                       description="Route every net; write routes.json, layout.png and "
                       "report.txt into the output folder and print the report.")
    r.add_argument("layout", help="layout file (YAML, numberlink or ADC puzzle, Moving AI map)")
    r.add_argument("--nets", metavar="NETLIST", help="route this netlist over the layout's "
                   f"blockages instead of the layout's own nets: {NETS_HELP}. A Moving AI "
                   "map has no nets: give them here, or draw random ones with `generate "
                   "--on MAP`")
    _scen_option(r)
    r.add_argument("-o", "--output", metavar="DIR",
                   help="output folder (default: outputs/<layout name>/)")
    r.add_argument("--no-png", action="store_true", help="skip the picture")
    r.add_argument("--scale", type=int, help=f"pixels per cell in the picture, 1 .. "
                   f"{MAX_SCALE_OPTION} (default: auto)")
    r.add_argument("--html", action="store_true",
                   help="also write view.html, an interactive viewer (one offline file)")
    r.add_argument("--fail-unrouted", action="store_true",
                   help="exit with status 1 when some net could not be routed")
    r.add_argument("-q", "--quiet", action="store_true", help="print nothing on success")
    r.add_argument("--congestion", metavar="PNG",
                   help="negotiate: also draw the history cost as a heat map, unrouted "
                        "nets' pins marked")
    _input_options(r)
    _mode_options(r)
    _engine_options(r)
    r.set_defaults(func=cmd_route)

    w = sub.add_parser("wavefront", help="draw one net's wavefront as a heat map",
                       description="Draw NET's complete wavefront from its root with its "
                       "route on top (PMPP Fig. 15.5). --mode negotiate (the default, as "
                       "for route): negotiate the layout, then grow the wavefront on the "
                       "costs NET saw at the search its route came from, in base cell costs; "
                       "sequential: route the nets before NET (in --order), then grow its "
                       "BFS wavefront.")
    w.add_argument("layout", help="layout file (YAML, numberlink or ADC puzzle, Moving AI map)")
    w.add_argument("--net", help="net name (default: the first net)")
    w.add_argument("--nets", metavar="NETLIST", help="netlist file to use instead of the "
                   "layout's nets")
    _scen_option(w)
    w.add_argument("-o", "--output", default="wavefront.png", metavar="PNG",
                   help="picture to write, of the type its name says: .png, .jpg, .jpeg "
                        "or .gif (default: wavefront.png)")
    w.add_argument("--gif", metavar="GIF", help="also write an animated GIF of the wavefront "
                   "growing level by level")
    w.add_argument("--html", metavar="HTML", help="also write an interactive page with a "
                   "level slider (one offline file)")
    w.add_argument("--mode", choices=MODES, default=None,
                   help=f"whose search to draw (default: {DEFAULT_MODE}, the default of "
                        "route; sequential when --order, --strategy or --alone is given)")
    w.add_argument("--alone", action="store_true",
                   help="sequential: ignore the wires of the nets routed before this one")
    w.add_argument("-q", "--quiet", action="store_true")
    _input_options(w)
    _engine_options(w)
    w.set_defaults(func=cmd_wavefront)

    b = sub.add_parser("batch", help="route many layouts; write a summary table",
                       description="Route every layout given (folders are searched for "
                       ".yaml/.yml files, any case, and .txt/.map files holding puzzles or "
                       "maps, and with --layout .scen files; one file named several ways "
                       "is routed once; a numberlink file of several puzzles is one layout "
                       "per puzzle; a layout without nets, such as a Moving AI map, is a "
                       "failed row). Each layout's outputs "
                       "go to OUT/<folder>/, a safe folder name made from its name; a layout "
                       "that cannot be loaded, routed or written is a failed row of the "
                       "summary, which is rewritten as layouts finish. With --layout, "
                       "every input is a netlist routed over that layout's blockages. "
                       "--workers, --scheduler and --gpus route on a Dask cluster (install "
                       "mazeroute[dask]); the folders, routes and summary are the same. Exit "
                       "status 2 if any row failed.")
    b.add_argument("inputs", nargs="+", metavar="FILE_OR_DIR")
    b.add_argument("-o", "--output", default="outputs", metavar="DIR",
                   help="output folder (default: outputs)")
    b.add_argument("--layout", metavar="BASE",
                   help="route each input as a netlist (a YAML of just 'nets:', or a "
                        "numberlink/ADC puzzle file of BASE's size, or a Moving AI "
                        "scenario .scen of BASE's map) over this layout's "
                        "blockages: one folder and row per netlist (BASE itself, if among "
                        "the inputs, is skipped)")
    _scen_option(b, "an input with --layout")
    b.add_argument("--summary", default="csv", choices=["csv", "json"],
                   help="summary table format (default: csv)")
    b.add_argument("--resume", action="store_true",
                   help="keep layouts whose outputs in OUT are complete and valid "
                        "(routes.json checked against the layout, report.txt, the picture "
                        "asked for); their rows are recomputed from routes.json")
    b.add_argument("--no-png", action="store_true", help="skip the pictures")
    b.add_argument("--html", action="store_true",
                   help="also write each layout's view.html (interactive viewer)")
    b.add_argument("-q", "--quiet", action="store_true")
    _input_options(b, puzzle=False)
    _mode_options(b)
    _engine_options(b)
    d = b.add_argument_group("parallel (Dask; needs mazeroute[dask])")
    d = d.add_mutually_exclusive_group()
    d.add_argument("--workers", type=int, default=1, metavar="N",
                   help="route on N worker processes of this machine (default: 1, this "
                        "process alone, without Dask)")
    d.add_argument("--scheduler", metavar="ADDRESS",
                   help="route on the running Dask cluster at ADDRESS (tcp://HOST:8786); "
                        "its workers must see the same files at the same paths")
    d.add_argument("--gpus", action="store_true",
                   help="one worker per visible GPU, each pinned to its own")
    b.set_defaults(func=cmd_batch)

    c = sub.add_parser("check", help="validate a layout (and optionally a routes file)",
                       description="Check a layout against docs/FORMATS.md without routing; with "
                       "--routes also check a routes file's promises about it.")
    c.add_argument("layout", help="layout file (YAML, numberlink or ADC puzzle, Moving AI "
                   "map)")
    c.add_argument("--nets", metavar="NETLIST", help="check this netlist against the "
                   f"layout's grid, as `route --nets` would route it: {NETS_HELP}")
    _scen_option(c)
    c.add_argument("--routes", metavar="JSON", help="routes file to check against the layout")
    c.add_argument("--sequential", action="store_true",
                   help="also require each two-pin net to be shortest given the nets "
                        "committed before it")
    _input_options(c)
    c.set_defaults(func=cmd_check)

    v = sub.add_parser("view", help="write an interactive HTML viewer of a layout",
                       description="Write one self-contained HTML file (no network needed to "
                       "open it) showing the layout and, with --routes, a routes.json written "
                       "by `route`: pan, zoom, search and highlight nets, find unrouted ones.")
    v.add_argument("layout", help="layout file (YAML, numberlink or ADC puzzle, Moving AI map)")
    v.add_argument("--nets", metavar="NETLIST", help="netlist file to use instead of the "
                   f"layout's nets: {NETS_HELP}")
    _scen_option(v)
    v.add_argument("--routes", metavar="JSON", help="routes file of this layout (checked "
                   "against it first)")
    v.add_argument("-o", "--output", default="view.html", metavar="HTML",
                   help="page to write (default: view.html)")
    v.add_argument("-q", "--quiet", action="store_true")
    _input_options(v)
    v.set_defaults(func=cmd_view)

    _add_generate(sub)

    e = sub.add_parser("engines", help="list the BFS engines and whether they run here")
    e.set_defaults(func=cmd_engines)
    add_warmup_parser(sub)

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
