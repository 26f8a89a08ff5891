"""A batch of layouts, one input file at a time: load it, name its output folders, route
its layouts, write their outputs, and return its rows of the summary.

The serial batch (:func:`run_serial`) and the Dask batch (:mod:`mazeroute.distributed`)
are made of the same three steps per input file, so that they give the same folders, the
same routes and the same summary:

1. :func:`load_file` reads the file's layouts (a numberlink file holds several puzzles;
   with a base layout, the file is a netlist routed over the base's blockages). A file that
   cannot be loaded is its own row, and takes no folder name.
2. :func:`assign_folders` names the layouts' folders, **in input order**: a folder name is
   the layout's safe name made unique against the names given before it
   (:func:`~mazeroute.io.safe_folder_name`), which depends on every earlier file. The Dask
   batch therefore learns each file's layout names from its workers and decides the
   folders on the client, in input order, before it sends the file to be routed.
3. :func:`route_file` routes and writes each layout (or, with ``resume``, keeps outputs
   that are complete and valid) and returns a :class:`FileOutcome`: the rows, and the
   messages for the terminal. It never raises an :class:`Exception`: a layout's fault is
   its row (``invalid`` or ``failed``).

:class:`Summary` keeps the rows by input position and rewrites the summary file
atomically in input order, whatever order the files finish in.

Examples
--------
>>> import tempfile
>>> from mazeroute.layout import save_layout
>>> from mazeroute.readers import parse_layout
>>> d = Path(tempfile.mkdtemp())
>>> for stem in ("a", "b"):                 # two files holding layouts of the same name
...     save_layout(parse_layout({"name": "chip", "width": 4, "height": 1, "nets": [
...         {"name": "n", "pins": [[0, 0], [3, 0]]}]}), d / f"{stem}.yaml")
>>> options, taken = BatchOptions(backend="cpu", no_png=True), set()
>>> rows = []
>>> for f in collect([str(d)]):
...     loaded = load_file(str(f), options)
...     rows += route_file(loaded, assign_folders(loaded.names, taken), d / "out",
...                        options).rows
>>> [(r["folder"], r["status"], r["wirelength"]) for r in rows]
[('chip', 'ok', 3), ('chip-2', 'ok', 3)]
"""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import functools
import io
import json
import logging
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .batch_files import (  # noqa: F401  (the command line and Dask batch take them here)
    FOLDER_KINDS,
    LAYOUT_SUFFIXES,
    MESSAGE_WIDTH,
    OUTPUT_FILES,
    OUTPUT_NAMES,
    PROG,
    PUZZLE_SUFFIXES,
    SCEN_SUFFIX,
    assign_folders,
    collect,
    occupied,
    refuse_inputs,
    remove_parts,
    same_file,
    say,
    sweep_temporaries,
)
from .batch_layers import display_stack, route_stack, stack_picture
from .batch_memory import (  # noqa: F401  (the command line and Dask batch take them here)
    PICTURE_NAME_WIDTH,
    Picture,
    display_layout,
    plan_picture,
    routing_bytes,
)
from .contract import check_routes, routes_text
from .errors import EngineUnavailable, InputError, reraise_interrupt
from .io import OutputError, OutputSet, write_csv, write_text
from .layout import Layout, Net, with_nets
from .readers import (
    load_layouts,
    load_netlist,
    no_nets,
    read_scen,
    read_text,
    regular_input,
    sniff_format,
)
from .report import SUMMARY_FIELDS, format_report, summary_fields, summary_json_row, summary_row
from .router import DEFAULT_MODE, PathFinderOptions, Router, RouteResult, route
from .view import routes_result

#: The row of a file whose run was cut off.
INTERRUPTED = "interrupted; no outputs written"


# -- reading inputs ------------------------------------------------------------------
def load_all(path: str | Path, netlist: str | Path | None = None,
             fmt: str = "auto", scen_limit: int | None = None) -> list[Layout]:
    """Every layout of an input file (a numberlink file may hold many puzzles);
    ``scen_limit``: the rows read of a Moving AI scenario ``netlist``."""
    regular_input(path)
    if netlist is not None:
        regular_input(netlist)
    return load_layouts(path, fmt, netlist, scen_limit)


