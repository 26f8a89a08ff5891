"""The batch on a Dask cluster: many processes, many GPUs, many machines.

Each input file is two tasks on the cluster: a **load** (a worker parses the file and
sends its layouts back) and a **route** (the layouts go with it; a worker routes them,
writes the outputs into the shared output folder and sends back only the summary rows,
stamped with the worker's name and the GPU it used, as the worker itself reports it).
Between the two the client names the output folders, in input order (a folder name
depends on every earlier file's: :func:`mazeroute.batch.assign_folders`), so they are
the serial batch's; it writes the summary after every file, rows in input order. A
route depends on no other task's data and is sent only when a worker thread is free for
it: Dask then starts it at once on an idle worker (a route that followed its layouts to
the worker that loaded them would wait there while another worker idles), and a
worker's death concerns only the task it was running. Loads run a few files per worker
ahead of the routes.

Faults: a layout that fails is its row, as in the serial batch. A worker that dies while
loading or routing a file (killed, out of memory) has the task retried on a fresh or
another worker, up to Dask's ``distributed.scheduler.allowed-failures`` times (3 unless
configured, e.g. ``DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES=1``); after that the
file's layouts are failed rows. Ctrl-C cancels the cluster's tasks.

Dask is imported only here, and only when a batch uses it: ``pip install
'mazeroute[dask]'``. This module never imports :mod:`mazeroute.cli`.

Examples
--------
>>> visible_gpus(environ={"CUDA_VISIBLE_DEVICES": "2,3"}, count=None)
['2', '3']
>>> visible_gpus(environ={"CUDA_VISIBLE_DEVICES": "1,-1,3"}, count=None)  # CUDA stops at -1
['1']
>>> visible_gpus(environ={}, count=2), visible_gpus(environ={"CUDA_VISIBLE_DEVICES": "5,6"},
...                                                count=1)
(['0', '1'], ['5'])
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import subprocess
import time
import uuid
import warnings
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .batch import (
    BatchOptions,
    BatchProgress,
    FileOutcome,
    FilePlan,
    Loaded,
    Summary,
    assign_folders,
    emit,
    failed_outcome,
    load_file,
    occupied,
    route_file,
)
from .errors import InputError, reraise_interrupt
from .io import signals_held

if TYPE_CHECKING:                     # Dask is imported only when a batch uses it
    from distributed import Client

#: The extra that installs what this module needs.
EXTRA = "mazeroute[dask]"
#: Files loaded ahead of their routing, per worker thread.
LOOKAHEAD = 4
#: Cells of loaded layouts that the client holds at most, waiting to send them to be
#: routed (a bool a cell, plus the nets): loading ahead stops beyond it.
HELD_CELLS = 2**28
#: Seconds a local cluster's workers get to stop before they are killed.
CLOSE_SECONDS = 3
#: A local scheduler serves no dashboard, and its small HTTP server takes any free port
#: (by default it tries 8787 and warns when another cluster holds it).
NO_DASHBOARD = {"dashboard": False, "dashboard_address": ":0"}


def require_dask(option: str) -> None:
    """Raise a one-line :class:`InputError` naming the extra when Dask is missing."""
    try:
        import dask  # noqa: F401
        import distributed  # noqa: F401
    except ImportError as e:
        missing = getattr(e, "name", None) or "dask"
        raise InputError(f"needs Dask ({missing} is not installed): pip install '{EXTRA}'",
                         field=option) from None


# -- GPUs --------------------------------------------------------------------------------
def visible_gpus(environ: Mapping[str, str] | None = None, count: int | None = -1
                 ) -> list[str]:
    """The GPUs a ``--gpus`` batch gives one worker each, as the ``CUDA_VISIBLE_DEVICES``
    value that pins a worker to it.

    The count comes from CuPy when it is installed and can ask the driver, else from
    ``nvidia-smi -L`` (``count=-1``: find out; tests pass a number or None). With
    ``CUDA_VISIBLE_DEVICES`` set, the GPUs are its entries, up to the first invalid one
    (as CUDA reads it) and at most ``count``; without it, devices ``0 .. count-1``.
    """
    environ = os.environ if environ is None else environ
    if count == -1:
        count = _cupy_count()
        if count is None:
            count = _nvidia_smi_count()
    visible = environ.get("CUDA_VISIBLE_DEVICES")
    if visible is None:
        return [str(i) for i in range(count or 0)]
    ids = []
    for entry in visible.split(","):
        entry = entry.strip()
        if not entry or entry.startswith("-"):
            break
        ids.append(entry)
    return ids if count is None else ids[:count]


def _cupy_count() -> int | None:
    import importlib.util
    if importlib.util.find_spec("cupy") is None:
        return None
    try:
        import cupy
        return int(cupy.cuda.runtime.getDeviceCount())
    except Exception:  # noqa: BLE001 -- no driver, no device: ask nvidia-smi
        return None


def _nvidia_smi_count() -> int | None:
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return None
    try:
        listing = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    if listing.returncode != 0:
        return None
    return sum(line.startswith("GPU ") for line in listing.stdout.splitlines())


# -- clusters ---------------------------------------------------------------------------------
def _ignore_interrupts(dask_worker=None) -> None:
    """Run in each local worker: Ctrl-C reaches every process of the terminal's group, and
    the client alone decides what stops (it cancels, then closes the cluster)."""
    import signal
    import threading
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def _memory_per_worker(workers: int) -> int:
    from distributed.system import MEMORY_LIMIT
    return max(1, MEMORY_LIMIT // max(1, workers))


@contextlib.contextmanager
def _quiet_logs() -> Iterator[None]:
    """Dask's own log lines (workers restarting, closing) stay off the user's terminal:
    what matters reaches the summary's rows."""
    loggers = [logging.getLogger(n) for n in ("distributed", "dask_cuda", "tornado")]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.CRITICAL)
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", module=r"(distributed|dask_cuda)(\.|$)")
            yield
    finally:
        for lg, level in zip(loggers, levels):
            lg.setLevel(level)


