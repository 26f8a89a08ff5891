"""The command line's parsers: the options each ``mazeroute`` command takes, and their help.

:mod:`mazeroute.cli` joins each parser built here to the function that runs its command.

Examples
--------
>>> p, sub = main_parser()
>>> add_check(sub).set_defaults(func=print)
>>> p.parse_args(["check", "chip.yaml", "--routes", "r.json"]).routes
'r.json'
"""

from __future__ import annotations

import argparse

from . import __version__
from .batch import MESSAGE_WIDTH, PROG
from .engines import strategies
from .readers import FORMATS
from .report import safe_text
from .router import DEFAULT_MODE, MODES, ORDERS
from .router.congestion import REROUTE_ORDERS

#: Largest ``route --scale`` (pixels per cell).
MAX_SCALE_OPTION = 64


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors (no usage block), exit status 2 as before."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {safe_text(message, MESSAGE_WIDTH, middle=True)} "
                     f"(see {self.prog} --help)\n")


# -- options shared by several commands -------------------------------------------
def engine_options(p: argparse.ArgumentParser) -> None:
    """The engine options: --backend, --strategy, --order."""
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


def mode_options(p: argparse.ArgumentParser) -> None:
    """The routing mode and negotiation's options."""
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
    g.add_argument("--wait-factor", type=float, metavar="X",
                   help="negotiate, without --time-limit: bound the whole routing to X "
                        "times as long as sequential routing of the layout takes (timed "
                        "once the run outlasts --min-wait; kept when negotiation ends "
                        "with fewer nets), or "
                        "--min-wait, whichever is longer; the report says what the bound "
                        "cut short (0: no bound; default 20)")
    g.add_argument("--min-wait", type=float, metavar="SECONDS",
                   help="negotiate: the seconds --wait-factor always allows (default 10)")
    g.add_argument("--fill-steps", type=int, metavar="N",
                   help="negotiate: choices the exact space-filling search may try when "
                        "nets stay unrouted and every net has two pins (0: never; "
                        "default 400000000)")
    g.add_argument("--window-work", type=int, metavar="N",
                   help="negotiate: when two-pin nets stay unrouted after that, re-solve "
                        "windows round their pins exactly (SAT), with the wires crossing "
                        "them, within N of the solver's conflicts in all (0: never; "
                        "default 50000)")
    g.add_argument("--snapshot-nets", type=int, metavar="K",
                   help="negotiate: a net waits only for the overlapping nets at least K "
                        "places before it; nearer ones are searched together on the same "
                        "costs: sooner on a GPU, but congested layouts may end with fewer "
                        "nets routed (default 1: PathFinder's order)")
    g.add_argument("--group-nets", type=int, metavar="N",
                   help="negotiate: from iteration 2 on, search the nets rerouted in groups "
                        "of up to N whose current wires share no cell, each on the costs of "
                        "every other net's current wire with its own taken off, then commit "
                        "the group (0, the default, and 1: PathFinder's order)")
    g.add_argument("--reroute-order", choices=REROUTE_ORDERS, metavar="ORDER",
                   help="negotiate: the order of the nets rerouted in an iteration: colour "
                        "(by first-fit colour of their search boxes' overlap, then hpwl: "
                        "fewer dependent searches, which a GPU waits on) or hpwl (smallest "
                        "pin box first) (default: colour)")


#: ``--lef``'s help on the commands that take a layout or a DEF design.
LEF_HELP = {
    "route": "a DEF design's LEF file (technology first; repeat for more): the design is "
             "recognised by its content and globally routed as `groute` routes it, into -o",
    "view": "a DEF design's LEF file (repeat for more): the design is routed as `groute "
            "--html` routes it and its viewer page written to -o",
    "check": "a DEF design's LEF file (repeat for more): the design and its GCell grid are "
             "checked as `gcells` reads them, and --routes names its guides, judged as "
             "`evaluate` judges them",
}


