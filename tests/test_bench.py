"""The benchmark: its table, files, WRONG detection, option errors and suites (no timings)."""

from __future__ import annotations

import argparse
import csv
import sys
import types
from dataclasses import fields

import numpy as np
import pytest
from PIL import Image

import mazeroute.bench as bench
import mazeroute.engines as engines_mod
from mazeroute.engines import ENGINES, UNREACHED, EngineSpec
from mazeroute.engines.cpu import CSRQueueProblem, GridQueueProblem
from mazeroute.engines.oracle import oracle_levels
from mazeroute.errors import EngineUnavailable, InputError
from mazeroute.generate import random_nets
from mazeroute.graph import GridGraph
from mazeroute.io import OutputError
from mazeroute.layout import Layout
from mazeroute.plan import make_plan
from tests.corpus import hand_cases, random_cases

CPU = [k for k in ENGINES if k[0] == "cpu"]
TINY = ["--size", "24", "--repeats", "1", "-q"]


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    return parser.parse_args(list(argv))


def _read_csv(path):
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


# -- the table ---------------------------------------------------------------------------
def test_table_has_every_engine_and_class_and_writes_csv_and_png(tmp_path, capsys):
    classes = ["open", "dense", "maze", "ost003d"]
    status = bench.run(_args(*TINY, "--classes", ",".join(classes), "-o", str(tmp_path)))
    assert status == 0
    out = capsys.readouterr().out
    names = ["cpu/grid", "cpu/csr", bench.SCIPY, bench.SCIPY_TOTAL]
    assert all(c in out for c in classes) and all(n in out for n in names)
    assert "WRONG" not in out and "ERROR" not in out

    rows = _read_csv(tmp_path / "bench.csv")
    assert list(rows[0]) == [f.name for f in fields(bench.Row)]
    assert [(r["layout"], r["engine"]) for r in rows] == [
        (c, n) for c in classes for n in ("cpu/grid", bench.SCIPY, bench.SCIPY_TOTAL,
                                          "cpu/csr")]
    assert {r["check"] for r in rows} == {"ref", "ok", "-"}
    for r in rows:
        assert float(r["median_s"]) > 0 and int(r["runs"]) == 1
        assert int(r["reached"]) > 0 and int(r["levels"]) >= 2
    sizes = {r["layout"]: r["size"] for r in rows}
    assert sizes["open"] == "24x24" and sizes["ost003d"] == "194x194"   # maps keep their size
    for c in classes:   # every engine of a layout reports the same level count
        assert len({r["levels"] for r in rows if r["layout"] == c}) == 1

    with Image.open(tmp_path / "bench.png") as img:
        assert img.format == "PNG" and img.size[0] > 300 and img.size[1] > 200
    assert not list(tmp_path.glob("*.part"))


def test_reference_levels_are_the_oracle_levels_from_the_corner():
    case = bench.make_case("dense", 40, seed=3)
    graph = GridGraph(case.free)
    _, levels, num = bench.time_engine(("cpu", "grid"), graph, case.source, 1)
    expected = oracle_levels(graph.csr, [case.source], ~case.free.ravel())
    np.testing.assert_array_equal(levels, expected)
    assert num == int(expected[expected != UNREACHED].max()) + 1


@pytest.mark.parametrize("case", [c for c in hand_cases() + random_cases(12, 30, seed=5)
                                  if c.is_grid and len(c.sources) == 1], ids=lambda c: c.id)
def test_levels_derived_from_scipy_match_the_oracle(case):
    graph = case.graph
    got = bench.scipy_levels(bench.scipy_matrix(graph), case.sources[0])
    np.testing.assert_array_equal(got.reshape(graph.shape), case.expected())


def test_source_is_in_the_largest_free_region():
    free = np.zeros((10, 12), bool)
    free[0, 0] = free[0, 1] = True        # a pocket nearest the corner
    free[3:9, 2:11] = True                # the big region
    src = bench.corner_source(free)
    assert divmod(src, 12) == (3, 2)


# -- WRONG and ERROR are shown, never hidden ---------------------------------------------
def _corrupt_csr_engine(monkeypatch):
    original = CSRQueueProblem._run

    def bad_run(self, sources, targets):
        n = original(self, sources, targets)
        self.level[self.queue[self.touched - 1]] += 1     # one reached cell one level off
        return n

    monkeypatch.setattr(CSRQueueProblem, "_run", bad_run)


