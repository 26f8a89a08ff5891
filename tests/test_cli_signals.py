"""How the command line stops (mazeroute.cli_signals): Ctrl-C and SIGTERM alike, a
summary of what finished, no part files, and never inside the compiler."""

from __future__ import annotations

import csv
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mazeroute.cli import main
from tests.test_cli import SEQ, _env, _named, _parts, before_layout


def _batch_src(tmp_path: Path, n: int) -> Path:
    src = tmp_path / "in"
    src.mkdir()
    for i in range(n):
        (src / f"l{i}.yaml").write_text(_named(f"n{i}"))
    return src


def _stop_at(monkeypatch, k: int, stop, seen: list) -> None:
    """Make the k-th report (1-based) call ``stop()``: outputs are half staged by then."""
    import mazeroute.batch as batch
    real = batch.format_report

    def report(result, *a, **kw):
        seen.append(result.layout.name)
        if len(seen) == k:
            stop()
        return real(result, *a, **kw)
    monkeypatch.setattr(batch, "format_report", report)


def _interrupt():
    raise KeyboardInterrupt


def test_interrupted_batch_keeps_a_summary_of_what_finished(tmp_path, monkeypatch, capsys):
    """The summary is rewritten as layouts finish; the one cut off
    leaves no folder, and is marked interrupted."""
    src, out = _batch_src(tmp_path, 5), tmp_path / "out"
    seen: list = []
    summaries = []

    def stop():
        _interrupt()

    def look():                                   # the summary as the 3rd layout starts
        summaries.append([r["layout"] for r in csv.DictReader((out / "summary.csv").open())])
    _stop_at(monkeypatch, 3, stop, seen)
    before_layout(monkeypatch, "n2", look)
    assert main(["batch", str(src), "-o", str(out), "-q", "--backend", "cpu"]) == 130
    assert capsys.readouterr().err.strip().splitlines()[-1] == "mazeroute: error: interrupted"
    assert summaries == [["n0", "n1"]]
    rows = list(csv.DictReader((out / "summary.csv").open()))
    assert [(r["layout"], r["status"]) for r in rows] == [("n0", "ok"), ("n1", "ok"),
                                                           ("", "interrupted")]
    assert rows[2]["file"] == str(src / "l2.yaml")
    assert sorted(p.name for p in out.iterdir()) == ["n0", "n1", "summary.csv"]
    for f in ("n0", "n1"):
        assert {p.name for p in (out / f).iterdir()} == {"routes.json", "report.txt",
                                                         "layout.png"}
    assert _parts(tmp_path) == []


def test_sigterm_stops_like_ctrl_c(tmp_path, monkeypatch, capsys, request):
    """SIGTERM mid-batch, mid-route, mid-generate: clean stop, exit 143."""
    def unhandled(signum, frame):       # without main's handler: fail, not kill pytest
        raise AssertionError("SIGTERM reached the test's own handler")
    previous = signal.signal(signal.SIGTERM, unhandled)
    request.addfinalizer(lambda: signal.signal(signal.SIGTERM, previous))
    before = signal.getsignal(signal.SIGTERM)
    src, out = _batch_src(tmp_path, 4), tmp_path / "out"
    term = lambda: os.kill(os.getpid(), signal.SIGTERM)   # noqa: E731
    seen: list = []
    _stop_at(monkeypatch, 2, term, seen)
    assert main(["batch", str(src), "-o", str(out), "-q", "--backend", "cpu"]) == 143
    assert capsys.readouterr().err.strip().splitlines()[-1] == \
        "mazeroute: error: terminated (SIGTERM)"
    rows = list(csv.DictReader((out / "summary.csv").open()))
    assert [r["status"] for r in rows] == ["ok", "interrupted"]
    assert sorted(p.name for p in out.iterdir()) == ["n0", "summary.csv"]
    assert signal.getsignal(signal.SIGTERM) == before
    seen.clear()
    _stop_at(monkeypatch, 1, term, seen)
    assert main(["route", str(src / "l0.yaml"), "-o", str(tmp_path / "r"), "-q",
                 "--backend", "cpu"]) == 143
    assert not (tmp_path / "r").exists()
    import mazeroute.cli as cli
    real = cli.random_layout

    def generate(*a, **k):
        term()
        return real(*a, **k)
    monkeypatch.setattr(cli, "random_layout", generate)
    assert main(["generate", "rects", "-o", str(tmp_path / "g.yaml")]) == 143
    assert not (tmp_path / "g.yaml").exists()
    assert _parts(tmp_path) == [] and signal.getsignal(signal.SIGTERM) == before


@pytest.mark.parametrize("which", ["SIGTERM", "Ctrl-C"])
def test_an_interrupt_behind_a_system_error_is_an_interrupt(tmp_path, monkeypatch, capsys,
                                                            which):
    """A signal that lands while compiled code calls back into Python (Numba loading a
    cached function) comes out as a SystemError caused by the interrupt: one line and
    the interrupt's status, as anywhere else."""
    import mazeroute.cli as cli
    exc, status, line = ((cli.Terminated(), 143, "terminated (SIGTERM)") if which == "SIGTERM"
                         else (KeyboardInterrupt(), 130, "interrupted"))

    def command(args):
        try:
            raise exc
        except KeyboardInterrupt as e:
            raise SystemError("CPUDispatcher(...) returned a result with an exception set") \
                from e
    monkeypatch.setattr(cli, "cmd_generate", command)
    assert main(["generate", "rects", "-o", str(tmp_path / "g.yaml")]) == status
    assert capsys.readouterr().err.strip().splitlines() == [f"mazeroute: error: {line}"]


