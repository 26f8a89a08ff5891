"""The batch, one input file at a time (mazeroute.batch): folders named in input order,
netlists over a base layout, --resume, the summary's order, and what a killed worker
leaves. The same inputs serve tests/test_distributed.py, which checks that the Dask batch
gives exactly what these serial runs give."""

from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import mazeroute.batch as batch
from mazeroute.batch import (
    BatchOptions,
    FileOutcome,
    Summary,
    assign_folders,
    complete_outputs,
    load_file,
    sweep_temporaries,
)
from mazeroute.cli import build_parser, main
from mazeroute.contract import check_routes
from mazeroute.readers import load_layout
from mazeroute.report import SUMMARY_FIELDS, SUMMARY_NUMBERS, summary_row
from tests.test_cli import GOOD, before_layout

ROOT = Path(__file__).resolve().parent.parent

BASE = GOOD.replace("name: demo", "name: chip")     # the CLI tests' layout
#: Two puzzles of the base's size whose pins avoid its blockages.
PUZZLES_8x6 = ("8 6\nA.......\n........\nB......B\n........\n........\nA.......\n\n"
               "8 6\n........\nC......C\n........\n........\nD......D\n........\n")


#: A layout whose second net crosses a wall: routed 1 of 2.
WALLED = ("name: walled\nwidth: 6\nheight: 3\nblockages: [[4, 0, 4, 2]]\nnets:\n"
          "  - {name: a, pins: [[0, 0], [3, 0]]}\n  - {name: b, pins: [[0, 2], [5, 2]]}\n")


def layout_text(name: str) -> str:
    """A small layout named ``name``: two two-pin nets and a three-pin tree, all routable."""
    return (f"name: {json.dumps(name)}\nwidth: 8\nheight: 5\nblockages: [[3, 0, 3, 1]]\n"
            "nets:\n  - {name: a, pins: [[0, 0], [7, 0]]}\n"
            "  - {name: b, pins: [[0, 4], [7, 4]]}\n"
            "  - {name: t, pins: [[1, 2], [6, 2], [4, 3]]}\n")


def mixed_folder(root: Path) -> Path:
    """Good and bad layouts, names that collide (folder names depend on input order),
    a numberlink file of two puzzles, an ADC problem and a README that is no layout."""
    src = root / "mixed"
    src.mkdir()
    files = {
        "a_first.yaml": layout_text("demo"),
        "b_broken.yaml": "width: 3\nheight: 3\n",                       # no nets: invalid
        "c_again.yml": layout_text("demo"),                             # -> demo-2
        "d_puzzles.txt": "5 3\nA...B\n.....\nA...B\n\n4 2\nC..C\nD..D\n0 0\n",
        "e_contest.txt": "SIZE 5X4\nLINE_NUM 2\nLINE#1 (0,0)-(4,2)\nLINE#2 (0,3)-(4,3)\n",
        "f_taken.yaml": layout_text("demo-2"),                          # -> demo-2-2
        "g_walled.yaml": WALLED,                                        # a net unrouted
        "h_pin_on_block.yaml": layout_text("demo").replace("[4, 3]]", "[3, 1]]"),
        "i_empty.yaml": "name: empty\nwidth: 2\nheight: 2\nnets: []\n",      # invalid too
        "README.txt": "Notes about these layouts.\n",
    }
    for name, text in files.items():
        (src / name).write_text(text)
    return src


def netlist_folder(root: Path) -> tuple[Path, Path]:
    """A base layout and a folder of netlists for it: good, bad (a pin on a blockage, a
    full layout, a puzzle of another size), a puzzle file of two, a repeated name."""
    base = root / "base.yaml"
    base.write_text(BASE)
    src = root / "netlists"
    (src / "sub").mkdir(parents=True)
    nets = "nets:\n  - {name: p, pins: [[0, 0], [7, 2]]}\n  - {name: q, pins: [[0, 4], [7, 4]]}\n"
    (src / "n1.yaml").write_text(nets)
    (src / "n2.yaml").write_text("nets:\n  - {name: p, pins: [[0, 0], [3, 2]]}\n")
    (src / "n3.yaml").write_text(BASE)                          # a layout, not a netlist
    (src / "n4.txt").write_text(PUZZLES_8x6)
    (src / "n5.txt").write_text("3 2\na.a\nb.b\n")
    (src / "sub" / "n1.yaml").write_text(nets.replace("[7, 4]", "[4, 5]"))
    return base, src


