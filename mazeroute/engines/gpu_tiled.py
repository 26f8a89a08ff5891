"""The tiled search of the GPU weighted engine (:mod:`.gpu_weighted`): boxes too big for
a block's shared memory, searched in tiles of :data:`TILE` cells a side.

GAMER's sweeps (Lin et al., "GAMER: GPU-Accelerated Maze Routing", IEEE TCAD 2023) tile
by tile (kernels/weighted_tiles.cuh): each tile relaxed to its own fixpoint in shared
memory, its halo read from its neighbours, until no tile changes; by rounds between
grid barriers or through a work queue (:data:`TILED_SCHEDULES`). :class:`TiledSearch`
is the host side, a mixin of :class:`~.gpu_weighted.GPUNetSearch`.
"""

from __future__ import annotations

import numpy as np

from .weighted import box_sides

__all__ = ["TiledSearch", "round_blocks", "BND", "TILED_SCHEDULES", "TILED_SCHEDULE",
           "QUEUE_COUNTERS", "COOPERATIVE", "TILE", "TILE_MAX", "MAX_ROUNDS",
           "ROUND_BLOCKS_PER_SM"]

#: int32 words of a request's bound in the tiled search (kernels/weighted.cu ``Bound``).
BND = 10
#: How the tiled search reaches its fixpoint: ``"rounds"`` (every awake tile, then a grid
#: barrier, until a round changes nothing), ``"queue"`` (a tile goes as soon as a
#: neighbour hands over, through a work queue; no barrier), or ``"auto"``: rounds when a
#: launch's tiles fit its blocks (each block then keeps its tile in shared memory from
#: round to round), the queue when blocks must take turns at the tiles.
TILED_SCHEDULES = ("auto", "rounds", "queue")
TILED_SCHEDULE = "auto"
#: The work queue's counters (kernels/tile_queue.cuh NUM_COUNTERS).
QUEUE_COUNTERS = 128
#: The kernels launched as cooperative grids (their blocks meet at grid barriers).
COOPERATIVE = ("tiled_rounds",)
#: Cells of a tile's side in the tiled search of boxes too big for shared memory
#: (kernels/weighted_tiles.cuh TILE, passed to it); a tile's block has a thread per line
#: of the tile and its halo (one warp). Smaller tiles than :data:`TILE_MAX` let more blocks
#: share a multiprocessor, and a round's work is spread over more of them.
TILE = 30
#: Largest tile side the kernel is built and tested for: a block of two warps, whose
#: tile, halo and loaded copy stay within a block's static shared memory.
TILE_MAX = 62
#: Round counters of the tiled search (kernels/weighted_tiles.cuh's ``moved``, a ring).
MAX_ROUNDS = 1 << 14
#: Most blocks of a tiled_rounds launch per multiprocessor. All of a cooperative launch's
#: blocks must be resident at once, so the device's occupancy for the kernel caps it
#: too (:func:`round_blocks`); more blocks than this make each grid barrier dearer than
#: the tiles they add to a round.
ROUND_BLOCKS_PER_SM = 12


def round_blocks(multiprocessors: int, resident: int) -> int:
    """Blocks of a tiled_rounds launch: :data:`ROUND_BLOCKS_PER_SM` on each
    multiprocessor, or as many as can be resident there (``resident``) when fewer.

    >>> round_blocks(132, 32), round_blocks(132, 5)
    (1584, 660)
    """
    if resident < 1:
        raise RuntimeError("no block of the tiled search fits on a multiprocessor")
    return multiprocessors * min(ROUND_BLOCKS_PER_SM, resident)


