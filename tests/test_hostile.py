"""A hostile-input corpus, generated here and run through every door.

Each case is something a user, a script or an attacker could hand to mazeroute: names that
look like paths, names full of control characters, absurd sizes, alias bombs, deep nesting,
FIFOs, devices, broken and looping links. Through ``route``, ``check``, ``route --nets`` and
``batch`` every case must end with its exit status, at most a one-line message under 300
characters, no traceback, nothing written outside the output folder, and no temporary
(``.part``) file left.

Some names break FORMATS.md's rule (at most 200 printable characters) without being paths;
a loader that enforces the rule refuses them (exit 2), one that does not routes them with
the names shown safely (exit 0). Both are fine here ("either"): the promises above hold
either way. The memory available is pinned at 8 GiB so that the memory cases mean the same
on every machine.
"""

from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import mazeroute.limits
from mazeroute.cli import main

ROOT = Path(__file__).resolve().parent.parent
OK, BAD, EITHER = 0, 2, None

#: The chip every ``--nets`` case is routed over (the nets of ``_layout`` fit it).
BASE = "name: base\nwidth: 6\nheight: 3\nblockages: [[2, 0, 2, 1]]\nnets: []\n"


def _q(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)          # a YAML double-quoted scalar


def _layout(name: str | None = "demo", net: str = "a", extra: str = "") -> str:
    head = "" if name is None else f"name: {_q(name)}\n"
    return (f"{head}width: 6\nheight: 3\nblockages: [[2, 0, 2, 1]]\n{extra}"
            f"nets:\n  - {{name: {_q(net)}, pins: [[0, 0], [5, 0]]}}\n"
            f"  - {{name: b, pins: [[0, 2], [5, 2]]}}\n")


