r"""The human-readable routing report: one row per net, then the totals.

Examples
--------
>>> from mazeroute.readers import parse_layout
>>> from mazeroute.router import route
>>> lay = parse_layout({"width": 5, "height": 3, "blockages": [[2, 0, 2, 1]],
...                     "nets": [{"name": "a", "pins": [[0, 0], [4, 0]]}]}, "demo.yaml")
>>> text = format_report(route(lay, backend="cpu", mode="sequential"))
>>> print(text.splitlines()[3])                          # doctest: +NORMALIZE_WHITESPACE
a   yes   8   3   9   ...
>>> "routed 1/1 nets" in text
True

Names are data from a file: before they reach a terminal, ``report.txt`` or the batch
summary, :func:`safe_text` escapes control and format characters and cuts long ones.

>>> safe_text("ok\u202eevil\x00"), safe_text("n" * 50, 12)
('ok\\u202eevil\\x00', 'nnnnnnnnn...')
>>> safe_text("a/b/c/d/e/f.yaml", 11, middle=True)
'a/b/...yaml'
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from .router import RouteResult

#: Columns of the per-layout summary that ``mazeroute batch`` writes (``folder``: the
#: layout's output folder inside the batch's, made from its name; ``worker``: the Dask
#: worker that routed it, empty in a serial batch; ``device``: the GPU it ran on, as that
#: process reports it, empty on the CPU).
SUMMARY_FIELDS = ("file", "layout", "folder", "status", "width", "height", "nets", "routed",
                  "wirelength", "seconds", "engine", "error", "worker", "device")
#: The summary's columns that hold numbers. CSV has no types, so a missing one is an
#: empty cell there; the JSON summary writes them as numbers and a missing one as null.
SUMMARY_NUMBERS = frozenset({"width", "height", "nets", "routed", "wirelength", "vias",
                             "seconds"})
#: Widest net name in a report row, and widest layout name in a report or summary.
NET_NAME_WIDTH = 40
LAYOUT_NAME_WIDTH = 80
#: Widest file path or error message in a summary row.
SUMMARY_TEXT_WIDTH = 300


def safe_text(text: object, limit: int | None = None, *, middle: bool = False) -> str:
    """``text`` safe to print: control and format characters escaped, at most ``limit``.

    Characters that are not printable (NUL, newline, escape, U+202E right-to-left
    override, ...) are written as Python escapes (``\\x00``, ``\\u202e``). A longer
    text is cut to ``limit`` characters ending in ``...``, or with ``middle=True``
    keeping its start and end (for paths and messages, whose ends matter).
    """
    s = str(text)
    if not s.isprintable():
        s = "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii")
                    for c in s)
    if limit is None or len(s) <= limit:
        return s
    if limit <= 3:
        return "..."[:limit]
    if not middle:
        return s[:limit - 3] + "..."
    tail = (limit - 3) // 2
    return s[:limit - 3 - tail] + "..." + s[len(s) - tail:]


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.2f} ms" if seconds < 1 else f"{seconds:.3f} s"


def format_report(result: RouteResult, max_rows: int | None = None, *,
                  live: bool = False) -> str:
    """The report as text: header, a table of nets, totals.

    ``max_rows`` limits the per-net rows shown (unrouted nets are always listed first
    when rows are cut, since those are what a user needs to see). ``live``: the
    negotiation's iterations and phases were already shown as they ran, so only their
    totals are (:func:`format_negotiation`).

    Columns mean the same in every mode: ``length`` is the wire's cells less one,
    ``bends`` the cells where it turns, counted from its cells alone (a tree's branch
    by branch, :func:`~mazeroute.router.result.wire_bends`). ``levels``, the BFS
    wavefront levels sequential mode's searches expanded, has no meaning for
    negotiation's cost-weighted searches and is left out there.
    """
    lay = result.layout
    stack = getattr(lay, "stack", None)
    layers = "" if stack is None else f", {len(stack.layers)} layers"
    lines = [f"layout {safe_text(lay.name, LAYOUT_NAME_WIDTH)}: {lay.width} x {lay.height} "
             f"cells{layers}, {len(lay.nets)} nets",
             f"engine {result.engine}, mode {result.mode}"
             + (f", order {result.order}" if result.mode == "sequential" else "")]
    levels = result.mode != "negotiate"
    vias = stack is not None            # a layout of one layer has no vias to count
    header = ("net", "routed", "length", *(("vias",) if vias else ()), "bends",
              *(("levels",) if levels else ()), "time")
    rows = [(safe_text(n.name, NET_NAME_WIDTH), "yes" if n.routed else "NO",
             str(n.length) if n.routed else "-",
             *((str(net_vias(n)) if n.routed else "-",) if vias else ()),
             str(n.bends) if n.routed else "-",
             *((str(n.levels),) if levels else ()), _ms(n.seconds))
            for n in result.nets]
    hidden = 0
    if max_rows is not None and len(rows) > max_rows:
        rows.sort(key=lambda r: r[1] != "NO")     # stable: unrouted first, file order kept
        hidden = len(rows) - max_rows
        rows = rows[:max_rows]
    lines += format_table(header, rows)
    if hidden:
        lines.append(f"... {hidden} more nets (all of them are in routes.json)")
    unrouted = len(result.nets) - result.routed
    lines.append(f"routed {result.routed}/{len(result.nets)} nets"
                 + (f" ({unrouted} unrouted)" if unrouted else "")
                 + f", total wirelength {result.wirelength}"
                 + (f", {total_vias(result)} vias" if vias else "")
                 + f", wall time {_ms(result.seconds)}")
    if result.notice:
        lines.append(f"note: {result.notice}")
    return "\n".join(lines) + "\n" + format_negotiation(result, max_rows, live=live)


def net_vias(net) -> int:
    """The vias of a net's route (0 for a route of one layer)."""
    return int(getattr(net, "vias", 0) or 0)


