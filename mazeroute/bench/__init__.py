"""``mazeroute bench``: the wavefront engines, sequential routing and negotiation, timed.

The suites:

``table`` (default)
    engine x layout class -> median time of a full wavefront (one source, no targets),
    levels, edges per second, speed-up over the CPU engine ``cpu/grid`` and over SciPy's
    ``breadth_first_order``, and a check of every engine's levels against ``cpu/grid``'s
    (a mismatch shows as ``WRONG``, never hidden). Layout classes: ``open`` (25 % random
    rectangles), ``dense`` (50 % small rectangles: a speckle of winding passages),
    ``maze`` (perfect maze, one-cell corridors) and the Moving AI maps ``den520d``,
    ``brc202d``, ``ost003d`` at their own sizes.
``cpu``
    every CPU engine against SciPy (levels included) on a 4096 x 4096 rectangles layout
    and a 1023 x 1023 perfect maze: the table's rows of those layouts.
``negotiate``
    negotiated congestion against sequential routing: per layout or puzzle file and
    backend (CPU; the GPU too when present), nets, nets routed by each mode, puzzles
    complete, the wirelength ratio over nets both modes routed, negotiation's wall time,
    and the contract check of every negotiated route (:mod:`.negotiation`). With a GPU,
    a big layout on the GPU alone (time, CuPy's pool peak, contract check).
``classes``
    the whole wavefront on the CPU engine, the GPU engine (without and with the levels
    read back to the host) and under ``auto`` with its decision inside the timed region,
    for every layout class of :data:`~.cases.CLASS_SUITE` at every side of ``--sizes``
    and every Moving AI map of ``--maps`` at its own size and tiled; then sequential
    routing (:data:`~.cases.ROUTING_CASES`) on each backend, medians over ``--seeds``
    seeds. Without a GPU every GPU column reads ``n/a``.
``layers``
    the multi-layer engines, CPU against GPU in one process after warm-ups: a whole 3-D
    wavefront on 8 layers of 2048 x 2048 (levels compared), and ``route_layered`` in
    sequential mode (4,000 nets) and negotiate mode (8,000 nets) on 4 layers of 1024 x
    1024 (digests of the routes compared, the contract checked), a row a seed and their
    medians (:mod:`.layers`); ``--parts`` picks the parts. Without a GPU every GPU column
    reads ``n/a``.

The suites print measurements; what they were meant to reach is in
``docs/benchmarks.md``. How things are timed: :mod:`.measure`.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from .. import engines
from ..errors import InputError
from ..io import check_output_file, check_output_folder, write_text
from .cases import (
    BIG_CLASSES,
    BIG_SIZE,
    CLASS_SIZES,
    CLASS_SUITE,
    CLASSES,
    DEFAULT_SIZE,
    MAP_TILES,
    MAPS,
    MAX_SIZE,
    PUZZLES_DIR,
    ROUTING_CASES,
    SYNTHETIC,
    Case,
    RoutingCase,
    _maze_routing,
    class_cases,
    corner_source,
    make_case,
    parse_class_names,
    parse_classes,
    parse_routing,
    route_layout,
)
from .layers import (
    BAD_CHECKS,
    LAYERS_SEEDS,
    PARTS,
    LayersRow,
    format_layers,
    layers_suite,
    parse_parts,
)
from .measure import (
    DEFAULT_MAX_SECONDS,
    DEFAULT_REPEATS,
    error_note,
    machine,
    scipy_levels,
    scipy_matrix,
    sync,
    time_engine,
    turns,
)
from .negotiation import BigRow, NegotiateRow, negotiate_case, negotiate_suite, warm_negotiation
from .report import (
    _fmt_ms,
    format_classes_report,
    format_negotiate,
    format_table,
    write_chart,
    write_csv,
)
from .routing import ROUTING_REPEATS, ROUTING_SEEDS, RoutingRow, measure_routing, warm_routing
from .routing import error_row as routing_error_row
from .wavefront import (
    SCIPY,
    SCIPY_TOTAL,
    ClassRow,
    Row,
    bench_case,
    bench_table,
    cpu_suite,
    engine_name,
    error_row,
    measure_class,
    parse_engines,
)

SUITES = ("table", "cpu", "negotiate", "classes", "layers")

# the names the scripts of benchmarks/ import from here
_sync, _warm_routing, _warm_negotiation = sync, warm_routing, warm_negotiation


def classes_suite(names: Sequence[str] = CLASS_SUITE, maps: Sequence[Path] = (),
                  sizes: Sequence[int] = CLASS_SIZES, big: int = BIG_SIZE, seed: int = 0,
                  repeats: int = DEFAULT_REPEATS, max_seconds: float = DEFAULT_MAX_SECONDS,
                  routing: Sequence[RoutingCase] = ROUTING_CASES,
                  seeds: int = ROUTING_SEEDS, scale: float = 1.0,
                  log: Callable[[str], None] | None = None,
                  on_row: Callable[[list[ClassRow], list[RoutingRow]], None] | None = None,
                  route_repeats: int = ROUTING_REPEATS
                  ) -> tuple[list[ClassRow], list[RoutingRow]]:
    """The classes suite's tables: every layout class (see :func:`measure_class`), then
    every routing case over ``seeds`` seeds from ``seed`` (see :func:`measure_routing`).
    ``on_row(classes, routing)`` is called after each row (to write partial results); a
    layout or case that fails is an ``ERROR`` row and the suite goes on."""
    log = log or (lambda s: None)
    rows: list[ClassRow] = []
    rrows: list[RoutingRow] = []
    for name, make in class_cases(names, maps, sizes, big, seed):
        start = time.perf_counter()
        try:
            free = make()
            made = time.perf_counter() - start
            rows.append(measure_class(name, free, repeats, max_seconds))
        except Exception as e:          # one failing layout is a row; the suite goes on
            rows.append(error_row(name, error_note(e)))
            log(f"{name}: ERROR {rows[-1].note}")
        else:
            r = rows[-1]
            log(f"{r.layout} {r.size} (made in {made:.2g} s): cpu {_fmt_ms(r.cpu_s)} ms, gpu "
                f"{_fmt_ms(r.gpu_s)} ms, auto {_fmt_ms(r.auto_s)} ms -> {r.auto_pick}, "
                f"{r.check}")
        free = None
        if on_row:
            on_row(rows, rrows)
    if routing:
        warm_routing(("cpu", "gpu", "auto") if engines.gpu_available() else ("cpu",))
        seed_list = list(range(seed, seed + seeds))
        for case in routing:
            try:
                rrows.append(measure_routing(case, seed_list, scale, log, route_repeats))
            except Exception as e:
                rrows.append(routing_error_row(case, seed_list, error_note(e)))
                log(f"routing {case.name}: ERROR {rrows[-1].note}")
            if on_row:
                on_row(rows, rrows)
    return rows, rrows


# -- command line ---------------------------------------------------------------------
def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``mazeroute bench``'s options to ``parser``."""
    parser.add_argument("--suite", default="table", choices=SUITES,
                        help="table: engines x layout classes (default); cpu: the CPU "
                             "engines vs SciPy on a big rectangles layout and a perfect "
                             "maze; negotiate: negotiated vs sequential routing on "
                             "rectangles layouts and numberlink puzzles; classes: CPU, GPU "
                             "and auto on many layout classes, then sequential routing; "
                             "layers: the multi-layer engines, CPU against GPU (--parts)")
    parser.add_argument("--size", type=int, default=DEFAULT_SIZE,
                        help=f"side of the synthetic layouts of the table suite, cells "
                             f"(default: {DEFAULT_SIZE}); maps keep their own size")
    parser.add_argument("--repeats", type=int, default=DEFAULT_REPEATS,
                        help=f"timed runs per engine and layout (layers suite: the wave's "
                             f"GPU runs); the median is reported (default: "
                             f"{DEFAULT_REPEATS}; one untimed warm-up run first)")
    parser.add_argument("--max-seconds", type=float, default=DEFAULT_MAX_SECONDS,
                        help="stop repeating an engine on a layout once its timed runs "
                             f"took this long (default: {DEFAULT_MAX_SECONDS:g})")
    parser.add_argument("--engines", metavar="LIST",
                        help="table suite: comma list of engines: backend/strategy names, a "
                             "backend (cpu, gpu) or all (default: all that run here); "
                             "cpu/grid and SciPy always run as the baselines")
    parser.add_argument("--classes", metavar="LIST",
                        help="comma list of layout classes: " + ", ".join(CLASSES)
                             + ", synthetic, maps or all (default: all); in the classes "
                             "suite: names of generate.class_mask (family or family:value, "
                             "e.g. maze:0.02, spiral:4; default: "
                             + ", ".join(CLASS_SUITE) + "), synthetic (those), maps "
                             "(every .map of --maps, own size and tiled "
                             f"{MAP_TILES}x{MAP_TILES}), a map's name, all or none")
    parser.add_argument("--sizes", metavar="LIST",
                        default=",".join(map(str, CLASS_SIZES)),
                        help="classes suite: comma list of layout sides (default: "
                             + ",".join(map(str, CLASS_SIZES)) + ")")
    parser.add_argument("--big", type=int, default=BIG_SIZE,
                        help=f"classes suite: side at which {', '.join(BIG_CLASSES)} also "
                             f"runs (default: {BIG_SIZE}; 0: not)")
    parser.add_argument("--routing", metavar="LIST",
                        help="classes suite: comma list of routing cases ("
                             + ", ".join(c.name for c in ROUTING_CASES) + "), all (the "
                             "default) or none")
    parser.add_argument("--seeds", type=int,
                        help="classes and layers suites: seeds, from --seed on (default: "
                             f"{ROUTING_SEEDS}, layers {LAYERS_SEEDS}; medians over them)")
    parser.add_argument("--route-repeats", type=int, default=ROUTING_REPEATS,
                        help="classes suite: runs of each backend per routing seed, the "
                             f"backends taking turns; the median counts (default: "
                             f"{ROUTING_REPEATS})")
    parser.add_argument("--route-scale", type=float, default=1.0,
                        help="classes and layers suites: shrink the routing cases' (every "
                             "layers part's) sides and spans by this factor and their net "
                             "counts by its square (for a quick run; default: 1)")
    parser.add_argument("--parts", metavar="LIST",
                        help="layers suite: comma list of " + ", ".join(PARTS)
                             + " or all (the default)")
    parser.add_argument("--log", metavar="FILE",
                        help="also write the report to FILE (the classes and layers suites "
                             "rewrite it after every row, so an interrupted run keeps its "
                             "rows)")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the synthetic layouts (default: 0)")
    parser.add_argument("--puzzles", metavar="DIR",
                        help="folder of the numberlink puzzle files of the negotiate suite "
                             "(default: shared/data/numberlink beside the checkout)")
    parser.add_argument("--maps", metavar="DIR",
                        help="folder of the Moving AI .map files (default: benchmarks/maps "
                             "of the checkout)")
    parser.add_argument("-o", "--out", "--output", dest="out", metavar="DIR",
                        help="also write bench.csv and bench.png (table), cpu.csv (cpu), "
                             "negotiate.csv and negotiate_big.csv (negotiate), classes.csv "
                             "and routing.csv (classes), layers.csv (layers) into DIR")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="no progress lines on stderr")


