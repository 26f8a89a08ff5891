"""The contests' inputs routed: ISPD 2024's .cap + .net and ISPD 2007/2008's .gr, their
route files written, read back and checked, and `mazeroute groute` on both.

Every file is small and written here; the expected figures are worked out in comments.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from mazeroute.cli import main
from mazeroute.errors import InputError
from mazeroute.readers.contest import ContestNets, read_cap, read_gr, read_net
from mazeroute.router.groute import GRouteProblem, edge_overflow, global_route
from mazeroute.router.groute_contest import (
    access_point,
    access_points,
    cap_problem,
    gr_problem,
    read_route_2008,
    read_route_2024,
    route_segments,
    write_route_2008,
    write_route_2024,
)
from tests.test_contest_readers import GR, write

# 4 x 3 GCells, three layers: Metal1 (horizontal, no capacity: pins only), Metal2
# horizontal and Metal3 vertical, 2 tracks on every edge; edges 10 long.
CAP = """\
3 4 3
1 2 1 1 1
10 10 10
10 10
Metal1 0 0
0 0 0 0
0 0 0 0
0 0 0 0
Metal2 0 0
2 2 2 2
2 2 2 2
2 2 2 2
Metal3 1 0
2 2 2 2
2 2 2 2
2 2 2 2
"""
# a: pin 0 on Metal1 at (0, 0); pin 1 offers (0, 3, 2) and (1, 3, 2): the lowest layer's
# first, Metal1 (3, 2), is taken. b: three pins, one on Metal3 at (1, 1).
NET = """\
a
(
[(0, 0, 0)]
[(1, 3, 2), (0, 3, 2)]
)
b
(
[(0, 0, 2)]
[(0, 3, 0)]
[(2, 1, 1)]
)
solo
(
[(0, 2, 2), (0, 2, 2)]
)
"""

# The hand-made .gr of the readers' tests: 3 x 2 GCells of 10 x 20 units from (100, 200),
# layer 1 horizontal (30 units, 15 wires), layer 2 vertical (20 units, 10 wires); one edge
# of each adjusted.


def connected(segments, pins) -> bool:
    """Whether ``segments`` (GCells ``(x1, y1, z1, x2, y2, z2)``) form one piece that
    holds every node of ``pins`` (a pin: a list of acceptable nodes ``(x, y, z)``)."""
    parent: dict = {}

    def root(a):
        parent.setdefault(a, a)
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a
    for x1, y1, z1, x2, y2, z2 in segments:
        assert sum((x1 != x2, y1 != y2, z1 != z2)) == 1, "a segment is straight"
        cells = [(x, y, z) for x in range(x1, x2 + 1) for y in range(y1, y2 + 1)
                 for z in range(z1, z2 + 1)]
        for a, b in zip(cells, cells[1:]):
            parent[root(a)] = root(b)
    if not segments:
        return len({n for p in pins for n in p}) == 1
    roots = {root(c) for c in list(parent)}
    touched = all(any(n in parent for n in p) for p in pins)
    return len(roots) == 1 and touched


def along_their_layers(segments, directions, lowest: int) -> bool:
    """Whether every wire runs along its layer's direction, on a layer >= ``lowest``."""
    for _x1, y1, z1, _x2, y2, z2 in segments:
        if z1 == z2:
            if z1 < lowest or (y1 != y2) != (directions[z1] == "vertical"):
                return False
        elif z2 != z1 + 1:
            return False
    return True


# -- ISPD 2024 -----------------------------------------------------------------------------
def test_access_point_is_the_lowest_layers_first():
    assert access_point(np.array([[1, 5, 5], [0, 3, 2], [0, 1, 1]])) == (3, 2, 0)
    assert access_point(np.array([[2, 7, 1]])) == (7, 1, 2)


def test_access_points_of_all_pins_are_each_pins_own():
    rng = np.random.default_rng(4)
    sizes = rng.integers(1, 5, 300)
    points = rng.integers(0, 4, (int(sizes.sum()), 3)).astype(np.int32)
    pin_start = np.r_[0, np.cumsum(sizes)]
    nets = ContestNets(("a", "b"), points, pin_start, np.array([0, 120, 300]))
    want = [access_point(points[a:b]) for a, b in zip(pin_start[:-1], pin_start[1:])]
    assert [tuple(r) for r in access_points(nets).tolist()] == want