def load_one(path: str | Path, netlist: str | Path | None = None, fmt: str = "auto",
             puzzle: int | None = None, scen_limit: int | None = None) -> Layout:
    """The one layout a command works on (``puzzle``: which one of a file of several;
    ``scen_limit``: the rows read of a scenario ``netlist``).

    Raises
    ------
    InputError
        For a file of several puzzles without ``puzzle``, or a ``puzzle`` it lacks.
    """
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


def load_base(path: str | Path) -> Layout:
    """The base layout of a batch of netlists: one layout (its own nets are not routed)."""
    layouts = load_all(path)
    if len(layouts) != 1:
        raise InputError(f"holds {len(layouts)} puzzles; a base layout is one layout",
                         file=path, field="--layout")
    return layouts[0]


@functools.lru_cache(maxsize=4)
def _cached_base(path: str, _stamp: tuple[int, int]) -> Layout:
    return load_base(path)


def base_from(path: str) -> Layout:
    """:func:`load_base`, loaded once per process while the file stays the same (each
    Dask worker reads the base itself, and again after a restart)."""
    try:
        info = os.stat(path)
    except OSError:
        return load_base(path)                   # the loader names the problem
    return _cached_base(path, (info.st_mtime_ns, info.st_size))


def netlist_layouts(file: str | Path, base: Layout, fmt: str = "auto",
                    scen_limit: int | None = None) -> list[Layout]:
    """The layouts that route netlist ``file`` over ``base``'s blockages, one per netlist.

    A YAML netlist has just ``nets:`` (a full layout, with its own size or blockages, is an
    error naming the file: its blockages would be silently dropped); its layout is named
    after the file. A numberlink or ADC puzzle file gives one netlist per puzzle, named
    as the puzzle, and must have the base's size. A Moving AI scenario gives one netlist
    (its first ``scen_limit`` rows; :func:`~mazeroute.readers.read_scen`).
    """
    regular_input(file)
    kind = sniff_format(Path(file)) if fmt == "auto" else fmt
    if kind in ("yaml", "scen"):
        nets = (load_netlist(file, "--layout") if kind == "yaml"
                else read_scen(file, base, scen_limit))
        return [dataclasses.replace(with_nets(base, nets, file), name=Path(file).stem,
                                    source=str(file))]
    if kind == "movingai":
        raise InputError("is a Moving AI map, which has no nets to route over the base "
                         "layout", file=file)
    out = []
    for puzzle in load_layouts(file, kind):
        if (puzzle.width, puzzle.height) != (base.width, base.height):
            raise InputError(f"puzzle {puzzle.name!r} is {puzzle.width} x {puzzle.height}, "
                             f"the base layout {base.width} x {base.height}", file=file)
        nets = [Net(n.name, list(n.pins)) for n in puzzle.nets]
        out.append(dataclasses.replace(with_nets(base, nets, file), name=puzzle.name,
                                       source=str(file)))
    return out