def routed_layouts(monkeypatch) -> list[str]:
    """The names of the layouts the sequential router routes from now on, in order
    (a list that fills as they are routed)."""
    routed: list[str] = []
    real = batch.Router.run

    def run(self, *a, **k):
        routed.append(self.layout.name)
        return real(self, *a, **k)
    monkeypatch.setattr(batch.Router, "run", run)
    return routed


def rows_of(out: Path) -> list[dict]:
    return list(csv.DictReader((out / "summary.csv").open(encoding="utf-8")))


def comparable(rows: list[dict]) -> list[dict]:
    """Rows without what may differ between equal runs: timings, workers, devices."""
    return [{k: v for k, v in r.items() if k not in ("seconds", "worker", "device")}
            for r in rows]


def outputs_of(out: Path) -> dict[str, bytes]:
    """Every output file under ``out`` (not the summary), report times blanked."""
    found = {}
    for p in sorted(out.rglob("*")):
        if p.is_file() and p.parent != out:
            data = p.read_bytes()
            if p.name == "report.txt":
                data = re.sub(rb"\d+(\.\d+)? m?s\b", b"T", data)
            found[str(p.relative_to(out))] = data
    return found


#: Sequential mode, for the tests that watch its router (negotiate is the default).
SEQ = ("--mode", "sequential")


def cpu(*argv: str) -> list[str]:
    return ["batch", *argv, "-q", "--backend", "cpu"]


# -- folder names --------------------------------------------------------------------------
def test_folders_follow_input_order_and_only_loaded_layouts_take_names(tmp_path):
    src = mixed_folder(tmp_path)
    out = tmp_path / "out"
    assert main(cpu(str(src), "-o", str(out), "--no-png")) == 2
    rows = rows_of(out)
    assert [(Path(r["file"]).name, r["folder"], r["status"]) for r in rows] == [
        ("a_first.yaml", "demo", "ok"), ("b_broken.yaml", "", "invalid"),
        ("c_again.yml", "demo-2", "ok"), ("d_puzzles.txt#1", "d_puzzles-1", "ok"),
        ("d_puzzles.txt#2", "d_puzzles-2", "ok"), ("e_contest.txt", "e_contest", "ok"),
        ("f_taken.yaml", "demo-2-2", "ok"), ("g_walled.yaml", "walled", "ok"),
        ("h_pin_on_block.yaml", "", "invalid"), ("i_empty.yaml", "", "invalid")]
    walled = rows[7]
    assert (walled["nets"], walled["routed"]) == ("2", "1")
    assert rows[0]["worker"] == rows[0]["device"] == ""            # serial, on the CPU
    # the same names, decided ahead from the files' layout names alone, in input order
    options, taken = BatchOptions(backend="cpu"), set()
    planned = []
    for f in batch.collect([str(src)]):
        plan = load_file(str(f), options).plan()
        planned += assign_folders(plan.names, taken) if plan.error is None else [""]
    assert planned == [r["folder"] for r in rows]
    for r in rows:
        if r["status"] == "ok":
            routes = json.loads((out / r["folder"] / "routes.json").read_text())
            assert routes["layout"] == r["layout"]