def _check_args(args: argparse.Namespace) -> None:
    if not 8 <= args.size <= MAX_SIZE:
        raise InputError(f"must be between 8 and {MAX_SIZE}, got {args.size}", field="--size")
    if args.repeats < 1:
        raise InputError(f"must be at least 1, got {args.repeats}", field="--repeats")
    if args.seed < 0:
        raise InputError(f"must be >= 0, got {args.seed}", field="--seed")
    if not args.max_seconds > 0:
        raise InputError(f"must be positive, got {args.max_seconds}", field="--max-seconds")
    if args.maps is not None and not Path(args.maps).is_dir():
        raise InputError(f"no such folder: {args.maps}", field="--maps")
    puzzles = getattr(args, "puzzles", None)
    if puzzles is not None and not Path(puzzles).is_dir():
        raise InputError(f"no such folder: {puzzles}", field="--puzzles")
    # the classes suite's options, checked whichever suite runs (a bad value is a typo
    # the user should hear of, even where the suite ignores it)
    sizes = _sizes(args.sizes)
    if not (args.big == 0 or 8 <= args.big <= MAX_SIZE):
        raise InputError(f"must be 0 or between 8 and {MAX_SIZE}, got {args.big}",
                         field="--big")
    if args.seeds is None:
        args.seeds = LAYERS_SEEDS if args.suite == "layers" else ROUTING_SEEDS
    if args.seeds < 1:
        raise InputError(f"must be at least 1, got {args.seeds}", field="--seeds")
    if args.route_repeats < 1:
        raise InputError(f"must be at least 1, got {args.route_repeats}",
                         field="--route-repeats")
    if not 0 < args.route_scale <= 1:
        raise InputError(f"must be in (0, 1], got {args.route_scale}",
                         field="--route-scale")
    parse_parts(getattr(args, "parts", None))
    if args.suite == "classes":
        args.sizes = sizes
    # where the results go, checked before the benchmark runs (it may take an hour)
    if getattr(args, "out", None):
        check_output_folder(args.out)
    log_file = getattr(args, "log", None)
    if log_file is not None:
        check_output_file(log_file)