def test_a_swallowed_sigterm_still_ends_in_143_without_a_traceback(tmp_path, monkeypatch,
                                                                   capsys, request):
    """Python swallows an exception raised inside some callbacks of compiled code and
    reports it through ``sys.unraisablehook``; the command then runs to its end. Its
    status still says it was terminated, in one line; other unraisable errors are
    reported as before."""
    import types

    import mazeroute.cli as cli
    previous = signal.getsignal(signal.SIGTERM)
    request.addfinalizer(lambda: signal.signal(signal.SIGTERM, previous))

    def command(args):
        try:
            os.kill(os.getpid(), signal.SIGTERM)        # main's handler raises here
        except KeyboardInterrupt as e:                  # ... and a callback swallows it
            sys.unraisablehook(types.SimpleNamespace(
                exc_type=type(e), exc_value=e, exc_traceback=None, err_msg=None, object=None))
        sys.unraisablehook(types.SimpleNamespace(
            exc_type=ValueError, exc_value=ValueError("other"), exc_traceback=None,
            err_msg="Exception ignored in", object=None))
        return 0
    monkeypatch.setattr(cli, "cmd_generate", command)
    reported: list = []
    monkeypatch.setattr(sys, "unraisablehook", reported.append)
    assert main(["generate", "rects", "-o", str(tmp_path / "g.yaml")]) == 143
    assert capsys.readouterr().err.strip().splitlines() == [
        "mazeroute: error: terminated (SIGTERM)"]
    assert [type(u.exc_value) for u in reported] == [ValueError]
    assert signal.getsignal(signal.SIGTERM) == previous
    assert sys.unraisablehook == reported.append


SLOW_BATCH = """\
import sys, time
import mazeroute.cli as cli
real = cli.Router.run
def run(self, *a, **k):
    time.sleep(0.2)
    return real(self, *a, **k)
cli.Router.run = run
sys.exit(cli.main(sys.argv[1:]))
"""


def test_sigterm_to_a_real_batch_leaves_summary_and_no_part_files(tmp_path):
    """An interrupted batch keeps its summary, through the real process and a real
    signal."""
    src, out = _batch_src(tmp_path, 30), tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-c", SLOW_BATCH, "batch", str(src), "-o",
                             str(out), "-q", "--backend", "cpu", *SEQ], stderr=subprocess.PIPE,
                            text=True, env=_env())
    try:
        deadline = time.monotonic() + 120
        while not (out / "summary.csv").exists() and proc.poll() is None:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 143, err
    assert err.strip().splitlines()[-1] == "mazeroute: error: terminated (SIGTERM)"
    rows = list(csv.DictReader((out / "summary.csv").open()))
    done = [r["folder"] for r in rows if r["status"] == "ok"]
    assert 1 <= len(done) < 30 and len(rows) <= len(done) + 1
    assert sorted(p.name for p in out.iterdir()) == sorted([*done, "summary.csv"])
    for f in done:
        assert {p.name for p in (out / f).iterdir()} == {"routes.json", "report.txt",
                                                         "layout.png"}
    assert _parts(tmp_path) == []


def test_a_signal_inside_numbas_compiler_is_put_off_until_it_is_done(tmp_path, monkeypatch,
                                                                     capsys, request):
    """Raised inside Numba's compiler (a callback of LLVM's that hands over cached machine
    code), an interrupt is ignored there and the code then run is garbage: a segfault.
    So a signal landing while the compile lock is held waits for its release; then it
    stops the command as anywhere else."""
    from numba.core.compiler_lock import global_compiler_lock

    import mazeroute.cli as cli
    previous = signal.getsignal(signal.SIGINT)
    request.addfinalizer(lambda: signal.signal(signal.SIGINT, previous))
    reached = []

    def command(args):
        with global_compiler_lock:
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(10_000):             # bytecodes: the handler has run by now
                pass
            reached.append("inside")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:      # the signal, sent again, lands here
            time.sleep(0.01)
        reached.append("after")
        return 0
    monkeypatch.setattr(cli, "cmd_generate", command)
    assert main(["generate", "rects", "-o", str(tmp_path / "g.yaml")]) == 130
    assert reached == ["inside"]
    assert capsys.readouterr().err.strip().splitlines() == ["mazeroute: error: interrupted"]


@pytest.mark.parametrize("which", ["SIGTERM", "Ctrl-C"])
def test_a_signal_before_the_commands_guard_is_one_line_and_its_status(monkeypatch, capsys,
                                                                       request, which):
    """``python -m mazeroute`` guards the moments before and after ``cli.main``'s own
    handlers (loading modules, reading the arguments): one line, 143 or 130."""
    import mazeroute.__main__ as entry
    import mazeroute.cli as cli
    previous = signal.getsignal(signal.SIGTERM)
    request.addfinalizer(lambda: signal.signal(signal.SIGTERM, previous))

    def early(argv=None):
        if which == "SIGTERM":
            os.kill(os.getpid(), signal.SIGTERM)
        raise KeyboardInterrupt
    monkeypatch.setattr(cli, "main", early)
    assert entry.run() == (143 if which == "SIGTERM" else 130)
    line = "terminated (SIGTERM)" if which == "SIGTERM" else "interrupted"
    assert capsys.readouterr().err.strip().splitlines() == [f"mazeroute: error: {line}"]
    assert signal.getsignal(signal.SIGTERM) == previous
