"""What the host allows: its cores, its memory, and the sizes an input may have.

Every bound on what is read (a file's bytes, a grid's cells, a name's characters, a
number's digits, YAML's nesting) and every probe of the memory there is lives here, so
that the readers, the command line and the batch runner refuse the same things in the
same words.

Examples
--------
>>> isinstance(many_cores(), bool), available_memory() >= 0
(True, True)
>>> check_size(3, 2)                      # six cells: nothing to refuse
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

from .errors import InputError, quote

#: Cores a machine needs before host passes run on all of them (Numba's parallel loops:
#: the CPU engine's requests, the planner's probes): on two busy cores the thread pool
#: waits for descheduled threads, milliseconds a pass (benchmarks/RESULTS.md,
#: "Figures behind code comments"), while on idle many-core machines it wins.
PARALLEL_CORES = 4

#: Largest grid accepted: vertex ids must fit in 32 bits.
MAX_CELLS = 2**31 - 2
#: Rough host bytes per cell that routing a layout needs (mask, levels, queue, parsing;
#: the picture is counted apart, per pixel, by the command line): sequential routing's,
#: checked as a layout is read.
BYTES_PER_CELL = 24
#: The same for negotiated routing (its congestion state, two search engines, the
#: sequential floor), checked before it routes, with a margin over the peak measured on
#: an open grid whose two nets cross (where the floor runs beside negotiation's
#: engines), so that a layout that cannot fit is refused, not killed
#: (``benchmarks/negotiate_memory_probe.py``; benchmarks/RESULTS.md, "Host memory of
#: negotiated routing").
NEGOTIATE_BYTES_PER_CELL = 160

#: Largest input file read (a layout, netlist, puzzle, map, scenario, routes file or
#: summary), in bytes: beyond it, a clear error rather than a stalled parse. Parsing
#: costs about ten times the file's size in memory; ``generate maze -W 8192 -H 8192``
#: writes a layout well under it.
MAX_INPUT_BYTES = 1 << 30
#: Deepest nesting of YAML collections accepted (a layout needs five levels).
MAX_DEPTH = 32
#: Longest name of a layout or net (FORMATS.md).
MAX_NAME = 200
#: Most digits an integer of an input file may have (far past any grid; Python refuses
#: to read one of more than 4300 digits, and its cost grows with them).
MAX_DIGITS = 100


def cores() -> int:
    """The cores this process may use (its CPU set's, where the system has them)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:                 # not on Linux
        return os.cpu_count() or 1


def many_cores() -> bool:
    """Whether this process may use at least :data:`PARALLEL_CORES` cores.

    Returns
    -------
    bool
        True on a host (or CPU set) of at least :data:`PARALLEL_CORES` cores.
    """
    return cores() >= PARALLEL_CORES


def check_size(width: int, height: int, file: str | Path | None = None,
               field: str = "width") -> None:
    """Refuse a grid too large to route, before anything of its size is made.

    Parameters
    ----------
    width, height : int
        The grid's size in cells, whatever format it came in.
    file : str or Path, optional
        The file that asked for it, named by the error.
    field : str
        The field (or line) that the error names.

    Raises
    ------
    InputError
        For more than :data:`MAX_CELLS` cells, or more than :func:`available_memory`
        can hold at :data:`BYTES_PER_CELL` a cell.
    """
    if width * height > MAX_CELLS:
        raise InputError(f"{quote(width)} x {quote(height)} cells is more than the "
                         f"{MAX_CELLS} a layout may have", file=file, field=field)
    need = width * height * BYTES_PER_CELL
    have = available_memory()
    if have and need > have:
        raise InputError(f"{width} x {height} cells needs about {need / 2**30:.1f} GiB, "
                         f"more than the {have / 2**30:.1f} GiB of memory available",
                         file=file, field=field)


def available_memory() -> int:
    """Bytes of memory a new allocation can get now (0 when unknown).

    The least of: Linux's ``MemAvailable`` (free memory plus caches it can drop), else
    physical memory; the room left under the memory limits of the process's control
    groups (a container's, or a job scheduler's: past it the kernel kills the process
    without a word); and the room left under its address-space limit (``ulimit -v``).

    Returns
    -------
    int
        The bytes, at least 1 when any bound is known; 0 when none is.
    """
    room = [r for r in (_machine_memory(), _cgroup_room(), _address_room()) if r is not None]
    return max(1, min(room)) if room else 0


def _machine_memory() -> int | None:
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def _read_int(path: Path) -> int | None:
    try:
        text = path.read_text(encoding="ascii").strip()
        return None if text == "max" else int(text)
    except (OSError, ValueError):
        return None


#: Limits at or above this many bytes stand for "none" (cgroup v1 writes 2^63 less a page).
_NO_LIMIT = 1 << 60


def _cgroup_room(root: Path = Path("/sys/fs/cgroup"), own: Path = Path("/proc/self/cgroup")
                 ) -> int | None:
    """Bytes left under the tightest memory limit of this process's control group and
    the groups above it (v2: ``memory.max`` less ``memory.current``; v1:
    ``memory.limit_in_bytes`` less ``memory.usage_in_bytes``), or None without one.
    Which groups have a limit is found once a process (:func:`_cgroup_limits`); their
    limits and usage are read at every call."""
    best = None
    for limit_file, used_file in _cgroup_limits(root, own):
        limit = _read_int(limit_file)
        if limit is not None and limit < _NO_LIMIT:
            room = limit - (_read_int(used_file) or 0)
            best = room if best is None else min(best, room)
    return best


@functools.cache
def _cgroup_limits(root: Path, own: Path) -> tuple[tuple[Path, Path], ...]:
    """The (limit, usage) files of this process's control groups, from its own up to
    the hierarchy's top, that held a limit when first asked: looking them up reads a
    dozen files and folders, a cost every layout's memory check would pay again."""
    try:
        lines = own.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return ()
    places = []
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        rel = parts[2].lstrip("/")
        if parts[0] == "0" and parts[1] == "":
            for mount in (root, root / "unified"):
                places.append((mount, rel, "memory.max", "memory.current"))
        elif "memory" in parts[1].split(","):
            places.append((root / "memory", rel, "memory.limit_in_bytes",
                           "memory.usage_in_bytes"))
    found = []
    for mount, rel, limit_name, used_name in places:
        group = mount / rel
        if not group.is_dir():
            group = mount                  # a namespaced view: the group is the mount
        while True:
            limit = _read_int(group / limit_name)
            if limit is not None and limit < _NO_LIMIT:
                found.append((group / limit_name, group / used_name))
            if group == mount or mount not in group.parents:
                break
            group = group.parent
    return tuple(found)


def _address_room() -> int | None:
    """Bytes left under ``RLIMIT_AS`` (the soft limit less the process's virtual size),
    or None without a limit."""
    try:
        import resource
        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        if soft == resource.RLIM_INFINITY:
            return None
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmSize:"):
                    return soft - int(line.split()[1]) * 1024
    except (ImportError, OSError, ValueError, IndexError, AttributeError):
        pass
    return None