def input_options(p: argparse.ArgumentParser, puzzle: bool = True) -> None:
    """The input options: --format, and --puzzle where one layout is read."""
    g = p.add_argument_group("input")
    g.add_argument("--format", default="auto", choices=FORMATS,
                   help="input format (default: auto = recognised by content: layout YAML, "
                        "numberlink or ADC puzzle, Moving AI map)")
    if puzzle:
        g.add_argument("--puzzle", type=int, metavar="K",
                       help="which puzzle of a file holding several (1, 2, ...)")
    if p.prog.split()[-1] in LEF_HELP:
        g.add_argument("--lef", action="append", metavar="FILE.lef",
                       help=LEF_HELP[p.prog.split()[-1]])


#: What ``--nets`` reads, for its help.
NETS_HELP = ("a YAML of just 'nets:', or a Moving AI scenario (.scen, recognised by its "
             "'version 1' line: row k is the two-pin net s<k> from start to goal)")


def scen_option(p: argparse.ArgumentParser, what: str = "--nets") -> None:
    """``--scen-limit``, for a scenario given as ``what``."""
    p.add_argument("--scen-limit", type=int, metavar="N",
                   help=f"route only the first N rows of a .scen given as {what} (one "
                        "holds thousands, many sharing cells; default: all)")


# -- one parser a command ---------------------------------------------------------
def main_parser() -> tuple[argparse.ArgumentParser, argparse._SubParsersAction]:
    """The ``mazeroute`` parser and its subcommand list, with no subcommand yet."""
    p = Parser(
        prog=PROG, description="Maze routing for chip layouts (Lee's algorithm) with CPU and "
        "GPU breadth-first wavefront engines.",
        epilog="Layout and routes formats: see docs/FORMATS.md. Exit status: 0 ok, 1 a check "
               "failed (or unrouted nets with --fail-unrouted), 2 bad input or an output "
               "that cannot be written, 130 interrupted (143 by SIGTERM).")
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)
    return p, sub


def add_route(sub) -> argparse.ArgumentParser:
    """The ``route`` command's parser: route every net of one layout."""
    r = sub.add_parser("route", help="route every net of a layout",
                       description="Route every net; write routes.json, layout.png and "
                       "report.txt into the output folder and print the report. A "
                       "multi-layer layout (YAML with layers:, or an ADC problem of several "
                       "layers) is routed on the CPU, in either mode; its layout.png has a "
                       "panel per layer (--overlay: one panel).")
    r.add_argument("layout", help="layout file (YAML, numberlink or ADC puzzle, Moving AI "
                   "map), or a DEF design with --lef")
    r.add_argument("--nets", metavar="NETLIST", help="route this netlist over the layout's "
                   f"blockages instead of the layout's own nets: {NETS_HELP}. A Moving AI "
                   "map has no nets: give them here, or draw random ones with `generate "
                   "--on MAP`")
    scen_option(r)
    r.add_argument("-o", "--output", metavar="DIR",
                   help="output folder (default: outputs/<layout name>/)")
    r.add_argument("--no-png", action="store_true", help="skip the picture")
    r.add_argument("--overlay", action="store_true",
                   help="a multi-layer layout's picture: its layers overlaid in one panel "
                        "(default: a panel per layer, side by side)")
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
    r.add_argument("--answer", metavar="FILE",
                   help="ADC problems only: also write the routes in the contest's answer "
                        "format (SIZE, then LAYER k and rows of line numbers); check it "
                        "with `check PROBLEM --answer FILE`")
    input_options(r)
    mode_options(r)
    engine_options(r)
    return r