@contextlib.contextmanager
def local_client(workers: int = 1, gpus: Sequence[str] | None = None) -> Iterator[Client]:
    """A client of a new cluster on this machine, closed (its workers stopped) at the end.

    ``workers`` processes of one thread each, sharing the machine's memory; or, with
    ``gpus``, one worker per GPU, pinned to it by ``CUDA_VISIBLE_DEVICES`` (dask-cuda's
    ``LocalCUDACluster`` when installed, else plain Dask workers with that variable set).
    """
    require_dask("--gpus" if gpus else "--workers")
    import dask
    from distributed import Client

    quiet = logging.CRITICAL
    # A task waiting for a busy worker would share the blame if that worker died: hand
    # out files only to idle threads.
    with _quiet_logs(), dask.config.set({"distributed.scheduler.worker-saturation": 1.0}):
        cluster = client = None
        try:
            # Ctrl-C or SIGTERM while the cluster starts takes effect once it is up, and
            # it is closed as after any other interrupt: raised in the middle, it left
            # workers half started, whose closing at exit printed a traceback
            with signals_held():
                cluster = _start_cluster(workers, gpus, quiet)
                client = Client(cluster)
                client.register_plugin(_plugin(), name="mazeroute-no-sigint")
            yield client
        finally:
            if cluster is not None:
                _close(client, cluster)


def _start_cluster(workers: int, gpus: Sequence[str] | None, quiet: int):
    """:func:`local_client`'s cluster (an :class:`InputError` when it cannot start)."""
    from distributed import LocalCluster, Nanny, Scheduler, SpecCluster

    try:
        if gpus:
            memory = _memory_per_worker(len(gpus))
            try:
                from dask_cuda import LocalCUDACluster
            except ImportError:
                LocalCUDACluster = None
            if LocalCUDACluster is not None:
                cluster = LocalCUDACluster(CUDA_VISIBLE_DEVICES=list(gpus),
                                           threads_per_worker=1, memory_limit=memory,
                                           dashboard_address=None, silence_logs=quiet,
                                           scheduler_kwargs=NO_DASHBOARD)
            else:
                specs = {f"gpu{i}": {"cls": Nanny, "options": {
                    "nthreads": 1, "memory_limit": memory, "silence_logs": quiet,
                    "env": {"CUDA_VISIBLE_DEVICES": device}}}
                    for i, device in enumerate(gpus)}
                cluster = SpecCluster(workers=specs, scheduler={
                    "cls": Scheduler, "options": {"dashboard": False,
                                                  "dashboard_address": ":0"}},
                    silence_logs=quiet)
        else:
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                   dashboard_address=None, silence_logs=quiet,
                                   memory_limit=_memory_per_worker(workers),
                                   scheduler_kwargs=NO_DASHBOARD)
    except Exception as e:  # noqa: BLE001 -- a cluster that cannot start: one line
        raise InputError(f"cannot start a local Dask cluster: {type(e).__name__}: {e}",
                         field="--gpus" if gpus else "--workers") from None
    return cluster


