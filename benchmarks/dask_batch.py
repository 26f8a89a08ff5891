"""Layouts per second of ``mazeroute batch`` on Dask: ``--workers N`` and ``--gpus``.

Generates ``--count`` layouts of ``--size`` x ``--size`` cells with ``--nets`` local nets
(``mazeroute.generate.random_layout``, span ``--span``, seeds 0, 1, ...; kept in
``--data`` for the next run), then times the real command line, one process per run,
from start to exit (so start-up, the local cluster's included, is counted):

* ``--workers 1`` (the serial in-process batch, without Dask) and each ``--workers N``;
* with ``--gpus K ...``: the serial GPU batch (``--backend gpu``), then ``--gpus`` with the
  first K visible GPUs for each K (``CUDA_VISIBLE_DEVICES`` narrowed), printing the GPU
  each worker reported in the summary (all must be distinct).

Every run's summary must equal the first run of its kind apart from timings, workers and
devices, and its routes.json files must be byte-identical (checked; a difference exits 1).
Each run's line also gives the routers' own seconds (the summary's ``seconds``, summed over
the layouts), so that a slower run shows whether its routes or the batch round them took
longer. The table gives the fastest of ``--repeat`` interleaved runs: seconds, the cores the batch
kept busy (CPU time of the process and its workers over the wall time: on a machine
shared with other work this shows how much of it the batch got), layouts per second, the
speed-up over the first run of its kind (the serial batch) and the efficiency
(speed-up / N; the goal is at least 0.8); ``--gpus K`` rows also give it over
``--gpus 1``.

Examples (CPU workers on a 2-core machine; then a host of several GPUs)::

    python benchmarks/dask_batch.py --workers 1 2
    python benchmarks/dask_batch.py --workers 1 4 8 16 --gpus 1
    python benchmarks/dask_batch.py --count 400 --size 1024 --nets 1000 --workers 1 \\
        --gpus 1 2 4 8
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mazeroute.generate import random_layout  # noqa: E402
from mazeroute.layout import save_layout  # noqa: E402


def _make(job: tuple[Path, int, int, int, int]) -> None:
    path, size, nets, span, seed = job
    save_layout(random_layout(size, size, nets=nets, span=span, seed=seed, name=path.stem),
                path)


def generate(data: Path, count: int, size: int, nets: int, span: int) -> list[Path]:
    """The benchmark's layouts (made once, on all cores, since a GPU host's device time
    is what the run costs; a folder of the right count is reused)."""
    data.mkdir(parents=True, exist_ok=True)
    files = [data / f"layout{seed:04d}.yaml" for seed in range(count)]
    jobs = [(path, size, nets, span, seed) for seed, path in enumerate(files)
            if not path.exists()]
    with ProcessPoolExecutor() as pool:
        list(pool.map(_make, jobs, chunksize=8))
    return files


def run(data: Path, out: Path, argv: list[str], env: dict | None = None
        ) -> tuple[float, float]:
    """One ``mazeroute batch`` process: its wall time and the CPU time (user + system) of
    it and its workers, in seconds."""
    if out.exists():
        shutil.rmtree(out)
    # sequential mode: what RESULTS.md, "Batch and Dask", measured before negotiate was
    # the default
    cmd = [sys.executable, "-m", "mazeroute", "batch", str(data), "-o", str(out), "-q",
           "--mode", "sequential", *argv]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(cmd, env={**os.environ, "PYTHONPATH": os.pathsep.join(
                              p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p),
                          **(env or {})},
                          capture_output=True, text=True)
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"{' '.join(cmd[2:])} failed ({done.returncode}): {done.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return seconds, cpu


def ceiling(data: Path, out: Path, n: int, argv: list[str]) -> tuple[float, float]:
    """N serial ``mazeroute batch`` processes at once, each on every N-th file (linked
    into a folder of its own): the wall time until the last ends and their CPU time."""
    if out.exists():
        shutil.rmtree(out)
    files = sorted(data.glob("*.yaml"))
    procs = []
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    for k in range(n):
        part = out / f"in{k}"
        part.mkdir(parents=True)
        for f in files[k::n]:
            (part / f.name).symlink_to(f)
        cmd = [sys.executable, "-m", "mazeroute", "batch", str(part), "-o",
               str(out / f"out{k}"), "-q", "--workers", "1", "--mode", "sequential", *argv]
        procs.append(subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.PIPE, text=True))
    for proc in procs:
        _, err = proc.communicate()
        if proc.returncode != 0:
            sys.exit(f"ceiling run failed ({proc.returncode}): {err.strip()}")
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return seconds, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def result_of(out: Path) -> tuple[list[dict], dict[str, str], list[dict]]:
    """(rows without timings, workers and devices; routes.json digests; the full rows)."""
    with open(out / "summary.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    same = [{k: v for k, v in r.items() if k not in ("seconds", "worker", "device")}
            for r in rows]
    digests = {p.parent.name: hashlib.sha256(p.read_bytes()).hexdigest()
               for p in sorted(out.glob("*/routes.json"))}
    return same, digests, rows


def visible_gpus() -> list[str]:
    from mazeroute.distributed import visible_gpus as found
    return found()


def _arguments() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--count", type=int, default=200)
    p.add_argument("--size", type=int, default=512)
    p.add_argument("--nets", type=int, default=200)
    p.add_argument("--span", type=int, default=32)
    p.add_argument("--workers", type=int, nargs="*", default=None,
                   help="worker counts (default: 1 and powers of two up to the cores; "
                        "none given: no CPU run, for a GPU-only table)")
    p.add_argument("--gpus", type=int, nargs="*", default=None, metavar="K",
                   help="also run --gpus on the first K visible GPUs for each K "
                        "(no K: all of them), after a serial --backend gpu run")
    p.add_argument("--no-png", action="store_true", help="pass --no-png to every run")
    p.add_argument("--ceiling", action="store_true",
                   help="also, for each worker count N > 1, run N serial batches at once "
                        "(plain processes, no Dask) on N disjoint slices of the files: the "
                        "speed-up this machine gives N independent processes")
    p.add_argument("--repeat", type=int, default=1,
                   help="run each configuration this many times, interleaved, and keep "
                        "the fastest (a machine shared with other work)")
    p.add_argument("--data", type=Path, default=None,
                   help="folder of the generated layouts (default: in the temp folder)")
    p.add_argument("--out", type=Path, default=None,
                   help="scratch folder for the runs' outputs (default: a temporary one)")
    return p.parse_args()


def _print_table(times: dict[str, list], count: int, repeat: int) -> None:
    """The best of each run's ``repeat`` timings, as a Markdown table."""
    table = []
    best = {label: min(runs) for label, runs in times.items()}
    for label, (seconds, cpu, n, ref) in best.items():
        speed = best[ref][0] / seconds
        # --gpus K against --gpus 1 too: the same Dask overhead on both sides
        one = best.get("--gpus 1") if label.startswith("--gpus") else None
        table.append((label, n, seconds, cpu / seconds, count / seconds, speed,
                      speed / n, f"{one[0] / seconds / n:.2f}" if one else ""))
    print(f"load average after {os.getloadavg()[0]:.2f}")
    print()
    print(f"best of {repeat}; cores busy = CPU time of the batch and its workers / "
          "wall time")
    print("| run | N | seconds | cores busy | layouts/s | speed-up | speed-up / N | "
          "speed-up / N over `--gpus 1` |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for label, n, seconds, busy, rate, speed, eff, over_one in table:
        print(f"| `{label}` | {n} | {seconds:.1f} | {busy:.2f} | {rate:.2f} | {speed:.2f} | "
              f"{eff:.2f} | {over_one} |")


def main() -> int:
    args = _arguments()
    cores = os.cpu_count() or 1
    workers = (args.workers if args.workers is not None
               else [n for n in (1, 2, 4, 8, 16, 32, 64) if n <= cores])
    name = f"mazeroute-dask-batch-{args.count}x{args.size}-{args.nets}nets-span{args.span}"
    data = args.data or Path(tempfile.gettempdir()) / name
    t0 = time.perf_counter()
    generate(data, args.count, args.size, args.nets, args.span)
    print(f"{args.count} layouts of {args.size} x {args.size}, {args.nets} nets (span "
          f"{args.span}) in {data} ({time.perf_counter() - t0:.1f} s to make or find)")
    print(f"machine: {platform.node()}, {cores} cores, {platform.processor() or '?'}, "
          f"Python {platform.python_version()}; load average before "
          f"{os.getloadavg()[0]:.2f}")
    scratch = args.out or Path(tempfile.mkdtemp(prefix="dask-batch-"))
    extra = ["--no-png"] if args.no_png else []
    failed = False

    def timed(label: str, n: int, argv: list[str], baseline: tuple | None,
              env: dict | None = None) -> tuple:
        nonlocal failed
        out = scratch / label.replace(" ", "_")
        seconds, cpu = run(data, out, argv + extra, env)
        same, digests, rows = result_of(out)
        ref = baseline or (label, same, digests)
        if (same, digests) != ref[1:]:
            print(f"  {label}: results DIFFER from those of {ref[0]}")
            failed = True
        times.setdefault(label, []).append((seconds, cpu, n, ref[0]))
        routed = sum(float(r["seconds"] or 0) for r in rows)
        print(f"  {label}: {seconds:.1f} s, {cpu:.1f} CPU s ({cpu / seconds:.2f} cores), "
              f"routers' own {routed:.1f} s, load average {os.getloadavg()[0]:.2f}")
        return ref, rows

    times: dict[str, list] = {}
    for _ in range(args.repeat):
        cpu_ref = None
        for n in workers:
            cpu_ref, _ = timed(f"--workers {n}", n,
                               ["--backend", "cpu", "--workers", str(n)], cpu_ref)
            if args.ceiling and n > 1:
                label = f"{n} serial processes"
                seconds, cpu = ceiling(data, scratch / f"ceiling{n}",
                                       n, ["--backend", "cpu"] + extra)
                times.setdefault(label, []).append((seconds, cpu, n, "--workers 1"))
                print(f"  {label}: {seconds:.1f} s, {cpu:.1f} CPU s "
                      f"({cpu / seconds:.2f} cores), load average {os.getloadavg()[0]:.2f}")
        if args.gpus is None:
            continue
        ids = visible_gpus()
        if not ids:
            sys.exit("--gpus: no GPU is visible")
        gpu_ref, _ = timed("serial gpu", 1, ["--backend", "gpu"], None)
        for k in args.gpus or [len(ids)]:
            if k > len(ids):
                print(f"  --gpus with {k} GPUs: only {len(ids)} visible, skipped")
                continue
            _, rows = timed(f"--gpus {k}", k, ["--backend", "gpu", "--gpus"], gpu_ref,
                            {"CUDA_VISIBLE_DEVICES": ",".join(ids[:k])})
            devices: dict[str, set[str]] = {}
            for r in rows:
                devices.setdefault(r["worker"], set()).add(r["device"])
            for worker, seen in sorted(devices.items()):
                print(f"    worker {worker}: {', '.join(sorted(seen))}")
            buses = [d.split()[1] for seen in devices.values() for d in seen if " " in d]
            if any(len(s) != 1 for s in devices.values()) or len(set(buses)) != len(buses):
                print("    workers did NOT each report one GPU of their own")
                failed = True
    _print_table(times, args.count, args.repeat)
    if args.out is None:
        shutil.rmtree(scratch, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
