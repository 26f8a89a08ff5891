"""The batch on Dask (mazeroute.distributed): a local cluster of 2 worker processes on the
CPU gives exactly the serial batch's folders, routes and summary (apart from timings and
worker names); a worker killed mid-batch is retried, and one that keeps dying is a failed
row; Ctrl-C cancels the cluster's tasks; --resume picks up an interrupted run; without
Dask, or without a GPU for --gpus, a one-line error. They skip where Dask is missing."""

from __future__ import annotations

import importlib.util
import logging
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import mazeroute.batch as batch
import mazeroute.distributed as mdist
from mazeroute.cli import main
from mazeroute.generate import random_layout
from mazeroute.layout import save_layout

from .test_batch import (
    ROOT,
    comparable,
    cpu,
    five_layouts,
    interrupted_serial_run,
    layout_text,
    mixed_folder,
    netlist_folder,
    outputs_of,
    rows_of,
    serial_progress,
    stamps,
)

HAS_DASK = all(importlib.util.find_spec(m) for m in ("dask", "distributed"))
needs_dask = pytest.mark.skipif(not HAS_DASK, reason="needs Dask: pip install "
                                                     "'mazeroute[dask]' (or '.[test]')")


@pytest.fixture(scope="module")
def cluster():
    """A client of 2 worker processes of one thread; a task whose worker dies twice fails
    (allowed-failures 1), to keep the killed-worker test short."""
    if not HAS_DASK:
        pytest.skip("needs Dask: pip install 'mazeroute[dask]'")
    import dask
    import distributed
    config = {"distributed.scheduler.allowed-failures": 1,
              "distributed.scheduler.worker-saturation": 1.0}
    with dask.config.set(config):
        local = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                         dashboard_address=None,
                                         silence_logs=logging.CRITICAL)
    client = distributed.Client(local)
    yield client
    client.close()
    local.close()


def on(cluster) -> list[str]:
    return ["--scheduler", cluster.scheduler.address]


def parts(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.name.endswith((".part", ".old"))
            or p.name == ".mazeroute.lock"]


# -- the same results as the serial batch -------------------------------------------------
@needs_dask
def test_local_cluster_equals_serial_on_a_mixed_folder(tmp_path, monkeypatch, capsys):
    """Paths as the user gave them (relative here) in the rows and messages alike."""
    mixed_folder(tmp_path)
    monkeypatch.chdir(tmp_path)
    serial, dask = tmp_path / "serial", tmp_path / "dask"
    assert main(cpu("mixed", "-o", "serial")) == 2
    serial_err = capsys.readouterr().err.splitlines()
    assert main(cpu("mixed", "-o", "dask", "--workers", "2")) == 2
    dask_err = capsys.readouterr().err.splitlines()
    rows = rows_of(dask)
    assert comparable(rows) == comparable(rows_of(serial))
    assert outputs_of(dask) == outputs_of(serial)          # routes, reports, pictures
    assert len(outputs_of(dask)) == 3 * 7                  # 7 layouts routed, 3 files each
    assert sorted(dask_err) == sorted(serial_err) and len(dask_err) == 3      # i_empty too
    assert rows[1]["file"] == "mixed/b_broken.yaml" and dask_err[0].startswith(
        "mazeroute: error: mixed/b_broken.yaml: ")
    assert {r["worker"] for r in rows if r["status"] == "ok"} <= {"0", "1"}
    assert all(r["worker"] == "" for r in rows_of(serial))
    assert parts(tmp_path) == []


@needs_dask
def test_netlists_on_a_cluster_equal_serial(tmp_path, cluster):
    base, src = netlist_folder(tmp_path)
    serial, dask = tmp_path / "serial", tmp_path / "dask"
    assert main(cpu("--layout", str(base), str(src), "-o", str(serial), "--no-png")) == 2
    assert main(cpu("--layout", str(base), str(src), "-o", str(dask), "--no-png",
                    *on(cluster))) == 2
    rows = rows_of(dask)
    assert comparable(rows) == comparable(rows_of(serial))
    assert [r["status"] for r in rows].count("ok") == 4
    assert outputs_of(dask) == outputs_of(serial)
    assert all(r["worker"] in {"0", "1"} for r in rows if r["status"] == "ok")