# -- netlists over a base layout ---------------------------------------------------------------
def test_batch_of_netlists_routes_each_over_the_base(tmp_path, capsys):
    base, src = netlist_folder(tmp_path)
    out = tmp_path / "out"
    assert main(cpu("--layout", str(base), str(src), str(base), "-o", str(out),
                    "--no-png", *SEQ)) == 2              # the base is no netlist
    rows = {Path(r["file"]).relative_to(src).as_posix(): r for r in rows_of(out)}
    assert list(rows) == ["n1.yaml", "n2.yaml", "n3.yaml", "n4.txt#1", "n4.txt#2", "n5.txt",
                          "sub/n1.yaml"]
    assert [rows[k]["folder"] for k in rows] == ["n1", "", "", "n4-1", "n4-2", "", "n1-2"]
    assert all(rows[k]["status"] == "ok" for k in ("n1.yaml", "n4.txt#1", "n4.txt#2",
                                                    "sub/n1.yaml"))
    assert "n2.yaml" in rows["n2.yaml"]["error"] and "blockages" in rows["n2.yaml"]["error"]
    assert rows["n3.yaml"]["status"] == "invalid"
    assert "full layout" in rows["n3.yaml"]["error"] and "n3.yaml" in rows["n3.yaml"]["error"]
    assert "is 3 x 2, the base layout 8 x 6" in rows["n5.txt"]["error"]
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 3 and all(line.startswith("mazeroute: error: ") for line in err)
    chip = load_layout(base)
    for key, names in (("n1.yaml", ["p", "q"]), ("n4.txt#1", ["A", "B"]),
                       ("n4.txt#2", ["C", "D"])):
        routes = json.loads((out / rows[key]["folder"] / "routes.json").read_text())
        assert [n["name"] for n in routes["nets"]] == names
        netlist = [n for n in load_file(str(src / key.split("#")[0]), BatchOptions(),
                                        str(base)).layouts
                   if n.name == rows[key]["layout"]][0]
        assert netlist.rects == chip.rects and (netlist.blocked == chip.blocked).all()
        assert check_routes(netlist, routes, sequential=True) == []   # the base's blockages
        for net in routes["nets"]:
            assert all(not chip.blocked[y, x] for x, y in net["cells"])


def test_a_bad_base_layout_is_one_line_before_any_work(tmp_path, capsys):
    _, src = netlist_folder(tmp_path)
    two = tmp_path / "two.txt"
    two.write_text(PUZZLES_8x6)
    for base, words in ((tmp_path / "missing.yaml", "no such file"),
                        (two, "--layout: holds 2 puzzles")):
        assert main(cpu("--layout", str(base), str(src), "-o", str(tmp_path / "o"))) == 2
        line = capsys.readouterr().err.strip()
        assert "\n" not in line and str(base) in line and words in line
        assert not (tmp_path / "o").exists()


# -- --resume -------------------------------------------------------------------------------------
def interrupted_serial_run(src: Path, out: Path, monkeypatch, at: str, *extra: str) -> None:
    """A serial batch stopped (Ctrl-C) as it writes layout ``at``: earlier ones finished."""
    real = batch.format_report

    def report(result, *a, **k):
        if result.layout.name == at:
            raise KeyboardInterrupt
        return real(result, *a, **k)
    with monkeypatch.context() as m:
        m.setattr(batch, "format_report", report)
        assert main(cpu(str(src), "-o", str(out), *extra)) == 130


@pytest.mark.parametrize("where", ["route", "load"])
def test_an_interrupt_behind_a_system_error_stops_the_batch(tmp_path, monkeypatch, where):
    """Ctrl-C landing while compiled code calls back into Python comes out as a
    SystemError caused by the interrupt: the batch stops there (status 130, the layouts
    before it kept, the rest not routed), not a failed row and the batch going on."""
    src = five_layouts(tmp_path)
    out = tmp_path / "out"

    def wrapped():
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as e:
            raise SystemError("CPUDispatcher(...) returned a result with an exception set") \
                from e
    if where == "route":
        before_layout(monkeypatch, "n2", wrapped)
    else:
        real = batch.load_all

        def load_all(file, *a, **k):
            if Path(file).name == "l2.yaml":
                wrapped()
            return real(file, *a, **k)
        monkeypatch.setattr(batch, "load_all", load_all)
    assert main(cpu(str(src), "-o", str(out), *SEQ)) == 130
    rows = rows_of(out)
    assert [r["status"] for r in rows][:2] == ["ok", "ok"]
    assert all(r["status"] != "failed" and "SystemError" not in r.get("error", "")
               for r in rows)
    assert not (out / "n3").exists() and not (out / "n4").exists()


