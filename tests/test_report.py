"""The routing report and the batch summary rows."""

from __future__ import annotations

from mazeroute.layout import parse_layout
from mazeroute.report import SUMMARY_FIELDS, format_report, summary_row
from mazeroute.router import route

LAY = parse_layout({"width": 5, "height": 5, "nets": [
    {"name": "h", "pins": [[0, 2], [4, 2]]}, {"name": "v", "pins": [[2, 0], [2, 4]]}]}, "x.yaml")


def test_report_rows_and_totals():
    res = route(LAY, backend="cpu")
    text = format_report(res)
    lines = text.splitlines()
    assert lines[0] == "layout x: 5 x 5 cells, 2 nets"
    assert lines[1].startswith("engine cpu/grid, order file")
    assert lines[3].split()[:4] == ["h", "yes", "4", "0"]
    assert lines[4].split()[:4] == ["v", "NO", "-", "-"]
    assert "routed 1/2 nets (1 unrouted), total wirelength 4" in text


def test_cut_report_keeps_unrouted_nets_visible():
    res = route(LAY, backend="cpu")
    text = format_report(res, max_rows=1)
    assert "\nv " in text and "\nh " not in text and "1 more nets" in text


def test_summary_rows_have_every_field():
    res = route(LAY, backend="cpu")
    ok = summary_row("x.yaml", res)
    bad = summary_row("y.yaml", error="y.yaml: width: missing")
    assert set(ok) == set(bad) == set(SUMMARY_FIELDS)
    assert (ok["status"], ok["routed"], ok["wirelength"]) == ("ok", 1, 4)
    assert (bad["status"], bad["error"]) == ("invalid", "y.yaml: width: missing")
