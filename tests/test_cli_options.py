"""The command line's options (mazeroute.cli_options): help, modes, negotiation's options
reaching route and batch, and every bad option one line, exit 2, before any work."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest
import yaml

from mazeroute.cli import main
from tests.test_cli import SEQ, _one_line, good_layout, run


@pytest.fixture
def good(tmp_path) -> Path:
    return good_layout(tmp_path)


@pytest.mark.parametrize("argv, words", [
    (["route", "{missing}"], "no such file"),
    (["route", "{dir}"], "is a directory"),
    (["route", "{good}", "--backend", "tpu"], "invalid choice"),
    (["route", "{good}", "--mode", "sequential", "--strategy", "teleport"],
     "--strategy: unknown strategy 'teleport'"),
    (["wavefront", "{good}", "--strategy", "teleport"], "--strategy: unknown strategy"),
    (["wavefront", "{good}", "--net", "zz"], "--net: no net 'zz'"),
    (["check", "{good}", "--routes", "{missing}"], "no such file"),
    (["generate", "rects", "--density", "1.5"], "--density"),
    (["generate", "rects", "--nets", "9999", "-W", "4", "-H", "4"], "nets"),
])
def test_bad_options_are_one_line_exit_2(argv, words, good, tmp_path):
    fill = {"missing": str(tmp_path / "nope.yaml"), "dir": str(tmp_path), "good": str(good)}
    r = run(*[a.format(**fill) for a in argv], cwd=tmp_path)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr and words in r.stderr, r.stderr
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith("mazeroute") and "error: " in last


def test_help_for_every_command():
    for cmd in ["route", "wavefront", "batch", "check", "generate", "engines"]:
        r = run(cmd, "--help")
        assert r.returncode == 0 and "usage: mazeroute" in r.stdout


@pytest.mark.parametrize("scale", ["0", "-3", "100000"])
def test_scale_is_checked_before_any_work(scale, good, tmp_path, monkeypatch, capsys):
    """A bad option fails before routing or writing anything."""
    import mazeroute.batch as batch
    monkeypatch.setattr(batch, "Router", None)           # routing would raise TypeError
    monkeypatch.setattr(batch, "load_layouts", None)     # so would loading
    out = tmp_path / "o"
    assert main(["route", str(good), "-o", str(out), "--scale", scale]) == 2
    line = _one_line(capsys.readouterr().err)
    assert "--scale" in line and scale in line
    assert not out.exists()


@pytest.mark.parametrize("argv, field", [
    (["--seed", "-1"], "--seed"), (["--pins", "1"], "--pins"), (["--span", "0"], "--span"),
    (["--name", "a\x00b"], "--name"), (["--name", "x" * 201], "--name"),
    (["--nets", "100", "-W", "4", "-H", "4"], "--nets")])
def test_generate_options_are_checked_first(argv, field, tmp_path, monkeypatch, capsys):
    """Every generate option before any work."""
    import mazeroute.cli as cli
    monkeypatch.setattr(cli, "random_layout", None)
    assert main(["generate", "rects", *argv, "-o", str(tmp_path / "g.yaml")]) == 2
    assert field in _one_line(capsys.readouterr().err)


def test_generate_names_its_flags_where_the_layout_itself_refuses(tmp_path, capsys):
    """A maze has fewer free cells than its grid: too many nets for them is found by the
    generator, whose error names the flag (``--nets``), as the checks before it do."""
    out = tmp_path / "g.yaml"
    assert main(["generate", "maze", "-W", "9", "-H", "9", "--nets", "30", "-o", str(out)]) == 2
    line = _one_line(capsys.readouterr().err)
    assert line.startswith("mazeroute: error: --nets: 30 nets of 2 pins need 60 free cells")
    assert not out.exists()


def test_negotiation_shows_its_phases_after_the_iterations(tmp_path, capsys):
    """After the last iteration line, each phase (legalise, repair, tidy, ...) is a line
    on stderr as it ends; -q shows none, and the router's logger is left as it was."""
    import logging

    from mazeroute.layout import save_layout
    from tests.corpus import unroutable_layout
    lay = tmp_path / "stuck.yaml"
    save_layout(unroutable_layout(), lay)
    logger = logging.getLogger("mazeroute.router.negotiate")
    before = (logger.level, list(logger.handlers))
    assert main(["route", str(lay), "-o", str(tmp_path / "o"), "--backend", "cpu",
                 "--no-png", "--max-iterations", "3"]) == 0
    err = capsys.readouterr().err.splitlines()
    last = max(k for k, line in enumerate(err) if line.startswith("iteration "))
    phases = [line.split(":")[0] for line in err[last + 1:] if " nets routed, " in line]
    assert phases[:3] == ["legalise", "repair", "tidy"]
    routed = sum(n["routed"] for n in json.loads((tmp_path / "o" / "routes.json")
                                                 .read_text())["nets"])
    assert err[last + 1].startswith(f"legalise: {routed} of 8 nets routed, ")
    assert (logger.level, list(logger.handlers)) == before
    assert main(["route", str(lay), "-o", str(tmp_path / "q"), "--backend", "cpu",
                 "--no-png", "--max-iterations", "3", "-q"]) == 0
    assert " nets routed, " not in capsys.readouterr().err
    empty = tmp_path / "empty.yaml"                 # no nets: refused, no phase lines
    empty.write_text("width: 4\nheight: 3\nnets: []\n")
    assert main(["route", str(empty), "-o", str(tmp_path / "e"), "--backend", "cpu",
                 "--no-png"]) == 2
    assert " nets routed, " not in capsys.readouterr().err