def five_layouts(root: Path) -> Path:
    src = root / "five"
    src.mkdir()
    for i in range(5):
        (src / f"l{i}.yaml").write_text(layout_text(f"n{i}"))
    return src


def stamps(out: Path) -> dict[str, int]:
    return {str(p.relative_to(out)): p.stat().st_mtime_ns for p in out.rglob("*")
            if p.is_file() and p.parent != out}


def test_an_interrupted_file_of_puzzles_keeps_the_rows_of_those_it_finished(tmp_path,
                                                                           monkeypatch):
    """A numberlink file of four puzzles, stopped (Ctrl-C) as it writes the third: the
    summary has the first two puzzles' rows and the third marked interrupted, by its
    label; it no longer says of the whole file that nothing was written."""
    src = tmp_path / "four.txt"
    src.write_text(PUZZLES_8x6 + "\n" + PUZZLES_8x6)
    out = tmp_path / "out"
    interrupted_serial_run(src, out, monkeypatch, "four-3")
    rows = rows_of(out)
    assert [(r["file"], r["status"]) for r in rows] == [
        (f"{src}#1", "ok"), (f"{src}#2", "ok"), (f"{src}#3", "interrupted")]
    assert [r["layout"] for r in rows[:2]] == ["four-1", "four-2"]
    assert sorted(p.name for p in out.iterdir()) == ["four-1", "four-2", "summary.csv"]
    resumed = main(cpu(str(src), "-o", str(out), "--resume"))
    assert resumed == 0 and [r["status"] for r in rows_of(out)] == ["ok"] * 4


def test_resume_keeps_complete_outputs_and_routes_the_rest(tmp_path, monkeypatch):
    """Sequential mode, whose router the test watches."""
    src = five_layouts(tmp_path)
    out, fresh = tmp_path / "out", tmp_path / "fresh"
    interrupted_serial_run(src, out, monkeypatch, "n3", *SEQ)
    assert [r["status"] for r in rows_of(out)] == ["ok", "ok", "ok", "interrupted"]
    # damaged outputs are routed again: a wire through a blockage, a missing report
    broken = json.loads((out / "n1" / "routes.json").read_text())
    broken["nets"][0]["cells"][1] = [3, 0]
    (out / "n1" / "routes.json").write_text(json.dumps(broken))
    (out / "n2" / "report.txt").unlink()
    before = stamps(out)
    routed = routed_layouts(monkeypatch)
    assert main(cpu(str(src), "-o", str(out), "--resume", *SEQ)) == 0
    assert routed == ["n1", "n2", "n3", "n4"]
    after = stamps(out)
    assert {k for k in before if before[k] == after[k]} == {
        "n0/routes.json", "n0/report.txt", "n0/layout.png"}
    assert main(cpu(str(src), "-o", str(fresh), *SEQ)) == 0
    routed.clear()
    assert comparable(rows_of(out)) == comparable(rows_of(fresh))
    assert outputs_of(out) == outputs_of(fresh)
    old = rows_of(out)[0]
    assert old["seconds"] != "" and float(old["seconds"]) > 0    # kept from the last summary
    # everything complete: nothing is routed, every row kept
    assert main(cpu(str(src), "-o", str(out), "--resume", *SEQ)) == 0
    assert routed == [] and comparable(rows_of(out)) == comparable(rows_of(fresh))