def test_wrong_levels_are_flagged_in_the_table_and_the_status(monkeypatch, capsys, tmp_path):
    _corrupt_csr_engine(monkeypatch)
    rows = bench.bench_table(["open"], CPU, size=24, repeats=1)
    check = {r.engine: r.check for r in rows}
    assert check == {"cpu/grid": "ref", bench.SCIPY: "-", bench.SCIPY_TOTAL: "ok",
                     "cpu/csr": "WRONG"}
    assert "differ" in next(r.note for r in rows if r.engine == "cpu/csr")

    status = bench.run(_args(*TINY, "--classes", "maze", "--engines", "cpu",
                             "-o", str(tmp_path)))
    assert status == 1
    assert "WRONG" in capsys.readouterr().out
    assert "WRONG" in {r["check"] for r in _read_csv(tmp_path / "bench.csv")}


def test_an_engine_that_raises_is_an_error_row(monkeypatch):
    def boom(self, sources, targets):
        raise RuntimeError("kernel exploded")

    monkeypatch.setattr(CSRQueueProblem, "_run", boom)
    rows = bench.bench_table(["maze"], CPU, size=24, repeats=1)
    bad = next(r for r in rows if r.engine == "cpu/csr")
    assert bad.check == "ERROR" and "kernel exploded" in bad.note
    assert "ERROR" in bench.format_table(rows)


# -- options -----------------------------------------------------------------------------
@pytest.mark.parametrize("argv, field", [
    (["--size", "0"], "--size"),
    (["--size", "100000"], "--size"),
    (["--repeats", "0"], "--repeats"),
    (["--max-seconds", "0"], "--max-seconds"),
    (["--engines", "cpu/nope"], "--engines"),
    (["--engines", "tpu"], "--engines"),
    (["--classes", "open,swamp"], "--classes"),
    (["--maps", "/no/such/folder"], "--maps"),
])
def test_bad_options_are_input_errors(argv, field):
    with pytest.raises(InputError) as e:
        bench.run(_args(*argv))
    assert e.value.field == field


def test_a_missing_map_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="den520d") as e:
        bench.run(_args(*TINY, "--classes", "den520d", "--maps", str(tmp_path)))
    assert e.value.field == "--maps"
    assert bench.parse_classes(None, tmp_path) == list(bench.SYNTHETIC)   # default skips them


def test_option_lists_are_parsed():
    assert bench.parse_engines("cpu/csr, cpu/grid,cpu") == [("cpu", "csr"), ("cpu", "grid")]
    assert bench.parse_classes("maze,maps,maze") == ["maze", *bench.MAPS]
    assert set(CPU) <= set(bench.parse_engines(None))


@pytest.mark.skipif(engines_mod.gpu_available(), reason="checks the machine without a GPU")
def test_gpu_engines_without_a_gpu_are_unavailable(monkeypatch):
    monkeypatch.setitem(ENGINES, ("gpu", "frontier"), EngineSpec(
        "gpu", "frontier", "csr", "mazeroute.engines.cpu:CSRQueueProblem", "test"))
    assert ("gpu", "frontier") not in bench.parse_engines(None)
    with pytest.raises(EngineUnavailable):
        bench.parse_engines("gpu")