@needs_dask
def test_progress_counts_layouts_as_the_serial_batch_does(tmp_path, cluster):
    src = mixed_folder(tmp_path)
    serial, _ = serial_progress(src, tmp_path / "serial")
    out = tmp_path / "dask"
    out.mkdir()
    summary, seen = batch.Summary(out / "summary.csv", "csv"), []
    files = [str(f) for f in batch.collect([str(src)])]
    mdist.run_batch(cluster, files, out, batch.BatchOptions(backend="cpu", no_png=True,
                                                            quiet=True),
                    summary, progress=lambda *a: seen.append(a))
    assert len(summary.rows) == 10 and seen[-1] == serial[-1]
    assert all(done <= total for done, total, _ in seen)
    assert [done for done, _, _ in seen] == sorted({done for done, _, _ in seen})


# -- faults -------------------------------------------------------------------------------------
def _crashing_plugin(marker: str):
    """A worker plugin making a route task kill its worker process (``os._exit``): for a
    layout named ``crash`` once (the marker file remembers), for ``doom`` every time. It
    is set up again on every restarted worker."""
    from distributed import WorkerPlugin

    class Crash(WorkerPlugin):
        def setup(self, worker):
            import mazeroute.distributed as d
            real = getattr(d.route_file, "real", d.route_file)

            def route_file(loaded, *a, **k):
                names = [lay.name for lay in loaded.layouts]
                if "doom" in names:
                    os._exit(1)
                if "crash" in names and not os.path.exists(marker):
                    open(marker, "w").close()
                    os._exit(1)
                return real(loaded, *a, **k)
            route_file.real = real
            d.route_file = route_file

    return Crash()


@needs_dask
def test_a_killed_worker_is_retried_and_one_that_keeps_dying_is_a_failed_row(
        tmp_path, cluster):
    src = five_layouts(tmp_path)
    (src / "l5_crash.yaml").write_text(layout_text("crash"))
    (src / "l6_doom.yaml").write_text(layout_text("doom"))
    marker = tmp_path / "crashed-once"
    cluster.register_plugin(_crashing_plugin(str(marker)), name="crash")
    try:
        serial, dask = tmp_path / "serial", tmp_path / "dask"
        assert main(cpu(str(src), "-o", str(dask), *on(cluster))) == 2
    finally:
        cluster.unregister_worker_plugin("crash")
    assert main(cpu(str(src), "-o", str(serial))) == 0
    assert marker.exists()                                  # a worker did die
    rows, expected = rows_of(dask), rows_of(serial)
    assert comparable(rows[:-1]) == comparable(expected[:-1])   # "crash" too, retried
    doom = rows[-1]
    assert (doom["status"], doom["folder"]) == ("failed", "")
    assert "died on every attempt" in doom["error"] and "l6_doom.yaml" in doom["error"]
    assert not (dask / "doom").exists() and parts(tmp_path) == []