def test_mode_negotiate_connects_what_sequential_walls_off(tmp_path, capsys):
    """--mode negotiate on route; routes.json says its mode."""
    from mazeroute.layout import save_layout
    from tests.corpus import other_side_layout
    lay = tmp_path / "swap.yaml"
    save_layout(other_side_layout(), lay)     # a's straight wire walls b off
    seq, neg = tmp_path / "s", tmp_path / "n"
    assert main(["route", str(lay), "-o", str(seq), "-q", "--backend", "cpu", *SEQ]) == 0
    assert main(["route", str(lay), "-o", str(neg), "--backend", "cpu", "--mode",
                 "negotiate"]) == 0
    assert "iteration 1:" in capsys.readouterr().err
    s = json.loads((seq / "routes.json").read_text())
    n = json.loads((neg / "routes.json").read_text())
    assert s["mode"] == "sequential" and n["mode"] == "negotiate"
    assert sum(x["routed"] for x in s["nets"]) < sum(x["routed"] for x in n["nets"]) == 2
    assert main(["check", str(lay), "--routes", str(neg / "routes.json")]) == 0
    assert "iteration" in (neg / "report.txt").read_text().lower()


@pytest.mark.parametrize("argv, field", [
    (["--max-iterations", "0", "--mode", "negotiate"], "--max-iterations"),
    (["--time-limit", "-1", "--mode", "negotiate"], "--time-limit"),
    (["--max-iterations", "5", *SEQ], "--max-iterations"),
    (["--time-limit", "5", *SEQ], "--time-limit"),
    (["--fill-steps", "-1", "--mode", "negotiate"], "--fill-steps"),
    (["--fill-steps", "5", *SEQ], "--fill-steps"),
    (["--snapshot-nets", "0", "--mode", "negotiate"], "--snapshot-nets"),
    (["--snapshot-nets", "4", *SEQ], "--snapshot-nets"),
    (["--group-nets", "-1", "--mode", "negotiate"], "--group-nets"),
    (["--group-nets", "8", *SEQ], "--group-nets"),
    (["--reroute-order", "hpwl", *SEQ], "--reroute-order"),
    (["--congestion", "c.png", *SEQ], "--congestion"),
    (["--order", "hpwl"], "--order"),                          # sequential only
    (["--strategy", "cpu/grid", "--mode", "negotiate"], "--strategy"),
])
def test_mode_options_are_checked_before_any_work(argv, field, good, tmp_path, capsys):
    out = tmp_path / "o"
    assert main(["route", str(good), "-o", str(out), *argv]) == 2
    assert field in _one_line(capsys.readouterr().err)
    assert not out.exists()


