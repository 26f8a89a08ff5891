"""The GPU weighted search's host side and its kernel's code, on the CPU.

``gpu_weighted``'s planning (pure functions) is checked directly. Then
:class:`GPUNetSearch` runs whole, its array module NumPy and its kernel
``kernels/weighted.cu`` itself compiled for the CPU (tests/weighted_emu.cpp: each block
run by a few OS threads meeting at barriers), on the corpus of the CPU engine's tests
against the Dijkstra oracle (its chains and the negotiations through it:
tests/test_gpu_weighted_chains_host.py). The device's own run is tests/test_gpu_weighted.py.
"""

from __future__ import annotations

import ctypes
import shutil
import subprocess
import types
from pathlib import Path

import numpy as np
import pytest

import mazeroute.router.dispatch as dp
from mazeroute.engines import gpu_weighted as gw
from mazeroute.engines import weighted
from mazeroute.engines.weighted import (
    COST_DTYPE,
    COST_MAX,
    DIST_MAX,
    CPUNetSearch,
    NetRequest,
)
from mazeroute.generate import maze_mask
from mazeroute.router import PathFinderOptions
from tests.corpus import (
    WeightedCase,
    _weighted,
    grid_of_boxes_case,
    overlapping_case,
    random_weighted_cases,
    two_net_case,
    weighted_hand_cases,
    with_own_cells,
)
from tests.test_weighted import _check, kernel_defines_of

ROOT = Path(__file__).resolve().parent.parent

#: Negotiations compared run to their end, whatever the wall clock (the default
#: wait bound is measured in seconds, and an emulated device is slow), with the loop's
#: state on the host (the emulation runs kernels/weighted.cu alone; the state's kernels
#: are held to the host's in tests/test_gpu_state.py).
UNBOUNDED = PathFinderOptions(wait_factor=0, device_state=False)


def test_kernel_constants_are_the_hosts():
    d = kernel_defines_of("weighted.cu")
    assert int(d["COST_MAX"]) == weighted.COST_MAX
    assert int(d["DIST_MAX"].rstrip("u")) == weighted.DIST_MAX
    assert eval(d["BLOCKED_CODE"]) == gw.BLOCKED_CODE
    names = ["R_ROW", "R_NET", "R_X0", "R_Y0", "R_X1", "R_Y1", "R_PIN0", "R_PIN1", "R_SEG",
             "REC", "HDR", "BND", "ST_OK", "ST_UNREACHABLE", "ST_ERROR"]
    assert {n: int(d[n]) for n in names} == {n: getattr(gw, n) for n in names}
    opts = dict(o[2:].split("=", 1) for o in gw.kernel_options())
    assert int(opts["COST_MAX"]) == weighted.COST_MAX
    assert int(opts["DIST_MAX"].rstrip("u")) == weighted.DIST_MAX
    assert eval(opts["BLOCKED_CODE"]) == gw.BLOCKED_CODE
    assert int(d["TILE"]) == int(opts["TILE"]) == gw.TILE
    assert int(d["COST_SCALE"]) == int(opts["COST_SCALE"]) == weighted.COST_SCALE
    assert int(d["MAX_ROUNDS"]) == int(opts["MAX_ROUNDS"]) == gw.MAX_ROUNDS


