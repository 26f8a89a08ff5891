"""Atomic writes: a failure never leaves a half-written file or a temporary behind."""

from __future__ import annotations

import os

import pytest

from mazeroute.io import atomic_path, write_text


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
