"""The suites' tables as text, their rows as CSV, and the table suite's chart."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, fields
from pathlib import Path

from ..io import atomic_path
from ..io import write_csv as write_rows
from ..report import format_table as text_columns
from .negotiation import BigRow, NegotiateRow
from .routing import RoutingRow
from .wavefront import SCIPY, ClassRow, Row


def write_csv(path: Path, rows: Sequence) -> None:
    """Dataclass rows as a CSV file, written atomically (nothing for no rows)."""
    if not rows:
        return
    write_rows(path, [f.name for f in fields(rows[0])], (asdict(r) for r in rows))


def format_table(rows: Sequence[Row]) -> str:
    """The engine x class table as fixed-width text, one block per layout."""
    head = (f"{'layout':<9} {'size':<9} {'engine':<18} {'median ms':>10} {'levels':>8} "
            f"{'Medges/s':>9} {'vs cpu':>7} {'vs scipy':>8}  check")
    lines = [head, "-" * len(head)]
    last = None
    for r in rows:
        if last is not None and (r.layout, r.size) != last:
            lines.append("")
        last = (r.layout, r.size)
        if r.check == "ERROR":
            lines.append(f"{r.layout:<9} {r.size:<9} {r.engine:<18} {'-':>10} {'-':>8} "
                         f"{'-':>9} {'-':>7} {'-':>8}  ERROR {r.note}")
            continue
        lines.append(f"{r.layout:<9} {r.size:<9} {r.engine:<18} {r.median_s * 1e3:>10.4g} "
                     f"{r.levels:>8} {r.edges_per_s / 1e6:>9.4g} {r.vs_cpu:>6.3g}x "
                     f"{r.vs_scipy:>7.3g}x  {r.check}")
    lines.append("")
    lines.append("vs cpu / vs scipy: speed-up = baseline median time / this median time "
                 "(> 1 is faster); SciPy = breadth_first_order + level derivation.")
    return "\n".join(lines) + "\n"


def write_chart(path: Path, rows: Sequence[Row], title: str = "") -> None:
    """Grouped bar chart of median times (log scale), one group per layout; atomic PNG."""
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    rows = [r for r in rows if r.engine != SCIPY and r.check != "ERROR"]
    layouts = list(dict.fromkeys((r.layout, r.size) for r in rows))
    engines = list(dict.fromkeys(r.engine for r in rows))
    width = 0.8 / max(1, len(engines))
    palette = matplotlib.colormaps["tab20"]      # a distinct colour for up to 20 engines
    fig = Figure(figsize=(max(6.0, 1.3 * len(layouts) + 2.5), 4.8), dpi=110)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    for j, eng in enumerate(engines):
        xs, ts, wrong = [], [], []
        for i, lay in enumerate(layouts):
            r = next((r for r in rows if (r.layout, r.size) == lay and r.engine == eng),
                     None)
            if r is not None:
                xs.append(i + (j - (len(engines) - 1) / 2) * width)
                ts.append(r.median_s * 1e3)
                wrong.append(r.check == "WRONG")
        bars = ax.bar(xs, ts, width, label=eng, color=palette(j % palette.N))
        for b, bad in zip(bars, wrong):
            if bad:
                b.set_hatch("xx")
                b.set_edgecolor("red")
                ax.annotate("WRONG", (b.get_x() + b.get_width() / 2, b.get_height()),
                            ha="center", va="bottom", fontsize=7, color="red", rotation=90)
    ax.set_xticks(range(len(layouts)), [f"{lay}\n{size}" for lay, size in layouts])
    ax.set_yscale("log")
    ax.set_ylabel("median time of a full wavefront (ms, log)")
    ax.set_title(title or "mazeroute bench", fontsize=9)
    ax.grid(axis="y", which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png")


def _secs(t: float) -> str:
    return f"{t * 1e3:.0f} ms" if t < 1 else f"{t:.1f} s"


def format_negotiate(rows: Sequence[NegotiateRow], bigs: Sequence[BigRow] = ()) -> str:
    """The negotiate suite's rows as a text table, then the GPU's big layout."""
    header = ("case", "backend", "nets", "sequential", "negotiate", "worse", "puzzles",
              "wirelength", "time", "slowest", "its", "legal")
    body = [(r.case, r.backend, str(r.nets), str(r.sequential), str(r.negotiate),
             str(r.worse), r.puzzles, f"{r.wirelength:.4f}", _secs(r.seconds),
             _secs(r.slowest), str(r.iterations), r.legal) for r in rows]
    text = "\n".join(text_columns(header, body)) + "\n"
    text += ("worse: layouts or puzzles where negotiation routed fewer nets than sequential "
             "routing; wirelength: negotiate / sequential over the nets both routed.\n")
    if bigs:
        header = ("case", "nets", "routed", "time", "CuPy pool peak", "legal")
        body = [(b.case, str(b.nets), str(b.routed), _secs(b.seconds),
                 f"{b.pool_peak_bytes / 2**20:.0f} MiB", b.legal) for b in bigs]
        text += "\n" + "\n".join(text_columns(header, body)) + "\n"
    return text


def _fmt_ms(t: float) -> str:
    return "n/a" if t != t else f"{t * 1e3:.4g}"


def _fmt_s(t: float) -> str:
    return "n/a" if t != t else f"{t:.3g}"


def _fmt_x(t: float) -> str:
    return "n/a" if t != t else f"{t:.2f}"


def format_classes(rows: Sequence[ClassRow]) -> str:
    """The classes table as text."""
    header = ("class", "size", "free cells", "reached", "levels", "corridor", "wall", "euler",
              "loops/cell", "cpu ms", "gpu ms", "gpu+read ms", "auto ms", "decide ms",
              "auto picks", "best", "auto/best", "cpu 1st ms", "gpu 1st ms", "auto 1st ms",
              "1st best", "1st auto/best", "check")
    body = [(r.layout, r.size, str(r.cells), str(r.reached), str(r.levels), f"{r.corridor:.3f}",
             f"{r.wall:.3f}", f"{r.euler:.5f}", f"{r.loops:.5f}", _fmt_ms(r.cpu_s),
             _fmt_ms(r.gpu_s), _fmt_ms(r.gpu_read_s), _fmt_ms(r.auto_s),
             _fmt_ms(r.decide_s), r.auto_pick, r.best, _fmt_x(r.auto_vs_best),
             _fmt_ms(r.cpu_first_s), _fmt_ms(r.gpu_first_s), _fmt_ms(r.auto_first_s),
             r.first_best or "-", _fmt_x(r.first_auto_vs_best),
             r.check + (f" ({r.note})" if r.note else "")) for r in rows]
    return "\n".join(text_columns(header, body)) + "\n"


def format_routing(rows: Sequence[RoutingRow]) -> str:
    """The routing table as text."""
    header = ("case", "size", "nets", "pins", "seeds", "cpu s", "gpu s", "auto s",
              "auto's engine", "gpu speed-up", "best", "auto/best", "routed", "check")
    body = [(r.case, r.size, str(r.nets), str(r.pins), r.seeds, _fmt_s(r.cpu_s),
             _fmt_s(r.gpu_s), _fmt_s(r.auto_s), r.auto_engine or "-",
             "n/a" if r.speedup != r.speedup else f"{r.speedup:.3g}x",
             r.best, _fmt_x(r.auto_vs_best), str(r.routed),
             r.check + (f" ({r.note})" if r.note else "")) for r in rows]
    return "\n".join(text_columns(header, body)) + "\n"


CLASSES_LEGEND = (
    "Whole wavefront from the first cell of the largest free region, medians. cpu, gpu: "
    "one Problem.wavefront() on a built, warmed-up problem (levels left where the engine "
    "keeps them); gpu+read: the same and levels() read back to the host; auto: "
    "make_plan(graph, 'auto') (the plan measures the mask afresh each run) + the picked "
    "engine's wavefront; decide: that decision alone. best: the faster of cpu and gpu; "
    "auto/best = auto / best. 1st columns: a first wavefront on the layout, what a user "
    "of one wavefront waits for: make_problem (auto: its plan first) + one wavefront, "
    "levels left in place, the engines taking turns run by run; 1st best and 1st "
    "auto/best compare those. A GPU engine's time, auto's with a GPU pick, ends with a "
    "device synchronisation. check: CPU and GPU levels equal.")
ROUTING_LEGEND = (
    "Sequential routing, Router(layout, backend).run() (router built, every net routed, "
    "the device synchronised when a GPU engine routed), each seed's time the median of "
    "its runs, medians over the seeds; under auto the router's plan decides "
    "(mazeroute.plan.decide.routing_prefers_cpu). gpu speed-up = cpu / gpu. check: every "
    "net's wire equal on every backend.")


def format_classes_report(rows: Sequence[ClassRow], routing: Sequence[RoutingRow]) -> str:
    """Both tables of the classes suite with their legends."""
    text = ""
    if rows:
        text += "## whole wavefront by layout class\n" + format_classes(rows)
        text += CLASSES_LEGEND + "\n"
    if routing:
        text += "\n## sequential routing\n" + format_routing(routing) + ROUTING_LEGEND + "\n"
    return text