def _sizes(text: str) -> list[int]:
    """``--sizes``: comma-separated sides, each between 8 and :data:`MAX_SIZE`."""
    try:
        sizes = [int(t) for t in str(text).split(",") if t.strip()]
    except ValueError:
        raise InputError(f"must be comma-separated integers, got {text!r}",
                         field="--sizes") from None
    if not sizes or not all(8 <= n <= MAX_SIZE for n in sizes):
        raise InputError(f"each must be between 8 and {MAX_SIZE}, got {text!r}",
                         field="--sizes")
    return sizes


def _wrong(rows: Sequence) -> bool:
    return any(r.check in ("WRONG", "ERROR") for r in rows)


def _run_classes(args, out: Path | None, head: Callable[[], str], say, log
                 ) -> tuple[list[Path], bool]:
    """The classes suite: prints its tables, writes its files; the files written, and
    whether a row is wrong."""
    names, maps = parse_class_names(args.classes, args.maps)
    cases = parse_routing(args.routing)
    log_file = getattr(args, "log", None)
    say(f"# sizes {', '.join(map(str, args.sizes))}"
        + (f" ({', '.join(BIG_CLASSES)} also at {args.big})" if args.big else "")
        + f", seed {args.seed}, repeats {args.repeats}, at most {args.max_seconds:g} s "
        f"a column; routing seeds {args.seed}-{args.seed + args.seeds - 1}, "
        f"{args.route_repeats} runs each, scale {args.route_scale:g}")
    top = head()

    def partial(rows: list[ClassRow], rrows: list[RoutingRow]) -> None:
        if log_file:
            write_text(log_file, top + format_classes_report(rows, rrows))
        if out:
            write_csv(out / "classes.csv", rows)
            write_csv(out / "routing.csv", rrows)

    crows, rrows = classes_suite(
        names, maps, args.sizes, args.big, args.seed, args.repeats, args.max_seconds,
        cases, args.seeds, args.route_scale, log, partial, args.route_repeats)
    say(format_classes_report(crows, rrows), end="")
    wrong = _wrong([*crows, *rrows])
    if not out:
        return [], wrong
    write_csv(out / "classes.csv", crows)
    write_csv(out / "routing.csv", rrows)
    return [out / "classes.csv", out / "routing.csv"], wrong