def test_cap_routes_every_net_connected_and_writes_it(tmp_path):
    cap = read_cap(write(tmp_path, "t.cap", CAP))
    nets = read_net(write(tmp_path, "t.net", NET), cap)
    problem = cap_problem(cap, nets)
    assert problem.lowest == 1 and problem.directions == ("horizontal", "horizontal",
                                                           "vertical")
    assert problem.pins["a"] == [(0, 0, 0), (3, 2, 0)]
    assert problem.pins["solo"] == [(2, 2, 0)]          # both access points one node
    # a node's capacity is the least of its edges along its layer: 2 on Metal2 and 3
    assert problem.capacity[1:].min() == problem.capacity[1:].max() == 2
    result = global_route(problem)
    # two nets cannot fill 2 tracks anywhere: no overflow
    assert result.overflow == edge_overflow(result.routes.values(), problem) == 0
    out = tmp_path / "t.route"
    assert write_route_2024(out, result, problem) == 3
    back = read_route_2024(out)
    assert list(back) == ["a", "b", "solo"]
    for n, pins in enumerate(nets.pins(k) for k in range(len(nets))):
        name = nets.names[n]
        segs = back[name]
        assert segs == route_segments(result.routes[name])
        options = [[(x, y, z) for z, x, y in p.tolist()] for p in pins]
        assert connected(segs, options), name
        assert along_their_layers(segs, problem.directions, 1), name
    # solo: its one pin on Metal1 reached by one via up to Metal2, nothing else
    assert back["solo"] == [(2, 2, 0, 2, 2, 1)]


def test_cap_overflows_where_the_cut_cannot_hold_the_nets(tmp_path):
    # 3 x 1 GCells, Metal2 horizontal with 1 track a GCell: the only way from x = 0 to
    # x = 2. Three nets each cross both edges: each edge carries 3 on a capacity of 1,
    # 2 over, so the overflow is 2 edges x 2 = 4.
    cap = write(tmp_path, "cut.cap", "2 3 1\n1 1 1 1\n5 5\n\nMetal1 0 0\n0 0 0\n"
                                     "Metal2 0 0\n1 1 1\n")
    net = write(tmp_path, "cut.net", "".join(f"n{i}\n(\n[(0, 0, 0)]\n[(0, 2, 0)]\n)\n"
                                             for i in range(3)))
    grid = read_cap(cap)
    problem = cap_problem(grid, read_net(net, grid))
    result = global_route(problem)
    assert all(t.routed for t in result.routes.values())
    assert result.overflow == edge_overflow(result.routes.values(), problem) == 4


