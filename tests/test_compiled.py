"""The compiled CPU engines: one notice before a first compile, a cache that later
processes reuse, ``mazeroute warmup``, and a cache folder wherever the package lies."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from mazeroute.cli import build_parser
from mazeroute.compiled import NOTICE, ensure_cache_dir
from tests.corpus import fresh_compile

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


# -- the cache's locks ---------------------------------------------------------------------

def _blocked(path: Path, how: int) -> bool:
    """Whether a lock ``how`` on ``path`` must wait now (another open file holds one)."""
    import fcntl

    fd = os.open(path, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, how | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def test_cache_saves_hold_an_exclusive_lock_and_loads_a_shared_one(tmp_path):
    pytest.importorskip("fcntl")
    import fcntl
    import types

    from mazeroute.compiled import _lock_cache_files

    lock = tmp_path / "f.nbi.lock"
    seen = {}

    class Files:                     # as Numba's IndexDataCacheFile, recording the locks
        _index_path = str(tmp_path / "f.nbi")

        def save(self, key, data):
            seen["save"] = (_blocked(lock, fcntl.LOCK_EX), _blocked(lock, fcntl.LOCK_SH))

        def load(self, key):
            seen["load"] = (_blocked(lock, fcntl.LOCK_EX), _blocked(lock, fcntl.LOCK_SH))
            return key

    caching = types.SimpleNamespace(IndexDataCacheFile=Files)
    Files().save("k", "d")
    assert seen["save"] == (False, False)           # no lock before
    assert _lock_cache_files(caching) and _lock_cache_files(caching)
    Files().save("k", "d")
    assert Files().load("k") == "k"
    assert seen == {"save": (True, True), "load": (True, False)}
    assert not _blocked(lock, fcntl.LOCK_EX)        # let go after each
    assert not _lock_cache_files(types.SimpleNamespace())


#: Compiles ``twice`` in the module ``cached_twice`` (its folder on ``sys.path``) for
#: the dtype named on the command line, once the file ``go`` exists, and prints whether
#: Numba's cache files are locked and the result. Each write of a cache file waits a
#: random while first, as on a slow disk, so that without the lock the processes' reads
#: and writes of one index interleave.
RACE = """
import random, sys, time
from pathlib import Path
import mazeroute
import numpy as np
import numba.core.caching as caching
here = Path(sys.argv[1])
files = caching.IndexDataCacheFile
def slow(write):
    def slowly(self, *args):
        time.sleep(random.uniform(0, 0.2))
        return write(self, *args)
    return slowly
files._save_index, files._save_data = slow(files._save_index), slow(files._save_data)
sys.path.insert(0, str(here))
from cached_twice import twice
while not (here / "go").exists():
    time.sleep(0.01)
x = np.arange(5).astype(sys.argv[2])
y = twice(x)
print(getattr(caching.IndexDataCacheFile, "_mazeroute_locked", False), y.dtype, y.tolist())
"""


def test_processes_compiling_one_function_at_once_share_a_cache_that_stays_right(tmp_path):
    pytest.importorskip("fcntl")
    (tmp_path / "cached_twice.py").write_text(
        "import numba\n\n\n@numba.njit(cache=True)\ndef twice(x):\n    return x + x\n")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"),
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    kinds = ["int64", "int32", "float64", "float32", "int16", "uint8"]

    def start(kind: str) -> subprocess.Popen:
        return subprocess.Popen([sys.executable, "-c", RACE, str(tmp_path), kind], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    first = [start(k) for k in kinds]
    (tmp_path / "go").touch()              # every signature compiled at once
    outs = [p.communicate(timeout=300) for p in first]
    later = [start(k) for k in kinds]      # ... and loaded from the cache
    outs += [p.communicate(timeout=300) for p in later]
    for kind, (out, err) in zip(kinds * 2, outs):
        locked, dtype, values = out.split(" ", 2)
        assert locked == "True", err
        assert dtype == kind and ast.literal_eval(values) == [0, 2, 4, 6, 8], (kind, err)
    assert list((tmp_path / "cache").rglob("*.nbi.lock"))


# -- the time spent compiling ---------------------------------------------------------------

def test_compile_seconds_count_a_compile_and_the_excluding_clock_stands_still():
    import time

    from mazeroute.compiled import compile_excluded, compile_seconds

    clock = compile_excluded(time.perf_counter)
    s0, c0, w0 = compile_seconds(), clock(), time.perf_counter()
    fresh_compile()
    s1, c1, w1 = compile_seconds(), clock(), time.perf_counter()
    assert s1 - s0 > 0.01                       # the compile was seen
    assert s1 - s0 <= w1 - w0 + 1e-6            # ... within the wall time it took
    assert c1 - c0 >= 0 and c1 - c0 <= (w1 - w0) - 0.9 * (s1 - s0)
    s2, c2 = compile_seconds(), clock()
    time.sleep(0.05)                            # no compile: both clocks run alike
    assert compile_seconds() == s2 and clock() - c2 >= 0.05


def test_a_cache_on_a_file_system_without_locks_is_used_as_numba_alone_would(
        tmp_path, monkeypatch):
    """Where ``flock`` is refused (some network mounts) or the lock file cannot be made
    (a read-only cache), saves and loads go on unlocked instead of failing a compile."""
    fcntl = pytest.importorskip("fcntl")
    import types

    from mazeroute.compiled import _lock_cache_files

    calls = []

    class Files:
        _index_path = str(tmp_path / "f.nbi")

        def save(self, key, data):
            calls.append("save")

        def load(self, key):
            calls.append("load")
            return key

    def refuse(fd, how):
        raise OSError(37, "No locks available")

    assert _lock_cache_files(types.SimpleNamespace(IndexDataCacheFile=Files))
    monkeypatch.setattr(fcntl, "flock", refuse)
    Files().save("k", "d")
    assert Files().load("k") == "k"
    Files._index_path = str(tmp_path / "missing" / "f.nbi")     # no folder to lock in
    Files().save("k", "d")
    assert calls == ["save", "load", "save"]