def test_batch_takes_the_routing_mode(tmp_path):
    from mazeroute.layout import save_layout
    from tests.corpus import other_side_layout
    folder = tmp_path / "in"
    folder.mkdir()
    save_layout(other_side_layout(), folder / "swap.yaml")
    for mode, routed in (("sequential", 1), ("negotiate", 2)):
        out = tmp_path / mode
        assert main(["batch", str(folder), "-o", str(out), "-q", "--no-png", "--backend",
                     "cpu", "--mode", mode, "--summary", "json"]) == 0
        rows = json.loads((out / "summary.json").read_text())
        assert [int(r["routed"]) for r in rows] == [routed]
        assert json.loads((out / rows[0]["folder"] / "routes.json").read_text())["mode"] == mode


def test_default_mode_is_negotiate_and_sequential_is_unchanged(tmp_path):
    """Negotiate is the default of route and batch; --mode sequential
    writes exactly the sequential router's routes."""
    from mazeroute.cli import build_parser
    from mazeroute.layout import save_layout
    from mazeroute.router import Router
    from tests.corpus import other_side_layout
    for command in ("route", "batch"):
        assert build_parser().parse_args([command, "x.yaml"]).mode == "negotiate"
    layout = other_side_layout()                   # sequential walls b off; negotiate not
    folder = tmp_path / "in"
    folder.mkdir()
    lay = folder / "swap.yaml"
    save_layout(layout, lay)
    default, seq = tmp_path / "d", tmp_path / "s"
    assert main(["route", str(lay), "-o", str(default), "-q", "--no-png", "--backend",
                 "cpu"]) == 0
    d = json.loads((default / "routes.json").read_text())
    assert d["mode"] == "negotiate" and [n["routed"] for n in d["nets"]] == [True, True]
    assert main(["route", str(lay), "-o", str(seq), "-q", "--no-png", "--backend", "cpu",
                 *SEQ, "--order", "file"]) == 0
    s = json.loads((seq / "routes.json").read_text())
    want = Router(layout, "cpu").run("file").to_json()
    assert s["mode"] == "sequential" and s["nets"] == want["nets"]
    assert [n["routed"] for n in s["nets"]] == [True, False]
    out = tmp_path / "b"
    assert main(["batch", str(folder), "-o", str(out), "-q", "--no-png", "--backend", "cpu",
                 "--summary", "json"]) == 0
    row, = json.loads((out / "summary.json").read_text())
    assert int(row["routed"]) == 2
    assert json.loads((out / row["folder"] / "routes.json").read_text())["mode"] == "negotiate"


@pytest.mark.parametrize("flag, field, value, default", [
    ("--snapshot-nets", "snapshot_nets", 8, 1),
    ("--group-nets", "group_nets", 8, 0),
    ("--reroute-order", "reroute_order", "hpwl", "colour"),
])
def test_pathfinder_options_reach_the_negotiation_of_route_and_batch(tmp_path, flag, field,
                                                                      value, default):
    """``--snapshot-nets 8`` and ``--reroute-order hpwl`` route as the API's option of
    that value (which differs from the default's routes on this layout), in ``route``
    and in ``batch``."""

    from mazeroute.generate import random_layout
    from mazeroute.router import PathFinderOptions, route
    lay = random_layout(72, 64, density=0.25, nets=110, pins=2, seed=0, span=20)
    path = tmp_path / "lay.yaml"
    path.write_text(yaml.safe_dump(lay.to_dict()))
    want = [route(lay, backend="cpu", mode="negotiate",
                  options=PathFinderOptions(**{field: v})).to_json()["nets"]
            for v in (value, default)]
    assert want[0] != want[1]
    one, many = tmp_path / "one", tmp_path / "many"
    assert main(["route", str(path), "-o", str(one), "--backend", "cpu", flag, str(value),
                 "--no-png"]) == 0
    assert json.loads((one / "routes.json").read_text())["nets"] == want[0]
    assert main(["batch", str(path), "-o", str(many), "--backend", "cpu", flag, str(value),
                 "--no-png", "--quiet"]) == 0
    got = next(many.rglob("routes.json"))
    assert json.loads(got.read_text())["nets"] == want[0]


@pytest.mark.parametrize("flag, value", [("--fill-steps", "100000000000000000000"),
                                         ("--window-work", "100000000000000000000"),
                                         ("--snapshot-nets", "100000000000000000000"),
                                         ("--max-iterations", "100000000000000000000"),
                                         ("--time-limit", "1e300")])