def _run_table(args, out: Path | None, say, log) -> tuple[list[Path], bool]:
    """The table and cpu suites: prints the table, writes its files; the files written,
    and whether a row is wrong."""
    if args.suite == "cpu":
        say(f"# seed {args.seed}, repeats {args.repeats}; engines: every CPU engine")
        rows = cpu_suite(repeats=args.repeats, seed=args.seed, max_seconds=args.max_seconds,
                         log=log)
    else:
        keys = parse_engines(args.engines)
        classes = parse_classes(args.classes, args.maps)
        say(f"# size {args.size}, seed {args.seed}, repeats {args.repeats}; engines: "
            + ", ".join(engine_name(k) for k in keys))
        rows = bench_table(classes, keys, args.size, args.repeats, args.seed, args.maps,
                           args.max_seconds, log)
    say(format_table(rows), end="")
    wrong = _wrong(rows)
    if not out:
        return [], wrong
    if args.suite == "cpu":
        write_csv(out / "cpu.csv", rows)
        return [out / "cpu.csv"], wrong
    write_csv(out / "bench.csv", rows)
    title = (f"mazeroute bench, size {args.size}, median of up to {args.repeats} runs\n"
             f"{machine()}")
    write_chart(out / "bench.png", rows, title)
    return [out / "bench.csv", out / "bench.png"], wrong


