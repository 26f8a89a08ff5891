"""The report's and routes file's columns mean the same in both routing modes: bends
counted from a wire's cells alike (trees included), levels only where a BFS ran; and a
negotiation shown live is not printed twice."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from mazeroute.readers import parse_layout
from mazeroute.report import format_negotiation, format_report
from mazeroute.router import route
from mazeroute.router.result import wire_bends
from tests.corpus import corridor_layout

ROOT = Path(__file__).resolve().parent.parent
TWO_PIN = parse_layout({"width": 7, "height": 5, "blockages": [[3, 0, 3, 2]], "nets": [
    {"name": "a", "pins": [[0, 0], [6, 0]]}, {"name": "b", "pins": [[0, 4], [6, 3]]}]},
    "two.yaml")


def _multipin():
    path = ROOT / "layouts" / "multipin.yaml"
    return parse_layout(yaml.safe_load(path.read_text()), str(path))


@pytest.mark.parametrize("make", [_multipin, lambda: TWO_PIN])
def test_bends_are_counted_from_the_cells_alike_in_both_modes(make):
    lay = make()
    seq = route(lay, backend="cpu", mode="sequential")
    neg = route(lay, backend="cpu", mode="negotiate")
    for res in (seq, neg):
        doc = res.to_json()
        for net, entry, layout_net in zip(res.nets, doc["nets"], lay.nets):
            assert net.routed
            assert net.bends == entry["bends"] == wire_bends(net.cell_array(),
                                                             layout_net.pins), net.name
    # where both modes drew the same wire, they report the same bends
    same = [k for k, (a, b) in enumerate(zip(seq.nets, neg.nets)) if a.cells == b.cells]
    assert same and all(seq.nets[k].bends == neg.nets[k].bends for k in same)
    trees = [n for n, ln in zip(neg.nets, lay.nets) if len(ln.pins) > 2]
    assert all(n.bends > 0 for n in trees)          # every tree of these layouts turns


def test_levels_are_a_column_of_sequential_mode_only():
    """A BFS's wavefront levels have no meaning for negotiation's weighted searches."""
    lay = _multipin()
    seq = format_report(route(lay, backend="cpu", mode="sequential")).splitlines()
    neg = format_report(route(lay, backend="cpu", mode="negotiate")).splitlines()
    assert seq[2].split() == ["net", "routed", "length", "bends", "levels", "time"]
    assert neg[2].split() == ["net", "routed", "length", "bends", "time"]
    clk = [line.split() for line in neg if line.startswith("clk ")][0]
    assert clk[:3] == ["clk", "yes", "49"] and len(clk) == 6       # time is "x ms"


def test_a_negotiation_shown_live_has_its_totals_in_the_report_not_its_tables():
    res = route(corridor_layout(), backend="cpu", mode="negotiate")
    full, live = format_negotiation(res), format_negotiation(res, live=True)
    assert "iteration  overused cells" in full and "after the loop" in full
    assert "iteration  overused cells" not in live and "legalise" not in live
    head, totals = live.splitlines()[:2]
    assert head == full.splitlines()[0]
    assert totals.startswith("iterations ") and ", after the loop " in totals
    assert format_report(res, live=True).endswith(live)
    assert format_report(res).endswith(full)            # report.txt keeps the tables


def test_an_unrouted_tree_has_no_bends_in_either_mode(tmp_path):
    """A tree whose first branch is found and whose last pin is walled off: its routes
    entry says 0 bends in both modes (it has no wire), not the found branch's turns."""
    import json

    from mazeroute.cli import main

    lay = tmp_path / "t.yaml"
    # pin (9, 9) is walled in by blockages; (0, 0) -> (5, 4) needs a bend
    lay.write_text("width: 10\nheight: 10\nblockages: [[8, 8, 9, 8], [8, 9, 8, 9]]\n"
                   "nets: [{name: t, pins: [[0, 0], [5, 4], [9, 9]]}]\n")
    seen = {}
    for mode in ("sequential", "negotiate"):
        out = tmp_path / mode
        assert main(["route", str(lay), "-o", str(out), "--mode", mode, "--backend", "cpu",
                     "--no-png", "-q"]) == 0
        net = json.loads((out / "routes.json").read_text())["nets"][0]
        assert net["routed"] is False and net["cells"] == []
        seen[mode] = net["bends"]
    assert seen == {"sequential": 0, "negotiate": 0}