# -- routing one layout and writing its outputs ----------------------------------------
def write_outputs(result: RouteResult, folder: Path, picture: Picture,
                  root: Path | None = None, html: bool = False,
                  options: dict | None = None, keep: Sequence[str | Path] = ()
                  ) -> list[Path]:
    """routes.json, report.txt, (per ``picture``) layout.png and (with ``html``) the
    interactive view.html in ``folder``, together.

    All are staged and then moved into place at once (:class:`~mazeroute.io.OutputSet`):
    a failure or an interruption leaves the folder's old files, never a mix; an old
    ``layout.png`` goes when this run draws none, so the folder describes one run, and
    temporary files a killed run left behind go too.
    Every file must lie inside ``root`` (default: ``folder``), links resolved.
    ``options``: the routing options that were not left at their defaults
    (:func:`routing_options`), recorded in ``routes.json`` for ``--resume``. ``keep``:
    input files, which no output may replace (:func:`refuse_inputs`).
    """
    refuse_inputs([folder / name for name in OUTPUT_NAMES], keep)
    written = []
    remove_parts(folder)                 # a killed run's, before this run stages its own
    with OutputSet(folder, root) as files:
        def put(name: str, write: Callable[[Path], None]) -> None:
            try:
                write(files.stage(name))
            except OSError as e:
                raise OutputError.from_os(e, folder / name) from None
            written.append(folder / name)

        doc = result.to_json(arrays=True)      # wires written from their arrays
        if options:
            doc["options"] = options
        put("routes.json", lambda p: p.write_text(routes_text(doc), encoding="utf-8"))
        put("report.txt", lambda p: p.write_text(format_report(result), encoding="utf-8"))
        if picture.draw:
            from .render import layout_image

            def png(p: Path) -> None:
                shown = (display_layout(result.layout) if result.layout.stack is None
                         else display_stack(result.layout))
                layout_image(shown, result, scale=picture.scale,
                             overlay=picture.overlay).save(p, format="PNG")
            put("layout.png", png)
        else:
            files.remove("layout.png")
        if html:
            from .view import save_view_html
            put("view.html", lambda p: save_view_html(
                result.layout, result, p, congestion=result.history))
        else:
            files.remove("view.html")
    return written


def route_layout(layout: Layout, folder: Path, args, picture: Picture, *,
                 root: Path | None = None, progress: Callable[[int, int, str], None] | None
                 = None) -> tuple[RouteResult, list[Path]]:
    """Route ``layout`` with the engine options of ``args``; write its outputs in ``folder``.

    The one routine behind ``route`` and each layout of ``batch``: ``root`` is the folder
    the user named (``folder`` itself, or the batch's), which callers have locked and
    every output must stay inside. ``progress(k, n, "nets")`` follows the nets.
    """
    given = routing_options(args)
    if layout.stack is not None:
        with phase_lines() if progress else contextlib.nullcontext():
            result = route_stack(layout, args, given, iteration_line if progress else None)
    elif getattr(args, "mode", DEFAULT_MODE) == "negotiate":
        # the PathFinder options the command line sets (the others keep their defaults)
        pathfinder = {k: v for k, v in given.items() if k in PATHFINDER_FLAGS}
        with phase_lines() if progress else contextlib.nullcontext():
            result = route(layout, backend=args.backend, mode="negotiate",
                           max_iterations=given.get("max_iterations"),
                           time_limit=given.get("time_limit"),
                           progress=iteration_line if progress else None,
                           options=PathFinderOptions(**pathfinder) if pathfinder else None)
    else:
        router = Router(layout, args.backend, args.strategy)
        result = router.run(args.order or "file",
                            (lambda k, n, r: progress(k, n, "nets")) if progress else None)
    return result, write_outputs(result, folder, picture, root, getattr(args, "html", False),
                                 given, getattr(args, "protect", ()))


#: Options of negotiated routing that the command line passes to PathFinderOptions.
PATHFINDER_FLAGS = ("fill_steps", "window_work", "snapshot_nets", "group_nets",
                    "reroute_order", "wait_factor", "min_wait")
#: Options that may change the routes of a mode (engines and strategies give the same
#: routes; they change only the time).
ROUTING_OPTIONS = {"negotiate": ("max_iterations", "time_limit", *PATHFINDER_FLAGS),
                   "sequential": ("order",)}


def routing_options(args) -> dict:
    """The options of ``args`` (a command line or :class:`BatchOptions`) that may change
    the routes of its mode and were given (not left at their defaults); ``--resume``
    keeps earlier outputs only where they were routed with the same ones."""
    mode = getattr(args, "mode", DEFAULT_MODE)
    given = {name: getattr(args, name, None) for name in ROUTING_OPTIONS.get(mode, ())}
    if given.get("order") == "file":            # sequential's default, said aloud
        given["order"] = None
    return {name: value for name, value in given.items() if value is not None}