def test_complete_outputs_checks_the_routes_against_the_layout(tmp_path):
    src = five_layouts(tmp_path)
    out = tmp_path / "out"
    assert main(cpu(str(src), "-o", str(out), "--no-png", *SEQ)) == 0
    lay = load_file(str(src / "l0.yaml"), BatchOptions()).layouts[0]
    other = load_file(str(src / "l1.yaml"), BatchOptions()).layouts[0]
    no_png, png = BatchOptions(no_png=True, mode="sequential"), BatchOptions(mode="sequential")
    kept = complete_outputs(lay, out / "n0", no_png)
    assert kept is not None and kept.routed == 3 and kept.engine == "cpu/grid"
    assert complete_outputs(other, out / "n0", no_png) is not None   # same nets and cells
    assert complete_outputs(lay, out / "n0", png) is None            # the picture is missing
    html = BatchOptions(no_png=True, html=True, mode="sequential")
    assert complete_outputs(lay, out / "n0", html) is None
    assert complete_outputs(lay, out / "nowhere", no_png) is None
    # routed in the other mode: routed again (a batch resumed after the default changed)
    assert complete_outputs(lay, out / "n0", BatchOptions(no_png=True)) is None
    moved = load_file(str(src / "l0.yaml"), BatchOptions()).layouts[0]
    moved.nets[0].pins[1] = (7, 1)                                   # another netlist
    assert complete_outputs(moved, out / "n0", no_png) is None
    (out / "n0" / "routes.json").write_text("{not json")
    assert complete_outputs(lay, out / "n0", no_png) is None


def test_summary_rewrites_stay_a_fraction_of_the_batch(tmp_path, monkeypatch):
    """Rewriting every row after every file was quadratic (on many tiny layouts the summary
    took most of the batch). Here each write takes a second of a fake clock and routing
    none: the summary is written once early, then held back, and complete at the end."""
    import types
    src = tmp_path / "many"
    src.mkdir()
    for i in range(30):
        (src / f"l{i:02d}.yaml").write_text(layout_text(f"n{i:02d}"))
    clock = [0.0]
    monkeypatch.setattr(batch, "time", types.SimpleNamespace(monotonic=lambda: clock[0]))
    real, writes = batch.write_summary, []

    def slow(path, rows, kind):
        real(path, rows, kind)
        writes.append(len(rows))
        clock[0] += 1.0
    monkeypatch.setattr(batch, "write_summary", slow)
    out = tmp_path / "out"
    assert main(cpu(str(src), "-o", str(out), "--no-png", *SEQ)) == 0
    assert writes == [1, 30]
    assert [r["layout"] for r in rows_of(out)] == [f"n{i:02d}" for i in range(30)]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_resume_does_not_wait_on_a_fifo_in_place_of_its_files(tmp_path):
    """A FIFO where routes.json or summary.csv was: opening it for reading would wait for
    a writer that never comes. The batch runs in a process of its own, so a hang fails."""
    src = five_layouts(tmp_path)
    out = tmp_path / "out"
    assert main(cpu(str(src), "-o", str(out), "--no-png", *SEQ)) == 0
    for p in (out / "n1" / "routes.json", out / "summary.csv"):
        p.unlink()
        os.mkfifo(p)
    done = subprocess.run([sys.executable, "-m", "mazeroute", *cpu(
        str(src), "-o", str(out), "--no-png", "--resume", *SEQ)], capture_output=True,
        text=True, timeout=60, cwd=Path(__file__).resolve().parent.parent)
    assert done.returncode == 0, done.stderr
    assert (out / "n1" / "routes.json").is_file() and (out / "summary.csv").is_file()
    assert [r["status"] for r in rows_of(out)] == ["ok"] * 5