def _alias_bomb() -> str:
    lines = ["a0: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 6)]
    return "\n".join(lines) + "\nwidth: 4\nheight: 4\nnets: *a5\n"     # 10^6 leaves


# case: (file text, bytes, or a maker of a special file; as a layout; as a netlist)
CASES: dict = {
    # names that look like paths: data, never a path
    "path-name": (_layout("../../escaped"), OK, OK),
    "abs-name": (lambda d: _layout(str(d.parent / "ABS")), OK, OK),
    "dotdot-name": (_layout(".."), OK, OK),
    "dot-name": (_layout("."), OK, OK),
    "summary-name": (_layout("summary.csv"), OK, OK),
    "hidden-name": (_layout(".hidden"), OK, OK),
    "option-name": (_layout("--help"), OK, OK),
    "glob-name": (_layout("*?[a]"), OK, OK),
    "unicode-name": (_layout("路由 é"), OK, OK),
    "mathtext-net": (_layout("m", net="$\\frac{1}{0}$"), OK, OK),
    "no-name": (_layout(None), OK, OK),
    # keys the format does not have: refused, never passed over
    "unknown-fields": (_layout("u", extra="vendor: {x: 1}\nlayer: 3\n"), BAD, BAD),
    "multi-layer": (_layout("u", extra="layers: 2\n"), BAD, BAD),
    "misspelt-key": (_layout("k", extra="blockage: [[3, 0, 3, 0]]\n"), BAD, BAD),
    "net-width": (_layout("w").replace("[5, 0]]}", "[5, 0]], width: 2}"), BAD, BAD),
    # names the contract forbids; shown safely if a loader lets them through
    "nul-name": (_layout("a\x00b"), EITHER, OK),
    "rlo-name": (_layout("\u202eevil"), EITHER, OK),
    "newline-name": (_layout("two\nlines"), EITHER, OK),
    "escape-name": (_layout("\x1b[2J\x1b[31mred"), EITHER, OK),
    "long-name": (_layout("n" * 10000), EITHER, OK),
    "long-net": (_layout("l", net="x" * 10000), EITHER, EITHER),
    "control-net": (_layout("c", net="tab\tnul\x00\u202e"), EITHER, EITHER),
    # broken files
    "empty": ("", BAD, BAD),
    "null": ("null\n", BAD, BAD),
    "list": ("- 1\n- 2\n", BAD, BAD),
    "binary": (b"\xff\xfe\x00\x01garbage\x80", BAD, BAD),
    "latin-1": (b"name: caf\xe9\nwidth: 2\nheight: 2\nnets: []\n", BAD, BAD),
    "syntax": ("width: [6\nheight: 3\n", BAD, BAD),
    "python-tag": ("!!python/object/apply:os.system ['touch pwned']\n", BAD, BAD),
    "alias-bomb": (_alias_bomb(), BAD, BAD),
    "deep": ("width: 1\nheight: 1\nnets: " + "[" * 5000 + "]" * 5000 + "\n", BAD, BAD),
    "huge-value": ('width: "' + "9" * 100000 + '"\nheight: 2\nnets: []\n', BAD, BAD),
    "huge-grid": ("width: 1000000000\nheight: 1000000000\nnets: []\n", BAD, BAD),
    "long-thin": ("width: 1000000000\nheight: 1\nnets: []\n", BAD, BAD),
    "negative": ("width: -6\nheight: 3\nnets: []\n", BAD, BAD),
    "float": ("width: 6.5\nheight: 3\nnets: []\n", BAD, BAD),
    "bool": ("width: true\nheight: 3\nnets: []\n", BAD, BAD),
    # (as netlists, the six above are 'nets: []': no nets to route, refused too)
    "pin-on-block": (_layout("p").replace("[[0, 0], [5, 0]]", "[[2, 0], [5, 0]]"), BAD, BAD),
    "pin-outside": (_layout("p").replace("[5, 0]]", "[99, 0]]"), BAD, BAD),
    # malformed net entries: one line naming the entry's field, nothing derived from it
    "net-not-mapping": ("width: 6\nheight: 3\nnets: [[[0, 0], [5, 0]]]\n", BAD, BAD),
    "pins-not-list": (_layout("p").replace("[[0, 0], [5, 0]]", "5"), BAD, BAD),
    "pin-not-cell": (_layout("p").replace("[5, 0]]", "[5]]"), BAD, BAD),
    "one-pin": (_layout("p").replace("[[0, 0], [5, 0]]", "[[0, 0]]"), BAD, BAD),
    "nets-bomb": ("width: 4\nheight: 4\nnets: [" + ", ".join(["{}"] * 20000) + "]\n",
                  BAD, BAD),
    # things that are not regular files
    "fifo": ("fifo", BAD, BAD),
    "device": ("device", BAD, BAD),
    "folder": ("folder", BAD, BAD),
    "broken-link": ("broken-link", BAD, BAD),
    "link-loop": ("link-loop", BAD, BAD),
    "missing": ("missing", BAD, BAD),
}
SPECIAL = {"fifo", "device", "folder", "broken-link", "link-loop", "missing"}
#: What the one line of each malformed net entry names: the file's entry and its field.
NET_FAULTS = {"net-not-mapping": "nets[0]: must be a mapping",
              "pins-not-list": "nets[0] 'a': pins", "pin-not-cell": "nets[0] 'a' pins[1]:",
              "one-pin": "nets[0] 'a': pins"}
#: The one line of each unknown key, as a layout and as a netlist alike.
KEY_FAULTS = {"unknown-fields": "unknown key 'vendor'",
              # a key of the format now: its bad value is named
              "multi-layer": "layers: must be a list of at least one layer {name, direction}, "
                             "got 2",
              "misspelt-key": "unknown key 'blockage' (did you mean 'blockages'?)",
              "net-width": "nets[0] 'a': unknown key 'width'"}
#: The same as a netlist, where they differ (a netlist has no blockages to suggest).
NETLIST_KEY_FAULTS = {**KEY_FAULTS, "misspelt-key": "unknown key 'blockage'",
                      "multi-layer": "unknown key 'layers'"}


#: A layout's own top-level keys: a netlist leaves them out (``--nets`` refuses a layout;
#: a netlist has no name of its own).
_LAYOUT_KEYS = re.compile(r"^(name|width|height|blockages):[^\n]*\n", re.MULTILINE)


def make(case: str, folder: Path, netlist: bool = False) -> Path:
    """Write ``case`` into ``folder`` (as ``<case>.yaml``); return its path. ``netlist``:
    without the layout's own top-level keys, as a netlist file is written."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{case}.yaml"
    text = CASES[case][0]
    if case in SPECIAL:
        if case == "fifo":
            if not hasattr(os, "mkfifo"):
                pytest.skip("no FIFOs here")
            os.mkfifo(path)
        elif case == "device":
            if not Path(os.devnull).exists() or os.name != "posix":
                pytest.skip("no /dev/null here")
            path.symlink_to(os.devnull)
        elif case == "folder":
            path.mkdir()
        elif case == "broken-link":
            path.symlink_to(folder / "nowhere.yaml")
        elif case == "link-loop":
            path.symlink_to(path)
        return path
    if callable(text):
        text = text(folder)
    if netlist and isinstance(text, str):
        text = _LAYOUT_KEYS.sub("", text)
    elif netlist:
        text = re.sub(_LAYOUT_KEYS.pattern.encode(), b"", text, flags=re.MULTILINE)
    (path.write_bytes if isinstance(text, bytes) else path.write_text)(text)
    return path


@pytest.fixture
def site(tmp_path, monkeypatch):
    """A fresh working folder inside ``tmp_path`` and pinned available memory."""
    monkeypatch.setattr(mazeroute.limits, "available_memory", lambda: 8 * 2**30)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return tmp_path


def _snapshot(root: Path) -> set[Path]:
    return {Path(dirpath) / n for dirpath, dirs, files in os.walk(root)
            for n in dirs + files}


def _expect(rc: int, expected, capsys, before: set[Path], site: Path, *outs: Path) -> str:
    """Every promise of the module docstring for one finished command; its stderr."""
    cap = capsys.readouterr()
    if expected is EITHER:
        assert rc in (0, 2), cap.err
    else:
        assert rc == expected, cap.err
    assert "Traceback" not in cap.err
    lines = cap.err.strip().splitlines()
    if rc == 2:
        assert len(lines) == 1 and lines[0].startswith("mazeroute: error: "), cap.err
    assert all(len(line) < 300 and line.isprintable() for line in lines), cap.err
    assert all(line.isprintable() and (len(line) < 300 or line.startswith("wrote "))
               for line in cap.out.splitlines()), cap.out
    new = _snapshot(site) - before
    stray = [p for p in new if not any(p == o or o in p.parents for o in outs)]
    assert stray == [], stray
    assert not (site / "ABS").exists() and not (site / "work" / "pwned").exists()
    assert [p for p in _snapshot(site) if p.name.endswith(".part")] == []
    return cap.err


@pytest.mark.parametrize("case", CASES)
def test_route(case, site, capsys):
    path = make(case, site / "in")
    before, out = _snapshot(site), site / "out"
    rc = main(["route", str(path), "-o", str(out), "--backend", "cpu"])
    _expect(rc, CASES[case][1], capsys, before, site, out)
    if rc == 0:
        assert sorted(os.listdir(out)) == ["layout.png", "report.txt", "routes.json"]
    else:
        assert not out.exists()


@pytest.mark.parametrize("case", [c for c in CASES if CASES[c][1] is not BAD])
def test_route_without_o_stays_in_outputs(case, site, capsys):
    path = make(case, site / "in")
    before = _snapshot(site)
    rc = main(["route", str(path), "-q", "--no-png", "--backend", "cpu"])
    _expect(rc, CASES[case][1], capsys, before, site, site / "work" / "outputs")
    if rc == 0:
        made, = (site / "work" / "outputs").iterdir()
        assert (made / "routes.json").is_file() and not made.name.startswith(".")


@pytest.mark.parametrize("case", CASES)
def test_check(case, site, capsys):
    path = make(case, site / "in")
    before = _snapshot(site)
    rc = main(["check", str(path)])
    err = _expect(rc, CASES[case][1], capsys, before, site)
    if case in NET_FAULTS:
        assert err.startswith(f"mazeroute: error: {path}: {NET_FAULTS[case]}"), err
    if case in KEY_FAULTS:
        assert err == f"mazeroute: error: {path}: {KEY_FAULTS[case]}\n", err


@pytest.mark.parametrize("case", CASES)
def test_nets(case, site, capsys):
    base = site / "base.yaml"
    base.write_text(BASE)
    path = make(case, site / "in", netlist=True)
    before, out = _snapshot(site), site / "out"
    rc = main(["route", str(base), "--nets", str(path), "-o", str(out), "--no-png",
               "--backend", "cpu"])
    err = _expect(rc, CASES[case][2], capsys, before, site, out)
    if rc == 2:
        assert str(path) in err                # the netlist is named, not the layout
    if case in NETLIST_KEY_FAULTS:
        assert err == f"mazeroute: error: {path}: {NETLIST_KEY_FAULTS[case]}\n", err


def test_batch_over_the_whole_corpus(site, capsys):
    """One batch: a row for every case, the good ones routed, the rest failed rows."""
    folder = site / "in"
    paths = {case: make(case, folder) for case in CASES if case not in ("missing",)}
    before, out = _snapshot(site), site / "out"
    rc = main(["batch", str(folder), str(site / "in" / "missing.yaml"), "-o", str(out),
               "--no-png", "-q", "--backend", "cpu"])
    cap = capsys.readouterr()
    assert rc == 2 and "Traceback" not in cap.err
    assert all(len(x) < 300 and x.isprintable() for x in cap.err.splitlines())
    new = _snapshot(site) - before
    assert all(out in p.parents or p == out for p in new), sorted(new)
    assert [p for p in _snapshot(site) if p.name.endswith(".part")] == []
    with (out / "summary.csv").open(newline="") as fh:
        rows = {Path(r["file"]).stem: r for r in csv.DictReader(fh)}
    # the folder search sees every case but the folder itself (searched, empty)
    assert set(rows) == set(CASES) - {"folder"}
    for case, row in rows.items():
        expected = CASES[case][1]
        if expected is OK:
            assert row["status"] == "ok", row
        elif expected is BAD:
            assert row["status"] in ("invalid", "failed") and row["error"], row
        assert all(str(v).isprintable() and len(str(v)) <= 300 for v in row.values())
        if row["status"] == "ok":
            assert (out / row["folder"] / "routes.json").is_file()
    folders = [r["folder"] for r in rows.values() if r["status"] == "ok"]
    assert sorted(os.listdir(out)) == sorted([*folders, "summary.csv"])
    assert len(paths) >= len(CASES) - 1


def test_batch_corpus_through_the_real_console(tmp_path):
    """The same, as a user runs it: a real process, real stderr, a time limit (a blocked
    read of a FIFO would hang)."""
    folder = tmp_path / "in"
    for case in CASES:
        if case not in ("missing", "long-thin", "huge-grid"):   # memory is not pinned here
            make(case, folder)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]))
    r = subprocess.run([sys.executable, "-m", "mazeroute", "batch", str(folder), "-o",
                        str(tmp_path / "out"), "-q", "--backend", "cpu"], capture_output=True,
                       text=True, timeout=120, env=env, cwd=tmp_path)
    assert r.returncode == 2 and r.stdout == ""
    assert "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert lines and all(x.startswith("mazeroute: ") and len(x) < 300 for x in lines)
    assert sorted(os.listdir(tmp_path)) == ["in", "out"]
    assert not list(tmp_path.rglob("*.part"))