def _run_negotiate(args, out: Path | None, say, log) -> tuple[list[Path], bool]:
    """The negotiate suite: prints its tables, writes its files; the files written, and
    whether a negotiated route breaks the contract."""
    bigs, rows = negotiate_suite(1 + args.seed, getattr(args, "puzzles", None), log=log)
    say(format_negotiate(rows, bigs), end="")
    wrong = any(r.legal != "ok" for r in [*rows, *bigs])
    if not out:
        return [], wrong
    write_csv(out / "negotiate.csv", rows)
    write_csv(out / "negotiate_big.csv", bigs)
    return [out / "negotiate.csv"] + ([out / "negotiate_big.csv"] if bigs else []), wrong


def _run_layers(args, out: Path | None, head: Callable[[], str], say, log
                ) -> tuple[list[Path], bool]:
    """The layers suite: prints its table, writes ``layers.csv``; the files written, and
    whether a row is wrong, different, invalid or failed."""
    parts = parse_parts(args.parts)
    log_file = getattr(args, "log", None)
    say(f"# parts {', '.join(parts)}; seeds {args.seed}-{args.seed + args.seeds - 1}, "
        f"the wave's GPU runs {args.repeats} a seed, scale {args.route_scale:g}")
    top = head()

    def partial(rows: list[LayersRow]) -> None:
        if log_file:
            write_text(log_file, top + format_layers(rows))
        if out:
            write_csv(out / "layers.csv", rows)

    rows = layers_suite(parts, args.seed, args.seeds, args.repeats, args.route_scale, log,
                        partial)
    say(format_layers(rows), end="")
    wrong = any(r.check in BAD_CHECKS for r in rows)
    if not out:
        return [], wrong
    write_csv(out / "layers.csv", rows)
    return [out / "layers.csv"], wrong


def run(args: argparse.Namespace) -> int:
    """Run the chosen suite, print its tables, write the files; return the exit status.

    Status 1 when some engine's levels or wires are wrong, an engine failed, a
    negotiated route breaks the contract, or (layers) the backends' routes differ or
    one breaks the contract; else 0.
    """
    _check_args(args)
    out = Path(args.out) if args.out else None
    quiet = getattr(args, "quiet", False)
    log_file = getattr(args, "log", None)
    printed: list[str] = []

    def log(msg: str) -> None:
        if not quiet:
            print(f"bench: {msg}", file=sys.stderr, flush=True)

    def say(text: str = "", end: str = "\n") -> None:
        print(text, end=end, flush=True)
        printed.append(text + end)

    # a bad --engines, --classes or --routing is an error before anything runs
    if args.suite == "classes":
        parse_class_names(args.classes, args.maps)
        parse_routing(args.routing)
    else:
        parse_engines(args.engines)
        parse_classes(args.classes, args.maps)
    say(f"# mazeroute bench --suite {args.suite}: {machine()}")
    if args.suite == "classes":
        written, wrong = _run_classes(args, out, lambda: "".join(printed), say, log)
    elif args.suite == "negotiate":
        written, wrong = _run_negotiate(args, out, say, log)
    elif args.suite == "layers":
        written, wrong = _run_layers(args, out, lambda: "".join(printed), say, log)
    else:
        written, wrong = _run_table(args, out, say, log)
    if written or log_file:
        say("wrote " + ", ".join(str(p) for p in [*written, *([log_file] if log_file else [])]))
    if log_file:
        write_text(log_file, "".join(printed))
    return int(wrong)


__all__ = ["add_arguments", "run", "SUITES", "bench_table", "bench_case", "cpu_suite",
           "negotiate_suite", "negotiate_case", "format_negotiate", "NegotiateRow", "BigRow",
           "make_case", "Case", "Row", "format_table", "write_csv", "write_chart",
           "classes_suite", "measure_class", "measure_routing", "ClassRow", "RoutingRow",
           "RoutingCase", "ROUTING_CASES", "CLASS_SUITE", "format_classes_report",
           "parse_engines", "parse_classes", "parse_class_names", "parse_routing",
           "corner_source", "route_layout", "scipy_matrix", "scipy_levels", "time_engine",
           "turns", "machine", "SCIPY", "SCIPY_TOTAL", "SYNTHETIC", "MAPS", "CLASSES",
           "PUZZLES_DIR", "_maze_routing", "layers_suite", "format_layers", "LayersRow",
           "parse_parts", "PARTS", "LAYERS_SEEDS"]
