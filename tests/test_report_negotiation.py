"""report.format_negotiation: the per-iteration table and the reasons (kept apart from
test_report.py, which another change edits)."""

from __future__ import annotations

from mazeroute.report import format_negotiation
from mazeroute.router import route
from tests.corpus import corridor_layout, unroutable_layout


def test_converged_negotiation_is_one_line_per_iteration():
    res = route(corridor_layout(), backend="cpu", mode="negotiate")
    text = format_negotiation(res).splitlines()
    n = len(res.iterations)
    assert text[0] == f"negotiation: converged after {n} iterations"
    assert text[1].split()[:2] == ["iteration", "overused"]
    assert [line.split()[0] for line in text[2:2 + n]] == [str(i) for i in range(1, n + 1)]
    assert text[1 + n].split()[1] == "0"              # no cell shared at the end
    # then the phases after the loop, each with the nets routed at its end
    assert text[2 + n].split()[:3] == ["after", "the", "loop"]
    assert [line.split()[:2] for line in text[3 + n:]] == [
        [ph.phase, str(ph.routed)] for ph in res.phases]
    assert [ph.phase for ph in res.phases] == ["legalise", "repair", "tidy"]
    assert "unrouted" not in "\n".join(text)


def test_reasons_are_listed_and_cut_to_max_rows():
    res = route(unroutable_layout(), backend="cpu", mode="negotiate", max_iterations=3)
    text = format_negotiation(res)
    assert "stopped after 3 iterations with 1 cell shared by 2 nets" in text
    assert "unrouted nets: 3" in text
    assert "  boxed: enclosed by the pins of nets n1, n2, n3, n4" in text
    assert "  y: still in conflict with nets x after 3 iterations" in text
    short = format_negotiation(res, max_rows=1)
    assert "  boxed: " in short and "  y: " not in short and "... 2 more" in short


def test_sequential_results_have_no_negotiation_part():
    assert format_negotiation(route(corridor_layout(), backend="cpu", mode="sequential")) == ""
