"""Atomic writes: a failure never leaves a half-written file or a temporary behind;
sets of outputs, the output-folder lock and safe folder names."""

from __future__ import annotations

import errno
import os
import signal
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mazeroute.io import (
    FOLDER_NAME_CHARS,
    LOCK_NAME,
    RESERVED_NAMES,
    OutputError,
    OutputSet,
    atomic_path,
    output_folder,
    safe_folder_name,
    signals_held,
    write_text,
)


def test_write_text_replaces_whole_file(tmp_path):
    p = tmp_path / "a" / "b.txt"
    write_text(p, "one")
    write_text(p, "two")
    assert p.read_text() == "two" and os.listdir(p.parent) == ["b.txt"]
    assert p.stat().st_mode & 0o777 == 0o666 & ~_umask()


def test_failure_keeps_the_old_file_and_no_temporary(tmp_path):
    p = tmp_path / "r.json"
    write_text(p, "old")
    with pytest.raises(RuntimeError), atomic_path(p) as tmp:
        tmp.write_text("half")
        raise RuntimeError("crash")
    assert p.read_text() == "old" and os.listdir(tmp_path) == ["r.json"]


def _umask():
    m = os.umask(0)
    os.umask(m)
    return m


# -- sets of outputs, locks, safe folder names --------------------------------------------
def test_output_set_rolls_back_when_a_move_fails(tmp_path, monkeypatch):
    """Item 7: the second of three moves fails: every old file is back, nothing extra."""
    import mazeroute.io as mio
    for name in ("a.txt", "b.txt", "c.txt"):
        (tmp_path / name).write_text(f"old {name}")
    real, moves = os.replace, []

    def replace(src, dst):
        if str(src).endswith(".part"):
            moves.append(dst)
            if len(moves) == 2:
                raise OSError(errno.EIO, "Input/output error")
        return real(src, dst)
    monkeypatch.setattr(mio.os, "replace", replace)
    with pytest.raises(OutputError, match="b.txt: cannot write: Input/output error"):
        with OutputSet(tmp_path) as files:
            for name in ("a.txt", "b.txt", "c.txt"):
                files.stage(name).write_text(f"new {name}")
    assert sorted(os.listdir(tmp_path)) == ["a.txt", "b.txt", "c.txt"]
    assert [(tmp_path / n).read_text() for n in ("a.txt", "b.txt", "c.txt")] == [
        "old a.txt", "old b.txt", "old c.txt"]


def test_output_set_commits_all_and_removes_stale_files(tmp_path):
    (tmp_path / "keep.txt").write_text("mine")
    (tmp_path / "stale.png").write_text("old picture")
    with OutputSet(tmp_path) as files:
        files.stage("r.json").write_text("new")
        files.remove("stale.png")
        files.remove("never-there.png")
    assert sorted(os.listdir(tmp_path)) == ["keep.txt", "r.json"]
    assert (tmp_path / "r.json").stat().st_mode & 0o777 == 0o666 & ~_umask()


def test_output_set_interrupted_leaves_no_folder_it_made(tmp_path):
    """Item 5: a layout cut off mid-write leaves no half-complete folder, no temporary."""
    with pytest.raises(KeyboardInterrupt), OutputSet(tmp_path / "new") as files:
        files.stage("routes.json").write_text("half")
        raise KeyboardInterrupt
    assert os.listdir(tmp_path) == []


def test_output_set_refuses_paths_outside_its_root(tmp_path):
    (tmp_path / "root").mkdir()
    (tmp_path / "root" / "link").symlink_to(tmp_path)
    with pytest.raises(OutputError, match="outside the output folder"):
        with OutputSet(tmp_path / "root" / "link", tmp_path / "root"):
            pass
    with OutputSet(tmp_path / "root") as files, pytest.raises(OutputError):
        files.stage("../escape.txt")
    assert sorted(os.listdir(tmp_path)) == ["root"]


def test_signals_are_held_during_the_moves():
    """Items 5, 6: an interruption lands before or after the moves, never between."""
    seen = []
    old = signal.signal(signal.SIGTERM, lambda *a: seen.append("term"))
    try:
        with signals_held():
            os.kill(os.getpid(), signal.SIGTERM)
            seen.append("inside")
        seen.append("after")
    finally:
        signal.signal(signal.SIGTERM, old)
    assert seen == ["inside", "term", "after"]