def test_resume_routes_again_what_other_options_routed(tmp_path):
    """Outputs made with other routing options (an order, a negotiation setting) may hold
    other routes: --resume routes them again, and keeps those made with the same ones."""
    src = five_layouts(tmp_path)
    out = tmp_path / "out"
    assert main(cpu(str(src), "-o", str(out), "--no-png", *SEQ)) == 0
    lay = load_file(str(src / "l0.yaml"), BatchOptions()).layouts[0]
    seq = BatchOptions(no_png=True, mode="sequential")
    assert complete_outputs(lay, out / "n0", seq) is not None
    assert "options" not in json.loads((out / "n0" / "routes.json").read_text())
    assert complete_outputs(lay, out / "n0", BatchOptions(no_png=True, mode="sequential",
                                                          order="file")) is not None
    hpwl = BatchOptions(no_png=True, mode="sequential", order="hpwl")
    assert complete_outputs(lay, out / "n0", hpwl) is None
    assert main(cpu(str(src), "-o", str(out), "--no-png", "--resume", *SEQ,
                    "--order", "hpwl")) == 0
    assert json.loads((out / "n0" / "routes.json").read_text())["options"] == {"order": "hpwl"}
    assert complete_outputs(lay, out / "n0", hpwl) is not None
    assert complete_outputs(lay, out / "n0", seq) is None
    neg = tmp_path / "neg"
    assert main(cpu(str(src), "-o", str(neg), "--no-png", "--max-iterations", "3")) == 0
    held = BatchOptions(no_png=True, mode="negotiate", max_iterations=3)
    assert complete_outputs(lay, neg / "n0", held) is not None
    assert complete_outputs(lay, neg / "n0", BatchOptions(no_png=True)) is None
    assert complete_outputs(lay, neg / "n0", BatchOptions(no_png=True, mode="negotiate",
                                                          max_iterations=3,
                                                          fill_steps=0)) is None


# -- the summary ------------------------------------------------------------------------
def test_summary_keeps_input_order_whatever_order_files_finish_in(tmp_path):
    s = Summary(tmp_path / "summary.csv", "csv")
    row = lambda name: summary_row(name, error="x", status="invalid")  # noqa: E731
    s.start(0, "f0", ["a"])
    s.start(1, "f1", ["b", "c"])
    s.start(2, "f2", ["d"])
    s.finish(2, FileOutcome([row("f2")], [False]))
    s.write()
    assert [r["file"] for r in rows_of(tmp_path)] == ["f2"]
    s.finish(0, FileOutcome([row("f0")], [False]))
    s.write()
    assert [r["file"] for r in rows_of(tmp_path)] == ["f0", "f2"]
    assert s.interrupt() == ["b", "c"]
    s.write()
    assert [(r["file"], r["status"]) for r in rows_of(tmp_path)] == [
        ("f0", "invalid"), ("f1", "interrupted"), ("f2", "invalid")]


def test_json_summary_types_its_numbers_and_the_csv_stays_as_it_was(tmp_path):
    """A missing number is null in JSON (it was ``""``), a present one a JSON number;
    the CSV of the same batch keeps its empty cells."""
    src = mixed_folder(tmp_path)
    out_json, out_csv = tmp_path / "j", tmp_path / "c"
    assert main(cpu(str(src), "-o", str(out_json), "--no-png", "--summary", "json")) == 2
    assert main(cpu(str(src), "-o", str(out_csv), "--no-png")) == 2
    rows, texts = json.loads((out_json / "summary.json").read_text()), rows_of(out_csv)
    assert [r["status"] for r in rows] == [t["status"] for t in texts]
    assert {r["status"] for r in rows} == {"ok", "invalid"}
    for row, text in zip(rows, texts):
        assert list(row) == list(SUMMARY_FIELDS)
        for key in SUMMARY_FIELDS:
            if key not in SUMMARY_NUMBERS:
                assert isinstance(row[key], str), (key, row)
            elif row["status"] != "ok":
                assert row[key] is None and text[key] == "", (key, row, text)
            else:
                assert type(row[key]) is (float if key == "seconds" else int), (key, row)
                if key != "seconds":                   # timings differ between the runs
                    assert str(row[key]) == text[key]
    walled = next(r for r in rows if r["layout"] == "walled")
    assert (walled["nets"], walled["routed"]) == (2, 1)