def iteration_line(it) -> None:
    """One line per negotiation iteration on stderr: what a user waits for, and how much
    longer at most (the time limit's or wait bound's seconds left)."""
    left = "" if getattr(it, "left", None) is None else f", {it.left:.0f} s left"
    print(f"iteration {it.iteration}: {it.overused} overused cells, {it.conflicts} nets in "
          f"conflict, {it.rerouted} rerouted, {it.seconds:.2f} s{left}", file=sys.stderr,
          flush=True)


@contextlib.contextmanager
def phase_lines():
    """While it lasts, negotiation's phases after its loop (legalise, repair, tidy...;
    the router logs each as it ends) are lines on stderr, as its iterations are: on a
    large layout they take seconds after the last iteration line."""
    logger = logging.getLogger("mazeroute.router.negotiate")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


# -- one input file of a batch ----------------------------------------------------------
@dataclass(frozen=True)
class BatchOptions:
    """What every layout of a batch is routed and written with (sent to Dask workers)."""

    backend: str = "auto"
    strategy: str | None = None
    order: str | None = None              # None: file order (sequential mode only)
    mode: str = DEFAULT_MODE
    max_iterations: int | None = None
    time_limit: float | None = None
    fill_steps: int | None = None
    window_work: int | None = None
    snapshot_nets: int | None = None
    group_nets: int | None = None
    reroute_order: str | None = None
    wait_factor: float | None = None
    min_wait: float | None = None
    format: str = "auto"
    #: the rows read of each Moving AI scenario netlist (None: all)
    scen_limit: int | None = None
    no_png: bool = False
    overlay: bool = False
    html: bool = False
    quiet: bool = False
    resume: bool = False
    #: input files inside the output folder, which no layout's outputs may replace
    protect: tuple[str, ...] = ()

    @classmethod
    def from_args(cls, args) -> BatchOptions:
        """The options of a parsed ``mazeroute batch`` command line."""
        return cls(**{f.name: getattr(args, f.name) for f in dataclasses.fields(cls)
                      if hasattr(args, f.name)})


@dataclass
class Loaded:
    """An input file's layouts, or the row saying why it has none.

    ``labels`` name each layout in the summary's ``file`` column (``FILE#k`` for the k-th
    puzzle of a file of several).
    """

    file: str
    labels: list[str] = field(default_factory=list)
    layouts: list[Layout] = field(default_factory=list)
    error: dict | None = None
    message: str = ""

    @property
    def names(self) -> list[str]:
        """The layouts' names, from which their folders are made."""
        return [lay.name for lay in self.layouts]

    def plan(self) -> FilePlan:
        """What the client needs to name this file's folders and count its work."""
        return FilePlan(self.file, self.labels, self.names,
                        [len(lay.nets) for lay in self.layouts], self.error, self.message)

    def outcome(self) -> FileOutcome:
        """The outcome of a file that could not be loaded: its one row."""
        return self.plan().outcome()


@dataclass
class FilePlan:
    """A :class:`Loaded` file without its layouts (small: a Dask worker sends it back):
    its labels, layout names, nets per layout, or the row saying why it has none."""

    file: str
    labels: list[str]
    names: list[str]
    nets: list[int]
    error: dict | None = None
    message: str = ""

    def outcome(self) -> FileOutcome:
        """The outcome of a file that could not be loaded: its one row."""
        return FileOutcome([self.error] if self.error else [], [False] if self.error else [],
                           [("error", self.message)] if self.message else [])