def test_cli_reports_a_bad_bench_option_in_one_line(capsys):
    cli = pytest.importorskip("mazeroute.cli")
    assert cli.main(["bench", "--repeats", "0"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--repeats" in err


# -- suites ------------------------------------------------------------------------------
def test_cpu_suite_is_the_table_of_every_cpu_engine_on_rects_and_a_maze(tmp_path, capsys):
    rows = bench.cpu_suite(rect_size=40, maze_size=31, repeats=1)
    assert [(r.layout, r.size, r.engine) for r in rows] == [
        (cls, size, n) for cls, size in (("open", "40x40"), ("maze", "31x31"))
        for n in ("cpu/grid", bench.SCIPY, bench.SCIPY_TOTAL,
                  *(f"cpu/{k[1]}" for k in CPU if k != ("cpu", "grid")))]
    assert {r.check for r in rows} == {"ref", "ok", "-"}
    assert all(r.vs_scipy > 0 for r in rows)


def test_run_cpu_suite_prints_measurements_and_writes_cpu_csv(monkeypatch, tmp_path, capsys):
    real = bench.cpu_suite
    monkeypatch.setattr(bench, "cpu_suite", lambda **k: real(rect_size=40, maze_size=31, **k))
    assert bench.run(_args(*TINY, "--suite", "cpu", "-o", str(tmp_path))) == 0
    out = capsys.readouterr().out
    assert "vs scipy" in out and "goal" not in out.lower() and "met" not in out.split()
    rows = _read_csv(tmp_path / "cpu.csv")
    assert list(rows[0]) == [f.name for f in fields(bench.Row)]
    assert {r["layout"] for r in rows} == {"open", "maze"}


def test_the_targets_suite_and_strict_are_gone():
    """The suites print measurements; the goals they were compared with live in
    docs/benchmarks.md, not in the package."""
    assert "targets" not in bench.SUITES
    with pytest.raises(SystemExit):
        _args("--suite", "targets")
    with pytest.raises(SystemExit):
        _args("--strict")


def test_the_package_and_its_help_name_no_issue_goal_or_target():
    import re
    from pathlib import Path

    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    texts = {"--help": parser.format_help()}
    texts.update({p.name: p.read_text() for p in Path(bench.__file__).parent.glob("*.py")})
    for name, text in texts.items():
        assert not re.search(r"issue[ -]?\d+|\bgoals?\b|GOALS", text, re.I), name
        assert "engines.auto" not in text and "forget(" not in text, name
    assert not hasattr(bench, "GOALS") and not hasattr(bench, "targets_suite")


class FakeGpuGrid(GridQueueProblem):
    """The CPU grid engine standing in for ``gpu/grid``: it takes the planner's
    ``planned`` option (how ``gpu/grid`` runs a whole wavefront) and ignores it."""

    def __init__(self, graph, planned=None):
        super().__init__(graph)


@pytest.fixture
def fake_gpu(monkeypatch):
    """A pretend GPU: 'gpu' engines that are really CPU engines, and a stand-in CuPy."""
    import mazeroute.plan.device as device

    pool = types.SimpleNamespace(free_all_blocks=lambda: None, total_bytes=lambda: 1 << 20)
    dev = types.SimpleNamespace(synchronize=lambda: None, id=0)
    runtime = types.SimpleNamespace(memGetInfo=lambda: (1 << 33, 1 << 34),
                                    getDeviceProperties=lambda i: {"name": b"Fake GPU"})
    cupy = types.SimpleNamespace(cuda=types.SimpleNamespace(Device=lambda *a: dev,
                                                            runtime=runtime),
                                 get_default_memory_pool=lambda: pool, __version__="fake")
    monkeypatch.setitem(sys.modules, "cupy", cupy)
    for key in [k for k in ENGINES if k[0] == "gpu"]:     # only the stand-ins below
        monkeypatch.delitem(ENGINES, key)
    for strategy, form, cls in [("grid", "grid", "tests.test_bench:FakeGpuGrid"),
                                ("frontier", "csr", "mazeroute.engines.cpu:CSRQueueProblem"),
                                ("push", "csr", "mazeroute.engines.cpu:CSRQueueProblem")]:
        monkeypatch.setitem(ENGINES, ("gpu", strategy), EngineSpec(
            "gpu", strategy, form, cls, "stand-in"))
    monkeypatch.setattr(engines_mod, "gpu_available", lambda: True)
    # the planner asks the device module itself
    monkeypatch.setattr(device, "gpu_status", lambda: (True, ""))
    monkeypatch.setattr(device, "gpu_available", lambda: True)


def test_table_with_a_fake_gpu_has_every_gpu_engine_and_the_machine_names_it(fake_gpu):
    rows = bench.bench_table(["maze"], size=24, repeats=1)
    assert {r.engine for r in rows} >= {"gpu/grid", "gpu/frontier", "gpu/push", "cpu/grid"}
    assert {r.check for r in rows} <= {"ref", "ok", "-"}
    assert "Fake GPU" in bench.machine()


# -- generate.random_nets(span=...), added for the routing target ------------------------
def test_local_nets_stay_within_span_on_free_distinct_cells():
    blocked = np.random.default_rng(0).random((80, 90)) < 0.2
    nets = random_nets(blocked, 60, 3, np.random.default_rng(1), span=6)
    cells = [p for n in nets for p in n.pins]
    assert len(nets) == 60 and len(set(cells)) == len(cells)
    assert not any(blocked[y, x] for x, y in cells)
    for n in nets:
        (x0, y0), *rest = n.pins
        assert all(abs(x - x0) + abs(y - y0) <= 6 for x, y in rest)


def test_span_none_keeps_the_old_draw():
    blocked = np.zeros((20, 20), bool)
    a = random_nets(blocked, 5, 2, np.random.default_rng(7))
    chosen = np.random.default_rng(7).choice(400, size=10, replace=False)
    assert [p for n in a for p in n.pins] == [(int(v % 20), int(v // 20)) for v in chosen]


def test_impossible_span_is_an_input_error():
    with pytest.raises(InputError) as e:
        random_nets(np.zeros((5, 5), bool), 2, 2, np.random.default_rng(0), span=0)
    assert e.value.field == "span"
    isolated = np.ones((9, 9), bool)
    isolated[::4, ::4] = False              # free cells 4 apart: no pair within span 2
    with pytest.raises(InputError, match="span 2"):
        random_nets(isolated, 1, 2, np.random.default_rng(0), span=2)


def test_negotiate_suite_rows(tmp_path):
    from mazeroute.bench import format_negotiate, negotiate_suite
    (tmp_path / "two.txt").write_text("5 4\n..b..\na...a\n..b..\n.....\n\n3 3\nx.y\n...\ny.x\n")
    bigs, rows = negotiate_suite(seed=3, puzzles_dir=tmp_path, layouts=[(48, 20)],
                                 puzzles=["two.txt", "missing.txt"], backends=["cpu"])
    assert bigs == []                       # the big layout runs on a GPU alone
    assert [(r.case, r.backend) for r in rows] == [("rects 48^2 20 nets s3", "cpu"),
                                                   ("two.txt", "cpu")]
    rects, puzzles = rows
    assert rects.nets == 20 and rects.puzzles == "-" and rects.legal == "ok"
    assert rects.negotiate >= rects.sequential and rects.worse == 0
    # puzzle 1 is the other-side case (sequential walls b off); puzzle 2 the crossing
    # of x and y in a 3 x 3 square, which has no solution
    assert (puzzles.nets, puzzles.sequential, puzzles.negotiate) == (4, 3, 3)
    assert puzzles.puzzles == "1/2" and puzzles.legal == "ok"
    text = format_negotiate(rows)
    assert text.splitlines()[0].split()[:6] == ["case", "backend", "nets", "sequential",
                                                "negotiate", "worse"]
    assert text.splitlines()[2].split()[:6] == ["two.txt", "cpu", "4", "3", "3", "0"]


def test_run_negotiate_prints_rows_and_fails_on_a_broken_contract(monkeypatch, tmp_path,
                                                                  capsys):
    row = bench.NegotiateRow("rects 48^2 20 nets s1", "cpu", 20, 18, 19, "-", 1.01, 0.5,
                             0.5, "ok")
    big = bench.BigRow("rects 64^2 9 nets s1 [gpu]", 9, 9, 0.25, 3 << 20, "ok")
    monkeypatch.setattr(bench, "negotiate_suite", lambda *a, **k: ([big], [row]))
    assert bench.run(_args(*TINY, "--suite", "negotiate", "-o", str(tmp_path))) == 0
    out = capsys.readouterr().out
    assert "rects 48^2 20 nets s1" in out and "3 MiB" in out and "goal" not in out.lower()
    assert [r["negotiate"] for r in _read_csv(tmp_path / "negotiate.csv")] == ["19"]
    assert [r["routed"] for r in _read_csv(tmp_path / "negotiate_big.csv")] == ["9"]
    row.legal = "rects: net 3 crosses net 4"
    assert bench.run(_args(*TINY, "--suite", "negotiate")) == 1


# -- the classes suite -----------------------------------------------------------------
from mazeroute.generate import class_mask, maze_mask  # noqa: E402

CLASSES_TINY = ["--suite", "classes", "--sizes", "24", "--big", "40", "--repeats", "1",
                "--route-scale", "0.04", "--seeds", "2", "-q"]


class OffByOneGrid(FakeGpuGrid):
    """A broken 'GPU' engine for the fake GPU: one reached cell one level too deep."""

    def _run(self, sources, targets):
        n = super()._run(sources, targets)
        self.level[self.queue[self.touched - 1]] += 1
        return n


def _tiny_map(folder):
    """A walled-in 12 x 8 Moving AI map with a pillar (header included)."""
    rows = ["@@@@@@@@@@@@", "@..........@", "@..@@......@", "@..@@...T..@",
            "@..........@", "@.....@@...@", "@..........@", "@@@@@@@@@@@@"]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "tiny.map").write_text("type octile\nheight 8\nwidth 12\nmap\n"
                                     + "\n".join(rows) + "\n", encoding="utf-8")
    return folder


def test_make_case_maze_is_the_odd_perfect_maze_in_the_corner():
    free = bench.make_case("maze", 40, seed=3).free
    np.testing.assert_array_equal(free[:39, :39], ~maze_mask(39, 39, seed=3))
    assert not free[39].any() and not free[:, 39].any()


@pytest.mark.skipif(engines_mod.gpu_available(), reason="checks the machine without a GPU")
def test_classes_suite_runs_without_a_gpu_with_gpu_columns_na(tmp_path, capsys):
    maps = _tiny_map(tmp_path / "maps")
    log = tmp_path / "logs" / "classes.log"
    status = bench.run(_args(*CLASSES_TINY, "--maps", str(maps), "--log", str(log),
                             "-o", str(tmp_path / "out")))
    assert status == 0
    out = capsys.readouterr().out
    assert log.read_text() == out                     # the log is the report, whole
    rows = _read_csv(tmp_path / "out" / "classes.csv")
    assert list(rows[0]) == [f.name for f in fields(bench.ClassRow)]
    names = [(r["layout"], r["size"]) for r in rows]
    assert names == ([(c, "24x24") for c in bench.CLASS_SUITE] + [("open:0.25", "40x40")]
                     + [("tiny", "12x8"), ("tiny:x4", "40x24")])
    for r in rows:
        assert r["gpu_s"] == r["gpu_read_s"] == "nan" and r["check"] == "-"
        assert r["auto_pick"] == r["best"] == "cpu/grid"
        assert float(r["cpu_s"]) > 0 and float(r["auto_s"]) >= float(r["decide_s"]) > 0
        assert 0 < int(r["reached"]) <= int(r["cells"]) and int(r["levels"]) >= 2
    by = {(r["layout"], r["size"]): r for r in rows}
    path = by[("serpentine:1", "24x24")]                 # one corridor: a level a cell
    assert int(path["levels"]) == int(path["reached"]) == int(path["cells"])
    assert int(by[("tiny:x4", "40x24")]["reached"]) == 16 * int(by[("tiny", "12x8")]["reached"])
    routing = _read_csv(tmp_path / "out" / "routing.csv")
    assert [r["case"] for r in routing] == [c.name for c in bench.ROUTING_CASES]
    for r in routing:
        assert r["gpu_s"] == "nan" and r["check"] == "-" and r["seeds"] == "0-1"
        assert float(r["cpu_s"]) > 0 and int(r["routed"]) >= 1 and r["auto_engine"] == "cpu/grid"
    assert not (tmp_path / "out" / "classes_goals.csv").exists()
    assert "n/a" in out and "## sequential routing" in out and "goal" not in out.lower()


def test_classes_suite_with_a_gpu_measures_every_column(fake_gpu):
    free = ~class_mask("open:0.25", 300, seed=1)          # > 65,536 free cells: auto may pick
    row = bench.measure_class("open:0.25", free, repeats=2)
    assert row.check == "ok" and row.levels >= 2
    for t in (row.cpu_s, row.gpu_s, row.gpu_read_s, row.auto_s, row.decide_s):
        assert t == t and t > 0                           # measured, not NaN
    plan = make_plan(GridGraph(free), "auto")
    assert row.auto_pick == plan.engine
    assert row.best in ("cpu/grid", "gpu/grid")
    assert row.auto_vs_best == pytest.approx(row.auto_s / min(row.cpu_s, row.gpu_s))
    case = bench.ROUTING_CASES[-1]
    rrow = bench.measure_routing(case, [0, 1], scale=0.06)
    assert rrow.check == "ok" and rrow.gpu_s > 0 and rrow.speedup > 0
    assert rrow.auto_engine in ("cpu/grid", "gpu/grid", "cpu/grid, gpu/grid")
    assert rrow.best in ("cpu/grid", "gpu/grid") and rrow.auto_vs_best > 0


def test_routing_times_are_medians_of_each_seeds_runs(monkeypatch):
    """A seed's time is the median of its runs (one slow first run does not count), a
    case's the median over the seeds; every run's wires are checked against the CPU's."""
    from types import SimpleNamespace

    clock = SimpleNamespace(now=0.0)
    monkeypatch.setattr(bench.routing, "time", SimpleNamespace(perf_counter=lambda: clock.now))
    monkeypatch.setattr(engines_mod, "gpu_available", lambda: False)   # backends cpu, auto
    # each seed: auto's first run only goes before the first timed one (bench.turns)
    took = {("cpu", 0): [9.0, 1.0, 2.0, 2.0], ("auto", 0): [100.0, 3.0, 5.0, 4.0, 2.0],
            ("cpu", 1): [4.0, 4.0, 6.0, 4.0], ("auto", 1): [100.0, 1.0, 8.0, 2.0, 3.0]}
    calls = []

    class Timed:
        def __init__(self, layout, backend):
            self.seed, self.backend = int(layout.name), backend

        def run(self):
            calls.append((self.backend, self.seed))
            clock.now += took[self.backend, self.seed].pop(0)
            net = SimpleNamespace(routed=True, cells=[(0, self.seed)])
            return SimpleNamespace(routed=1, nets=[net], engine=f"{self.backend}/grid")

    monkeypatch.setattr(bench.routing, "Router", Timed)
    case = bench.RoutingCase("fake", "fake", 16, 1, 2, 4,
                             lambda side, nets, pins, span, seed: Layout(str(seed), 4, 4))
    lines = []
    row = bench.measure_routing(case, [0, 1], log=lines.append, repeats=3)
    # the backends take turns, each after each as often
    assert [b for b, _ in calls[:9]] == ["auto"] + ["cpu", "cpu", "auto", "auto"] * 2
    assert row.cpu_s == pytest.approx((2.0 + 4.0) / 2)            # medians 2 and 4
    assert row.auto_s == pytest.approx((3.5 + 2.5) / 2)           # the 100s not timed
    assert row.check == "-" and row.routed == 1
    assert "runs 9 1 2 2" in lines[0]


def test_classes_suite_flags_wrong_gpu_levels(fake_gpu, monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(ENGINES, ("gpu", "grid"), EngineSpec(
        "gpu", "grid", "grid", "tests.test_bench:OffByOneGrid", "broken stand-in"))
    status = bench.run(_args(*CLASSES_TINY, "--classes", "maze:0.02", "--routing", "none",
                             "--maps", str(tmp_path), "-o", str(tmp_path)))
    assert status == 1
    assert "WRONG" in capsys.readouterr().out
    rows = _read_csv(tmp_path / "classes.csv")
    assert {r["check"] for r in rows} == {"WRONG"} and {r["best"] for r in rows} == {"cpu/grid"}


def test_auto_is_timed_from_its_decision_made_afresh_each_run(fake_gpu, monkeypatch):
    """Each timed auto run plans the graph anew (a plan measures its own mask; there is no
    memo to drop), and the decision is inside the timed region."""
    import time as time_mod

    graphs = []

    def slow_plan(subject, backend="auto", *a, **k):   # a decision that takes >= 5 ms
        graphs.append((subject, backend))
        time_mod.sleep(0.005)
        return make_plan(subject, backend, *a, **k)

    monkeypatch.setattr(bench.wavefront, "make_plan", slow_plan)
    row = bench.measure_class("maze:0", ~class_mask("maze", 33), repeats=3)
    assert row.decide_s >= 0.005 and row.auto_s >= row.decide_s   # inside the timed region
    assert len(graphs) == 1 + 3                                   # a warm-up, then each run
    assert {backend for _, backend in graphs} == {"auto"}
    assert all(isinstance(g, GridGraph) for g, _ in graphs)


def test_a_layout_that_fails_is_an_error_row_and_the_suite_goes_on(tmp_path):
    rows, rrows = bench.classes_suite(["spiral:1"], [tmp_path / "gone.map"],
                                       sizes=[24], big=0, repeats=1, routing=[])
    assert [(r.layout, r.check) for r in rows] == [("spiral:1", "-" if not
                                                     engines_mod.gpu_available() else "ok"),
                                                    ("gone", "ERROR"), ("gone:x4", "ERROR")]
    assert "gone.map" in rows[1].note and rrows == []
    assert "ERROR" in bench.format_classes_report(rows, rrows)


def test_classes_option_lists_are_parsed(tmp_path):
    names, maps = bench.parse_class_names(None, tmp_path)
    assert names == list(bench.CLASS_SUITE) and maps == []
    _tiny_map(tmp_path)
    names, maps = bench.parse_class_names("spiral:3,maps,spiral:3,tiny", tmp_path)
    assert names == ["spiral:3"] and maps == [tmp_path / "tiny.map"]
    assert bench.parse_class_names("none", tmp_path) == ([], [])
    assert bench.parse_routing("none") == []
    assert [c.name for c in bench.parse_routing("anywhere_2048")] == ["anywhere_2048"]


@pytest.mark.parametrize("argv, field", [
    (["--sizes", "4"], "--sizes"), (["--sizes", "1024,x"], "--sizes"),
    (["--big", "5"], "--big"), (["--seeds", "0"], "--seeds"),
    (["--route-scale", "0"], "--route-scale"), (["--routing", "nope"], "--routing"),
    (["--route-repeats", "0"], "--route-repeats"),
    (["--classes", "swamp:1"], "--classes"), (["--classes", "maze:2"], "--classes"),
])
def test_bad_classes_options_are_input_errors(argv, field, tmp_path):
    with pytest.raises(InputError) as e:
        bench.run(_args("--suite", "classes", *argv))
    assert e.value.field == field
    with pytest.raises(OutputError):
        bench.run(_args("--suite", "table", "--log", str(tmp_path)))     # a folder


def test_bench_outputs_are_checked_before_the_benchmark_runs(tmp_path, monkeypatch, capsys):
    """-o naming a file, --log under a file or naming a device: one line, exit 2, and
    nothing measured (before, a traceback after the whole run, or /dev/full replaced)."""
    from mazeroute import cli
    monkeypatch.setattr(bench, "bench_table", lambda *a, **k: pytest.fail("it ran"))
    afile = tmp_path / "afile.txt"
    afile.write_text("x")
    for argv in (["-o", str(afile)], ["--log", str(afile / "x.log")], ["--log", "/dev/null"]):
        assert cli.main(["bench", "--suite", "table", "--size", "8", *argv]) == 2
        err = capsys.readouterr().err.strip()
        assert "\n" not in err and "Traceback" not in err
    assert afile.read_text() == "x"


@pytest.mark.gpu
def test_classes_suite_on_the_gpu_agrees_with_the_cpu():
    for name, size in [("spiral:2", 96), ("serpentine:1", 64), ("maze:0", 95),
                       ("maze:0.2", 95), ("open:0.25", 300), ("wired:1", 128)]:
        row = bench.measure_class(name, ~class_mask(name, size, seed=2), repeats=1)
        assert row.check == "ok", (name, row.note)
        assert row.gpu_s > 0 and row.gpu_read_s > 0 and row.auto_pick
    for case in bench.ROUTING_CASES:
        rrow = bench.measure_routing(case, [0], scale=0.08)
        assert rrow.check == "ok", (case.name, rrow.note)


@pytest.mark.gpu
def test_big_negotiation_on_the_gpu_time_memory_and_contract():
    from mazeroute.bench.negotiation import negotiate_big
    from mazeroute.generate import random_layout
    from mazeroute.router import route

    got = negotiate_big(256, 150, seed=2)
    want = route(random_layout(256, 256, density=0.25, nets=150, pins=2, seed=2, span=64),
                 backend="cpu", mode="negotiate")
    assert got.routed == want.routed and got.nets == 150
    assert got.pool_peak_bytes > 0 and got.legal == "ok" and got.seconds > 0