def test_resume_reads_csv_old_json_and_typed_json_summaries(tmp_path, monkeypatch):
    """The ``seconds`` a kept layout takes over come out a number whichever summary the
    last run left: CSV, JSON of the old code (numbers as text, missing ones ``""``), or
    typed JSON."""
    src = five_layouts(tmp_path)
    out = tmp_path / "out"
    assert main(cpu(str(src), "-o", str(out), "--no-png")) == 0
    timed = {r["folder"]: float(r["seconds"]) for r in rows_of(out)}
    routed = routed_layouts(monkeypatch)

    def resumed() -> list[dict]:
        assert main(cpu(str(src), "-o", str(out), "--no-png", "--resume",
                        "--summary", "json")) == 0
        assert routed == []
        rows = json.loads((out / "summary.json").read_text())
        assert {r["folder"]: r["seconds"] for r in rows} == timed
        assert all(type(r["seconds"]) is float and type(r["routed"]) is int for r in rows)
        return rows

    rows = resumed()                                   # from summary.csv
    (out / "summary.csv").unlink()
    old = [{k: "" if v is None else str(v) if k == "seconds" else v for k, v in r.items()}
           for r in rows]
    old[0]["width"] = ""                               # the old code's missing number
    (out / "summary.json").write_text(json.dumps(old))
    resumed()                                          # from the old JSON
    resumed()                                          # from the typed JSON


@pytest.mark.parametrize("text", ["5", "null", "true", '"text"', '{"file": "x"}'])
def test_resume_over_a_json_summary_that_is_not_a_table_routes_again(tmp_path, text):
    src = five_layouts(tmp_path)
    out = tmp_path / "out"
    assert main(cpu(str(src), "-o", str(out), "--no-png", "--summary", "json")) == 0
    (out / "summary.json").write_text(text)
    assert batch.read_summary(out) == {}
    assert main(cpu(str(src), "-o", str(out), "--no-png", "--resume",
                    "--summary", "json")) == 0
    assert [r["status"] for r in json.loads((out / "summary.json").read_text())] == ["ok"] * 5


# -- progress --------------------------------------------------------------------------
def serial_progress(src: Path, out: Path) -> tuple[list[tuple], list[dict]]:
    """The progress reports of a serial batch of ``src``, and its summary rows."""
    files = [str(f) for f in batch.collect([str(src)])]
    out.mkdir()
    summary, seen = Summary(out / "summary.csv", "csv"), []
    batch.run_serial(files, out, BatchOptions(backend="cpu", no_png=True, quiet=True),
                     summary, progress=lambda *a: seen.append(a))
    return seen, summary.rows


def test_serial_progress_counts_layouts_as_the_summary_does(tmp_path):
    """9 files, 10 rows (a numberlink file holds 2 puzzles): the bar ends at 10/10, and
    while files are unread its total is a floor that it says is one."""
    seen, rows = serial_progress(mixed_folder(tmp_path), tmp_path / "out")
    nets = sum(int(r["nets"] or 0) for r in rows)
    assert len(rows) == 10 and nets == 17
    assert [(done, total) for done, total, _ in seen] == [
        (1, 9), (2, 9), (3, 9), (5, 10), (6, 10), (7, 10), (8, 10), (9, 10), (10, 10)]
    assert seen[0][2] == "layouts (8 files unread), 3/3 nets"
    assert seen[-2][2] == "layouts (1 file unread), 17/17 nets"
    assert seen[-1][2] == f"layouts, {nets}/{nets} nets"


def test_the_batch_bar_on_the_terminal_ends_at_the_summarys_count(tmp_path, capsys):
    src = mixed_folder(tmp_path)
    assert main(["batch", str(src), "-o", str(tmp_path / "out"), "--no-png",
                 "--backend", "cpu"]) == 2
    cap = capsys.readouterr()
    bars = [line for line in cap.err.splitlines() if line.startswith("[")]
    assert bars[-1] == "[" + "#" * 30 + "] 10/10 layouts, 17/17 nets"
    assert cap.out.startswith("7/10 layouts routed (")      # i_empty has no nets