def total_vias(result: RouteResult) -> int:
    """The vias of every routed net of ``result``."""
    return sum(net_vias(n) for n in result.nets if n.routed)


def format_table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> list[str]:
    """Header and rows as lines of left-aligned columns."""
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(header)]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in [header, *rows]]


def summary_row(file: str, result: RouteResult | None = None, error: str = "",
                status: str | None = None, folder: str = "") -> dict:
    """One row of the batch summary; ``result`` None means the layout failed.

    ``status`` defaults to ``ok`` with a result and ``invalid`` without; every text is
    made safe (:func:`safe_text`), so a row is one line of bounded width.
    """
    file = safe_text(file, SUMMARY_TEXT_WIDTH, middle=True)
    error = safe_text(error, SUMMARY_TEXT_WIDTH, middle=True)
    if result is None:
        return {k: "" for k in SUMMARY_FIELDS} | {
            "file": file, "folder": folder, "status": status or "invalid", "error": error}
    lay = result.layout
    return {"file": file, "layout": safe_text(lay.name, LAYOUT_NAME_WIDTH), "folder": folder,
            "status": status or "ok", "width": lay.width, "height": lay.height,
            "nets": len(lay.nets), "routed": result.routed, "wirelength": result.wirelength,
            "seconds": round(result.seconds, 6), "engine": result.engine, "error": error,
            "worker": "", "device": ""} | (
        {} if getattr(lay, "stack", None) is None else {"vias": total_vias(result)})


def summary_fields(rows: list[dict]) -> tuple[str, ...]:
    """The summary's columns for ``rows``: :data:`SUMMARY_FIELDS`, with ``vias`` after
    ``wirelength`` when some row routed a multi-layer layout (a batch of one-layer
    layouts keeps its columns)."""
    if not any("vias" in r for r in rows):
        return SUMMARY_FIELDS
    k = SUMMARY_FIELDS.index("wirelength") + 1
    return SUMMARY_FIELDS[:k] + ("vias",) + SUMMARY_FIELDS[k:]


def summary_number(value: object) -> int | float | None:
    """A number column's value as a JSON number, or None when it has none.

    Rows hold ``""`` for a missing number (a failed layout's ``routed``), and a row kept
    by ``--resume`` takes ``seconds`` from the last summary as that file held it: text
    from a CSV summary or an old JSON one, a number or null from a new JSON one.

    >>> [summary_number(v) for v in (3, 0.25, "", None, "7", "0.5", "1e-05", "x", "nan", True)]
    [3, 0.25, None, None, 7, 0.5, 1e-05, None, None, None]
    """
    if isinstance(value, bool):                  # JSON's true is no count
        return None
    if isinstance(value, str):
        text = value.strip()
        try:
            value = int(text)
        except ValueError:
            try:
                value = float(text)
            except ValueError:
                return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value):   # JSON has no NaN or Infinity
        return value
    return None