def load_file(file: str, options: BatchOptions, base: Layout | str | None = None) -> Loaded:
    """Load the layouts of one input file; with ``base`` (a layout, or its path), the
    file is a netlist (or a puzzle file of netlists) to route over the base's blockages.

    Never raises an :class:`Exception`: a file that cannot be loaded, or whose layouts
    have no nets to route (a Moving AI map), gives a :class:`Loaded` whose ``error`` is
    its row (``invalid``, or ``failed`` for anything unforeseen) and whose ``message`` is
    the one-line reason.
    """
    try:
        if base is None:
            layouts = load_all(file, None, options.format)
        else:
            if isinstance(base, str):
                base = base_from(base)
            if base.stack is not None:
                raise InputError("--layout: netlists over a multi-layer base layout are "
                                 "not routed yet; route the layout itself", file=base.source)
            layouts = netlist_layouts(file, base, options.format, options.scen_limit)
        if not all(lay.nets for lay in layouts):  # a map: its row says how to give nets
            raise no_nets(file, batch=True)
    except InputError as e:
        reason = str(e.with_file(file))
        return Loaded(file, error=summary_row(file, error=reason, status="invalid"),
                      message=reason)
    except Exception as e:  # noqa: BLE001 -- one file's fault must not end the batch
        reraise_interrupt(e)
        reason = f"{file}: {type(e).__name__}: {e}"
        return Loaded(file, error=summary_row(file, error=reason, status="failed"),
                      message=reason)
    labels = [file] if len(layouts) == 1 else [f"{file}#{k}" for k in
                                               range(1, len(layouts) + 1)]
    return Loaded(file, labels, layouts)


@dataclass
class FileOutcome:
    """What routing one input file gives back: its rows of the summary, whether each was
    kept from an earlier run (``resumed``), and its messages as ``(kind, text)``."""

    rows: list[dict]
    resumed: list[bool] = field(default_factory=list)
    messages: list[tuple[str, str]] = field(default_factory=list)
    #: the label of the layout being routed (None between layouts): an interrupted
    #: file's summary keeps the rows of its layouts before it (:meth:`Summary.interrupt`)
    current: str | None = None


def route_file(loaded: Loaded, folders: Sequence[str], out: str | Path,
               options: BatchOptions, outcome: FileOutcome | None = None) -> FileOutcome:
    """Route the layouts of one loaded input file into ``out/<folder>/``; return the rows.

    With ``options.resume``, a layout whose outputs are complete and valid
    (:func:`complete_outputs`) is not routed again: its row is recomputed from its
    ``routes.json``. Never raises an :class:`Exception` (see :func:`load_file`); only an
    interruption passes. ``outcome``: the (empty) outcome to fill, row by row, which
    the caller keeps when an interruption passes.
    """
    if loaded.error is not None:
        return loaded.outcome()
    out = Path(out)
    outcome = FileOutcome([]) if outcome is None else outcome
    for label, layout, folder in zip(loaded.labels, loaded.layouts, folders):
        outcome.current = label
        kept = None
        if options.resume:
            kept = complete_outputs(layout, out / folder, options)
        if kept is not None:
            row = summary_row(label, kept, folder=folder)
            row["seconds"] = ""
            outcome.rows.append(row)
            outcome.resumed.append(True)
            continue
        outcome.rows.append(_route_one(loaded.file, label, layout, out, folder, options,
                                       outcome.messages))
        outcome.resumed.append(False)
    outcome.current = None
    return outcome


def _route_one(file: str, label: str, layout: Layout, out: Path, folder: str,
               options: BatchOptions, messages: list) -> dict:
    status = "failed"
    try:
        picture = stack_picture(layout, not options.no_png, mode=options.mode,
                                overlay=options.overlay)
        if picture.notice:
            messages.append(("note", f"{file}: {picture.notice}"))
        result, _ = route_layout(layout, out / folder, options, picture, root=out)
        row = summary_row(label, result, folder=folder)
        row["device"] = device_report(result.engine)
        return row
    except InputError as e:
        status, reason = "invalid", str(e.with_file(file))
    except (OutputError, EngineUnavailable) as e:
        reason = str(e) if isinstance(e, OutputError) else f"{file}: {e}"
    except MemoryError:
        reason = f"{file}: out of memory"
    except OSError as e:
        reason = f"{file}: {OutputError.from_os(e, e.filename or file, 'failed').reason}"
    except Exception as e:  # noqa: BLE001 -- one layout's fault must not end the batch
        reraise_interrupt(e)
        reason = f"{file}: {type(e).__name__}: {e}"
    messages.append(("error", reason))
    return summary_row(label, error=reason, status=status)


