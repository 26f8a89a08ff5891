r"""The human-readable routing report: one row per net, then the totals.

Examples
--------
>>> from mazeroute.layout import parse_layout
>>> from mazeroute.router import route
>>> lay = parse_layout({"width": 5, "height": 3, "blockages": [[2, 0, 2, 1]],
...                     "nets": [{"name": "a", "pins": [[0, 0], [4, 0]]}]}, "demo.yaml")
>>> text = format_report(route(lay, backend="cpu"))
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

from .router import RouteResult

#: Columns of the per-layout summary that ``mazeroute batch`` writes (``folder``: the
#: layout's output folder inside the batch's, made from its name; ``worker``: the Dask
#: worker that routed it, empty in a serial batch; ``device``: the GPU it ran on, as that
#: process reports it, empty on the CPU).
SUMMARY_FIELDS = ("file", "layout", "folder", "status", "width", "height", "nets", "routed",
                  "wirelength", "seconds", "engine", "error", "worker", "device")
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


def format_report(result: RouteResult, max_rows: int | None = None) -> str:
    """The report as text: header, a table of nets, totals.

    ``max_rows`` limits the per-net rows shown (unrouted nets are always listed first
    when rows are cut, since those are what a user needs to see).
    """
    lay = result.layout
    lines = [f"layout {safe_text(lay.name, LAYOUT_NAME_WIDTH)}: {lay.width} x {lay.height} "
             f"cells, {len(lay.nets)} nets",
             f"engine {result.engine}, order {result.order}"]
    header = ("net", "routed", "length", "bends", "levels", "time")
    rows = [(safe_text(n.name, NET_NAME_WIDTH), "yes" if n.routed else "NO",
             str(n.length) if n.routed else "-", str(n.bends) if n.routed else "-",
             str(n.levels), _ms(n.seconds))
            for n in result.nets]
    hidden = 0
    if max_rows is not None and len(rows) > max_rows:
        rows.sort(key=lambda r: r[1] != "NO")     # stable: unrouted first, file order kept
        hidden = len(rows) - max_rows
        rows = rows[:max_rows]
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(header)]
    fmt = lambda r: "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip()  # noqa: E731
    lines.append(fmt(header))
    lines += [fmt(r) for r in rows]
    if hidden:
        lines.append(f"... {hidden} more nets (all of them are in routes.json)")
    unrouted = len(result.nets) - result.routed
    lines.append(f"routed {result.routed}/{len(result.nets)} nets"
                 + (f" ({unrouted} unrouted)" if unrouted else "")
                 + f", total wirelength {result.wirelength}, wall time {_ms(result.seconds)}")
    if result.notice:
        lines.append(f"note: {result.notice}")
    return "\n".join(lines) + "\n"


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
            "worker": "", "device": ""}
