"""The compiled CPU engines: one notice before a first compile, a cache that later
processes reuse, ``mazeroute warmup``, and a cache folder wherever the package lies."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from mazeroute.cli import build_parser
from mazeroute.compiled import NOTICE, ensure_cache_dir

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = str(ROOT / "layouts" / "fig15_5.yaml")

#: Runs the command line, then prints the package's cache hits and misses on stderr.
SCRIPT = """
import sys
from mazeroute.cli import main
status = main(sys.argv[1:])
from mazeroute.compiled import compiled_functions
fs = compiled_functions()
print("cache", sum(len(f.stats.cache_hits) for f in fs),
      sum(len(f.stats.cache_misses) for f in fs), file=sys.stderr)
sys.exit(status)
"""


def _run(cache: Path, *argv: str) -> tuple[str, int, int]:
    """``mazeroute ARGV`` in a fresh process on the cache folder ``cache``: its stderr
    without the last line, and the package's cache hits and misses."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache),
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", SCRIPT, *argv], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    *lines, last = done.stderr.splitlines()
    word, hits, misses = last.split()
    assert word == "cache", done.stderr
    return "\n".join(lines), int(hits), int(misses)


def test_first_route_says_it_compiles_once_and_the_next_process_reuses_the_cache(tmp_path):
    cache = tmp_path / "cache"
    argv = ("route", EXAMPLE, "--mode", "sequential", "--no-png")
    err, hits, misses = _run(cache, *argv, "-o", str(tmp_path / "a"))
    assert err.count(NOTICE) == 1
    assert misses > 0
    err, hits, misses = _run(cache, *argv, "-o", str(tmp_path / "b"))
    assert NOTICE not in err
    assert misses == 0 and hits > 0


def test_quiet_route_compiles_without_the_notice(tmp_path):
    err, _, misses = _run(tmp_path / "cache", "route", EXAMPLE, "--mode", "sequential",
                          "--no-png", "-q", "-o", str(tmp_path / "a"))
    assert misses > 0
    assert NOTICE not in err


@pytest.mark.slow
def test_warmup_compiles_what_route_needs(tmp_path):
    cache = tmp_path / "cache"
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    done = subprocess.run([sys.executable, "-m", "mazeroute", "warmup"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count(NOTICE) == 1
    assert "compiled now" in done.stdout
    for mode in ("negotiate", "sequential"):
        err, hits, misses = _run(cache, "route", EXAMPLE, "--mode", mode,
                                 "-o", str(tmp_path / mode))
        assert NOTICE not in err
        assert misses == 0 and hits > 0, mode


def test_warmup_is_a_documented_command(capsys):
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--help"])
    assert "warmup" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        build_parser().parse_args(["warmup", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "NUMBA_CACHE_DIR" in text and "~/.cache/numba" in text


def test_cache_dir_left_alone_where_numba_finds_one(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", "")
    src = tmp_path / "src"
    src.mkdir()
    assert ensure_cache_dir([src], tmp_path / "user") is None
    assert os.environ["NUMBA_CACHE_DIR"] == ""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "mine"))
    blocked = tmp_path / "file"
    blocked.write_text("")
    assert ensure_cache_dir([blocked], blocked / "user") is None


def test_cache_dir_falls_back_to_a_private_temporary_folder(tmp_path, monkeypatch):
    # a read-only install and a home without a cache: Numba would refuse to define the
    # compiled functions at import
    numba = pytest.importorskip("numba")
    monkeypatch.setenv("NUMBA_CACHE_DIR", "")
    monkeypatch.setattr(numba.config, "CACHE_DIR", "")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    blocked = tmp_path / "file"          # nothing can be created below a plain file
    blocked.write_text("")
    got = ensure_cache_dir([blocked], blocked / "numba")
    assert got is not None and got.parent == tmp_path / "tmp" and got.is_dir()
    assert os.environ["NUMBA_CACHE_DIR"] == str(got) == numba.config.CACHE_DIR
    assert got.stat().st_mode & 0o077 == 0


def test_cache_dir_never_one_that_others_may_write(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", "")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    uid = os.getuid() if hasattr(os, "getuid") else 0
    shared = tmp_path / f"mazeroute-numba-cache-{uid}"
    shared.mkdir()
    shared.chmod(0o777)
    blocked = tmp_path / "file"
    blocked.write_text("")
    assert ensure_cache_dir([blocked], blocked / "numba") is None
    assert os.environ["NUMBA_CACHE_DIR"] == ""