class TiledSearch:
    """The tiled search's launches (a mixin of :class:`~.gpu_weighted.GPUNetSearch`,
    which supplies ``_xp``, ``shape``, ``tile``, ``tiled_schedule``, ``launches``,
    ``_buffer``, ``_code``, ``_cost``, ``_ctl``, ``_own_args``, ``_launch_least``,
    ``_round_blocks``, the kernels ``_tiled_*`` and the queue's buffers ``_tq_*``)."""

    def _tile_table(self, boxes: np.ndarray) -> tuple[np.ndarray, int]:
        """The tiled search's table of ``boxes``: a ``(box, column, row)`` triple per tile,
        then each box's first tile (int32); and the number of tiles."""
        count = len(boxes)
        bw, bh = box_sides(boxes)
        ntx = -(-bw // self.tile)
        per = ntx * -(-bh // self.tile)
        first = np.zeros(count + 1, np.int64)
        np.cumsum(per, out=first[1:])
        ntiles = int(first[-1])
        local = np.arange(ntiles) - np.repeat(first[:-1], per)
        across = np.repeat(ntx, per)
        table = np.concatenate([np.stack([np.repeat(np.arange(count), per), local % across,
                                          local // across], axis=1).ravel(), first[:-1]])
        return table.astype(np.int32), ntiles

    @staticmethod
    def _tile_work(count: int, ntiles: int) -> int:
        """int32 words of a tiled search's state, bounds and flags."""
        return (2 + BND) * count + 2 * ntiles

    def _tiled(self, rec, boxes: np.ndarray, pins, dist, scratch, out, hdr, used,
               trees: bool = True) -> None:
        """The requests of records ``rec`` (boxes ``boxes``, too big for shared memory)
        searched in tiles (kernels/weighted_tiles.cuh's tiled_*): rounds until one changes
        nothing (one cooperative launch), a pin joined to each tree by tiled_connect,
        again while a tree has pins left; the results written as weighted_route writes
        them. Without ``trees`` (every request has two pins) one join ends every search,
        so the host launches it all without waiting for the device."""
        table, ntiles = self._tile_table(boxes)
        ws = self._buffer("_tws", table.size + self._tile_work(len(boxes), ntiles),
                          self._xp.int32)
        ws[:table.size].set(table)
        self._tiled_launch(rec, len(boxes), ntiles, ws[:table.size], ws[table.size:], pins,
                           dist, scratch, out, hdr, used, trees)

    def _tiled_launch(self, rec, count: int, ntiles: int, table, work, pins, dist, scratch,
                      out, hdr, used, trees: bool) -> None:
        """:meth:`_tiled`'s launches, its table (:meth:`_tile_table`) on the device and
        ``work`` (:meth:`_tile_work` words) to use."""
        w = self.shape[2]
        tiles, tfirst = table[:3 * ntiles], table[3 * ntiles:3 * ntiles + count]
        state = work[:2 * count]
        bnd = work[2 * count:(2 + BND) * count]
        flags = (2 + BND) * count
        # flag_a: the tiles to wake at the next round (left all 0 by each tiled_rounds)
        flag_a, flag_b = work[flags:flags + ntiles], work[flags + ntiles:flags + 2 * ntiles]
        ctl = self._ctl                 # growing trees; the ring of round counters
        ctl.fill(0)
        n, width, m = np.int32(ntiles), np.int32(w), np.int32(count)
        threads = self.tile + 2         # every tiled kernel's __launch_bounds__
        own = self._own_args()
        self._tiled_init((ntiles,), (threads,), (rec, tiles, n, pins, width,
                                                 self._launch_least(), dist, scratch, state,
                                                 bnd, flag_a))
        queue = self.tiled_schedule == "queue" or (
            self.tiled_schedule == "auto" and ntiles > self._round_blocks)
        while True:
            if queue:
                self._queue_run(rec, tiles, ntiles, pins, own, dist, bnd, flag_a, threads)
            else:
                self._tiled_rounds((min(ntiles, self._round_blocks),), (threads,), (
                    rec, tiles, n, pins, self._code, self._cost, *own, dist, width, bnd,
                    flag_a, flag_b, ctl[1:]))
            ctl[:1].fill(0)
            self._tiled_connect((count,), (threads,), (
                rec, m, pins, width, self._code, self._cost, *own, dist, scratch, state, bnd,
                tfirst, flag_a, ctl))
            self.launches += 2
            if not trees or not int(ctl[:1].get()[0]):
                break
        self._tiled_finish((count,), (threads,), (rec, m, scratch, state, out, hdr, used))
        self.launches += 2

    def _queue_run(self, rec, tiles, ntiles: int, pins, own, dist, bnd, flag_a,
                   threads: int) -> None:
        """The tiled search's fixpoint by the work queue (``tiled_seed``, ``tiled_queue``):
        the tiles flagged in ``flag_a`` first (their flags cleared, as tiled_rounds
        leaves them)."""
        xp = self._xp
        if self._tq_state is None or self._tq_state.size < ntiles:
            self._tq_state = xp.empty(ntiles, dtype=xp.int32)
            self._tq_state.fill(0)
            ring = 1 << max(ntiles - 1, 1).bit_length()   # each tile queued once at most
            self._tq_ring = xp.empty(ring, dtype=xp.int32)
            self._tq_ring.fill(-1)
        self._tq_ctl.fill(0)
        qmask, n = np.int32(self._tq_ring.size - 1), np.int32(ntiles)
        self._tiled_seed((-(-ntiles // threads),), (threads,), (
            n, flag_a, self._tq_state, self._tq_ring, self._tq_ctl, qmask))
        self._tiled_queue((min(ntiles, self._round_blocks),), (threads,), (
            rec, tiles, n, pins, self._code, self._cost, *own, dist, np.int32(self.shape[2]),
            bnd, self._tq_state, self._tq_ring, self._tq_ctl, qmask))
        self.launches += 1