def _random_boxes(rng, n, side):
    x0 = rng.integers(0, side, n)
    y0 = rng.integers(0, side, n)
    return np.stack([x0, y0, x0 + rng.integers(0, side // 2, n),
                     y0 + rng.integers(0, side // 2, n)], axis=1)


@pytest.mark.parametrize("seed", range(5))
def test_plan_launches_runs_every_request_once_and_apart(seed):
    rng = np.random.default_rng(seed)
    boxes = _random_boxes(rng, 300, 400)
    limit = int(rng.choice([0, 20_000, 100_000]))
    order, launches = gw.plan_launches(boxes, limit, max_blocks=int(rng.integers(1, 80)))
    assert sorted(order.tolist()) == list(range(len(boxes)))
    assert launches[0, 0] == 0 and (launches[:-1, 0] + launches[:-1, 1]
                                   == launches[1:, 0]).all()
    assert launches[-1, 0] + launches[-1, 1] == len(boxes)
    need = gw.shared_bytes(boxes)
    for start, count, smem, threads in launches.tolist():
        members = order[start:start + count]
        b = boxes[members]
        lines = np.maximum(b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]) + 1
        assert threads % 32 == 0 and 32 <= threads <= 1024
        assert threads >= min(1024, lines.max())
        if smem:                       # shared memory: every box fits
            assert (need[members] <= smem).all() and smem <= limit
        else:                          # global memory: every box too big (regions of
            assert (need[members] > limit).all()    # their own: they may overlap)
    big = order[launches[launches[:, 2] == 0, 0].min():] if (launches[:, 2] == 0).any() \
        else order[:0]
    assert sorted(big.tolist()) == np.flatnonzero(need > limit).tolist()


@pytest.mark.parametrize("seed", range(6))
def test_own_parts_keep_own_cells_apart(seed):
    """Every request in one part; within a part no own cell of two requests, no net with own
    cells beside another request of its net; disjoint own cells make one part."""
    from mazeroute.engines.weighted_launch import own_parts
    rng = np.random.default_rng(seed)
    n = 30
    nets = rng.integers(0, 12, n)
    sizes = rng.integers(0, 4, n) * (rng.random(n) < 0.7)
    own_ptr = np.concatenate([[0], np.cumsum(sizes)])
    cells = rng.integers(0, 40, int(own_ptr[-1]))
    reqs = [NetRequest(int(k), np.zeros((1, 2)), (0, 0, 0, 0)) for k in nets]
    parts = own_parts(reqs, own_ptr, cells)
    assert sorted(r for p in parts for r in p) == list(range(n))
    for part in parts:
        mine = np.concatenate([np.unique(cells[own_ptr[r]:own_ptr[r + 1]]) for r in part])
        assert np.unique(mine).size == mine.size
        owning = [int(nets[r]) for r in part if sizes[r]]
        assert len(set(owning)) == len(owning)
        assert not set(owning) & {int(nets[r]) for r in part if not sizes[r]}
    apart = np.arange(int(own_ptr[-1]))
    assert len(own_parts(reqs[:1] + [NetRequest(100 + k, np.zeros((1, 2)), (0, 0, 0, 0))
                                      for k in range(n - 1)], own_ptr, apart)) == 1


def test_chunks_bound_the_scratch():
    rng = np.random.default_rng(3)
    areas = rng.integers(1, 100, 500)
    b = gw.chunks(areas, 150)
    assert b[0] == 0 and b[-1] == 500 and (np.diff(b) > 0).all()
    assert all(areas[lo:hi].sum() <= 150 for lo, hi in zip(b[:-1], b[1:]))
    assert gw.chunks(areas, int(areas.sum())).tolist() == [0, 500]


def test_cell_codes_and_fits():
    free = np.array([[True, False], [True, True]])
    owner = np.array([[3, 4], [-1, 0]], np.int32)
    assert gw.cell_codes(free, owner).tolist() == [[3, gw.BLOCKED_CODE], [-1, 0]]
    assert gw.fits(46340, 46340) and not gw.fits(46341, 46341)


# -- the kernel's code on the CPU -------------------------------------------------
def _build_emu(tmp_path_factory, *flags: str):
    cxx = shutil.which("g++") or shutil.which("c++")
    if cxx is None:
        pytest.skip("no C++ compiler to build the kernel's CPU emulation")
    so = tmp_path_factory.mktemp("emu") / "weighted_emu.so"
    subprocess.run([cxx, "-std=c++20", "-O1", "-shared", "-fPIC", "-pthread", *flags, "-o",
                    str(so), str(ROOT / "tests" / "weighted_emu.cpp")], check=True)
    lib = ctypes.CDLL(str(so))
    lib.emulate.restype = ctypes.c_int
    return lib


@pytest.fixture(scope="module")
def emu_lib(tmp_path_factory):
    return _build_emu(tmp_path_factory)


#: A tile side small enough that the cases' boxes span many tiles.
SMALL_TILE = 5


#: A ring of round counters small enough that the searches in small tiles wrap it.
SMALL_RING = 4


@pytest.fixture(scope="module")
def emu_small_tiles(tmp_path_factory):
    return _build_emu(tmp_path_factory, f"-DTILE={SMALL_TILE}", f"-DMAX_ROUNDS={SMALL_RING}")


@pytest.fixture(scope="module")
def emu_big_tiles(tmp_path_factory):
    """The kernel with the largest tiles it takes (:data:`gw.TILE_MAX`)."""
    return _build_emu(tmp_path_factory, f"-DTILE={gw.TILE_MAX}")


_KEEP: list = []
_ARG_TYPES = [np.int64, None, np.int32, np.uint16, np.int32, np.uint16, None, np.int32, None,
              None, np.int32, np.int32, np.int32, np.int32]


#: An int64 scalar among a kernel's arguments (:func:`_c_args`).
I64 = "i64"


def _c_args(args, types) -> list:
    """A kernel's arguments for ctypes, each checked against ``types`` (an array's
    dtype, contiguous; None: an int32 scalar; :data:`I64`: an int64 one)."""
    out = []
    for a, want in zip(args, types, strict=True):
        if want is None:
            assert isinstance(a, np.int32)
            out.append(ctypes.c_int(int(a)))
        elif want is I64:
            assert isinstance(a, np.int64)
            out.append(ctypes.c_longlong(int(a)))
        else:
            assert isinstance(a, np.ndarray) and a.dtype == want and a.flags.c_contiguous
            out.append(ctypes.c_void_p(a.ctypes.data))
    return out


class _EmuKernel:
    """kernels/weighted.cu's ``weighted_route`` run by tests/weighted_emu.cpp."""

    shared_size_bytes = 12

    def __init__(self, lib, threads):
        self.lib, self.threads = lib, threads
        self.max_dynamic_shared_size_bytes = 0
        self.calls = []
        _KEEP.append(self)    # alive, as the device's kernels are: ids are never reused

    def __call__(self, grid, block, args, shared_mem=0):
        assert shared_mem + self.shared_size_bytes <= max(
            48 << 10, self.max_dynamic_shared_size_bytes + self.shared_size_bytes)
        assert 1 <= block[0] <= 1024
        c_args = _c_args(args, _ARG_TYPES)
        self.calls.append((grid[0], block[0], shared_mem))
        rc = self.lib.emulate(ctypes.c_int(min(self.threads, block[0])),
                              ctypes.c_int(grid[0]), ctypes.c_int(shared_mem), *c_args)
        assert rc == 0


class _EmuSetCosts:
    """kernels/weighted.cu's ``set_costs`` run by tests/weighted_emu.cpp."""

    def __init__(self, lib):
        self.lib = lib

    def __call__(self, grid, block, args):
        idx, val, n, cost = args
        assert idx.dtype == val.dtype == np.int32 and cost.dtype == np.uint16
        assert isinstance(n, np.int32) and idx.size == val.size == n
        ptr = [ctypes.c_void_p(a.ctypes.data) for a in (idx, val, cost)]
        assert self.lib.emulate_set_costs(grid[0], block[0], ptr[0], ptr[1], int(n),
                                          ptr[2]) == 0


#: The tiled kernels' arguments: an array's dtype, or None for an int32 scalar.
_TILED_ARGS = {
    "tiled_init": [np.int64, np.int32, None, np.int32, None, None, np.uint32, np.int32,
                   np.int32, np.int32, np.int32],
    "tiled_rounds": [np.int64, np.int32, None, np.int32, np.int32, np.uint16, np.int32,
                     np.uint16, None, np.uint32, None, np.int32, np.int32, np.int32, np.int32],
    "tiled_connect": [np.int64, None, np.int32, None, np.int32, np.uint16, np.int32,
                      np.uint16, None, np.uint32, np.int32, np.int32, np.int32, np.int32,
                      np.int32, np.int32],
    "tiled_finish": [np.int64, None, np.int32, np.int32, np.int32, np.int32, np.int32],
    "tiled_seed": [None, np.int32, np.int32, np.int32, np.int32, None],
    "tiled_queue": [np.int64, np.int32, None, np.int32, np.int32, np.uint16, np.int32,
                    np.uint16, None, np.uint32, None, np.int32, np.int32, np.int32, np.int32,
                    None],
}


class _EmuTiled:
    """One of kernels/weighted.cu's tiled kernels run by tests/weighted_emu.cpp."""

    def __init__(self, lib, name, threads, tile):
        self.fn, self.types, self.threads = getattr(lib, f"emulate_{name}"), \
            _TILED_ARGS[name], threads
        self.bound = tile + 2               # the kernels' __launch_bounds__
        self.calls = 0

    def __call__(self, grid, block, args):
        assert 1 <= block[0] <= self.bound
        c_args = _c_args(args, self.types)
        self.calls += 1
        assert self.fn(min(self.threads, block[0]), grid[0], *c_args) == 0


#: chain_uses's arguments, as _TILED_ARGS.
_CHAIN_ARGS = [np.int32, np.int32, np.int32, None, None, None, np.int32, None, None,
               np.int64, np.int64, np.int64, None, np.uint16]


class _EmuChainUses:
    """kernels/weighted.cu's ``chain_uses`` run by tests/weighted_emu.cpp."""

    def __init__(self, lib):
        self.lib = lib
        self.calls = 0

    def __call__(self, grid, block, args):
        self.calls += 1
        assert self.lib.emulate_chain_uses(block[0], grid[0],
                                           *_c_args(args, _CHAIN_ARGS)) == 0


class _DeviceArray(np.ndarray):
    """A NumPy array with CuPy's ``set`` (host to device) and ``get`` (back)."""

    def set(self, a):           # CuPy's conditions
        assert type(a) is np.ndarray and a.dtype == self.dtype and a.shape == self.shape
        assert self.flags.c_contiguous
        self[...] = a

    def get(self):
        return np.array(self)


_NUMPY = types.SimpleNamespace(
    asarray=np.asarray, int32=np.int32, int64=np.int64, uint16=np.uint16, uint32=np.uint32,
    empty=lambda n, dtype: np.empty(n, dtype).view(_DeviceArray))


class EmuNetSearch(gw.GPUNetSearch):
    """GPUNetSearch whole, on NumPy arrays, with the kernels' code run on the CPU."""

    def __init__(self, free, owner, lib, threads=3, smem_limit=None, tile=gw.TILE,
                 tiled_schedule=gw.TILED_SCHEDULE):
        self._emu = _EmuKernel(lib, threads)
        self._emu_set = _EmuSetCosts(lib)
        self._emu_tiled = [_EmuTiled(lib, k, threads, tile) for k in gw.KERNELS[2:6]]
        self._emu_chain = _EmuChainUses(lib)
        self._emu_queue = [_EmuTiled(lib, k, threads, tile) for k in gw.KERNELS[7:9]]
        super().__init__(free, owner, smem_limit=smem_limit, tile=tile,
                         tiled_schedule=tiled_schedule)

    @property
    def tiled_calls(self) -> int:
        """Launches of the tiled search's fixpoint (tiled_rounds or tiled_queue)."""
        return self._emu_tiled[1].calls + self._emu_queue[1].calls

    def _device(self):
        # a tiled_rounds launch of 8 blocks strides over the tiles
        return (_NUMPY, (self._emu, self._emu_set, *self._emu_tiled, self._emu_chain,
                         *self._emu_queue), 227 << 10, 8)


# shared memory as the device allows, all in global memory, a mix
LIMITS = [None, 0, 3000]


@pytest.mark.parametrize("limit", LIMITS)
@pytest.mark.parametrize("case", weighted_hand_cases(), ids=lambda c: c.id)
def test_emulated_kernel_equals_the_oracle_on_hand_cases(emu_lib, case, limit):
    _check(case, EmuNetSearch(case.free, case.owner, emu_lib, smem_limit=limit))


@pytest.mark.parametrize("threads", [1, 4])
@pytest.mark.parametrize("case", random_weighted_cases(60, 24, seed=21), ids=lambda c: c.id)
def test_emulated_kernel_equals_the_oracle_on_random_cases(emu_lib, case, threads):
    limit = [None, 0, 600][len(case.id) % 3]
    _check(case, EmuNetSearch(case.free, case.owner, emu_lib, threads, limit))


@pytest.mark.parametrize("limit", [None, 0])
@pytest.mark.parametrize("case", random_weighted_cases(4, 120, seed=5, whole=True),
                         ids=lambda c: c.id)
def test_emulated_kernel_equals_the_oracle_on_large_cases(emu_lib, case, limit):
    _check(case, EmuNetSearch(case.free, case.owner, emu_lib, 4, limit))


@pytest.mark.parametrize("case", weighted_hand_cases()
                         + random_weighted_cases(30, 24, seed=23)
                         + random_weighted_cases(3, 60, seed=6, whole=True),
                         ids=lambda c: c.id)
@pytest.mark.parametrize("schedule", ["rounds", "queue"])
def test_emulated_tiles_equal_the_oracle(emu_small_tiles, case, schedule):
    """Every box searched in tiles of a few cells (so that a path crosses many tiles and
    trees grow across them), against the oracle and the CPU engine, by rounds and by the
    work queue."""
    search = EmuNetSearch(case.free, case.owner, emu_small_tiles, 3, 0, tile=SMALL_TILE,
                          tiled_schedule=schedule)
    _check(case, search)
    assert search.tiled_calls > 0 and not search._emu.calls
    if schedule == "queue":     # a run leaves every tile IDLE and the ring EMPTY
        assert not search._tq_state.any() and (search._tq_ring == -1).all()


@pytest.mark.parametrize("side,queue", [(12, False), (60, True)])
def test_auto_takes_the_queue_when_blocks_take_turns_at_tiles(emu_small_tiles, side, queue):
    """``auto``: the rounds while a launch's tiles fit its blocks (8 in the emulator),
    the queue past that; its wires are the oracle's either way."""
    case = random_weighted_cases(1, side, seed=31, whole=True)[0]
    search = EmuNetSearch(case.free, case.owner, emu_small_tiles, 3, 0, tile=SMALL_TILE,
                          tiled_schedule="auto")
    _check(case, search)
    used = (search._emu_tiled[1].calls > 0, search._emu_queue[1].calls > 0)
    assert used == (not queue, queue)


def test_an_unknown_tiled_schedule_is_refused(emu_lib):
    with pytest.raises(ValueError, match="tiled_schedule = 'waves'"):
        EmuNetSearch(np.ones((4, 4), bool), np.full((4, 4), -1, np.int32), emu_lib,
                     tiled_schedule="waves")


@pytest.fixture(scope="module")
def emu_probes(tmp_path_factory):
    """The kernel's emulation with its probe counters, with and without the A* bound,
    tiles of SMALL_TILE cells."""
    libs = {}
    for bound in (True, False):
        lib = _build_emu(tmp_path_factory, "-DPROBE", f"-DTILE={SMALL_TILE}",
                         *(() if bound else ("-DNO_BOUND",)))
        lib.probe.restype = ctypes.POINTER(ctypes.c_ulonglong)
        libs[bound] = lib
    return libs


def _probe(lib) -> np.ndarray:
    """searches, sweeps, backtrace steps, cycles, cells swept, tiles relaxed"""
    p = lib.probe()
    return np.array([p[i] for i in range(6)], np.int64)


def _far_box_case(rng) -> WeightedCase:
    """Nets whose pins lie close together in a box that is the whole 60 x 60 grid, on
    costs as negotiation makes them (a base of 16, some cells dearer): most of the box
    lies beyond any cheapest path."""
    free = rng.random((60, 60)) >= 0.15
    cost = np.full((60, 60), 16) + 16 * rng.integers(0, 3, (60, 60))
    cost[rng.random((60, 60)) < 0.05] = 900
    nets = [[(6, 6), (15, 11)], [(40, 44), (50, 40), (44, 52)]]
    for pins in nets:
        for x, y in pins:
            free[y, x] = True
    return _weighted("far-box", free, nets, cost.astype(COST_DTYPE),
                     boxes=[(0, 0, 59, 59), None]), \
        _weighted("far-box-tree", free, nets, cost.astype(COST_DTYPE),
                  boxes=[None, (0, 0, 59, 59)])


@pytest.mark.parametrize("limit", [None, 0], ids=["shared", "tiles"])
def test_the_bound_spares_cells_beyond_the_cheapest_paths(emu_probes, limit):
    """The A* bound (kernels/weighted.cu): the same wires as the oracle with and without
    it, and with it far fewer cells swept (and tiles relaxed) where the box is much
    bigger than the paths: a bound that never prunes fails here."""
    rng = np.random.default_rng(4)
    for case in _far_box_case(rng):
        counts = {}
        for bound, lib in emu_probes.items():
            before = _probe(lib)
            _check(case, EmuNetSearch(case.free, case.owner, lib, 3, limit, tile=SMALL_TILE))
            counts[bound] = _probe(lib) - before
        assert counts[True][4] * 2 < counts[False][4], (case.id, counts)
        if limit == 0:
            assert counts[True][5] * 2 < counts[False][5], (case.id, counts)


@pytest.mark.parametrize("limit", [None, 0], ids=["shared", "tiles"])
def test_the_bound_follows_costs_that_fall(emu_probes, limit):
    """The bound's least cost is every cost's lower bound, through ``changed``: costs all
    16 and more, then a long detour made cheap (1 a cell) by a call that lists only
    those cells. A least cost left at 16 would prune the detour (its cells lie far from
    the straight line) and miss the cheapest path."""
    free = np.ones((30, 40), bool)
    owner = np.full((30, 40), -1, np.int32)
    owner[15, 2] = owner[15, 37] = 0
    cost = np.full((30, 40), 16, COST_DTYPE)
    cost[10:21, 20] = 200                           # a dear wall across the straight line
    req = NetRequest(0, np.array([[2, 15], [37, 15]]), (0, 0, 39, 29))
    search = EmuNetSearch(free, owner, emu_probes[True], 3, limit, tile=SMALL_TILE)
    cpu = CPUNetSearch(free, owner)
    assert same_wires(search.route(cost, [req]), cpu.route(cost, [req]))
    detour = np.zeros((30, 40), bool)
    detour[0, 2:38] = detour[0:16, 2] = detour[0:16, 37] = True
    cost[detour] = 1
    changed = np.flatnonzero(detour.ravel())
    got = search.route(cost, [req], changed)[0]
    assert same_wires([got], cpu.route(cost, [req]))
    assert (got[:, 1] == 0).sum() > 30                # the wire takes the detour


@pytest.mark.parametrize("case", random_weighted_cases(30, 24, seed=29), ids=lambda c: c.id)
def test_calls_split_by_box_size_equal_the_oracle(emu_lib, case):
    """Boxes over ``cpu_box_cells`` go to the CPU engine, the others to the device in the
    same call: every wire is the oracle's."""
    search = dp.SearchDispatch(EmuNetSearch(case.free, case.owner, emu_lib, 3,
                                            [None, 0][len(case.id) % 2]), cpu_box_cells=60)
    _check(case, search)
    areas = [(r.box[2] - r.box[0] + 1) * (r.box[3] - r.box[1] + 1) for r in case.requests]
    assert (search._cpu is not None) == (max(areas) > 60)


def test_tile_sides_past_the_kernels_bound_are_refused(emu_lib):
    free = np.ones((8, 8), bool)
    owner = np.full((8, 8), -1, np.int32)
    for tile in (0, gw.TILE_MAX + 1):
        with pytest.raises(ValueError, match="tile"):
            EmuNetSearch(free, owner, emu_lib, tile=tile)


class _Alias:
    """Another Python object for the same kernel (as CuPy may hand out for one compiled
    function): attributes are the kernel's own."""

    def __init__(self, kernel):
        object.__setattr__(self, "_target", kernel)

    def __getattr__(self, name):
        return getattr(self._target, name)

    def __setattr__(self, name, value):
        setattr(self._target, name, value)

    def __call__(self, *args, **kwargs):
        return self._target(*args, **kwargs)


@pytest.mark.parametrize("alias", [False, True], ids=["same-object", "another-object"])
def test_shared_memory_opt_in_is_never_lowered(emu_lib, alias):
    """Searches share the device's kernel: one asking for less shared memory must not
    take away what another was allowed, whether it holds the same Python object or
    another one for the same function."""
    free = np.ones((120, 120), bool)
    owner = np.full((120, 120), -1, np.int32)
    cost = np.ones((120, 120), COST_DTYPE)
    big = NetRequest(0, np.array([[0, 0], [119, 119]]), (0, 0, 119, 119))   # 87 kB
    mid = NetRequest(0, np.array([[0, 0], [99, 99]]), (0, 0, 99, 99))       # 61 kB
    a = EmuNetSearch(free, owner, emu_lib)
    b = EmuNetSearch(free, owner, emu_lib)
    b._emu = a._emu
    b._kernel = _Alias(a._emu) if alias else a._emu
    assert a.route(cost, [big])[0] is not None
    assert b.route(cost, [mid])[0] is not None
    assert a.route(cost, [big])[0] is not None
    assert a._emu.max_dynamic_shared_size_bytes == gw.shared_bytes(np.array([big.box]))[0]


def check_uploads_and_owners(make) -> None:
    """``changed`` uploads exactly the cells it lists (dear cells on the wires, changed
    but not listed, must not be seen); set_owner reaches the device, and never opens a
    blocked cell. ``make(free, owner)`` builds the search."""
    rng = np.random.default_rng(8)
    case = two_net_case(rng)
    search = make(case.free, case.owner)
    cpu = CPUNetSearch(case.free, case.owner)
    cost = case.cost.copy()
    _check(case, search)
    held = cost.copy()                  # what the device must hold: listed cells only
    bites = 0
    for _ in range(6):
        wires = [g for g in cpu.route(held, list(case.requests)) if g is not None]
        cells = rng.integers(0, cost.size, 40)
        cost.ravel()[cells] = rng.integers(1, 50, 40)
        held.ravel()[cells] = cost.ravel()[cells]
        if wires:
            xy = np.concatenate(wires)
            cost[xy[:, 1], xy[:, 0]] = 5000
            cost.ravel()[cells] = held.ravel()[cells]
        got = search.route(cost, list(case.requests), changed=cells)
        want = cpu.route(held, list(case.requests))
        assert same_wires(got, want)
        bites += not same_wires(want, cpu.route(cost, list(case.requests)))
    assert bites                        # an engine uploading every cell would fail
    wires = np.concatenate([g for g in cpu.route(held, list(case.requests)) if g is not None])
    cells = wires[:, 1] * held.shape[1] + wires[:, 0]
    held.ravel()[cells] = 4000          # listed by a call whose requests are refused
    bad = case.requests[0]._replace(box=(0, 0, 0, 0))
    with pytest.raises(ValueError, match="outside the box"):
        search.route(held, [bad], changed=cells)
    assert same_wires(search.route(held, list(case.requests), changed=cells[:0]),
                      cpu.route(held, list(case.requests)))
    req = case.requests[0]
    wire = search.route(held, [req])[0]
    assert wire is not None and len(wire) > 2
    mid = wire[len(wire) // 2][None]
    for who in (req.net + 1, -1):
        search.set_owner(mid, who)
        cpu.set_owner(mid, who)
        assert search.route(held, []) == []     # a call that searches nothing between
        assert same_wires(search.route(held, [req]), cpu.route(held, [req]))
    assert same_wires(search.route(held, [req]), [wire])
    blocked = np.argwhere(~case.free)[:, ::-1]
    search.set_owner(blocked, req.net)
    cpu.set_owner(blocked, req.net)
    assert same_wires(search.route(held, [req]), [wire])
    assert same_wires(search.route(held, list(case.requests)),
                      cpu.route(held, list(case.requests)))
    # one call with an owner a cell: the wire's middle to the other net, its ends to
    # nobody, then back; the same as cell by cell on the CPU
    for owners in ([req.net + 1, -1, -1], [-1, -1, -1]):
        cells = wire[[len(wire) // 2, 1, len(wire) - 2]]
        search.set_owner(cells, np.array(owners, np.int32))
        for c, who in zip(cells, owners):
            cpu.set_owner(c[None], who)
        np.testing.assert_array_equal(search.owner, cpu.owner)
        assert same_wires(search.route(held, list(case.requests)),
                          cpu.route(held, list(case.requests)))


def test_emulated_kernel_keeps_uploads_and_owners(emu_lib):
    check_uploads_and_owners(lambda free, owner: EmuNetSearch(free, owner, emu_lib))


def test_owners_reach_the_device_at_the_next_search(emu_lib):
    """Owners set between searches travel with the next search, not with a call that
    only brings the costs up (a router makes one each time another engine searches)."""
    case = two_net_case(np.random.default_rng(3))
    search = EmuNetSearch(case.free, case.owner, emu_lib)
    wire = search.route(case.cost, list(case.requests))[0]
    search.set_owner(wire[1:-1], case.requests[0].net + 1)
    assert search.route(case.cost, []) == [] and search._owned
    after = search.route(case.cost, list(case.requests))
    want = CPUNetSearch(case.free, search.owner).route(case.cost, list(case.requests))
    assert not search._owned and same_wires(after, want)


def same_wires(a, b) -> bool:
    return len(a) == len(b) and all(
        (x is None and y is None) or (x is not None and y is not None
                                      and np.array_equal(x, y)) for x, y in zip(a, b))


def check_dist_max(make) -> None:
    """A path of cost exactly DIST_MAX is found, one dearer is not (rows and columns)."""
    n = 65538                   # x = 0 .. 65537: 65537 cells entered
    for shape, pins in (((1, n), [[0, 0], [n - 1, 0]]), ((n, 1), [[0, 0], [0, n - 1]])):
        free = np.ones(shape, bool)
        owner = np.full(shape, -1, np.int32)
        cost = np.full(shape, COST_MAX, COST_DTYPE)
        cost.ravel()[1] = DIST_MAX - (n - 2) * COST_MAX          # 65534
        req = NetRequest(0, np.array(pins), (0, 0, shape[1] - 1, shape[0] - 1))
        search = make(free, owner)
        got = search.route(cost, [req])[0]
        assert got is not None and len(got) == n
        assert int(cost[got[1:, 1], got[1:, 0]].astype(np.int64).sum()) == DIST_MAX
        cost.ravel()[1] += 1
        assert search.route(cost, [req], changed=np.array([1])) == [None]
        assert CPUNetSearch(free, owner).route(cost, [req]) == [None]


def check_tree_grows_within_reach(make) -> None:
    """Pins A, C, B on a strip of dear cells: C lies beyond DIST_MAX of A but within it
    of B, so C is joined once B is; with B missing, the net fails."""
    n = 80_001
    free = np.ones((1, n), bool)
    owner = np.full((1, n), -1, np.int32)
    cost = np.full((1, n), COST_MAX, COST_DTYPE)
    a, b, c = (0, 0), (40_000, 0), (80_000, 0)
    assert 80_000 * COST_MAX > DIST_MAX >= 40_000 * COST_MAX
    search, cpu = make(free, owner), CPUNetSearch(free, owner)
    for pins, routed in (([a, c, b], True), ([a, c], False)):
        req = NetRequest(0, np.array(pins), (0, 0, n - 1, 0))
        got = search.route(cost, [req])[0]
        assert (got is not None) == routed
        assert same_wires([got], cpu.route(cost, [req]))
        if routed:
            assert len(got) == n and got[40_001].tolist() == [40_001, 0]


def check_overlapping_boxes(make) -> None:
    """Boxes that overlap (beyond the interface's promise) still get each request's own
    answer: big boxes share a launch, each in a region of its own, and the scratch goes
    to separate chunks."""
    case = two_net_case(np.random.default_rng(2))
    h, w = case.free.shape
    whole = (0, 0, w - 1, h - 1)
    reqs = [r._replace(box=whole) for r in case.requests] + [case.requests[0]]
    for limit in (None, 0):
        got = make(case.free, case.owner, smem_limit=limit).route(case.cost, reqs)
        cpu = CPUNetSearch(case.free, case.owner)
        assert same_wires(got, [cpu.route(case.cost, [r])[0] for r in reqs])


def check_many_requests(make) -> None:
    """Many disjoint boxes of different sizes in one call, in shared and global memory."""
    case = grid_of_boxes_case(np.random.default_rng(4), 48, 64, 12, 16)
    assert len(case.requests) == 16
    for limit in (None, 1000, 0):     # 1000 bytes: the narrow boxes fit, the wide do not
        _check(case, make(case.free, case.owner, smem_limit=limit))


def check_long_wires(make) -> None:
    """Wires far longer than their boxes' perimeters (maze corridors; a tree over a maze):
    the results outgrow the first read back and come in a second."""
    free = ~maze_mask(41, 41, seed=5)
    owner = np.full(free.shape, -1, np.int32)
    corners = [(0, 0), (40, 40), (40, 0), (0, 40)]
    for x, y in corners:
        owner[y, x] = 0
    cost = np.random.default_rng(5).integers(1, 4, free.shape).astype(COST_DTYPE)
    reqs = (NetRequest(0, np.array(corners[:2]), (0, 0, 40, 40)),)
    tree = (NetRequest(0, np.array(corners), (0, 0, 40, 40)),)
    for r in (reqs, tree):
        case = WeightedCase("maze-41", free, owner, cost, r)
        assert len(case.expected()[0]) > 2 * (41 + 41)
        _check(case, make(free, owner))


def test_emulated_kernel_long_wires(emu_lib):
    check_long_wires(lambda free, owner: EmuNetSearch(free, owner, emu_lib))


# A strip of tens of thousands of cells: the wave crosses a tile a round, and the
# emulator runs the rounds one block after another, so these take a kernel built with the
# largest tiles (the device's tests take the default; tiles of other sides are tested on
# smaller boxes).
def test_emulated_kernel_paths_up_to_dist_max(emu_big_tiles):
    check_dist_max(
        lambda free, owner: EmuNetSearch(free, owner, emu_big_tiles, tile=gw.TILE_MAX))


def test_emulated_kernel_grows_trees_within_reach(emu_big_tiles):
    check_tree_grows_within_reach(
        lambda free, owner: EmuNetSearch(free, owner, emu_big_tiles, tile=gw.TILE_MAX))


def test_emulated_kernel_with_overlapping_boxes(emu_lib):
    check_overlapping_boxes(lambda free, owner, smem_limit: EmuNetSearch(
        free, owner, emu_lib, smem_limit=smem_limit))


def test_emulated_kernel_routes_many_requests_in_one_call(emu_lib):
    check_many_requests(lambda free, owner, smem_limit: EmuNetSearch(
        free, owner, emu_lib, smem_limit=smem_limit))
    case = grid_of_boxes_case(np.random.default_rng(4), 48, 64, 12, 16)
    search = EmuNetSearch(case.free, case.owner, emu_lib, smem_limit=1000)
    search.route(case.cost, list(case.requests))
    assert search._emu.calls and all(c[2] > 0 for c in search._emu.calls)  # shared memory,
    assert search.tiled_calls > 0                 # and the tiled search


# -- own cells (the group schedule's prices of a net's own wire) -----------------------
@pytest.mark.parametrize("case", random_weighted_cases(40, 24, seed=3), ids=lambda c: c.id)
def test_emulated_own_cells_equal_the_oracle(emu_lib, case):
    """Own cells anywhere, overlapping between requests (the call runs in parts), in
    shared memory, in global memory and a mix."""
    limit = [None, 0, 600][len(case.id) % 3]
    check_own_cells(lambda f, o: EmuNetSearch(f, o, emu_lib, 3, limit), case)


def test_emulated_own_cells_in_small_tiles(emu_small_tiles):
    case = random_weighted_cases(1, 60, seed=6, whole=True)[0]
    search = check_own_cells(
        lambda f, o: EmuNetSearch(f, o, emu_small_tiles, 3, 0, tile=SMALL_TILE), case)
    assert search.tiled_calls > 0


def test_emulated_own_cells_of_overlapping_boxes(emu_lib):
    check_overlapping_own(lambda f, o: EmuNetSearch(f, o, emu_lib, 4))


def check_own_cells(make, case: WeightedCase, seed: int = 0):
    """``case`` with own cells against the oracle on their costs; the overlay is cleared
    after the call: the same requests without own cells then route as the oracle's."""
    own = with_own_cells(case, np.random.default_rng(len(case.requests) + seed))
    search = make(own.free, own.owner)
    _check(own, search)
    plain = WeightedCase(own.id, own.free, own.owner, own.cost,
                         tuple(r._replace(own=None, own_cost=None) for r in own.requests))
    _check(plain, search)
    return search


def check_overlapping_own(make) -> None:
    """Overlapping boxes whose own cells are disjoint (one part, as the group schedule's
    calls are) against the oracle, and the own costs changed some wire."""
    rng = np.random.default_rng(8)
    case = overlapping_case(rng, 24, 2)
    h, w = case.free.shape
    cells = rng.permutation(h * w)
    reqs = tuple(r._replace(own=cells[k * 60:(k + 1) * 60],
                            own_cost=rng.integers(1, 4, 60))
                 for k, r in enumerate(case.requests))
    own = WeightedCase("overlapping-own", case.free, case.owner, case.cost, reqs)
    search = make(own.free, own.owner)
    _check(own, search)
    plain = search.route(own.cost, [r._replace(own=None, own_cost=None) for r in reqs])
    assert any(not np.array_equal(a, b) for a, b in zip(plain, own.expected())
               if a is not None and b is not None)      # the own costs changed a wire




def test_round_blocks_follow_the_occupancy():
    assert gw.round_blocks(4, 64) == 4 * gw.ROUND_BLOCKS_PER_SM
    assert gw.round_blocks(4, 2) == 8
    with pytest.raises(RuntimeError, match="fits"):
        gw.round_blocks(4, 0)
