"""What the command line writes and where (mazeroute.cli): names that are data, not paths;
outputs atomic and inside the folder named; locks, memory guards and the file system's
refusals, each one line."""

from __future__ import annotations

import csv
import errno
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from mazeroute.cli import main
from mazeroute.readers import load_layout
from tests.test_cli import LAYOUTS, SEQ, _env, _files, _named, _one_line, _parts, good_layout, run


@pytest.fixture
def good(tmp_path) -> Path:
    return good_layout(tmp_path)


def test_failed_picture_leaves_the_old_outputs_whole(good, tmp_path, monkeypatch, capsys):
    """A run's outputs are replaced together, or not at all."""
    import mazeroute.render as render
    out = tmp_path / "o"
    assert main(["route", str(good), "-o", str(out), "-q", "--backend", "cpu"]) == 0
    old = {p.name: p.read_bytes() for p in out.iterdir()}
    assert set(old) == {"routes.json", "report.txt", "layout.png"}
    nets = tmp_path / "nets.yaml"                   # a run whose routes differ
    nets.write_text("nets:\n  - {name: x, pins: [[0, 1], [7, 1]]}\n")

    def broken(img, fp, *a, **k):
        Path(fp).write_bytes(b"\x89PNG half")
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(render.Image.Image, "save", broken)
    assert main(["route", str(good), "--nets", str(nets), "-o", str(out), "-q",
                 "--backend", "cpu"]) == 2
    line = _one_line(capsys.readouterr().err)
    assert str(out / "layout.png") in line and "No space left on device" in line
    assert {p.name: p.read_bytes() for p in out.iterdir()} == old


# Names the contract allows (printable, at most 200 characters) that are not paths.
PATH_LIKE_NAMES = ["../../escaped", "{abs}", "..", ".", "summary.csv", "SUMMARY.JSON",
                   ".hidden", "a/b/../../c", "-rf", "~", "*", "a\\b", "Demo", "demo", " "]


def test_layout_names_are_data_not_paths(tmp_path, monkeypatch, capsys):
    """Whatever a layout is called, its outputs stay inside -o."""
    monkeypatch.chdir(tmp_path)
    src = tmp_path / "in"
    src.mkdir()
    names = [n.replace("{abs}", str(tmp_path / "ABS")) for n in PATH_LIKE_NAMES]
    for i, name in enumerate(names):
        (src / f"l{i:02d}.yaml").write_text(_named(name))
    before = _files(tmp_path)
    out = tmp_path / "out"
    assert main(["batch", str(src), "-o", str(out), "--no-png", "-q", "--backend", "cpu"]) == 0
    new = _files(tmp_path) - before
    assert all(out in p.parents or p == out for p in new), sorted(new)
    rows = list(csv.DictReader((out / "summary.csv").open()))
    assert [r["status"] for r in rows] == ["ok"] * len(names)
    folders = [r["folder"] for r in rows]
    assert len({f.casefold() for f in folders}) == len(folders)        # one folder each
    assert sorted(p.name for p in out.iterdir()) == sorted([*folders, "summary.csv"])
    for f in folders:
        assert not f.startswith(".") and "/" not in f and "\\" not in f
        assert (out / f / "routes.json").is_file() and (out / f / "report.txt").is_file()
    # route without -o: outputs/<safe name>/, inside ./outputs
    for i in range(len(names)):
        assert main(["route", str(src / f"l{i:02d}.yaml"), "-q", "--no-png",
                     "--backend", "cpu"]) == 0
    new = _files(tmp_path) - before
    assert all(out in p.parents or tmp_path / "outputs" in p.parents or p in (out,
               tmp_path / "outputs") for p in new), sorted(new)
    from mazeroute.io import safe_folder_name
    made = sorted(p.name for p in (tmp_path / "outputs").iterdir())
    assert made == sorted({safe_folder_name(n) for n in names})
    for f in made:
        assert json.loads((tmp_path / "outputs" / f / "routes.json").read_text())["layout"] \
            in names