def device_report(engine: str) -> str:
    """The device that ran ``engine`` here, as this process sees it: for a GPU engine its
    CUDA device number and PCI bus id (and ``CUDA_VISIBLE_DEVICES`` when set), for a CPU
    engine nothing. A Dask worker pinned to one GPU reports that GPU."""
    if not engine.startswith("gpu"):
        return ""
    try:
        import cupy
        dev = cupy.cuda.Device()
        where = f"cuda:{dev.id} {dev.pci_bus_id}"
    except Exception as e:  # noqa: BLE001 -- a report, not a reason to fail the layout
        where = f"cuda:? ({type(e).__name__})"
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    return where + (f" CUDA_VISIBLE_DEVICES={visible}" if visible is not None else "")


def complete_outputs(layout: Layout, folder: Path, options: BatchOptions
                     ) -> RouteResult | None:
    """The result kept in ``folder`` when its outputs are complete and valid, else None.

    Complete and valid: ``routes.json`` parses, was routed in this run's mode (a file
    without ``mode`` is sequential, FORMATS.md 1.0) and with its routing options
    (:func:`routing_options`; a file without ``options`` had the defaults), and keeps
    every promise of FORMATS.md about ``layout``
    (:func:`~mazeroute.contract.check_routes`), ``report.txt`` is there, and so are the
    files this run asks for (``layout.png`` unless ``no_png`` or the picture would be
    skipped, ``view.html`` with ``html``).
    """
    try:
        if not (folder / "report.txt").is_file():
            return None
        if options.html and not (folder / "view.html").is_file():
            return None
        if not options.no_png and not (folder / "layout.png").is_file() and \
                stack_picture(layout, True, mode=options.mode).draw:
            return None
        # readers' read_text, not Path's: a FIFO left in its place would block the batch
        routes = json.loads(read_text(folder / "routes.json"))
        if routes.get("mode", "sequential") != options.mode or check_routes(layout, routes):
            return None
        if routes.get("options", {}) != routing_options(options):
            return None             # routed with other options: they may change the routes
        result = routes_result(layout, routes)
    except Exception as e:  # noqa: BLE001 -- outputs that cannot be checked are routed again
        reraise_interrupt(e)
        return None
    result.engine = str(routes.get("engine", ""))
    return result


def batch_layout(file: Path, out: Path, taken: set[str], args) -> list[dict]:
    """Load, route and write the layouts of one input file of a batch into ``out`` (a
    numberlink file holds several puzzles); return their summary rows.

    Never raises an :class:`Exception`: whatever goes wrong with a layout (bad input,
    an output it cannot write, memory, a bug) becomes a row with status ``invalid`` or
    ``failed`` and a one-line reason, printed on stderr too. Only an interruption
    (:class:`KeyboardInterrupt`, :class:`SystemExit`) passes.
    """
    options = args if isinstance(args, BatchOptions) else BatchOptions.from_args(args)
    loaded = load_file(str(file), options)
    outcome = route_file(loaded, assign_folders(loaded.names, taken), out, options)
    emit(outcome, options.quiet)
    return outcome.rows


def emit(outcome: FileOutcome, quiet: bool = False) -> None:
    """Print a file's messages: errors always, notes unless ``quiet``."""
    for kind, text in outcome.messages:
        if kind == "error" or not quiet:
            say(kind, text)


def failed_outcome(plan: FilePlan, reason: str) -> FileOutcome:
    """Every layout of the file failed for ``reason`` (e.g. its worker kept dying)."""
    labels = plan.labels or [plan.file]
    text = f"{plan.file}: {reason}"
    return FileOutcome([summary_row(label, error=text, status="failed") for label in labels],
                       [False] * len(labels), [("error", text)])


