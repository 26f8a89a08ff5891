"""The regression lock script (benchmarks/regression_lock.py) on a few tiny layouts:
the same tree records the same file, a changed route is found net by net, and records
made another way are refused."""

from __future__ import annotations

import importlib.util
import io
import json
import sys
from pathlib import Path

import pytest

from mazeroute.layout import Layout, Net

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "regression_lock.py"


@pytest.fixture(scope="module")
def lock():
    spec = importlib.util.spec_from_file_location("regression_lock", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("regression_lock", module)
    spec.loader.exec_module(module)
    return module


def _tiny(lock, wall: bool):
    """Three tiny cases: two layouts (the first with a wall in net ``a``'s straight way
    when ``wall``) and one that the reader refuses."""
    def cases(work: Path) -> list:
        rects = [(3, 0, 3, 3)] if wall else []
        first = Layout("tiny-a", 8, 6, rects, [Net("a", [(0, 1), (7, 1)]),
                                               Net("b", [(0, 5), (7, 5)])])
        second = Layout("tiny-b", 6, 6, [(2, 2, 3, 3)], [Net("t", [(0, 0), (5, 5), (0, 5)])])
        (work / "bad.yaml").write_text("width: 3\nheight: x\nnets: []\n")
        return [lock.Case("tiny/a", "gen:tiny", lock.write_layout(work, "a.yaml", first)),
                lock.Case("tiny/b", "gen:tiny", lock.write_layout(work, "b.yaml", second)),
                lock.Case("tiny/bad", "tiny", "bad.yaml")]
    return cases


def _compare(lock, old: Path, new: Path) -> tuple[int, str]:
    out = io.StringIO()
    rc = lock.compare(old, new, stream=out)
    return rc, out.getvalue()


def test_record_then_compare_same_tree_passes(lock, tmp_path):
    one, two = tmp_path / "one.json", tmp_path / "two.json"
    rec = lock.record(one, "cpu", lock.MODES, cases=_tiny(lock, False))
    lock.record(two, "cpu", lock.MODES, cases=_tiny(lock, False))
    rc, text = _compare(lock, one, two)
    assert rc == 0, text
    assert text.startswith("0 difference(s) over 3 cases x 2 modes")
    a = rec["cases"]["tiny/a"]
    assert a["runs"]["sequential"]["exit"] == 0
    assert a["runs"]["sequential"]["nets"][0][0] == "a"
    assert a["runs"]["sequential"]["nets"][0][5] == "ok"
    assert isinstance(a["decisions"]["prefers_cpu"], bool)
    bad = rec["cases"]["tiny/bad"]
    assert bad["runs"]["negotiate"]["exit"] == 2
    assert "bad.yaml" in bad["runs"]["negotiate"]["error"]
    assert "error" in bad["decisions"]
    # the batch over the two generated layouts, both summary kinds, both modes
    summary = rec["batch"]["negotiate"]["csv"]["summary_text"]
    assert "a.yaml,tiny-a" in summary and "cpu/weighted" in summary


def test_changed_route_is_found_net_by_net(lock, tmp_path):
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    lock.record(old, "cpu", ["sequential"], cases=_tiny(lock, False))
    lock.record(new, "cpu", ["sequential"], cases=_tiny(lock, True))
    rc, text = _compare(lock, old, new)
    assert rc == 1
    lines = [line for line in text.splitlines() if line.startswith("tiny/a [sequential, cpu]")]
    assert any(": routes: first differing net: old ['a'," in line for line in lines), text
    assert "tiny/a: input: the case's input file differs" in text
    assert not any(line.startswith("tiny/b") for line in text.splitlines()), text
    assert "summary.csv" in text            # the batch routed the changed layout too


def test_compare_refuses_another_mode_set_or_backend(lock, tmp_path):
    one, two = tmp_path / "one.json", tmp_path / "two.json"
    lock.record(one, "cpu", ["sequential"], cases=_tiny(lock, False))
    doc = json.loads(one.read_text())
    doc["modes"] = ["sequential", "negotiate"]
    two.write_text(json.dumps(doc))
    rc, text = _compare(lock, one, two)
    assert rc == 2 and "modes" in text
    doc["modes"], doc["used"] = ["sequential"], "gpu"
    two.write_text(json.dumps(doc))
    rc, text = _compare(lock, one, two)
    assert rc == 2 and "used" in text


def test_normalising_touches_only_times(lock):
    report = ("a   yes  8  3  9  12.34 ms\nrouted 1/1 nets, total wirelength 8, wall time "
              "1.234 s\n1          1   2   2   0.5    3.00 ms\n")
    assert lock.normalise_report(report) == (
        "a   yes  8  3  9  <t>\nrouted 1/1 nets, total wirelength 8, wall time <t>\n"
        "1          1   2   2   0.5    <t>\n")
    csv_text = "file,routed,seconds,engine\nx.yaml,3,0.012345,cpu/grid\n"
    assert lock.normalise_summary(csv_text, "csv") == (
        "file,routed,seconds,engine\nx.yaml,3,,cpu/grid\n")
    assert lock.normalise_summary('{"routed": 3, "seconds": 0.25}', "json") == \
        '{"routed": 3, "seconds": null}'