def _plugin():
    """A worker plugin that runs :func:`_ignore_interrupts` on every worker, restarted
    ones included."""
    from distributed import WorkerPlugin

    class NoInterrupts(WorkerPlugin):
        def setup(self, worker):
            _ignore_interrupts(worker)

    return NoInterrupts()


def _close(client, cluster) -> None:
    """Stop the workers (a task still running is killed after :data:`CLOSE_SECONDS`),
    whatever signal comes meanwhile."""
    with signals_held():
        if client is not None:
            with contextlib.suppress(Exception):
                client.close(timeout=CLOSE_SECONDS)
        with contextlib.suppress(Exception):
            cluster.close(timeout=CLOSE_SECONDS)


@contextlib.contextmanager
def remote_client(address: str) -> Iterator[Client]:
    """A client of the running cluster at ``address`` (``dask scheduler`` elsewhere)."""
    require_dask("--scheduler")
    from distributed import Client
    with _quiet_logs():
        try:
            client = Client(address)    # waits distributed.comm.timeouts.connect
        except (OSError, TimeoutError, ValueError) as e:
            raise InputError(f"cannot reach the Dask scheduler at {address}: {e}",
                             field="--scheduler") from None
        try:
            yield client
        finally:
            with contextlib.suppress(Exception):
                client.close(timeout=CLOSE_SECONDS)


# -- the tasks (run on the workers) -----------------------------------------------------
def _load_task(file: str, options: BatchOptions, base: str | None) -> Loaded:
    return load_file(file, options, base)


def _route_task(loaded: Loaded, folders: list[str], out: str,
                options: BatchOptions) -> FileOutcome:
    outcome = route_file(loaded, folders, out, options)
    from distributed import get_worker
    name = str(get_worker().name)
    for row, kept in zip(outcome.rows, outcome.resumed):
        if not kept:
            row["worker"] = name
    return outcome


def _cells(loaded: Loaded) -> int:
    return sum(lay.width * lay.height for lay in loaded.layouts)


def _reason(e: BaseException, doing: str) -> str:
    from distributed import KilledWorker
    if isinstance(e, KilledWorker):
        return (f"the workers {doing} it died on every attempt (killed, or out of memory); "
                "not retried further")
    return f"{doing} it on the cluster failed: {type(e).__name__}: {e}"


# -- the client's loop ------------------------------------------------------------------
def run_batch(client: Client, files: Sequence[str], out: str | Path, options: BatchOptions,
              summary: Summary, *, base: str | None = None,
              progress: Callable[[int, int, str], None] | None = None,
              lookahead: int = LOOKAHEAD) -> None:
    """Route ``files`` on the cluster of ``client``, filling ``summary`` as files finish.

    Two tasks per file: a *load* (a worker reads the file and sends its layouts back) and,
    once the client has named the folders of every file before it, a *route* (the
    layouts go with the task; a worker routes them, writes the outputs and sends back the
    rows). A route depends on no other task's data and is sent only when a worker thread
    is free for it, so Dask starts it at once on an idle worker, and a worker's death
    concerns only the task it was running. Loads run ahead, at most ``lookahead`` files
    per worker thread (and about :data:`HELD_CELLS` cells) held here. ``base``: the path
    of the base layout of a batch of netlists (each worker reads it once). Paths must
    mean the same on the workers as here. An interruption cancels this batch's tasks and
    passes; ``summary`` then lists the files that were routing as started
    (:meth:`~mazeroute.batch.Summary.interrupt`).
    """
    _ClientLoop(client, files, str(out), options, summary, base, progress, lookahead).run()