def test_output_folder_lock_is_exclusive_and_cleaned_up(tmp_path):
    """Item 9: a second holder fails at once; the lock file goes with the run."""
    out = tmp_path / "a" / "out"
    with output_folder(out) as folder:
        assert folder == out and os.listdir(out) == [LOCK_NAME]
        with pytest.raises(OutputError, match="another mazeroute run"), output_folder(out):
            pass
        (out / "result.txt").write_text("x")
    assert os.listdir(out) == ["result.txt"]
    with output_folder(tmp_path / "unused"):
        pass
    assert not (tmp_path / "unused").exists()            # made by the run, left empty


@pytest.mark.parametrize("path, reason", [("afile", "not a folder"),
                                          ("afile/sub", "is a file, not a folder")])
def test_output_folder_problems_name_the_path(path, reason, tmp_path):
    """Item 3: an -o that cannot be a folder."""
    (tmp_path / "afile").write_text("x")
    with pytest.raises(OutputError, match=reason), output_folder(tmp_path / path):
        pass


@given(st.text(max_size=300))
@settings(max_examples=300, deadline=None)
def test_safe_folder_name_is_one_plain_component(name):
    """Item 1: any name gives one short path component that cannot climb or hide."""
    taken = {"x", "layout"}
    safe = safe_folder_name(name, taken)
    assert safe in taken and len(taken) == 3
    assert 1 <= len(safe) <= FOLDER_NAME_CHARS + 4 and len(safe.encode()) < 255
    assert Path(safe).name == safe and len(Path(safe).parts) == 1
    assert not safe.startswith((".", "-")) and ".." not in safe
    assert "/" not in safe and "\\" not in safe and safe.isprintable()
    assert safe.casefold() not in RESERVED_NAMES | {"x", "layout"}


def test_safe_folder_names_are_unique_without_case():
    taken: set[str] = set()
    names = [safe_folder_name(n, taken) for n in ["Demo", "demo", "DEMO", "de/mo", "de_mo"]]
    assert names == ["Demo", "demo-2", "DEMO-3", "de_mo", "de_mo-2"]


def test_a_signal_just_after_a_temporary_is_made_leaves_no_part_file(tmp_path, monkeypatch):
    """Ctrl-C or SIGTERM after mkstemp made the file, before its name was recorded, left
    the .part file behind (a batch stopped by SIGTERM did so about one time in three)."""
    import tempfile

    import mazeroute.io as io_module
    real = tempfile.mkstemp

    def mkstemp(*a, **k):
        made = real(*a, **k)
        signal.raise_signal(signal.SIGINT)          # arrives once the file exists
        return made
    monkeypatch.setattr(io_module.tempfile, "mkstemp", mkstemp)
    with pytest.raises(KeyboardInterrupt), io_module.OutputSet(tmp_path) as files:
        files.stage("a.txt").write_text("x")
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(KeyboardInterrupt), io_module.atomic_path(tmp_path / "b.txt") as tmp:
        tmp.write_text("x")
    assert list(tmp_path.iterdir()) == []


def test_a_file_where_a_folder_should_be_is_named_so(tmp_path):
    """A folder replaced by a file mid-run: mkdir's "File exists" becomes what it means."""
    from mazeroute.io import OutputError
    (tmp_path / "out").write_text("not a folder")
    e = OutputError.from_os(FileExistsError(errno.EEXIST, "File exists"),
                            tmp_path / "out" / "summary.csv", "cannot write the summary")
    assert str(e).endswith("cannot write the summary: a part of the path is a file, "
                           "not a folder")
    other = OutputError.from_os(FileExistsError(errno.EEXIST, "File exists"),
                                tmp_path / "elsewhere" / "x.png")
    assert str(other).endswith("cannot write: File exists")


def test_an_output_file_over_a_device_or_fifo_is_refused(tmp_path):
    """Written atomically, a FIFO or device the user named would be replaced by a
    regular file (as root, /dev/full with it): refused before any work."""
    from mazeroute.io import check_output_file
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for path in (fifo, Path("/dev/null")):
        with pytest.raises(OutputError, match="not a regular file"):
            check_output_file(path)
    assert fifo.is_fifo() and Path("/dev/null").is_char_device()
    check_output_file(tmp_path / "new.txt")                  # a new file is fine