def test_a_link_planted_in_the_output_folder_is_not_followed(good, tmp_path, capsys):
    """Every output path is checked to be inside the named folder."""
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    (out / "demo").symlink_to(elsewhere)
    assert main(["batch", str(good), "-o", str(out), "-q", "--no-png", "--backend",
                 "cpu"]) == 2
    row, = csv.DictReader((out / "summary.csv").open())
    assert row["status"] == "failed" and "outside the output folder" in row["error"]
    assert list(elsewhere.iterdir()) == []
    (out / "demo").unlink()
    (tmp_path / "outputs").symlink_to(elsewhere)
    r = run("route", str(good), "-q", "--no-png", "--backend", "cpu", cwd=tmp_path)
    assert r.returncode == 0 and list(elsewhere.iterdir()) == [elsewhere / "demo"]
    # outputs/ may be a link (the user's), but outputs/demo -> outside it is refused
    (elsewhere / "demo").rename(tmp_path / "moved")
    (elsewhere / "demo").symlink_to(tmp_path / "moved")
    old = (tmp_path / "moved" / "routes.json").stat().st_mtime_ns
    r = run("route", str(good), "-q", "--no-png", "--backend", "cpu", cwd=tmp_path)
    assert r.returncode == 2 and "lies outside the output folder" in _one_line(r.stderr)
    assert sorted(os.listdir(tmp_path / "moved")) == ["report.txt", "routes.json"]
    assert (tmp_path / "moved" / "routes.json").stat().st_mtime_ns == old