def test_sweep_removes_a_killed_workers_temporaries_only(tmp_path):
    done, cut, empty = tmp_path / "done", tmp_path / "cut", tmp_path / "empty"
    for folder in (done, cut, empty):
        folder.mkdir()
    (done / "routes.json").write_text("{}")
    (done / ".routes.x1y2.json.part").write_text("{")
    (done / "notes.part").write_text("mine")
    (cut / ".layout.abc.png.part").write_bytes(b"\x89PNG")
    sweep_temporaries(tmp_path, ["done", "cut", "empty"])
    assert sorted(p.name for p in done.iterdir()) == ["notes.part", "routes.json"]
    assert not cut.exists() and not empty.exists()


def test_options_reach_every_layout(tmp_path):
    args = build_parser().parse_args(["batch", "x", "--strategy", "frontier", "--order",
                                      "hpwl", "--no-png", "--html", "--resume",
                                      "--format", "yaml"])
    assert BatchOptions.from_args(args) == BatchOptions(
        backend="auto", strategy="frontier", order="hpwl", format="yaml", no_png=True,
        html=True, quiet=False, resume=True)


def test_serial_batch_never_imports_dask(tmp_path):
    """--workers 1 (the default) is the in-process loop: no Dask import at all."""
    src = five_layouts(tmp_path)
    code = ("import sys; from mazeroute.cli import main; "
            f"rc = main(['batch', {str(src)!r}, '-o', {str(tmp_path / 'o')!r}, '-q', "
            "'--no-png', '--backend', 'cpu', '--workers', '1']); "
            "print(rc, sorted(m for m in sys.modules if m.split('.')[0] in "
            "('dask', 'distributed', 'mazeroute.distributed')))")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=env, timeout=120)
    assert r.stdout.split() == ["0", "[]"], r.stderr


@pytest.mark.parametrize("argv, words", [
    (["--workers", "0"], "--workers: must be >= 1, got 0"),
    (["--workers", "two"], "invalid int value"),
    (["--workers", "2", "--scheduler", "tcp://h:8786"], "not allowed with"),
    (["--gpus", "--workers", "2"], "not allowed with"),
    (["--gpus", "--backend", "cpu"], "--gpus: gives each GPU a worker"),
])
def test_parallel_options_are_checked_first(argv, words, tmp_path, capsys):
    try:
        rc = main(["batch", str(tmp_path), "-o", str(tmp_path / "o"), *argv])
    except SystemExit as e:                      # argparse's own one-line errors
        rc = e.code
    assert rc == 2
    line = capsys.readouterr().err.strip()
    assert "\n" not in line and words in line
    assert not (tmp_path / "o").exists()


def test_no_output_replaces_an_input_file_inside_the_output_folder(tmp_path, capsys):
    """A puzzle file ``out/report/report.txt`` routed into ``out``: the folder
    ``out/report`` holds an input, so its layout gets ``out/report-2`` (its report would
    have replaced the puzzle); the others are routed; a summary that would replace an
    input is refused before any work."""
    out = tmp_path / "out"
    (out / "report").mkdir(parents=True)
    puzzle = out / "report" / "report.txt"
    puzzle.write_text("3 1\na.a\n")
    (out / "other.yaml").write_text(layout_text("other"))
    assert main(cpu(str(out), "-o", str(out))) == 0
    assert puzzle.read_text() == "3 1\na.a\n"
    assert sorted(p.name for p in (out / "report").iterdir()) == ["report.txt"]
    rows = {r["folder"]: r for r in rows_of(out)}
    assert sorted(rows) == ["other", "report-2"]
    assert all(r["status"] == "ok" for r in rows.values())
    capsys.readouterr()
    src = tmp_path / "src"
    src.mkdir()
    table = src / "summary.csv"
    table.write_text(layout_text("table"))          # a layout file named like the summary
    assert main(cpu(str(table), "-o", str(src))) == 2
    assert table.read_text() == layout_text("table")
    assert "--summary" in capsys.readouterr().err