def test_huge_negotiation_options_are_one_line(tmp_path, good, capsys, flag, value):
    """Values beyond what the compiled code takes are refused before any work."""
    assert main(["route", str(good), "-o", str(tmp_path / "x"), "--backend", "cpu", flag,
                 value]) == 2
    assert flag in _one_line(capsys.readouterr().err)
    assert not (tmp_path / "x").exists()


def test_an_unknown_reroute_order_is_refused(tmp_path, good):
    with pytest.raises(SystemExit) as bad:
        main(["route", str(good), "-o", str(tmp_path / "x"), "--reroute-order", "random"])
    assert bad.value.code == 2


def test_fill_steps_turn_the_space_filling_search_off_or_on(tmp_path, capsys):
    from tests.corpus import PUZZLE
    puzzle = tmp_path / "puzzle.txt"
    puzzle.write_text(PUZZLE)
    off, on = tmp_path / "off", tmp_path / "on"
    # held to 50 iterations, negotiation leaves this puzzle incomplete (with its whole
    # budget it completes it: tests/test_negotiate.py)
    held = ["--max-iterations", "50"]
    off_ = ["--fill-steps", "0", "--window-work", "0"]       # and the exact windows
    assert main(["route", str(puzzle), "-o", str(off), *off_, *held]) == 0
    assert main(["route", str(puzzle), "-o", str(on), *held]) == 0
    printed = capsys.readouterr().out
    assert "space-filling search connected them all" in printed
    routed = [sum(n["routed"] for n in json.loads((d / "routes.json").read_text())["nets"])
              for d in (off, on)]
    assert routed[0] < routed[1] == 18
    assert main(["check", str(puzzle), "--routes", str(on / "routes.json")]) == 0
    windows = tmp_path / "windows"      # without the search, windows do it (given twice
    assert main(["route", str(puzzle), "-o", str(windows), "--fill-steps", "0",   # the work
                 "--window-work", "100000", *held]) == 0
    assert "exact re-solves of windows round the others connected" in capsys.readouterr().out
    assert sum(n["routed"] for n in json.loads((windows / "routes.json").read_text())[
        "nets"]) == 18
    assert main(["check", str(puzzle), "--routes", str(windows / "routes.json")]) == 0
    batch = tmp_path / "batch"                      # batch takes it too
    assert main(["batch", str(puzzle), "-o", str(batch), *off_, *held]) == 0
    rows = list(csv.DictReader((batch / "summary.csv").open()))
    assert [int(r["routed"]) for r in rows] == [routed[0]]


def test_bench_refuses_a_negative_seed(capsys):
    assert main(["bench", "--size", "16", "--repeats", "1", "--seed", "-1"]) == 2
    assert "--seed" in _one_line(capsys.readouterr().err)


def test_help_of_check_nets_and_generate_options(capsys):
    for argv, words in ((["check", "--help"], ["check this netlist", "--scen-limit N"]),
                        (["generate", "--help"], ["grid width in cells", "grid height in",
                                                  "random seed", "cannot be routed together",
                                                  "--span 40"])):
        with pytest.raises(SystemExit):
            main(argv)
        text = " ".join(capsys.readouterr().out.split())
        assert all(w in text for w in words), (words, text)


def test_route_prints_the_negotiation_iterations_once(tmp_path, capsys):
    """The iterations and phases are lines on stderr as they run; the printed report
    then gives their totals, not the tables again (report.txt keeps the tables)."""
    from mazeroute.layout import save_layout
    from tests.corpus import unroutable_layout
    lay = tmp_path / "stuck.yaml"
    save_layout(unroutable_layout(), lay)
    assert main(["route", str(lay), "-o", str(tmp_path / "o"), "--backend", "cpu",
                 "--no-png", "--max-iterations", "3"]) == 0
    out, err = capsys.readouterr()
    assert [line.split(":")[0] for line in err.splitlines()
            if line.startswith("iteration ")] == ["iteration 1", "iteration 2", "iteration 3"]
    assert "iteration  overused cells" not in out and "after the loop  " not in out
    assert "negotiation: stopped after 3 iterations" in out
    assert re.search(r"^iterations [0-9.]+ m?s, after the loop [0-9.]+ m?s$", out, re.M)
    saved = (tmp_path / "o" / "report.txt").read_text()
    assert "iteration  overused cells" in saved and "after the loop  " in saved