# -- the summary ------------------------------------------------------------------------
def write_summary(path: Path, rows: list[dict], kind: str) -> None:
    """The summary table as CSV or JSON, replaced atomically; JSON's numbers are typed
    (null where a layout has none), CSV's cells are text."""
    try:
        fields = summary_fields(rows)
        if fields != SUMMARY_FIELDS:         # a layout with layers: every row has vias
            rows = [{k: r.get(k, "") for k in fields} for r in rows]
        if kind == "csv":
            write_csv(path, fields, rows)
        else:
            write_text(path, json.dumps([summary_json_row(r) for r in rows], indent=1) + "\n")
    except OSError as e:
        raise OutputError.from_os(e, path, "cannot write the summary") from None


def read_summary(folder: Path) -> dict[tuple[str, str], dict]:
    """The rows of an earlier summary in ``folder`` (CSV or JSON) that routed a layout,
    by ``(file, folder)``; nothing when there is none or it cannot be read."""
    rows: list = []
    for name in ("summary.csv", "summary.json"):
        path = folder / name
        with contextlib.suppress(OSError, ValueError, csv.Error, RecursionError, InputError):
            if not path.exists():
                continue
            text = read_text(path)       # a regular file: a FIFO would block
            if name.endswith(".csv"):
                rows += list(csv.DictReader(io.StringIO(text, newline="")))
            else:
                data = json.loads(text)              # a table is a list; else no rows
                rows += data if isinstance(data, list) else []
    return {(r["file"], r["folder"]): r for r in rows if isinstance(r, dict)
            and r.get("status") == "ok" and isinstance(r.get("file"), str)
            and isinstance(r.get("folder"), str)}


#: A summary rewritten after a file waits this many times as long as its last write took.
SUMMARY_PAUSE = 10


class Summary:
    """The rows of a batch by input position, written in input order whatever order the
    files finish in; files started and not finished are marked when interrupted.

    ``previous`` (from :func:`read_summary`): rows of an earlier run, whose ``seconds``,
    ``worker`` and ``device`` a layout kept by ``--resume`` takes over (its ``routes.json``
    holds no timing).
    """

    def __init__(self, path: Path, kind: str, previous: dict | None = None):
        self.path, self.kind = path, kind
        self.previous = previous or {}
        self._rows: dict[int, list[dict]] = {}
        self.started: dict[int, tuple[str, list[str], FileOutcome | None]] = {}
        self.resumed = 0
        self._due = 0.0                # when update() writes again (time.monotonic())

    def start(self, index: int, file: str, folders: Sequence[str] = (),
              outcome: FileOutcome | None = None) -> None:
        """File ``index`` is being routed (into ``folders``; ``outcome``: the outcome
        :func:`route_file` fills as its layouts finish, when this process routes it)."""
        self.started[index] = (file, list(folders), outcome)

    def finish(self, index: int, outcome: FileOutcome) -> None:
        """File ``index`` is done: keep its rows (``write`` writes them)."""
        self.started.pop(index, None)
        self._rows[index] = self._taken(outcome)

    def _taken(self, outcome: FileOutcome) -> list[dict]:
        """``outcome``'s rows, those kept by ``--resume`` with their earlier timing."""
        for row, kept in zip(outcome.rows, outcome.resumed):
            if kept:
                self.resumed += 1
                old = self.previous.get((row["file"], row["folder"]), {})
                for key in ("seconds", "worker", "device"):
                    row[key] = old.get(key, row[key])
        return outcome.rows

    def interrupt(self, error: str = INTERRUPTED) -> list[str]:
        """Mark every file started and not finished ``interrupted`` (a file of several
        layouts keeps the rows of those it finished, and the one cut off is marked);
        return their folders."""
        folders = []
        for index, (file, planned, outcome) in sorted(self.started.items()):
            done = self._taken(outcome) if outcome is not None else []
            label = outcome.current if outcome is not None and outcome.current else file
            self._rows[index] = done + [summary_row(label, status="interrupted", error=error)]
            folders += planned
        self.started.clear()
        return folders

    @property
    def rows(self) -> list[dict]:
        return [row for index in sorted(self._rows) for row in self._rows[index]]

    def write(self) -> None:
        """Write every row now."""
        start = time.monotonic()
        write_summary(self.path, self.rows, self.kind)
        end = time.monotonic()
        self._due = end + SUMMARY_PAUSE * (end - start)

    def update(self) -> None:
        """Write the rows after a file finished, unless the last write was too recent.

        Rewriting n rows after each of n files is quadratic: on a batch of many tiny
        layouts, rewriting the summary comes to take most of the run. Waiting
        :data:`SUMMARY_PAUSE` times as long as the last write took keeps the summary
        under a tenth of the run, and it lags by a fraction of a second at most. Nothing
        finished is lost: an interrupted batch writes every finished row (``cmd_batch``),
        the run's end writes them all, and after a kill ``--resume`` keeps the layouts
        whose outputs are complete.
        """
        if time.monotonic() >= self._due:
            self.write()