@needs_dask
def test_interrupted_cluster_batch_cancels_and_resume_finishes_it(tmp_path, cluster,
                                                                  monkeypatch, capsys):
    src = five_layouts(tmp_path)
    for i in range(5, 10):
        (src / f"l{i}.yaml").write_text(layout_text(f"n{i}"))
    out, fresh = tmp_path / "out", tmp_path / "fresh"
    real, writes = batch.write_summary, []

    def write_summary(*a, **k):                # Ctrl-C as the 2nd finished file is noted
        writes.append(1)
        if len(writes) == 2:
            raise KeyboardInterrupt
        return real(*a, **k)
    with monkeypatch.context() as m:
        m.setattr(batch, "write_summary", write_summary)
        # every finished file writes the summary (no pause after a quick write), so the
        # 2nd write is the 2nd finished file's whatever the clock says
        m.setattr(batch, "SUMMARY_PAUSE", 0)
        assert main(cpu(str(src), "-o", str(out), *on(cluster))) == 130
    assert capsys.readouterr().err.strip().splitlines()[-1] == "mazeroute: error: interrupted"
    rows = rows_of(out)
    statuses = [r["status"] for r in rows]
    assert statuses.count("ok") == 2 and statuses.count("interrupted") <= 2   # 2 threads
    assert len(rows) < 10
    deadline = time.monotonic() + 30             # the cluster drops this batch's tasks
    while any(cluster.processing().values()):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert not [k for k in cluster.who_has() if str(k).startswith(("load-", "route-"))]
    before = stamps(out)
    kept = {r["folder"]: r["worker"] for r in rows if r["status"] == "ok"}
    assert main(cpu(str(src), "-o", str(out), "--resume", *on(cluster))) == 0
    after = stamps(out)
    for folder in kept:
        assert all(before[f] == after[f] for f in before if f.startswith(folder + "/"))
    assert main(cpu(str(src), "-o", str(fresh))) == 0
    rows = rows_of(out)
    assert comparable(rows) == comparable(rows_of(fresh))
    assert outputs_of(out) == outputs_of(fresh)
    assert {r["folder"]: r["worker"] for r in rows if r["folder"] in kept} == kept
    assert parts(tmp_path) == []


@needs_dask
def test_resume_on_a_cluster_after_an_interrupted_serial_run(tmp_path, cluster,
                                                             monkeypatch):
    src = five_layouts(tmp_path)
    out, fresh = tmp_path / "out", tmp_path / "fresh"
    interrupted_serial_run(src, out, monkeypatch, "n2", "--no-png")
    before = stamps(out)
    assert main(cpu(str(src), "-o", str(out), "--no-png", "--resume", *on(cluster))) == 0
    after = stamps(out)
    assert {f for f in before if before[f] == after[f]} == {
        "n0/routes.json", "n0/report.txt", "n1/routes.json", "n1/report.txt"}
    assert main(cpu(str(src), "-o", str(fresh), "--no-png")) == 0
    rows = rows_of(out)
    assert comparable(rows) == comparable(rows_of(fresh))
    assert [r["worker"] != "" for r in rows] == [False, False, True, True, True]


def _group_ends(group: int, seconds: float = 10) -> bool:
    """Whether every process of ``group`` is gone within ``seconds`` (the resource tracker
    of multiprocessing leaves a moment after the batch)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


CTRL_C_AT = """\
import os, sys, time
from pathlib import Path
out = Path(sys.argv[1])
while not (out / "summary.csv").exists():
    time.sleep(0.02)