def add_wavefront(sub) -> argparse.ArgumentParser:
    """The ``wavefront`` command's parser: draw one net's wavefront."""
    w = sub.add_parser("wavefront", help="draw one net's wavefront as a heat map",
                       description="Draw NET's complete wavefront from its root with its "
                       "route on top (PMPP Fig. 15.5). --mode negotiate (the default, as "
                       "for route): negotiate the layout, then grow the wavefront on the "
                       "costs NET saw at the search its route came from, in base cell costs; "
                       "sequential: route the nets before NET (in --order), then grow its "
                       "BFS wavefront. A multi-layer layout is drawn a panel per layer, on "
                       "the CPU, by a 3-D BFS with the stack's via and direction rules; in "
                       "negotiate mode a simplification: the other nets' negotiated wires "
                       "block it, not the costs its search saw. No --html for it.")
    w.add_argument("layout", help="layout file (YAML, numberlink or ADC puzzle, Moving AI map)")
    w.add_argument("--net", help="net name (default: the first net)")
    w.add_argument("--nets", metavar="NETLIST", help="netlist file to use instead of the "
                   "layout's nets")
    scen_option(w)
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
    input_options(w)
    engine_options(w)
    return w


def add_batch(sub) -> argparse.ArgumentParser:
    """The ``batch`` command's parser: route many layouts, with a summary."""
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
    scen_option(b, "an input with --layout")
    b.add_argument("--summary", default="csv", choices=["csv", "json"],
                   help="summary table format (default: csv)")
    b.add_argument("--resume", action="store_true",
                   help="keep layouts whose outputs in OUT are complete and valid "
                        "(routes.json checked against the layout, report.txt, the picture "
                        "asked for); their rows are recomputed from routes.json")
    b.add_argument("--no-png", action="store_true", help="skip the pictures")
    b.add_argument("--overlay", action="store_true",
                   help="multi-layer layouts' pictures: layers overlaid in one panel")
    b.add_argument("--html", action="store_true",
                   help="also write each layout's view.html (interactive viewer)")
    b.add_argument("-q", "--quiet", action="store_true")
    input_options(b, puzzle=False)
    mode_options(b)
    engine_options(b)
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
    return b


def add_check(sub) -> argparse.ArgumentParser:
    """The ``check`` command's parser: validate a layout and a routes file."""
    c = sub.add_parser("check", help="validate a layout (and optionally a routes file)",
                       description="Check a layout against docs/FORMATS.md without routing; with "
                       "--routes also check a routes file's promises about it.")
    c.add_argument("layout", help="layout file (YAML, numberlink or ADC puzzle, Moving AI "
                   "map), or a DEF design with --lef")
    c.add_argument("--nets", metavar="NETLIST", help="check this netlist against the "
                   f"layout's grid, as `route --nets` would route it: {NETS_HELP}")
    scen_option(c)
    c.add_argument("--routes", metavar="JSON", help="routes file to check against the layout")
    c.add_argument("--answer", metavar="FILE",
                   help="ADC problems only: check an answer file (the contest's format) "
                        "against the contest's rules, VIA columns included")
    c.add_argument("--sequential", action="store_true",
                   help="also require each two-pin net to be shortest given the nets "
                        "committed before it")
    input_options(c)
    return c


def add_view(sub) -> argparse.ArgumentParser:
    """The ``view`` command's parser: write the interactive viewer page."""
    v = sub.add_parser("view", help="write an interactive HTML viewer of a layout",
                       description="Write one self-contained HTML file (no network needed to "
                       "open it) showing the layout and, with --routes, a routes.json written "
                       "by `route`: pan, zoom, search and highlight nets, find unrouted ones. "
                       "Layouts of one layer only: a multi-layer layout is refused.")
    v.add_argument("layout", help="layout file (YAML, numberlink or ADC puzzle, Moving AI "
                   "map), or a DEF design with --lef")
    v.add_argument("--nets", metavar="NETLIST", help="netlist file to use instead of the "
                   f"layout's nets: {NETS_HELP}")
    scen_option(v)
    v.add_argument("--routes", metavar="JSON", help="routes file of this layout (checked "
                   "against it first)")
    v.add_argument("-o", "--output", default="view.html", metavar="HTML",
                   help="page to write (default: view.html)")
    v.add_argument("-q", "--quiet", action="store_true")
    input_options(v)
    return v


def add_generate(sub) -> argparse.ArgumentParser:
    """The ``generate`` command's parser: a synthetic layout, or random nets for a map."""
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
    return g