class _ClientLoop:
    """The state of one :func:`run_batch`: the files to load, loaded, named and routing,
    and the futures out on the cluster."""

    def __init__(self, client: Client, files: Sequence[str], out: str, options: BatchOptions,
                 summary: Summary, base: str | None,
                 progress: Callable[[int, int, str], None] | None, lookahead: int):
        from distributed import as_completed

        self.client, self.files, self.out, self.options = client, files, out, options
        self.summary, self.base, self.lookahead = summary, base, lookahead
        self.run_id = uuid.uuid4().hex[:8]
        self.todo = deque(enumerate(files))
        self.open_files: set[int] = set()        # loading or loaded, not finished
        self.loaded: dict[int, Loaded] = {}      # loaded, waiting for earlier files' names
        self.named: deque = deque()              # (index, loaded, folders), in input order
        self.routing: set[int] = set()
        self.tags: dict = {}                     # key of a future not yet returned -> task
        self.taken = occupied(out, files)
        self.next = 0
        self.cells = 0
        self.counter = BatchProgress(len(files), progress)   # the serial batch's count
        self.pending = as_completed(loop=client.loop)
        self.seen = {"at": -1.0, "threads": 1}

    def threads(self) -> int:
        """The cluster's worker threads: workers come and go, so ask once a second."""
        now = time.monotonic()
        if now - self.seen["at"] > 1:
            self.seen["at"] = now
            self.seen["threads"] = max(1, sum(self.client.nthreads().values()))
        return self.seen["threads"]

    def submit(self, kind: str, k: int, plan: FilePlan | None, *args, priority: int) -> None:
        task = _load_task if kind == "load" else _route_task
        future = self.client.submit(task, *args, key=f"{kind}-{self.run_id}-{k}",
                                    priority=priority)
        self.tags[future.key] = (future, kind, k, plan)
        self.pending.add(future)

    def feed(self) -> None:
        """Send loads ahead (bounded by files and cells held), and routes to free threads."""
        slots = self.threads()
        while self.todo and len(self.open_files) < self.lookahead * slots and (
                self.cells < HELD_CELLS or not self.named):
            k, f = self.todo.popleft()
            self.open_files.add(k)
            self.submit("load", k, None, f, self.options, self.base, priority=2)
        while self.named and len(self.routing) < slots:
            k, held, folders = self.named.popleft()
            self.cells -= _cells(held)
            self.routing.add(k)
            self.summary.start(k, self.files[k], folders)
            self.submit("route", k, held.plan(), held, folders, self.out, self.options,
                        priority=1)

    def finish(self, k: int, outcome: FileOutcome) -> None:
        self.summary.finish(k, outcome)
        emit(outcome, self.options.quiet)
        self.summary.update()
        self.routing.discard(k)
        self.open_files.discard(k)
        self.counter.finished(k, len(outcome.rows))

    def name_in_order(self) -> None:
        """Name the folders of every loaded file whose earlier files are all named."""
        while self.next in self.loaded:
            k = self.next
            self.next += 1
            held = self.loaded.pop(k)
            if held.error is not None:         # no layouts, no folder names taken
                self.finish(k, held.outcome())
            else:
                self.named.append((k, held, assign_folders(held.names, self.taken)))

    def on_load(self, future, k: int) -> None:
        files = self.files
        try:
            held = future.result()
        except Exception as e:  # noqa: BLE001 -- the file's row, not the batch's end
            reraise_interrupt(e)
            failed = failed_outcome(FilePlan(files[k], [files[k]], [], []),
                                    _reason(e, "loading"))
            held = Loaded(files[k], error=failed.rows[0], message=failed.messages[0][1])
        self.loaded[k] = held
        self.counter.loaded(k, len(held.layouts), sum(len(lay.nets) for lay in held.layouts),
                            failed=held.error is not None)
        self.cells += _cells(held)
        self.name_in_order()

    def on_route(self, future, k: int, plan: FilePlan) -> None:
        try:
            outcome = future.result()
        except Exception as e:  # noqa: BLE001 -- the file's rows, not the batch's end
            reraise_interrupt(e)
            outcome = failed_outcome(plan, _reason(e, "routing"))
        self.finish(k, outcome)

    def run(self) -> None:
        try:
            self.feed()
            for future in self.pending:
                _, kind, k, plan = self.tags.pop(future.key)
                if kind == "load":
                    self.on_load(future, k)
                else:
                    self.on_route(future, k, plan)
                future.release()
                self.feed()
            self.summary.write()                   # the rows update() held back
        except BaseException:
            with contextlib.suppress(Exception):
                self.client.cancel([t[0] for t in self.tags.values()], force=True)
            raise


__all__ = ["local_client", "remote_client", "require_dask", "run_batch", "visible_gpus"]
