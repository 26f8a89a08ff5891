"""The regression lock: every route, report, summary and engine choice, before and after.

``record`` routes a fixed, seeded list of cases through the command line a user runs
(``mazeroute.cli.main(["route", ...])`` in this process, pictures off), in each mode,
and writes what came out; ``compare`` reads two records and prints every difference.
A restructuring that keeps behaviour records the same file before and after it, on the
CPU and, in a device run, on the GPU.

    python benchmarks/regression_lock.py record OUT.json [--backend cpu|gpu|auto]
        [--modes sequential,negotiate] [--quick] [--data DIR]
    python benchmarks/regression_lock.py compare OLD.json NEW.json

Per case and mode a record holds the exit status and the one error line (a case that
fails is data, not a crash), the sha256 of ``routes.json`` as written, the sha256 and
the text of ``report.txt`` after normalising, and one row per net: name, a hash of its
cells, length, bends, levels (the report's column), and ``ok`` or ``unrouted`` with its
reason. Per case it also holds what ``backend="auto"`` decides for the layout
(:func:`decisions`) and the sha256 of its input files (a generator that changed shows
as a changed input, not as routes that changed by themselves); its ``seconds`` are for
planning the case list and are never compared. Per mode a ``batch`` over a small
folder of cases is recorded too: its summaries (CSV and JSON) and each layout's
outputs.

Normalised, and nothing else: the report's time cells (``12.34 ms``, ``1.234 s``: the
per-net ``time`` column, ``wall time``, the iteration and phase tables' ``time``) and
the summaries' ``seconds`` column. Those are the only fields that differ between two
runs of the same tree (``record --quick`` twice, then ``compare``, shows it). Every
input is copied into a scratch folder and named by a path relative to it, so that the
error lines, the layouts' names and the summaries' ``file`` column do not depend on
where the repository or the shared data live.

The cases: every file under ``layouts/``; the tests' corpus (``tests/corpus.py``: its
BFS grids with pins at their sources and seeded nets, its weighted cases' nets, its
negotiation layouts); every numberlink puzzle of the shared data (``--puzzle K``); the
shared ADC files (those the reader refuses record the refusal); the shared and the
benchmark Moving AI maps with seeded two-pin nets (``--nets``); and generated layouts
of every class that ``auto`` tells apart (:func:`generated_cases`).

``compare`` refuses (exit 2) records of another backend, device, mode set or case set;
it exits 1 on any difference and 0 when the records agree.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import difflib
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:             # tests/corpus.py, and the package from a checkout
    sys.path.insert(0, str(REPO))

from mazeroute.cli import main as cli_main  # noqa: E402
from mazeroute.generate import (  # noqa: E402
    class_mask,
    kruskal_maze_mask,
    random_nets,
    tile_mask,
)
from mazeroute.layout import Layout, Net, save_layout  # noqa: E402

LOCK_FORMAT = "mazeroute-regression-lock/1"
MODES = ("sequential", "negotiate")
#: The shared data folder (numberlink puzzles, ADC files, Moving AI maps) by default.
DATA = REPO.parent / "shared" / "data"
#: What ``report.txt`` writes for a duration (``report._ms``): the only cells of a
#: report that differ between two runs of the same tree.
TIME_CELL = re.compile(r"\b\d+\.\d{2} ms\b|\b\d+\.\d{3} s\b")
#: Two-pin nets added to each Moving AI map, and their span (maps carry no nets).
MAP_NETS, MAP_SPAN = 20, 60


# -- cases ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Case:
    """One input of the lock: ``path`` (relative to the scratch folder) and the extra
    ``route`` arguments (``--puzzle K``, ``--nets NETLIST``)."""

    id: str
    group: str
    path: str
    args: tuple[str, ...] = ()


def _mask_layout(name: str, blocked: np.ndarray, nets: list[Net]) -> Layout:
    h, w = blocked.shape
    return Layout(name, w, h, [], nets, np.asarray(blocked, bool))


def write_layout(work: Path, rel: str, layout: Layout) -> str:
    """Save ``layout`` as ``work/rel`` (folders made); return ``rel``."""
    path = work / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    save_layout(layout, path)
    return rel


def _copy(work: Path, src: Path, rel: str) -> str:
    dest = work / rel
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, dest)
    return rel


def _placed(blocked: np.ndarray, groups: Sequence[tuple[int, int, int | None, str]],
            rng: np.random.Generator) -> list[Net]:
    """Nets of several kinds, ``(count, pins, span, prefix)`` each, on distinct free
    cells (a group that does not fit is left out: the list stays deterministic)."""
    used = np.asarray(blocked, bool).copy()
    nets: list[Net] = []
    for count, pins, span, prefix in groups:
        free = int((~used).sum())
        count = min(count, free // max(pins, 1))
        if count < 1:
            continue
        try:
            group = random_nets(used, count, pins, rng, prefix=prefix, span=span)
        except Exception:                  # too crowded within the span: anywhere instead
            group = random_nets(used, count, pins, rng, prefix=prefix)
        for net in group:
            for x, y in net.pins:
                used[y, x] = True
        nets += group
    return nets


def layout_cases(work: Path) -> list[Case]:
    """Every file under ``layouts/``."""
    return [Case(f"layouts/{p.name}", "layouts", _copy(work, p, f"layouts/{p.name}"))
            for p in sorted((REPO / "layouts").iterdir()) if p.is_file()]


def corpus_cases(work: Path, quick: bool = False) -> list[Case]:
    """The tests' corpus as layouts: the BFS grids (pins at the sources, then seeded
    two-pin nets), the weighted cases (their nets), the negotiation layouts."""
    from tests import corpus

    cases: list[Case] = []
    rng = np.random.default_rng(11)
    grids = [c for c in corpus.hand_cases() + corpus.random_cases(30, 40) if c.is_grid]
    for c in grids[:2] if quick else grids:
        free = c.graph.free
        blocked = ~free
        cells = [tuple(int(v) for v in c.graph.cell(s)) for s in c.sources]
        taken = blocked.copy()
        for x, y in cells:
            taken[y, x] = True
        if len(cells) < 2 and (~taken).any():
            ys, xs = np.nonzero(~taken)
            k = int(rng.integers(len(ys)))
            cells.append((int(xs[k]), int(ys[k])))
            taken[ys[k], xs[k]] = True
        nets = [Net("src", cells)] + _placed(taken, [(4, 2, None, "n")], rng)
        name = f"corpus-{c.id}"
        lay = _mask_layout(name, blocked, nets)
        cases.append(Case(f"corpus/{c.id}", "corpus",
                          write_layout(work, f"corpus/{c.id}.yaml", lay)))
    if not quick:
        for c in corpus.weighted_hand_cases():
            pins = {}
            for req in c.requests:
                pins[req.net] = [tuple(int(v) for v in p) for p in req.pins]
            nets = [Net(f"w{k}", p) for k, p in sorted(pins.items())]
            lay = _mask_layout(f"weighted-{c.id}", ~c.free, nets)
            cases.append(Case(f"corpus/weighted-{c.id}", "corpus",
                              write_layout(work, f"corpus/weighted-{c.id}.yaml", lay)))
    named = [("other_side", corpus.other_side_layout()), ("corridor", corpus.corridor_layout()),
             ("unroutable", corpus.unroutable_layout()), ("puzzle", corpus.puzzle_layout())]
    if not quick:
        named += [("oversubscribed", corpus.oversubscribed_layout())]
        named += [(lay.name, lay) for lay in corpus.chain_layouts()]
    for key, lay in named:
        rel = write_layout(work, f"corpus/{key}.yaml", lay)
        cases.append(Case(f"corpus/{key}", "corpus", rel))
    return cases


def puzzle_cases(work: Path, data: Path, quick: bool = False) -> list[Case]:
    """Every puzzle of the shared numberlink files (``--puzzle K``), and every shared
    ADC file (the reader's refusal is what a 3-D one records)."""
    from mazeroute.batch import load_all

    cases: list[Case] = []
    for src in sorted((data / "numberlink").glob("*.txt")):
        rel = _copy(work, src, f"numberlink/{src.name}")
        count = len(load_all(work / rel))
        for k in range(1, count + 1)[:1] if quick else range(1, count + 1):
            cases.append(Case(f"numberlink/{src.name}#{k}", "numberlink", rel,
                              ("--puzzle", str(k))))
    for src in sorted((data / "adc").glob("*.txt"))[:1 if quick else None]:
        rel = _copy(work, src, f"adc/{src.name}")
        cases.append(Case(f"adc/{src.name}", "adc", rel))
    return cases


def map_cases(work: Path, data: Path, quick: bool = False) -> list[Case]:
    """The shared and the benchmark Moving AI maps, each with :data:`MAP_NETS` seeded
    two-pin nets (``--nets``: a netlist over the map's blockages)."""
    from mazeroute.batch import load_all

    cases: list[Case] = []
    sources = [("movingai", p) for p in sorted((data / "movingai").glob("*.map"))]
    sources += [("maps", p) for p in sorted((REPO / "benchmarks" / "maps").glob("*.map"))]
    for k, (where, src) in enumerate(sources[-1:] if quick else sources):
        rel = _copy(work, src, f"{where}/{src.name}")
        lay = load_all(work / rel)[0]
        nets = _placed(lay.blocked, [(MAP_NETS, 2, MAP_SPAN, "m")],
                       np.random.default_rng(100 + k))
        netlist = work / f"{where}/{src.stem}.nets.yaml"
        lines = ["nets:"] + [f"  - {{name: {n.name}, pins: ["
                             + ", ".join(f"[{x}, {y}]" for x, y in n.pins) + "]}"
                             for n in nets]
        netlist.write_text("\n".join(lines) + "\n", encoding="utf-8")
        cases.append(Case(f"{where}/{src.name}", "maps", rel,
                          ("--nets", str(netlist.relative_to(work)))))
    return cases


def _map_crop(size: int, seed: int) -> np.ndarray:
    """A ``size`` x ``size`` window of a benchmark map (tiled when the map is smaller):
    of nine windows spread over it, the one with the most free cells (a map's corners
    are often solid rock)."""
    from mazeroute.readers import load_layouts

    maps = sorted((REPO / "benchmarks" / "maps").glob("*.map"))
    blocked = load_layouts(maps[seed % len(maps)])[0].blocked
    if min(blocked.shape) < size:
        blocked = tile_mask(blocked, 2)
    h, w = blocked.shape
    corners = [((h - size) * i // 2, (w - size) * j // 2) for i in range(3) for j in range(3)]
    y, x = min(corners, key=lambda c: int(blocked[c[0]:c[0] + size, c[1]:c[1] + size].sum()))
    return blocked[y:y + size, x:x + size].copy()


#: The classes ``auto`` tells apart, as blocked-mask makers ``(size, seed) -> mask``:
#: open and dense fields of rectangles, perfect and braided mazes (few and many loops),
#: corridors wider than a cell, winding corridors with long straight runs, rooms, maps.
CLASSES: dict[str, Callable[[int, int], np.ndarray]] = {
    "open-0.1": lambda n, s: class_mask("open:0.1", n, s),
    "open-0.25": lambda n, s: class_mask("open:0.25", n, s),
    "dense-0.3": lambda n, s: class_mask("dense:0.3", n, s),
    "dense-0.5": lambda n, s: class_mask("dense:0.5", n, s),
    "maze": lambda n, s: class_mask("maze", n, s),
    "kruskal": lambda n, s: kruskal_maze_mask(n, n, 0.0, 1, s),
    "maze-few-loops": lambda n, s: class_mask("maze:0.0005", n, s),
    "maze-loops": lambda n, s: class_mask("maze:0.05", n, s),
    "maze-many-loops": lambda n, s: class_mask("maze:0.3", n, s),
    "wide-corridors": lambda n, s: kruskal_maze_mask(n, n, 0.05, 3, s),
    "serpentine-3": lambda n, s: class_mask("serpentine:3", n, s),
    "spiral-4": lambda n, s: class_mask("spiral:4", n, s),
    "winding-12": lambda n, s: class_mask("serpentine:12", n, s),
    "rooms": lambda n, s: kruskal_maze_mask(n, n, 0.1, 8, s),
    "wired": lambda n, s: class_mask("wired:2", n, s),
    "map": _map_crop,
}
#: Net mixes ``(count, pins, span, prefix)``: two-pin local and long, trees of 3-32
#: pins, nets of more than 32 pins, and all of them together.
MIXES: dict[str, list[tuple[int, int, int | None, str]]] = {
    "2pin-local": [(16, 2, 10, "a")],
    "2pin-long": [(10, 2, None, "b")],
    "trees": [(3, 3, 12, "t"), (2, 8, 20, "u"), (1, 32, 40, "v")],
    "many-pins": [(2, 40, 40, "p"), (1, 33, None, "q")],
    "mixed": [(8, 2, 12, "a"), (3, 2, None, "b"), (2, 5, 16, "t"), (1, 36, 30, "p")],
}
#: Small sides; medium sides around ``auto``'s 65,536 free cells, under and over it
#: (a maze frees about half its cells, a field of rectangles most of them).
SMALL = (24, 64)
MEDIUM = {"open-0.1": (240, 300), "open-0.25": (240, 300), "dense-0.3": (240, 320),
          "dense-0.5": (240, 400), "maze": (300, 384), "kruskal": (300, 384),
          "maze-few-loops": (300, 384), "maze-loops": (300, 384),
          "maze-many-loops": (300, 384), "wide-corridors": (240, 320),
          "serpentine-3": (240, 300), "spiral-4": (240, 300), "winding-12": (240, 300),
          "rooms": (240, 300), "wired": (240, 300), "map": (240, 440)}


def generated_cases(work: Path, quick: bool = False) -> list[Case]:
    """Every class of :data:`CLASSES` at the :data:`SMALL` sides with every mix of
    :data:`MIXES`, and at its :data:`MEDIUM` sides with local two-pin nets and with
    trees; seeds fixed, so the list and the layouts are the same on every run."""
    specs = [(cls, n, mix) for cls in CLASSES for n in SMALL for mix in MIXES]
    specs += [(cls, n, mix) for cls in CLASSES for n in MEDIUM[cls]
              for mix in ("2pin-local", "trees")]
    if quick:
        specs = [s for i, s in enumerate(specs) if s[1] in SMALL and i % 19 == 0]
    cases = []
    for seed, (cls, n, mix) in enumerate(specs):
        blocked = CLASSES[cls](n, seed)
        nets = _placed(blocked, MIXES[mix], np.random.default_rng(seed))
        key = f"{cls}-{n}-{mix}-s{seed}"
        lay = _mask_layout(key, blocked, nets)
        cases.append(Case(f"gen/{key}", f"gen:{cls}", write_layout(work, f"gen/{key}.yaml", lay)))
    return cases


def build_cases(work: Path, data: Path = DATA, quick: bool = False) -> list[Case]:
    """The lock's case list, its inputs written or copied under ``work``."""
    return (layout_cases(work) + corpus_cases(work, quick) + puzzle_cases(work, data, quick)
            + map_cases(work, data, quick) + generated_cases(work, quick))


# -- what a route wrote ----------------------------------------------------------------
def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def normalise_report(text: str) -> str:
    """``report.txt`` with its time cells (:data:`TIME_CELL`) replaced by ``<t>``."""
    return TIME_CELL.sub("<t>", text)


def _levels(report: str, count: int) -> list[str | None]:
    """The ``levels`` column of the report's net rows (file order, every net)."""
    rows = report.splitlines()[3:3 + count]
    out: list[str | None] = []
    for row in rows:
        parts = row.rsplit(None, 5)
        out.append(parts[4] if len(parts) == 6 else None)
    return out + [None] * (count - len(out))


def read_outputs(folder: Path) -> dict:
    """The record of one route's ``routes.json`` and ``report.txt``."""
    raw = (folder / "routes.json").read_bytes()
    report = normalise_report((folder / "report.txt").read_text(encoding="utf-8"))
    doc = json.loads(raw)
    nets = doc.get("nets", [])
    levels = _levels(report, len(nets))
    rows = []
    for net, level in zip(nets, levels):
        cells = json.dumps(net.get("cells"), separators=(",", ":")).encode()
        status = "ok" if net.get("routed") else "unrouted"
        if net.get("reason") is not None:
            status += ": " + str(net["reason"])
        rows.append([net.get("name"), _sha(cells)[:16], net.get("length"), net.get("bends"),
                     level, status])
    return {"routes": _sha(raw), "report": _sha(report.encode()), "engine": doc.get("engine"),
            "report_text": report, "nets": rows}


@contextlib.contextmanager
def _inside(folder: Path) -> Iterator[None]:
    old = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(old)


def run_cli(argv: list[str]) -> tuple[int, str]:
    """``mazeroute ARGV`` in this process: its exit status and its last stderr line."""
    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        try:
            rc = cli_main(argv)
        except SystemExit as e:            # argparse's own errors
            rc = e.code if isinstance(e.code, int) else 2
        except Exception as e:             # a crash is a difference too, not the end
            rc, err = -1, io.StringIO(f"crash: {type(e).__name__}: {e}")
    lines = [line for line in err.getvalue().splitlines() if line.strip()]
    return rc, lines[-1] if lines else ""


def route_case(case: Case, mode: str, backend: str) -> dict:
    """Route one case in one mode (the working directory is the scratch folder)."""
    out = Path("out")
    shutil.rmtree(out, ignore_errors=True)
    _forget()
    argv = ["route", case.path, *case.args, "-o", str(out), "--mode", mode,
            "--backend", backend, "--no-png", "-q"]
    rc, error = run_cli(argv)
    run: dict = {"exit": rc, "error": error}
    if (out / "routes.json").exists() and (out / "report.txt").exists():
        run.update(read_outputs(out))
    shutil.rmtree(out, ignore_errors=True)
    return run


# -- engine choices ------------------------------------------------------------------------
def input_sha(case: Case) -> str:
    """sha256 of the case's input files (the layout, then a ``--nets`` netlist): a
    generator that changed between two records shows as a changed input, not as routes
    that changed on their own."""
    h = hashlib.sha256(Path(case.path).read_bytes())
    args = dict(zip(case.args[::2], case.args[1::2]))
    if "--nets" in args:
        h.update(Path(args["--nets"]).read_bytes())
    return h.hexdigest()


def _forget() -> None:
    """Drop ``auto``'s memo of the last mask, so that no case's decision reads another's."""
    with contextlib.suppress(Exception):
        from mazeroute.engines import auto
        auto.forget()


def _first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0] if text else ''}"


def decisions(layout: Layout) -> dict:
    """What ``backend="auto"`` decides for ``layout``, each decision by itself (the
    memo forgotten first): the wavefront's engine (``prefers_cpu``), sequential
    routing's (``routing_prefers_cpu``, from the nets' pin counts and pin box
    half-perimeters), negotiation's (``negotiation_prefers_cpu``), and what
    ``engines.resolve("auto")`` returns for the layout's grid here. This is the one
    place that names those functions: a move that renames them changes it, and the
    lock then says which answer moved."""
    from mazeroute.engines import resolve

    free = ~np.asarray(layout.blocked, bool)
    pins = np.array([len(n.pins) for n in layout.nets], np.int64)
    spans = np.array([n.hpwl for n in layout.nets], np.int64)

    def picked():
        spec, notice = resolve("auto", None, layout.grid())
        return [f"{spec.backend}/{spec.strategy}", notice]

    try:        # before the planner: engines/auto.py's functions, its memo forgotten
        from mazeroute.engines import auto
        asks = {"prefers_cpu": lambda: bool(auto.prefers_cpu(free)),
                "routing_prefers_cpu": lambda: bool(auto.routing_prefers_cpu(free, pins,
                                                                              spans)),
                "negotiation_prefers_cpu": lambda: bool(auto.negotiation_prefers_cpu(free))}
    except ImportError:     # the planner's rules, each on a fresh measure of the mask
        from mazeroute.plan import decide
        from mazeroute.plan.features import Measure
        asks = {"prefers_cpu": lambda: bool(decide.wavefront_prefers_cpu(Measure(free))[0]),
                "routing_prefers_cpu": lambda: bool(decide.routing_prefers_cpu(
                    Measure(free), pins, spans)),
                "negotiation_prefers_cpu": lambda: bool(decide.negotiation_prefers_cpu(
                    Measure(free)))}
    asks["resolve"] = picked
    out: dict = {"free_cells": int(free.sum())}     # which side of auto's size rules
    for name, ask in asks.items():
        _forget()
        try:
            out[name] = ask()
        except Exception as e:
            out[name] = "error: " + _first_line(e)
    _forget()
    return out


def case_decisions(case: Case) -> dict:
    """:func:`decisions` of the case's layout, or the one line its loading failed with."""
    from mazeroute.batch import load_all

    args = dict(zip(case.args[::2], case.args[1::2]))
    try:
        layouts = load_all(case.path, args.get("--nets"))
        layout = layouts[int(args.get("--puzzle", 1)) - 1]
    except Exception as e:
        return {"error": _first_line(e)}
    return decisions(layout)


# -- batch summaries -------------------------------------------------------------------------
def normalise_summary(text: str, kind: str) -> str:
    """A batch summary with its ``seconds`` column blanked (CSV: rewritten by the csv
    module; JSON: ``null``, keys and layout as written)."""
    if kind == "json":
        return re.sub(r'("seconds":\s*)(-?[0-9.eE+-]+|null)', r"\1null", text)
    rows = list(csv.reader(io.StringIO(text)))
    if not rows or "seconds" not in rows[0]:
        return text
    k = rows[0].index("seconds")
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    for row in rows:
        writer.writerow(row[:k] + ([""] if row is not rows[0] else ["seconds"]) + row[k + 1:])
    return buf.getvalue()


def batch_inputs(work: Path, cases: list[Case]) -> str:
    """A folder of a few cases for ``batch``: the hand layouts, the corpus puzzle, two
    generated layouts and a refused ADC file (a failed row)."""
    folder = work / "batch-in"
    folder.mkdir(exist_ok=True)
    wanted = [c for c in cases if c.id in ("layouts/fig15_5.yaml", "layouts/multinet.yaml",
                                           "layouts/multipin.yaml", "corpus/puzzle")]
    wanted += [c for c in cases if c.group.startswith("gen:")][:2]
    wanted += [c for c in cases if c.group == "adc"][:1]
    for c in wanted:
        shutil.copyfile(work / c.path, folder / Path(c.path).name)
    return folder.name


def record_batch(folder: str, mode: str, backend: str) -> dict:
    """``mazeroute batch FOLDER`` in one mode, both summary kinds: the normalised
    summaries' hashes and text, and each layout's outputs."""
    got: dict = {}
    for kind in ("csv", "json"):
        out = Path(f"batch-{kind}")
        shutil.rmtree(out, ignore_errors=True)
        _forget()
        rc, error = run_cli(["batch", folder, "-o", str(out), "--mode", mode, "--backend",
                             backend, "--no-png", "-q", "--summary", kind])
        path = out / f"summary.{kind}"
        text = normalise_summary(path.read_text(encoding="utf-8"), kind) \
            if path.exists() else ""
        layouts = {}
        for sub in sorted(p for p in out.iterdir() if p.is_dir()) if out.exists() else []:
            if (sub / "routes.json").exists() and (sub / "report.txt").exists():
                r = read_outputs(sub)
                layouts[sub.name] = {"routes": r["routes"], "report": r["report"]}
        got[kind] = {"exit": rc, "error": error, "summary": _sha(text.encode()),
                     "summary_text": text, "layouts": layouts}
        shutil.rmtree(out, ignore_errors=True)
    return got


# -- record and compare -------------------------------------------------------------------
def _git(*args: str) -> str:
    try:
        return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def _device(backend: str) -> str:
    """The backend ``auto`` resolves to here (a ``gpu`` request is refused without one)."""
    from mazeroute.engines import gpu_available
    if backend != "auto":
        return backend
    return "gpu" if gpu_available() else "cpu"


def record_case(case: Case, modes: Sequence[str], backend: str) -> dict:
    """One case's entry: its input, decisions and a run per mode (the working directory
    is the scratch folder)."""
    began = time.perf_counter()
    entry = {"group": case.group, "input": case.path, "args": list(case.args),
             "input_sha": input_sha(case), "decisions": case_decisions(case), "runs": {}}
    for mode in modes:
        entry["runs"][mode] = route_case(case, mode, backend)
    # for planning the case list only: compare never reads it
    entry["seconds"] = round(time.perf_counter() - began, 2)
    return entry


def _record_share(work: str, cases: list[Case], modes: Sequence[str],
                  backend: str) -> dict:
    """A worker's share of the cases, in a copy of the scratch folder of its own (each
    route writes its outputs to ``out`` there; the inputs keep their relative paths)."""
    own = Path(tempfile.mkdtemp(prefix="lock-worker-"))
    try:
        shutil.copytree(work, own, dirs_exist_ok=True)
        with _inside(own):
            return {case.id: record_case(case, modes, backend) for case in cases}
    finally:
        shutil.rmtree(own, ignore_errors=True)


def _record_parallel(work: Path, listed: list[Case], modes: Sequence[str], backend: str,
                     jobs: int, progress: Callable[[str], None] | None) -> dict:
    """:func:`record_case` of every case on ``jobs`` processes (started fresh, not forked:
    the parent may hold a CUDA context), cases dealt round-robin; the same entries as one
    process's."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    shares = [listed[k::jobs] for k in range(jobs)]
    out: dict = {}
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
        for k, got in enumerate(pool.map(_record_share, [str(work)] * jobs, shares,
                                         [list(modes)] * jobs, [backend] * jobs)):
            out.update(got)
            if progress:
                progress(f"[share {k + 1}/{jobs}] {len(got)} cases")
    return {case.id: out[case.id] for case in listed}


def record(out: Path, backend: str = "cpu", modes: Sequence[str] = MODES, quick: bool = False,
           data: Path = DATA, cases: Callable[[Path], list[Case]] | None = None,
           progress: Callable[[str], None] | None = None, jobs: int = 1) -> dict:
    """Route every case in every mode and write the record to ``out`` (JSON).

    ``cases(work)``: the case list, its inputs written under ``work`` (default:
    :func:`build_cases`); ``jobs``: processes routing the cases (the batch runs in this
    one). Returns the record.
    """
    from mazeroute.engines import gpu_available

    start = time.perf_counter()
    rec: dict = {"format": LOCK_FORMAT, "head": _git("rev-parse", "HEAD"),
                 "dirty": bool(_git("status", "--porcelain", "--untracked-files=no")),
                 "backend": backend, "used": _device(backend), "gpu": gpu_available(),
                 "modes": list(modes), "quick": quick, "cases": {}, "batch": {}}
    with tempfile.TemporaryDirectory(prefix="lock-") as tmp:
        work = Path(tmp)
        listed = cases(work) if cases else build_cases(work, data, quick)
        rec["case_ids"] = [c.id for c in listed]
        if jobs > 1:
            rec["cases"] = _record_parallel(work, listed, modes, backend, jobs, progress)
        with _inside(work):
            for k, case in enumerate(listed if jobs <= 1 else []):
                rec["cases"][case.id] = record_case(case, modes, backend)
                if progress:
                    progress(f"[{k + 1}/{len(listed)}] {case.id} "
                             f"{rec['cases'][case.id]['seconds']} s")
            folder = batch_inputs(work, listed)
            for mode in modes:
                rec["batch"][mode] = record_batch(folder, mode, backend)
    rec["seconds"] = round(time.perf_counter() - start, 1)
    tmp_out = out.with_name(out.name + ".part")
    tmp_out.write_text(json.dumps(rec, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp_out, out)
    return rec


#: Fields of a record that must agree before two records are compared.
SAME = ("format", "backend", "used", "modes", "quick", "case_ids")


def _net_diff(old: list, new: list) -> str:
    """The first net whose row differs, old and new, in one or two lines."""
    for a, b in zip(old, new):
        if a != b:
            return f"first differing net: old {a} / new {b}"
    if len(old) != len(new):
        return f"net count: old {len(old)} / new {len(new)}"
    return "every net's row is the same"


def _text_diff(old: str, new: str, lines: int = 6) -> str:
    diff = [d for d in difflib.unified_diff(old.splitlines(), new.splitlines(), "old", "new",
                                            n=0, lineterm="") if not d.startswith(("---", "+++"))]
    return "\n".join("    " + d for d in diff[:lines])


def _run_diffs(where: str, old: dict, new: dict) -> list[str]:
    out = []
    for key in ("exit", "error", "engine"):
        if old.get(key) != new.get(key):
            out.append(f"{where}: {key}: old {old.get(key)!r} / new {new.get(key)!r}")
    for key in ("routes", "report"):
        if old.get(key) != new.get(key):
            line = f"{where}: {key}: {_net_diff(old.get('nets', []), new.get('nets', []))}"
            if key == "report":
                line += "\n" + _text_diff(old.get("report_text", ""), new.get("report_text", ""))
            out.append(line)
    if old.get("nets") != new.get("nets") and old.get("routes") == new.get("routes") \
            and old.get("report") == new.get("report"):
        out.append(f"{where}: nets: {_net_diff(old.get('nets', []), new.get('nets', []))}")
    return out


def differences(old: dict, new: dict) -> list[str]:
    """Every difference between two compatible records, one entry each (a line, or a
    line with a short diff under it)."""
    out = []
    backend = old.get("used")
    for cid in old["case_ids"]:
        a, b = old["cases"][cid], new["cases"][cid]
        if a.get("input_sha") != b.get("input_sha"):
            out.append(f"{cid}: input: the case's input file differs (a generator or a "
                       "reader changed): its other differences follow from that")
        for name in sorted(set(a["decisions"]) | set(b["decisions"])):
            x, y = a["decisions"].get(name), b["decisions"].get(name)
            if x != y:
                out.append(f"{cid}: decision {name}: old {x!r} / new {y!r}")
        for mode in old["modes"]:
            out += _run_diffs(f"{cid} [{mode}, {backend}]", a["runs"][mode], b["runs"][mode])
    for mode in old["modes"]:
        for kind in ("csv", "json"):
            a, b = old["batch"][mode][kind], new["batch"][mode][kind]
            where = f"batch [{mode}, {backend}] summary.{kind}"
            for key in ("exit", "error"):
                if a[key] != b[key]:
                    out.append(f"{where}: {key}: old {a[key]!r} / new {b[key]!r}")
            if a["summary"] != b["summary"]:
                out.append(f"{where}: summary\n" + _text_diff(a["summary_text"],
                                                               b["summary_text"]))
            for name in sorted(set(a["layouts"]) | set(b["layouts"])):
                if a["layouts"].get(name) != b["layouts"].get(name):
                    out.append(f"{where}: {name}: old {a['layouts'].get(name)} / new "
                               f"{b['layouts'].get(name)}")
    return out


def compare(old_path: Path, new_path: Path, stream=None) -> int:
    """Print every difference between two records; 0 when they agree, 1 when they
    differ, 2 when they cannot be compared (another backend, device, modes or cases)."""
    stream = sys.stdout if stream is None else stream
    old, new = (json.loads(Path(p).read_text(encoding="utf-8")) for p in (old_path, new_path))
    for key in SAME:
        if old.get(key) != new.get(key):
            a, b = (f"{len(v or ())} cases" if key == "case_ids" else repr(v)
                    for v in (old.get(key), new.get(key)))
            print(f"refused: the records differ in {key} (old {a}, new {b}); record both "
                  "the same way", file=stream)
            return 2
    diffs = differences(old, new)
    for line in diffs:
        print(line, file=stream)
    runs = len(old["case_ids"]) * len(old["modes"])
    print(f"{len(diffs)} difference(s) over {len(old['case_ids'])} cases x "
          f"{len(old['modes'])} modes ({runs} routes) and the batch; old HEAD "
          f"{old.get('head', '')[:12]}, new HEAD {new.get('head', '')[:12]}", file=stream)
    return 1 if diffs else 0


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: ``record`` and ``compare`` (see the module's docstring)."""
    ap = argparse.ArgumentParser(description="Record routes, reports, summaries and engine "
                                 "choices of a fixed case list; compare two records.")
    sub = ap.add_subparsers(dest="command", required=True)
    r = sub.add_parser("record", help="route every case; write OUT (JSON)")
    r.add_argument("out", type=Path)
    r.add_argument("--backend", default="cpu", choices=["cpu", "gpu", "auto"])
    r.add_argument("--modes", default=",".join(MODES),
                   help="comma-separated routing modes (default: both)")
    r.add_argument("--quick", action="store_true", help="a small subset of the cases")
    r.add_argument("--data", type=Path, default=DATA,
                   help="the shared data folder (default: ../shared/data)")
    r.add_argument("-j", "--jobs", type=int, default=1,
                   help="processes routing the cases (default: 1)")
    r.add_argument("-q", "--quiet", action="store_true")
    c = sub.add_parser("compare", help="print every difference between two records")
    c.add_argument("old", type=Path)
    c.add_argument("new", type=Path)
    args = ap.parse_args(argv)
    if args.command == "compare":
        return compare(args.old, args.new)
    modes = [m for m in args.modes.split(",") if m]
    if not modes or any(m not in MODES for m in modes):
        ap.error(f"--modes: choose from {', '.join(MODES)}")
    say = None if args.quiet else (lambda s: print(s, file=sys.stderr, flush=True))
    rec = record(args.out, args.backend, modes, args.quick, args.data, progress=say,
                 jobs=max(1, args.jobs))
    print(f"recorded {len(rec['case_ids'])} cases x {len(modes)} modes on {rec['used']} in "
          f"{rec['seconds']} s: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