# -- ISPD 2007/2008 ------------------------------------------------------------------------
def test_gr_routes_every_net_and_writes_it_in_length_units(tmp_path):
    gr = read_gr(write(tmp_path, "t.gr", GR))
    problem = gr_problem(gr)
    assert problem.lowest == 0 and problem.directions == ("horizontal", "vertical")
    # netB's pins (115, 219) and (115, 220) lie in GCells (1, 0) and (1, 1)
    assert problem.pins["netB"] == [(1, 0, 0), (1, 1, 0), (2, 1, 1)]
    # capacities in wires of width + spacing 2: layer 1's 30 -> 15, its adjusted edge
    # 10 -> 5; layer 2's 20 -> 10, its adjusted edge 4 -> 2
    assert problem.edge_cap[0][0].tolist() == [[5, 15], [15, 15]]
    assert problem.edge_cap[1][1].tolist() == [[10, 10, 2]]
    result = global_route(problem)
    assert result.overflow == 0
    out = tmp_path / "t.out"
    assert write_route_2008(out, result, problem, gr) == 2
    back = read_route_2008(out)
    assert [(n, back[n][0]) for n in back] == [("netA", 0), ("netB", 1)]
    for n, name in enumerate(gr.nets.names):
        segs = back[name][1]
        # every point a GCell centre: x = 100 + 10 gx + 5, y = 200 + 20 gy + 10
        assert all((s[0] - 105) % 10 == 0 and (s[1] - 210) % 20 == 0 for s in segs)
        cells = [((s[0] - 105) // 10, (s[1] - 210) // 20, s[2] - 1,
                  (s[3] - 105) // 10, (s[4] - 210) // 20, s[5] - 1) for s in segs]
        pins = [[(x, y, z)] for p in gr.nets.pins(n) for z, x, y in p.tolist()]
        assert connected(cells, pins), name
        assert along_their_layers(cells, problem.directions, 0), name


def test_gr_overflows_where_the_cut_cannot_hold_the_nets(tmp_path):
    # one horizontal layer, 3 x 1 GCells, capacity 2 units = 1 wire of width + spacing
    # 2; two nets from x = 0 to x = 2 put 2 wires on each of the 2 edges: 2 x 1 = 2
    text = ("grid 3 1 1\nvertical capacity 0\nhorizontal capacity 2\nminimum width 1\n"
            "minimum spacing 1\nvia spacing 0\n0 0 10 10\nnum net 2\n"
            "p 0 2 1\n5 5 1\n25 5 1\nq 1 2 1\n5 5 1\n25 5 1\n0\n")
    problem = gr_problem(read_gr(write(tmp_path, "cut.gr", text)))
    result = global_route(problem)
    assert result.overflow == edge_overflow(result.routes.values(), problem) == 2


def test_gr_layer_with_capacity_both_ways_is_refused(tmp_path):
    text = GR.replace("vertical capacity 0 20", "vertical capacity 5 20")
    with pytest.raises(InputError) as info:
        gr_problem(read_gr(write(tmp_path, "both.gr", text)))
    assert "horizontal capacity" in str(info.value) and "layer 1" in str(info.value)


def test_route_files_that_are_cut_short_get_one_line(tmp_path):
    with pytest.raises(InputError) as info:
        read_route_2024(write(tmp_path, "r.route", "a\n(\n0 0 0 0 0 1\n"))
    assert "line 4" in str(info.value) and "\n" not in str(info.value)
    with pytest.raises(InputError) as info:
        read_route_2008(write(tmp_path, "r.out", "a 0 2\n(5,5,1)-(5,5,2)\n!\n"))
    assert "line 3" in str(info.value) and "header counts 2" in str(info.value)


def test_problem_keeps_of_grids_node_capacity_rule(tmp_path):
    # Metal2 horizontal, 3 x 1 GCells with capacities 4 1 9: edges (0-1) 4 and (1-2)
    # 1 (the last GCell's value belongs to no edge); nodes take the least of their
    # edges: 4, min(4, 1) = 1, 1
    cap = read_cap(write(tmp_path, "c.cap", "2 3 1\n1 1 1 1\n5 5\n\nMetal1 0 0\n0 0 0\n"
                                            "Metal2 0 0\n4 1 9\n"))
    net = read_net(write(tmp_path, "c.net", "n\n(\n[(0, 0, 0)]\n)\n"), cap)
    problem = cap_problem(cap, net)
    assert isinstance(problem, GRouteProblem)
    assert problem.capacity[1, 0].tolist() == [4, 1, 1]
    assert problem.free[0].sum() == 0 and problem.free[1].all()


def test_a_via_is_weighed_in_steps_by_the_files_unit_costs(tmp_path):
    # wire costs 1 a unit, a via 2, edges 10 long: a via is worth a fifth of a step
    cap = read_cap(write(tmp_path, "c.cap", CAP))
    problem = cap_problem(cap, read_net(write(tmp_path, "c.net", NET), cap))
    assert problem.via_weight == pytest.approx(2 / (1 * 10))


# -- the command line ----------------------------------------------------------------------
def test_cli_routes_a_cap_and_reports_the_contests_cost(tmp_path, capsys):
    # 2 x 1 GCells, an edge 10 long; Metal2 horizontal with capacity 3 on the one edge.
    # Weights: wire 1, via 2, overflow 1 a layer. One net from Metal1 (0, 0) to (1, 0):
    # a via up at each end and one wire step on Metal2.
    # wire 1 x 10 = 10; vias 2 x 2 = 4; overflow on Metal2's one edge: demand 1 (the
    # vias land from Metal1, below the routing layers, so add none), capacity 3:
    # exp((1 - 3) / 2) = exp(-1); total 14 + exp(-1) = 14.3679
    cap = write(tmp_path, "tiny.cap", "2 2 1\n1 2 1 1\n10\n\nMetal1 0 0\n0 0\n"
                                      "Metal2 0 0\n3 0\n")
    net = write(tmp_path, "tiny.net", "n\n(\n[(0, 0, 0)]\n[(0, 1, 0)]\n)\n")
    out = tmp_path / "out"
    assert main(["groute", str(cap), "--net", str(net), "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert sorted(p.name for p in out.iterdir()) == ["groute.txt", "tiny.route"]
    report = (out / "groute.txt").read_text()
    assert "overflow 0 " in report and "wirelength 1 GCell steps, vias 2" in report
    cost = float(report.split("contest cost ")[1].split()[0])
    assert cost == pytest.approx(14 + math.exp(-1), rel=1e-5)
    assert "wire 10, via 4, overflow 0.367879" in report and "wrote" in text
    assert read_route_2024(out / "tiny.route") == {
        "n": [(0, 0, 1, 1, 0, 1), (0, 0, 0, 0, 0, 1), (1, 0, 0, 1, 0, 1)]}


def test_cli_routes_a_gzipped_gr_and_exits_1_on_overflow(tmp_path, capsys):
    import gzip
    path = tmp_path / "bench.gr.gz"
    path.write_bytes(gzip.compress(GR.encode()))
    out = tmp_path / "out"
    assert main(["groute", str(path), "-o", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["bench.out", "groute.txt"]
    assert set(read_route_2008(out / "bench.out")) == {"netA", "netB"}
    assert "contest cost" not in (out / "groute.txt").read_text()
    capsys.readouterr()
    # the cut of test_gr_overflows_where_the_cut_cannot_hold_the_nets: overflow 2, exit 1
    cut = write(tmp_path, "cut.gr", "grid 3 1 1\nvertical capacity 0\nhorizontal capacity "
                "2\nminimum width 1\nminimum spacing 1\nvia spacing 0\n0 0 10 10\nnum net "
                "2\np 0 2 1\n5 5 1\n25 5 1\nq 1 2 1\n5 5 1\n25 5 1\n0\n")
    assert main(["groute", str(cut), "-o", str(tmp_path / "cut")]) == 1
    assert "overflow 2 " in (tmp_path / "cut" / "groute.txt").read_text()


@pytest.mark.parametrize("kind, extra, field", [
    ("cap", [], "--net"),
    ("cap", ["--lef", "x.lef"], "--lef"),
    ("cap", ["--min-layer", "Metal2"], "--min-layer"),
    ("gr", ["--net", "NET"], "--net"),
    ("gr", ["--adjust", "metal2=0.5"], "--adjust"),
    ("def", [], "--lef"),
])
def test_cli_bad_combinations_get_one_line(tmp_path, capsys, kind, extra, field):
    files = {"cap": write(tmp_path, "t.cap", CAP), "gr": write(tmp_path, "t.gr", GR),
             "def": write(tmp_path, "t.def", "VERSION 5.8 ;\nDESIGN t ;\nEND DESIGN\n")}
    net = write(tmp_path, "t.net", NET)
    extra = [str(net) if a == "NET" else a for a in extra]
    code = main(["groute", str(files[kind]), *extra, "-o", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and field in err
    assert str(files[kind]) in err and "Traceback" not in err
    assert not (tmp_path / "o").exists()


def test_cli_missing_input_gets_one_line_naming_it(tmp_path, capsys):
    net = write(tmp_path, "t.net", NET)
    missing = tmp_path / "nope.cap"
    code = main(["groute", str(missing), "--net", str(net), "-o", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 2 and err.strip().endswith(f"{missing}: no such file")
    assert len(err.strip().splitlines()) == 1 and not (tmp_path / "o").exists()


def test_contest_cost_from_the_segment_table_is_the_per_net_cost(tmp_path):
    """The command's cost (every net's boxes and via sites as arrays) against the same
    cost summed one net at a time, on a crowded random design with vias between routing
    layers (so that a net's repeated via sites count once)."""
    from mazeroute.cli_groute import _contest_cost
    from mazeroute.evaluate import ContestWeights, cost_of_boxes
    from mazeroute.readers.contest import HORIZONTAL
    from mazeroute.router.groute_contest import cap_grid, segment_arrays, segment_table

    rng = np.random.default_rng(3)
    rows = "\n".join(" ".join(["2"] * 10) for _ in range(10))
    layers = "".join(f"M{k + 1} {k % 2} 0\n{rows}\n" for k in range(4))
    cap = read_cap(write(tmp_path, "r.cap", "4 10 10\n1 4 0.5 1 1 1\n" + " ".join(["7"] * 9)
                         + "\n" + " ".join(["5"] * 9) + "\n" + layers))
    nets = "".join(f"n{k}\n(\n" + "".join(f"[({rng.integers(0, 2)}, {x}, {y})]\n" for x, y in
                                           rng.integers(0, 10, (rng.integers(2, 4), 2)))
                   + ")\n" for k in range(60))
    problem = cap_problem(cap, read_net(write(tmp_path, "r.net", nets), cap))
    res = global_route(problem)
    h, v = cap.edge_capacity()
    horizontal = [d == HORIZONTAL for d in cap.directions.tolist()]
    caps = [(h if hz else v)[z].astype(np.float64) for z, hz in enumerate(horizontal)]

    def per_net():
        for segs in segment_arrays(res.routes.values()):
            segs = segs.tolist()
            yield ([(z1 + 1, x1, y1, x2, y2) for x1, y1, z1, x2, y2, z2 in segs if z1 == z2],
                   {(z1 + 1, x1, y1) for x1, y1, z1, _, _, z2 in segs if z1 != z2},
                   sum(s[2] != s[5] for s in segs))
    weights = ContestWeights(cap.wire_cost, cap.via_cost, tuple(cap.overflow_weights.tolist()))
    want = cost_of_boxes(cap_grid(cap), caps, horizontal, per_net(), problem.lowest + 1,
                         weights)
    got = _contest_cost(cap, problem, segment_table(res.routes.values()))
    assert got.via > 0 and got.overflow > 0
    assert (got.wire, got.via, got.overflow) == (want.wire, want.via, want.overflow)