def summary_json_row(row: Mapping[str, object]) -> dict:
    """``row`` as the JSON summary writes it: number columns as numbers or null
    (:func:`summary_number`), every other column as text.

    >>> summary_json_row({"file": "f.yaml", "status": "invalid", "routed": "", "seconds": "0.5",
    ...                   "worker": None})
    {'file': 'f.yaml', 'status': 'invalid', 'routed': None, 'seconds': 0.5, 'worker': ''}
    """
    return {key: summary_number(value) if key in SUMMARY_NUMBERS
            else "" if value is None else str(value) for key, value in row.items()}


#: Most characters of a reason shown in the report (routes.json has it whole).
REASON_WIDTH = 400


def format_negotiation(result: RouteResult, max_rows: int | None = None, *,
                       live: bool = False) -> str:
    """Negotiation's part of the report: one row per iteration, the phases after the
    loop (each the time limit cut short or skipped says so), then why each unrouted net
    is unrouted (``max_rows`` of them at most). Empty for a sequential result.
    ``live``: the iterations and phases were printed as they ran; their tables give way
    to one line of totals.

    >>> from mazeroute.readers import parse_layout
    >>> from mazeroute.router import route
    >>> lay = parse_layout({"width": 3, "height": 3, "nets": [
    ...     {"name": "x", "pins": [[0, 1], [2, 1]]}, {"name": "y", "pins": [[1, 0], [1, 2]]}]})
    >>> print(format_negotiation(route(lay, backend="cpu", mode="negotiate",
    ...                                max_iterations=2)))   # doctest: +ELLIPSIS
    negotiation: stopped after 2 iterations with 1 cell shared by 2 nets: iteration cap (2) reached
    iteration  overused cells  nets in conflict  nets rerouted  pres_fac  time
    1          1               2                 2              0         ...
    2          1               2                 2              0.5       ...
    after the loop        nets routed  time
    legalise              1            ...
    repair                1            ...
    tidy                  1            ...
    space-filling search  1            ...
    reasons               1            ...
    sequential floor      1            ...
    unrouted nets: 1
      y: still in conflict with nets x after 2 iterations
    <BLANKLINE>
    """
    if result.mode != "negotiate" or not result.iterations:
        return ""
    its = result.iterations
    last = its[-1]
    if last.overused == 0:
        head = f"negotiation: converged after {len(its)} iteration{'s' * (len(its) != 1)}"
    else:
        head = (f"negotiation: stopped after {len(its)} iterations with {last.overused} "
                f"cell{'s' * (last.overused != 1)} shared by {last.conflicts} nets"
                + (f": {result.stop}" if result.stop else ""))
    lines = [head]
    if live:
        lines.append(f"iterations {_ms(sum(s.seconds for s in its))}"
                     + (f", after the loop {_ms(sum(ph.seconds for ph in result.phases))}"
                        if result.phases else ""))
    else:
        header = ("iteration", "overused cells", "nets in conflict", "nets rerouted",
                  "pres_fac", "time")
        rows = [(str(s.iteration), str(s.overused), str(s.conflicts), str(s.rerouted),
                 f"{s.pres_fac:.3g}", _ms(s.seconds)) for s in its]
        lines += format_table(header, rows)
    if result.phases and not live:
        lines += format_table(("after the loop", "nets routed", "time"),
                              [(ph.phase + (f" ({ph.cut} by the time limit)" if ph.cut
                                            else ""), str(ph.routed), _ms(ph.seconds))
                               for ph in result.phases])
    unrouted = [n for n in result.nets if not n.routed]
    if unrouted:
        lines.append(f"unrouted nets: {len(unrouted)}")
        shown = unrouted if max_rows is None else unrouted[:max_rows]
        lines += [f"  {safe_text(n.name, NET_NAME_WIDTH)}: "
                  + safe_text(n.reason or "no reason recorded", REASON_WIDTH) for n in shown]
        if len(shown) < len(unrouted):
            lines.append(f"  ... {len(unrouted) - len(shown)} more (reasons in routes.json)")
    return "\n".join(lines) + "\n"