os.killpg(os.getpgid(int(sys.argv[2])), 2)      # Ctrl-C: to the terminal's whole group
"""


@needs_dask
def test_ctrl_c_on_a_terminal_stops_workers_and_keeps_the_summary(tmp_path):
    """A real SIGINT to the process group (workers included), as Ctrl-C sends it."""
    src = tmp_path / "in"
    src.mkdir()
    for seed in range(8):
        save_layout(random_layout(192, 192, nets=40, span=24, seed=seed, name=f"r{seed}"),
                    src / f"r{seed}.yaml")
    out = tmp_path / "out"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]))
    proc = subprocess.Popen(
        [sys.executable, "-m", "mazeroute", *cpu(str(src), "-o", str(out), "--workers",
                                               "2")],
        stderr=subprocess.PIPE, text=True, env=env, start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        subprocess.run([sys.executable, "-c", CTRL_C_AT, str(out), str(proc.pid)],
                       timeout=120, check=True)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert err.strip().splitlines() == ["mazeroute: error: interrupted"]   # no tracebacks
    rows = rows_of(out)
    statuses = [r["status"] for r in rows]
    assert "ok" in statuses and set(statuses) <= {"ok", "interrupted"}
    assert statuses.count("interrupted") <= 2 and len(rows) < 8
    assert _group_ends(proc.pid), "a worker outlived the batch"
    done = {r["folder"] for r in rows if r["status"] == "ok"}
    assert done <= {p.name for p in out.iterdir() if p.is_dir()}
    assert parts(tmp_path) == []


# -- one-line errors ---------------------------------------------------------------------------
@pytest.mark.parametrize("option", [["--workers", "2"], ["--scheduler", "tcp://h:8786"],
                                    ["--gpus"]])
def test_without_dask_parallel_options_are_one_line_naming_the_extra(
        option, tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "dask", None)         # as if not installed
    monkeypatch.setitem(sys.modules, "distributed", None)
    src = five_layouts(tmp_path)
    assert main(["batch", str(src), "-o", str(tmp_path / "o"), *option]) == 2
    line = capsys.readouterr().err.strip()
    assert line == (f"mazeroute: error: {option[0]}: needs Dask (dask is not installed): "
                    "pip install 'mazeroute[dask]'")
    assert not (tmp_path / "o").exists()


@needs_dask
def test_gpus_without_a_gpu_is_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(mdist, "visible_gpus", lambda: [])
    assert main(["batch", str(five_layouts(tmp_path)), "-o", str(tmp_path / "o"),
                 "--gpus"]) == 2
    assert capsys.readouterr().err.strip() == (
        "mazeroute: error: --gpus: no GPU is visible here (CuPy, nvidia-smi and "
        "CUDA_VISIBLE_DEVICES show none)")


@needs_dask
def test_an_unreachable_scheduler_is_one_line(tmp_path, capsys):
    import dask
    src = five_layouts(tmp_path)
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        assert main(cpu(str(src), "-o", str(tmp_path / "o"), "--scheduler",
                        "tcp://127.0.0.1:9")) == 2
    line = capsys.readouterr().err.strip()
    assert "\n" not in line and line.startswith(
        "mazeroute: error: --scheduler: cannot reach the Dask scheduler at tcp://127.0.0.1:9")


def test_gpus_are_counted_by_nvidia_smi_and_limited_by_cuda_visible_devices(
        tmp_path, monkeypatch):
    smi = tmp_path / "nvidia-smi"
    smi.write_text("#!/bin/sh\necho 'GPU 0: NVIDIA H200 (UUID: GPU-a)'\n"
                   "echo 'GPU 1: NVIDIA H200 (UUID: GPU-b)'\necho 'GPU 2: NVIDIA H200'\n")
    smi.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(mdist, "_cupy_count", lambda: None)
    assert mdist._nvidia_smi_count() == 3
    assert mdist.visible_gpus(environ={}) == ["0", "1", "2"]
    assert mdist.visible_gpus(environ={"CUDA_VISIBLE_DEVICES": "2,0"}) == ["2", "0"]
    assert mdist.visible_gpus(environ={"CUDA_VISIBLE_DEVICES": "0,1,2,3"}) == ["0", "1", "2"]
    assert mdist.visible_gpus(environ={"CUDA_VISIBLE_DEVICES": ""}) == []
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    assert mdist._nvidia_smi_count() is None
    assert mdist.visible_gpus(environ={"CUDA_VISIBLE_DEVICES": "GPU-a,GPU-b"}) == [
        "GPU-a", "GPU-b"]
    assert mdist.visible_gpus(environ={}) == []


@needs_dask
def test_gpu_workers_are_pinned_one_gpu_each(tmp_path, monkeypatch):
    """Without dask-cuda: one plain worker per GPU, each seeing only its own device (the
    workers report their own CUDA_VISIBLE_DEVICES; no GPU is touched here)."""
    monkeypatch.setitem(sys.modules, "dask_cuda", None)
    with mdist.local_client(gpus=["3", "1"]) as client:
        seen = client.run(lambda dask_worker: (os.environ.get("CUDA_VISIBLE_DEVICES"),
                                               dask_worker.name))
        assert sorted(seen.values()) == [("1", "gpu1"), ("3", "gpu0")]
        assert sum(client.nthreads().values()) == 2


@pytest.mark.gpu
@needs_dask
def test_gpus_batch_gives_each_worker_its_own_gpu_and_the_serial_results(tmp_path):
    """On a GPU host: --gpus routes on every visible GPU, each worker reporting a device
    of its own (CUDA device 0 of its view, a distinct PCI bus id), with the summary of
    the serial GPU batch apart from timings, workers and devices."""
    gpus = mdist.visible_gpus()
    src = tmp_path / "in"
    src.mkdir()
    for seed in range(4 * len(gpus)):
        save_layout(random_layout(256, 256, nets=100, span=32, seed=seed, name=f"g{seed}"),
                    src / f"g{seed:02d}.yaml")
    serial, dask = tmp_path / "serial", tmp_path / "dask"
    gpu = ["-q", "--backend", "gpu", "--no-png"]
    assert main(["batch", str(src), "-o", str(serial), *gpu]) == 0
    assert main(["batch", str(src), "-o", str(dask), "--gpus", *gpu]) == 0
    rows = rows_of(dask)
    assert comparable(rows) == comparable(rows_of(serial))
    assert outputs_of(dask) == outputs_of(serial)
    device_of = {}
    for r in rows:
        assert r["device"].startswith("cuda:0 ") and r["engine"].startswith("gpu/")
        device_of.setdefault(r["worker"], set()).add(r["device"].split()[1])
    assert all(len(d) == 1 for d in device_of.values())          # pinned: one device each
    buses = [next(iter(d)) for d in device_of.values()]
    assert len(set(buses)) == len(buses)                         # and no two the same


def test_an_interrupt_while_the_local_cluster_starts_lands_once_it_is_up(monkeypatch):
    """Ctrl-C while the workers start: raised in the middle, it left workers half started,
    whose closing at exit printed a traceback. It now takes effect once the cluster and
    its client are up, and they are closed as after any other interrupt."""
    pytest.importorskip("distributed")
    import mazeroute.distributed as md
    closed = []

    class FakeClient:
        def __init__(self, cluster):
            self.cluster = cluster

        def register_plugin(self, *a, **k):
            pass

    def start(workers, gpus, quiet):
        os.kill(os.getpid(), signal.SIGINT)          # Ctrl-C as the workers start
        for _ in range(10_000):                      # bytecodes: a handler runs by now
            pass
        return "cluster"
    monkeypatch.setattr(md, "_start_cluster", start)
    monkeypatch.setattr("distributed.Client", FakeClient)
    monkeypatch.setattr(md, "_close", lambda client, cluster: closed.append(
        (client.cluster if client else None, cluster)))
    with pytest.raises(KeyboardInterrupt), md.local_client(2):
        pytest.fail("the batch ran after the interrupt")
    assert closed == [("cluster", "cluster")]


@needs_dask
def test_a_cluster_writes_no_layout_into_a_folder_of_inputs_in_the_output_folder(
        tmp_path, cluster, capsys):
    """As the serial batch (tests/test_cli.py): inputs kept in a subfolder of the output
    folder give a layout named like it the folder ``name-2``; nothing lands among them."""
    out = tmp_path / "out"
    (out / "layouts").mkdir(parents=True)
    for name in ("layouts", "b"):
        (out / "layouts" / f"{name}.yaml").write_text(layout_text(name))
    assert main(cpu(str(out / "layouts"), "-o", str(out), *on(cluster))) == 0
    capsys.readouterr()
    assert sorted(r["folder"] for r in rows_of(out)) == ["b", "layouts-2"]
    assert sorted(p.name for p in (out / "layouts").iterdir()) == ["b.yaml", "layouts.yaml"]
