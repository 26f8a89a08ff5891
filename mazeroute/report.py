"""The human-readable routing report: one row per net, then the totals.

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
"""

from __future__ import annotations

from .router import RouteResult

#: Columns of the per-layout summary that ``mazeroute batch`` writes.
SUMMARY_FIELDS = ("file", "layout", "status", "width", "height", "nets", "routed",
                  "wirelength", "seconds", "engine", "error")


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.2f} ms" if seconds < 1 else f"{seconds:.3f} s"


def format_report(result: RouteResult, max_rows: int | None = None) -> str:
    """The report as text: header, a table of nets, totals.

    ``max_rows`` limits the per-net rows shown (unrouted nets are always listed first
    when rows are cut, since those are what a user needs to see).
    """
    lay = result.layout
    lines = [f"layout {lay.name}: {lay.width} x {lay.height} cells, {len(lay.nets)} nets",
             f"engine {result.engine}, order {result.order}"]
    header = ("net", "routed", "length", "bends", "levels", "time")
    rows = [(n.name, "yes" if n.routed else "NO", str(n.length) if n.routed else "-",
             str(n.bends) if n.routed else "-", str(n.levels), _ms(n.seconds))
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
                status: str | None = None) -> dict:
    """One row of the batch summary; ``result`` None means the layout failed."""
    if result is None:
        return {k: "" for k in SUMMARY_FIELDS} | {
            "file": file, "status": status or "invalid", "error": error}
    lay = result.layout
    return {"file": file, "layout": lay.name, "status": status or "ok", "width": lay.width,
            "height": lay.height, "nets": len(lay.nets), "routed": result.routed,
            "wirelength": result.wirelength, "seconds": round(result.seconds, 6),
            "engine": result.engine, "error": error}


def format_negotiation(result: RouteResult, max_rows: int | None = None) -> str:
    """Negotiation's part of the report: one row per iteration, then why each unrouted
    net is unrouted (``max_rows`` of them at most). Empty for a sequential result.

    >>> from mazeroute.layout import parse_layout
    >>> from mazeroute.router import route
    >>> lay = parse_layout({"width": 3, "height": 3, "nets": [
    ...     {"name": "x", "pins": [[0, 1], [2, 1]]}, {"name": "y", "pins": [[1, 0], [1, 2]]}]})
    >>> print(format_negotiation(route(lay, backend="cpu", mode="negotiate",
    ...                                max_iterations=2)))   # doctest: +ELLIPSIS
    negotiation: stopped after 2 iterations with 1 cell shared by 2 nets
    iteration  overused cells  nets in conflict  nets rerouted  pres_fac  time
    1          1               2                 2              0         ...
    2          1               2                 2              0.5       ...
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
                f"cell{'s' * (last.overused != 1)} shared by {last.conflicts} nets")
    header = ("iteration", "overused cells", "nets in conflict", "nets rerouted", "pres_fac",
              "time")
    rows = [(str(s.iteration), str(s.overused), str(s.conflicts), str(s.rerouted),
             f"{s.pres_fac:.3g}", _ms(s.seconds)) for s in its]
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(header)]
    fmt = lambda r: "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip()  # noqa: E731
    lines = [head, fmt(header), *(fmt(r) for r in rows)]
    unrouted = [n for n in result.nets if not n.routed]
    if unrouted:
        lines.append(f"unrouted nets: {len(unrouted)}")
        shown = unrouted if max_rows is None else unrouted[:max_rows]
        lines += [f"  {n.name}: {n.reason or 'no reason recorded'}" for n in shown]
        if len(shown) < len(unrouted):
            lines.append(f"  ... {len(unrouted) - len(shown)} more (reasons in routes.json)")
    return "\n".join(lines) + "\n"