@pytest.mark.parametrize("case", ["file", "under-file", "proc", "enospc", "unwritable"])
def test_output_path_problems_are_one_line_exit_2(case, good, tmp_path, monkeypatch, capsys):
    """-o that cannot be written is one line naming it, exit 2."""
    import pathlib

    import mazeroute.io as mio
    (tmp_path / "afile").write_text("x")
    out = {"file": tmp_path / "afile", "under-file": tmp_path / "afile" / "sub",
           "proc": Path("/proc/mazeroute-test/out")}.get(case, tmp_path / "out")
    if case == "proc" and not Path("/proc/self").exists():
        pytest.skip("no /proc here")
    if case == "enospc":
        real = pathlib.Path.write_text

        def full(self, *a, **k):
            if self.name.endswith(".part"):
                raise OSError(errno.ENOSPC, "No space left on device")
            return real(self, *a, **k)
        monkeypatch.setattr(pathlib.Path, "write_text", full)
    if case == "unwritable":
        def denied(*a, **k):
            raise PermissionError(errno.EACCES, "Permission denied")
        monkeypatch.setattr(mio.tempfile, "mkstemp", denied)
    reason = {"file": "not a folder", "under-file": "is a file, not a folder",
              "proc": "cannot create the folder", "enospc": "No space left on device",
              "unwritable": "Permission denied"}[case]
    assert main(["route", str(good), "-o", str(out), "-q", "--backend", "cpu"]) == 2
    line = _one_line(capsys.readouterr().err)
    assert str(out) in line and reason in line, line
    assert not out.exists() or out.is_file()            # a folder it made is gone again
    assert main(["batch", str(good), "-o", str(out), "-q", "--backend", "cpu"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert all(len(x) < 300 and x.startswith("mazeroute: error: ") for x in lines), lines
    assert str(out) in lines[-1] and reason in lines[-1], lines
    if case == "enospc":           # the layout's row failed; the summary says so
        row, = csv.DictReader((out / "summary.csv").open())
        assert row["status"] == "failed" and reason in row["error"]
        assert sorted(os.listdir(out)) == ["summary.csv"]
    else:
        assert len(lines) <= 2 and (not out.exists() or out.is_file())
    assert (tmp_path / "afile").read_text() == "x"


def test_wavefront_and_generate_refuse_a_folder_as_output(good, tmp_path, capsys):
    """`wavefront -o DIR` and `generate -o DIR`."""
    folder = tmp_path / "d"
    folder.mkdir()
    (tmp_path / "afile").write_text("x")
    for argv in (["wavefront", str(good), "-o", str(folder), "--backend", "cpu"],
                 ["wavefront", str(good), "--gif", str(folder), "-o", str(tmp_path / "w.png"),
                  "--backend", "cpu"],
                 ["generate", "rects", "-o", str(folder)],
                 ["generate", "rects", "-o", str(tmp_path / "afile" / "y.yaml")]):
        assert main(argv) == 2
        line = _one_line(capsys.readouterr().err)
        assert str(folder) in line or "afile is a file, not a folder" in line
    assert list(folder.iterdir()) == [] and not (tmp_path / "w.png").exists()


def test_no_output_file_overwrites_an_input(good, tmp_path, capsys):
    """An output named like the layout, netlist or routes file read would be replaced by
    a picture or a page: refused before any work, the input left as it was."""
    main(["route", str(good), "-o", str(tmp_path / "r"), "--no-png", "-q", "--backend",
          "cpu", "--mode", "sequential"])
    routes = tmp_path / "r" / "routes.json"
    link = tmp_path / "link.yaml"
    link.symlink_to(good)
    inputs = {p: p.read_bytes() for p in (good, routes)}
    png = str(tmp_path / "w.png")
    for argv, field in (
            (["view", str(good), "-o", str(good)], "-o"),
            (["view", str(good), "-o", str(link)], "-o"),
            (["view", str(good), "--routes", str(routes), "-o", str(routes)], "-o"),
            (["view", str(good), "--nets", str(good), "-o", str(good)], "-o"),
            (["wavefront", str(good), "-o", str(good), "--backend", "cpu"], "-o"),
            (["wavefront", str(good), "-o", png, "--gif", str(good), "--backend", "cpu"],
             "--gif"),
            (["wavefront", str(good), "-o", png, "--html", str(link), "--backend", "cpu"],
             "--html"),
            (["route", str(good), "-o", str(tmp_path / "r2"), "--mode", "negotiate",
              "--congestion", str(good), "--backend", "cpu"], "--congestion")):
        assert main(argv) == 2, argv
        line = _one_line(capsys.readouterr().err)
        assert line.startswith(f"mazeroute: error: {field}: ") and "input" in line, line
        assert {p: p.read_bytes() for p in inputs} == inputs
    assert not (tmp_path / "w.png").exists() and not (tmp_path / "r2").exists()


def test_batch_records_any_failure_as_a_row_and_goes_on(tmp_path, monkeypatch, capsys):
    """OSError, MemoryError, any exception: a failed row, not an abort."""
    import pathlib

    import mazeroute.cli as cli
    src = tmp_path / "in"
    src.mkdir()
    faults = {"nametoolong": OSError(errno.ENAMETOOLONG, "File name too long"),
              "memory": MemoryError(), "bug": ValueError("negative dimensions"),
              "enospc": None}
    for name in ["ok1", *faults, "ok2"]:
        (src / f"{name}.yaml").write_text(_named(name))
    real_run, real_write = cli.Router.run, pathlib.Path.write_text

    def run_or_fail(self, *a, **k):
        fault = faults.get(self.layout.name)
        if fault is not None:
            raise fault
        return real_run(self, *a, **k)

    def write(self, *a, **k):
        if self.parent.name == "enospc" and self.name.endswith(".part"):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(self, *a, **k)
    monkeypatch.setattr(cli.Router, "run", run_or_fail)
    monkeypatch.setattr(pathlib.Path, "write_text", write)
    out = tmp_path / "out"
    assert main(["batch", str(src), "-o", str(out), "-q", "--backend", "cpu", *SEQ]) == 2
    rows = {Path(r["file"]).stem: r for r in csv.DictReader((out / "summary.csv").open())}
    assert set(rows) == {"ok1", "ok2", *faults}
    assert rows["ok1"]["status"] == rows["ok2"]["status"] == "ok"
    assert (out / "ok2" / "layout.png").is_file()
    for name in faults:
        assert rows[name]["status"] == "failed" and rows[name]["folder"] == ""
        assert "\n" not in rows[name]["error"] and not (out / name).exists()
    assert "File name too long" in rows["nametoolong"]["error"]
    assert "out of memory" in rows["memory"]["error"]
    assert "ValueError: negative dimensions" in rows["bug"]["error"]
    assert "No space left on device" in rows["enospc"]["error"]
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == len(faults) and all(line.startswith("mazeroute: error: ") for line in err)
    assert _parts(out) == []


def test_batch_failing_to_create_its_folder_is_one_line(good, tmp_path, monkeypatch, capsys):
    """The batch's own folder cannot be made: exit 2 before any work."""
    import pathlib

    import mazeroute.batch as batch
    out = tmp_path / "out"
    real = pathlib.Path.mkdir

    def mkdir(self, *a, **k):
        if self == out:
            raise PermissionError(errno.EACCES, "Permission denied", str(self))
        return real(self, *a, **k)
    monkeypatch.setattr(pathlib.Path, "mkdir", mkdir)
    monkeypatch.setattr(batch, "Router", None)           # must not get as far as routing
    assert main(["batch", str(good), "-o", str(out), "-q", "--backend", "cpu"]) == 2
    line = _one_line(capsys.readouterr().err)
    assert line == f"mazeroute: error: {out}: cannot create the folder: Permission denied"


def test_no_png_rerun_takes_the_old_picture_away(good, tmp_path):
    """The folder holds one run's outputs, never a mix of two."""
    out = tmp_path / "o"
    assert main(["route", str(good), "-o", str(out), "-q", "--backend", "cpu"]) == 0
    assert (out / "layout.png").exists()
    assert main(["route", str(good), "-o", str(out), "-q", "--no-png", "--backend", "cpu"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["report.txt", "routes.json"]


def test_picture_too_big_for_memory_is_skipped_with_a_notice(tmp_path, monkeypatch, capsys):
    """The whole run (engine + picture) is weighed against available memory."""
    import mazeroute.cli as cli
    import mazeroute.limits as layout
    lay = tmp_path / "wide.yaml"
    lay.write_text("width: 200\nheight: 100\nnets: [{name: a, pins: [[0, 0], [199, 99]]}]\n")
    monkeypatch.setattr(layout, "available_memory", lambda: 7 * 2**19)   # 3.5 MiB free
    out = tmp_path / "o"
    assert main(["route", str(lay), "-o", str(out), "--backend", "cpu"]) == 0
    err = capsys.readouterr().err
    assert re.search(r"note: no layout.png: a \d+ x \d+ picture needs about", err)
    assert sorted(p.name for p in out.iterdir()) == ["report.txt", "routes.json"]
    # asked for explicitly (--scale), the same picture is an error, before any work
    monkeypatch.setattr(cli, "Router", None)
    assert main(["route", str(lay), "-o", str(tmp_path / "o2"), "--scale", "2"]) == 2
    assert "--scale" in _one_line(capsys.readouterr().err)
    assert not (tmp_path / "o2").exists()
    # a layout whose engine alone does not fit: one line, exit 2, nothing written
    huge = tmp_path / "huge.yaml"
    huge.write_text("width: 1000000000\nheight: 1\nnets: []\n")
    monkeypatch.setattr(layout, "available_memory", lambda: 16 * 2**30)
    for argv in (["check", str(huge)], ["route", str(huge), "-o", str(tmp_path / "o3")]):
        assert main(argv) == 2
        assert "GiB of memory available" in _one_line(capsys.readouterr().err)
    assert not (tmp_path / "o3").exists()


def test_negotiation_that_cannot_fit_in_memory_is_refused_before_any_work(tmp_path,
                                                                          monkeypatch, capsys):
    """Negotiated routing needs several times sequential routing's memory a cell
    (NEGOTIATE_BYTES_PER_CELL): a layout whose negotiation cannot fit is one line and exit
    2 before any work (not a run that the system kills), naming the file, the field and
    the mode that fits; sequential mode still routes it."""
    import mazeroute.batch as batch
    import mazeroute.cli as cli
    import mazeroute.limits as layout
    lay = tmp_path / "wide.yaml"
    lay.write_text("width: 400\nheight: 300\nnets: [{name: a, pins: [[0, 0], [399, 299]]}]\n")
    cells = 400 * 300
    monkeypatch.setattr(layout, "available_memory",
                        lambda: cells * (layout.BYTES_PER_CELL + layout.NEGOTIATE_BYTES_PER_CELL)
                        // 2)
    real = batch.route
    monkeypatch.setattr(batch, "route", None)
    monkeypatch.setattr(cli, "Router", None)
    out = tmp_path / "o"
    assert main(["route", str(lay), "-o", str(out), "--no-png"]) == 2
    line = _one_line(capsys.readouterr().err)
    assert str(lay) in line and "width" in line and "negotiate mode" in line
    assert "sequential mode needs less" in line and not out.exists()
    assert main(["batch", str(lay), "-o", str(tmp_path / "b"), "--no-png", "-q"]) == 2
    assert "negotiate mode" in capsys.readouterr().err
    monkeypatch.setattr(batch, "route", real)
    assert main(["route", str(lay), "-o", str(out), "--no-png", "--mode", "sequential",
                 "--backend", "cpu"]) == 0


def test_a_file_output_named_like_a_folder_is_refused(good, tmp_path, capsys):
    """``-o pictures/`` for a file output means a folder: one line, exit 2, nothing
    written (it wrote a file called ``pictures`` before)."""
    for argv in (["view", str(good), "-o"], ["generate", "rects", "-o"],
                 ["route", str(good), "-o", str(tmp_path / "r"), "--congestion"]):
        target = tmp_path / "pictures"
        assert main([*argv, str(target) + os.sep]) == 2
        assert "names a folder" in _one_line(capsys.readouterr().err)
        assert not target.exists() and not (tmp_path / "r").exists()


def test_a_killed_runs_temporary_files_go_at_the_next_run(good, tmp_path):
    """``kill -9`` mid-write leaves staged outputs (``.routes.*.json.part``) behind; the
    next run into the folder removes them, and nothing of the user's."""
    out = tmp_path / "o"
    out.mkdir()
    left = [out / ".routes.x1y2.json.part", out / ".layout.abc.png.part"]
    mine = out / ".notes.part"
    for p in [*left, mine]:
        p.write_text("half")
    assert main(["route", str(good), "-o", str(out), "--backend", "cpu"]) == 0
    assert not any(p.exists() for p in left) and mine.exists()
    assert {"routes.json", "report.txt", "layout.png"} <= {p.name for p in out.iterdir()}


def test_picture_over_the_pixel_cap_is_skipped(good, tmp_path, monkeypatch, capsys):
    """The picture's size is bounded whatever the memory."""
    import mazeroute.render as render
    monkeypatch.setattr(render, "MAX_PICTURE_PIXELS", 10_000)
    out = tmp_path / "o"
    assert main(["batch", str(good), "-o", str(out), "--backend", "cpu", "-q"]) == 0
    assert not (out / "demo" / "layout.png").exists() and (out / "demo" / "routes.json").exists()
    assert main(["batch", str(good), "-o", str(out), "--backend", "cpu"]) == 0
    assert "more than the 10000 pixels allowed" in capsys.readouterr().err
    with pytest.raises(ValueError, match="more than the 10000 pixels"):
        render.layout_image(load_layout(good))          # the renderer's own guard


def test_generate_has_a_memory_guard(tmp_path, monkeypatch, capsys):
    """`generate -W 100000 -H 100000` is one line, exit 2, at once."""
    import mazeroute.cli as cli
    import mazeroute.limits as layout
    monkeypatch.setattr(cli, "random_layout", None)
    monkeypatch.setattr(cli, "perfect_maze", None)
    out = tmp_path / "g.yaml"
    assert main(["generate", "rects", "-W", "100000", "-H", "100000", "-o", str(out)]) == 2
    assert "--width/--height" in _one_line(capsys.readouterr().err)
    monkeypatch.setattr(layout, "available_memory", lambda: 2**30)
    assert main(["generate", "maze", "-W", "20000", "-H", "20000", "-o", str(out)]) == 2
    assert "GiB of memory available" in _one_line(capsys.readouterr().err)
    assert not out.exists()


def test_generate_default_file_name_is_safe(tmp_path, monkeypatch):
    """`generate --name ../../x` writes ./x.yaml, not ../../x.yaml."""
    monkeypatch.chdir(tmp_path / ".")
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    assert main(["generate", "rects", "-W", "8", "-H", "8", "--nets", "1", "-q",
                 "--name", "../../x"]) == 0
    assert os.listdir(tmp_path / "sub") == ["x.yaml"]
    assert load_layout(tmp_path / "sub" / "x.yaml").name == "../../x"


LOCK_HOLDER = """\
import sys
from mazeroute.io import output_folder
with output_folder(sys.argv[1]):
    print("held", flush=True)
    sys.stdin.read()
"""


def test_a_second_run_into_a_locked_folder_fails_at_once(good, tmp_path, capsys):
    """Another process holds the output folder: one line, exit 2."""
    from mazeroute.io import LOCK_NAME
    out = tmp_path / "out"
    holder = subprocess.Popen([sys.executable, "-c", LOCK_HOLDER, str(out)], env=_env(),
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "held\n"
        for cmd in ("batch", "route"):
            assert main([cmd, str(good), "-o", str(out), "-q", "--backend", "cpu"]) == 2
            line = _one_line(capsys.readouterr().err)
            assert str(out) in line and "another mazeroute run is writing" in line
        assert os.listdir(out) == [LOCK_NAME]
    finally:
        holder.communicate("", timeout=60)
    assert holder.returncode == 0
    assert main(["batch", str(good), "-o", str(out), "-q", "--backend", "cpu"]) == 0
    assert sorted(os.listdir(out)) == ["demo", "summary.csv"]


def test_batch_collects_every_layout_once_and_reports_odd_files(good, tmp_path, monkeypatch):
    """.YAML/.YML of any case, broken links and FIFOs are rows; one file
    named four ways is routed once."""
    monkeypatch.chdir(tmp_path)
    src = tmp_path / "in"
    src.mkdir()
    for i, name in enumerate(["A.YAML", "b.YML", "c.Yaml", "d.yml"]):
        (src / name).write_text(_named(f"case{i}"))
    (src / "notes.txt").write_text("not a layout")
    (src / "gone.yaml").symlink_to(tmp_path / "nowhere.yaml")
    (src / "loop.yaml").symlink_to(src / "loop.yaml")
    (src / "folder.yaml").mkdir()                        # searched, not routed
    (src / "folder.yaml" / "e.yaml").write_text(_named("inner"))
    (tmp_path / "link.yaml").symlink_to(good)
    if hasattr(os, "mkfifo"):
        os.mkfifo(src / "pipe.yaml")
        os.mkfifo(tmp_path / "given.yaml")
    out = tmp_path / "out"
    argv = [str(src), str(good), "demo.yaml", "./demo.yaml", str(tmp_path / "link.yaml")]
    argv += ["given.yaml"] if hasattr(os, "mkfifo") else []
    r = subprocess.run([sys.executable, "-m", "mazeroute", "batch", *argv, "-o", str(out),
                        "-q", "--no-png", "--backend", "cpu"], capture_output=True, text=True,
                       cwd=tmp_path, timeout=60, env=_env())     # a blocked read would hang
    assert r.returncode == 2 and "Traceback" not in r.stderr
    rows = {Path(r["file"]).name: r for r in csv.DictReader((out / "summary.csv").open())}
    fifos = {"pipe.yaml", "given.yaml"} if hasattr(os, "mkfifo") else set()
    assert set(rows) == {"A.YAML", "b.YML", "c.Yaml", "d.yml", "e.yaml", "gone.yaml",
                         "loop.yaml", "demo.yaml", *fifos}
    assert rows["demo.yaml"]["status"] == "ok"           # four spellings, one row
    assert len(list(out.glob("demo*"))) == 1
    assert "broken symbolic link" in rows["gone.yaml"]["error"]
    assert rows["loop.yaml"]["status"] == "invalid"
    for f in fifos:
        assert rows[f]["status"] == "invalid" and "FIFO" in rows[f]["error"]
    assert sum(r["status"] == "ok" for r in rows.values()) == 6


def test_names_are_printed_safely_and_briefly(tmp_path, capsys):
    """Long names are cut in the terminal, report.txt and the summary."""
    lay = tmp_path / "names.yaml"
    nets = "".join(f"  - {{name: {c * 200}, pins: [[{i}, 0], [{i}, 4]]}}\n"
                   for i, c in enumerate("xyz"))
    lay.write_text(f"name: {'L' * 200}\nwidth: 8\nheight: 5\nnets:\n{nets}")
    out = tmp_path / "o"
    assert main(["route", str(lay), "-o", str(out), "--backend", "cpu"]) == 0
    printed = capsys.readouterr().out
    report = (out / "report.txt").read_text()
    for text in (printed, report):
        assert all(len(line) < 160 for line in text.splitlines()
                   if not line.startswith("wrote ")), text
        assert "x" * 37 + "..." in text and "L" * 77 + "..." in text
    assert main(["batch", str(lay), "-o", str(tmp_path / "b"), "-q", "--no-png",
                 "--backend", "cpu"]) == 0
    with (tmp_path / "b" / "summary.csv").open() as fh:
        row, = csv.DictReader(fh)
    assert row["layout"] == "L" * 77 + "..." and row["folder"] == "L" * 60


def test_control_characters_never_reach_the_outputs_raw(tmp_path, capsys):
    """Defence in depth: names the loader should refuse, if one got
    through, are escaped in report.txt, the picture's legend and the summary."""
    import mazeroute.batch as batch
    from mazeroute.layout import Layout, Net
    from mazeroute.report import summary_row
    from mazeroute.router import route
    hostile = ["a\x00b", "\u202eevil", "tab\there", "x" * 10000, "esc\x1b[31m", "new\nline"]
    lay = Layout("lay\u202e\n" + "y" * 5000, 8, 5,
                 nets=[Net(n, [(i, 0), (i, 4)]) for i, n in enumerate(hostile)])
    result = route(lay, backend="cpu")
    out = tmp_path / "o"
    written = batch.write_outputs(result, out, batch.Picture(True))
    assert [p.name for p in written] == ["routes.json", "report.txt", "layout.png"]
    report = (out / "report.txt").read_text()
    assert all(line.isprintable() and len(line) < 160 for line in report.splitlines())
    for escaped in ("\\x00", "\\u202e", "\\t", "\\x1b", "\\n"):
        assert escaped in report
    assert json.loads((out / "routes.json").read_text())["nets"][0]["name"] == "a\x00b"
    row = summary_row("f\nile.yaml", result, folder="f")
    assert all(str(v).isprintable() and len(str(v)) <= 300 for v in row.values())


def test_wavefront_picture_and_gif_are_replaced_together(good, tmp_path, monkeypatch, capsys):
    """New folders are made; a failed GIF keeps the old PNG too."""
    import mazeroute.render as render
    png, gif = tmp_path / "p" / "w.png", tmp_path / "g" / "sub" / "w.gif"
    argv = ["wavefront", str(good), "-o", str(png), "--gif", str(gif), "-q", "--backend", "cpu"]
    assert main(argv) == 0
    old = png.read_bytes(), gif.read_bytes()

    def full(*a, **k):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(render, "save_wavefront_gif", full)
    assert main([*argv, "--net", "b"]) == 2
    line = _one_line(capsys.readouterr().err)
    assert str(gif) in line and "No space left on device" in line
    assert (png.read_bytes(), gif.read_bytes()) == old
    assert sorted(os.listdir(png.parent)) == ["w.png"] and os.listdir(gif.parent) == ["w.gif"]
    assert main([*argv[:4], "--gif", str(png)]) == 2            # one file named twice
    assert "--gif" in _one_line(capsys.readouterr().err)


def test_route_never_replaces_its_input_files(tmp_path, capsys):
    """A layout saved as ``routes.json`` (or a netlist as ``report.txt``) in the output
    folder, and a congestion picture named like one of route's outputs: refused before
    any work, one line, exit 2, the files intact."""
    out = tmp_path / "out"
    out.mkdir()
    text = "width: 3\nheight: 1\nnets: [{name: a, pins: [[0,0],[2,0]]}]\n"
    (out / "routes.json").write_text(text)
    assert main(["route", str(out / "routes.json"), "-o", str(out), "-q"]) == 2
    assert (out / "routes.json").read_text() == text
    assert capsys.readouterr().err.count("is an input file of this command") == 1
    good = tmp_path / "good.yaml"
    good.write_text(text)
    for name in ("routes.json", "report.txt", "layout.png"):
        target = tmp_path / "o2" / name
        assert main(["route", str(good), "-o", str(tmp_path / "o2"), "-q",
                     "--congestion", str(target)]) == 2
        err = capsys.readouterr().err.strip()
        assert "\n" not in err and "--congestion" in err and "own outputs" in err
    assert not (tmp_path / "o2").exists()


# -- paths and faults the file system refuses -----------------------------------------------
LONG = "a" * 300          # one path component over the 255 bytes file systems allow


@pytest.mark.parametrize("argv", [
    ["route", "{fig}", "-o", "{tmp}/" + LONG, "--no-png"],
    ["route", "{fig}", "-o", "{tmp}/ok", "--congestion", "{tmp}/" + LONG + ".png"],
    ["wavefront", "{fig}", "-o", "{tmp}/" + LONG + ".png"],
    ["view", "{fig}", "-o", "{tmp}/" + LONG + ".html"],
    ["generate", "rects", "-W", "9", "-H", "9", "-o", "{tmp}/" + LONG + ".yaml"],
    ["batch", "{fig}", "-o", "{tmp}/" + LONG],
    ["batch", "{tmp}/" + LONG + ".yaml", "-o", "{tmp}/b"],
    ["bench", "--suite", "cpu", "--size", "8", "--repeats", "1", "-o", "{tmp}/" + LONG],
    ["bench", "--suite", "cpu", "--size", "8", "--repeats", "1", "--maps", "{tmp}/" + LONG],
])
def test_a_name_too_long_is_one_line_and_exit_2(argv, tmp_path, capsys):
    """A path component longer than the file system takes (ENAMETOOLONG, raised even by
    a look-up) is a one-line error naming the path, exit 2, never a traceback."""
    argv = [a.format(fig=LAYOUTS / "fig15_5.yaml", tmp=tmp_path) for a in argv]
    assert main(argv) == 2
    line = _one_line(capsys.readouterr().err)
    assert "File name too long" in line and "a" * 20 in line


def test_an_unforeseen_os_error_is_one_line_naming_the_file(tmp_path, monkeypatch, capsys):
    """A write the file system refuses where no check could foresee it (bench's CSV on a
    full disk) is the path and the reason, exit 2."""
    import mazeroute.bench as bench

    def full(path, *a, **k):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(bench, "write_csv", full)
    assert main(["bench", "--size", "16", "--repeats", "1", "--engines", "cpu/grid",
                 "-o", str(tmp_path / "b")]) == 2
    err = capsys.readouterr().err            # the rows' progress lines, then the error
    assert "Traceback" not in err
    line = err.strip().splitlines()[-1]
    assert line.startswith("mazeroute: error: ") and line.endswith("No space left on device")
    assert str(tmp_path / "b") in line


def test_out_of_memory_names_the_input_and_only_options_the_command_has(tmp_path,
                                                                         monkeypatch, capsys):
    import mazeroute.cli as cli
    import mazeroute.cli_check as cli_check

    def no_memory(*a, **k):
        raise MemoryError

    monkeypatch.setattr(cli, "_load", no_memory)
    monkeypatch.setattr(cli_check, "load_one", no_memory)      # check's own loader
    fig = str(LAYOUTS / "fig15_5.yaml")
    assert main(["check", fig]) == 2
    line = _one_line(capsys.readouterr().err)
    assert line.endswith(f"{fig}: out of memory (a smaller layout may fit)")
    assert main(["route", fig, "-o", str(tmp_path / "o")]) == 2
    assert "or --no-png," in _one_line(capsys.readouterr().err)


def test_batch_gives_a_layout_named_like_a_file_in_the_output_folder_another_folder(
        tmp_path, capsys):
    """A file already in the output folder (an input kept there) takes no layout's row
    down: the layout of that name gets ``name-2``, on a first run and on --resume."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "foo.yaml").write_text(_named("foo.yaml"))
    (out / "bar").write_text("not a folder\\n")
    src = tmp_path / "in"
    src.mkdir()
    (src / "b.yaml").write_text(_named("bar"))
    for extra in ([], ["--resume"]):
        assert main(["batch", str(out / "foo.yaml"), str(src / "b.yaml"), "-o", str(out),
                     "--backend", "cpu", "--no-png", "-q", *extra]) == 0
        capsys.readouterr()
        rows = list(csv.DictReader((out / "summary.csv").open(newline="")))
        assert [r["folder"] for r in rows] == ["foo.yaml-2", "bar-2"]
        assert all(r["status"] == "ok" for r in rows)
    assert (out / "bar").read_text() == "not a folder\\n"


def test_batch_writes_no_layout_into_a_folder_of_inputs_inside_the_output_folder(
        tmp_path, capsys):
    """Inputs kept in a subfolder of the output folder: a layout named like that subfolder
    gets ``name-2``, and nothing is written among the inputs (first run and --resume)."""
    out = tmp_path / "out"
    (out / "layouts").mkdir(parents=True)
    (out / "layouts" / "a.yaml").write_text(_named("layouts"))
    (out / "layouts" / "b.yaml").write_text(_named("b"))
    for extra in ([], ["--resume"]):
        assert main(["batch", str(out / "layouts"), "-o", str(out), "--backend", "cpu",
                     "--no-png", "-q", *extra]) == 0
        capsys.readouterr()
        rows = list(csv.DictReader((out / "summary.csv").open(newline="")))
        assert sorted(r["folder"] for r in rows) == ["b", "layouts-2"]
        assert all(r["status"] == "ok" for r in rows)
        assert sorted(p.name for p in (out / "layouts").iterdir()) == ["a.yaml", "b.yaml"]
        assert (out / "layouts-2" / "routes.json").is_file()


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs /proc")
def test_wavefront_gif_folder_made_for_a_failed_run_is_removed(good, tmp_path, capsys):
    """--gif and -o into missing folders are made as the run writes, and removed again
    when the run fails (here: a page that /proc cannot hold), as route's -o folder is."""
    png, gif = tmp_path / "pics" / "w.png", tmp_path / "new" / "deep" / "w.gif"
    assert main(["wavefront", str(good), "-o", str(png), "--gif", str(gif), "--html",
                 "/proc/self/nowhere/w.html", "-q", "--backend", "cpu"]) == 2
    _one_line(capsys.readouterr().err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["demo.yaml"]
    assert main(["wavefront", str(good), "-o", str(png), "--gif", str(gif), "-q",
                 "--backend", "cpu"]) == 0
    assert png.is_file() and gif.is_file()
