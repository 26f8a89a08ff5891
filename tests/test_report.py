"""The routing report and the batch summary rows."""

from __future__ import annotations

from mazeroute.layout import Layout, Net
from mazeroute.readers import parse_layout
from mazeroute.report import SUMMARY_FIELDS, format_report, safe_text, summary_row
from mazeroute.router import route

LAY = parse_layout({"width": 5, "height": 5, "nets": [
    {"name": "h", "pins": [[0, 2], [4, 2]]}, {"name": "v", "pins": [[2, 0], [2, 4]]}]}, "x.yaml")


def test_report_rows_and_totals():
    res = route(LAY, backend="cpu", mode="sequential")
    text = format_report(res)
    lines = text.splitlines()
    assert lines[0] == "layout x: 5 x 5 cells, 2 nets"
    assert lines[1].startswith("engine cpu/grid, mode sequential, order file")
    assert lines[3].split()[:4] == ["h", "yes", "4", "0"]
    assert lines[4].split()[:4] == ["v", "NO", "-", "-"]
    assert "routed 1/2 nets (1 unrouted), total wirelength 4" in text


def test_cut_report_keeps_unrouted_nets_visible():
    res = route(LAY, backend="cpu", mode="sequential")
    text = format_report(res, max_rows=1)
    assert "\nv " in text and "\nh " not in text and "1 more nets" in text


def test_summary_rows_have_every_field():
    res = route(LAY, backend="cpu", mode="sequential")
    ok = summary_row("x.yaml", res)
    bad = summary_row("y.yaml", error="y.yaml: width: missing")
    assert set(ok) == set(bad) == set(SUMMARY_FIELDS)
    assert (ok["status"], ok["routed"], ok["wirelength"]) == ("ok", 1, 4)
    assert (bad["status"], bad["error"]) == ("invalid", "y.yaml: width: missing")


# -- names are data; what is printed is made safe ----------------------------------------
HOSTILE = ["nul\x00", "rlo\u202eevil", "esc\x1b[2J", "new\nline", "tab\t", "bell\a",
           "zw\u200bsp", "x" * 10000]


def test_safe_text_escapes_and_cuts():
    for name in HOSTILE:
        shown = safe_text(name, 40)
        assert shown.isprintable() and len(shown) <= 40
    assert safe_text("rlo\u202eevil") == "rlo\\u202eevil"
    assert safe_text("nul\x00") == "nul\\x00" and safe_text("plain name") == "plain name"
    assert safe_text("é ü 中文") == "é ü 中文"              # printable text stays as it is
    assert safe_text("abcdefghij", 7) == "abcd..." and safe_text("abcdefghij", 7,
                                                                  middle=True) == "ab...ij"


def test_report_of_hostile_names_is_printable_and_narrow():
    lay = Layout("lay\x00\u202e" + "L" * 5000, 10, 10,
                 nets=[Net(n, [(i, 0), (i, 9)]) for i, n in enumerate(HOSTILE)])
    text = format_report(route(lay, backend="cpu", mode="sequential"))
    lines = text.splitlines()
    assert all(line.isprintable() and len(line) <= 120 for line in lines), text
    assert lines[0].startswith("layout lay\\x00\\u202eLLL") and "...: 10 x 10 cells" in lines[0]
    rows = lines[3:3 + len(HOSTILE)]
    assert [r.split()[0] for r in rows[:3]] == ["nul\\x00", "rlo\\u202eevil", "esc\\x1b[2J"]
    assert rows[-1].startswith("x" * 37 + "...  yes")


def test_summary_row_texts_are_bounded():
    lay = Layout("n\n" + "y" * 5000, 4, 4, nets=[Net("a", [(0, 0), (3, 3)])])
    ok = summary_row("dir\n/" + "f" * 5000 + ".yaml", route(lay, backend="cpu"), folder="y")
    bad = summary_row("f.yaml", error="f.yaml: nets: " + "v" * 100000)
    for row in (ok, bad):
        assert all(str(v).isprintable() and len(str(v)) <= 300 for v in row.values()), row
    assert ok["file"].endswith("fff.yaml") and ok["file"].startswith("dir\\n/")
    assert ok["layout"].startswith("n\\nyyy") and ok["folder"] == "y"
    assert bad["error"].startswith("f.yaml: nets: vvv")