class BatchProgress:
    """A batch's progress, counted as its summary counts: in layouts (a numberlink file
    of several puzzles is several, a file that cannot be loaded one), and in nets. The
    serial batch and the Dask batch both report through it, so their bars agree.

    A file's layouts are known only once it is read, and reading every file ahead would
    parse each twice (or hold them all): an unread file counts as one layout, so the
    total can grow, and the label says how many files are still unread. ``report`` gets
    ``(done, total, label)`` after each file.

    >>> seen = []
    >>> p = BatchProgress(2, lambda *a: seen.append(a))
    >>> p.loaded(0, layouts=3, nets=6)
    >>> p.finished(0, layouts=3)
    >>> p.loaded(1, layouts=0, nets=0, failed=True)       # its row says why
    >>> p.finished(1, layouts=1)
    >>> seen
    [(3, 4, 'layouts (1 file unread), 6/6 nets'), (4, 4, 'layouts, 6/6 nets')]
    """

    def __init__(self, files: int, report: Callable[[int, int, str], None] | None = None):
        self.files, self.report = files, report
        self.read = self.layouts = self.done = self.nets = self.nets_done = 0
        self._nets: dict[int, int] = {}

    def loaded(self, index: int, layouts: int, nets: int, failed: bool = False) -> None:
        """File ``index`` was read: ``layouts`` with ``nets`` in all (``failed``: none,
        and its one row says why)."""
        self.read += 1
        self.layouts += 1 if failed else layouts
        self.nets += nets
        self._nets[index] = nets

    def finished(self, index: int, layouts: int) -> None:
        """File ``index``'s rows (``layouts`` of them) are in the summary: report."""
        self.done += layouts
        self.nets_done += self._nets.pop(index, 0)
        if self.report is None:
            return
        unread = self.files - self.read
        waiting = f" ({unread} file{'s' * (unread != 1)} unread)" if unread else ""
        self.report(self.done, max(self.layouts + unread, self.done),
                    f"layouts{waiting}, {self.nets_done}/{self.nets} nets")


def run_serial(files: Sequence[str], out: Path, options: BatchOptions, summary: Summary,
               base: Layout | None = None,
               progress: Callable[[int, int, str], None] | None = None) -> None:
    """The batch in this process, one file after another (``--workers 1``); ``progress``
    is told the layouts done (:class:`BatchProgress`)."""
    taken = occupied(out, files)
    counter = BatchProgress(len(files), progress)
    for k, f in enumerate(files):
        outcome = FileOutcome([])
        summary.start(k, f, outcome=outcome)
        loaded = load_file(f, options, base)
        counter.loaded(k, len(loaded.layouts), sum(len(lay.nets) for lay in loaded.layouts),
                       failed=loaded.error is not None)
        outcome = route_file(loaded, assign_folders(loaded.names, taken), out, options,
                             outcome)
        summary.finish(k, outcome)
        emit(outcome, options.quiet)
        summary.update()
        counter.finished(k, len(outcome.rows))
    summary.write()


__all__ = ["BatchOptions", "BatchProgress", "FileOutcome", "FilePlan", "Loaded", "Summary",
           "assign_folders", "batch_layout", "collect", "load_file", "occupied", "route_file",
           "run_serial"]
