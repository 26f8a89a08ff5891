"""The textbook GPU strategies of PMPP chapter 15, sharing one level-synchronous host loop.

Following Gunrock, :class:`LevelSyncProblem` is both the *problem* (graph arrays uploaded
once and kept on the device across levels and nets, levels reset by one device copy,
blockages patched in place by :class:`~mazeroute.engines.gpu_base.DeviceProblem`) and
the *enactor*: :meth:`LevelSyncProblem._run` owns the loop over levels, its convergence
test and the early exit, and each strategy supplies only :meth:`~LevelSyncProblem._level`
(the kernel launches of one level) and, for queue-based strategies,
:meth:`~LevelSyncProblem._advance` (what to carry to the next level). Per level the host
reads back four 32-bit control words into pinned memory: the "new vertex visited" flag
or the new frontier's size, the target flag, the number of extra levels a multi-level
kernel ran, and the new frontier's edge count.

Every kernel raises the target flag when it labels a vertex marked in the device
``isTarget`` byte array (set for the run's targets and cleared afterwards), and the loop
stops after that level, which every strategy completes before the host looks.

Direction-optimised switching (``diropt``, Beamer, Asanovic and Patterson, SC 2012):
the wavefront starts top-down (the push kernel with frontiers of Fig. 15.12). After each
level, with ``n_f`` the number of vertices it labelled, ``m_f`` the sum of their
out-degrees and ``m_u`` the sum of the out-degrees of the vertices still unvisited
(counted exactly: at the start of the run over every vertex whose level is
``UNREACHED``, then reduced by each level's ``m_f``), it switches to bottom-up (the
pull kernel of Fig. 15.8) when the frontier grew (``n_f`` above the previous level's)
and ``m_f > m_u / ALPHA`` with ``ALPHA = 14``; it switches back to top-down when the
frontier shrank and ``n_f < n / BETA`` with ``BETA = 24`` (``n`` the number of vertices,
blocked ones included). On a routing grid, whose frontier is a thin diamond, the first
switch happens only when few unvisited cells remain (small or nearly filled regions).

Examples
--------
>>> from mazeroute.graph import fig15_1_graph
>>> from mazeroute.engines import make_problem
>>> p = make_problem(fig15_1_graph(), "gpu", "frontier")
>>> p.wavefront([2]).levels().tolist()
[2, 3, 0, 4, 4, 1, 1, 1, 2]
"""

from __future__ import annotations

import cupy
import cupyx
import numpy as np
from cupy.cuda import runtime

from ..graph import CSRGraph, GridGraph
from .base import UNREACHED
from .cuda import get_kernel
from .gpu_base import DeviceProblem

#: Threads per block of every multi-block launch.
BLOCK = 256
#: Shared-memory frontier of one ``privatized`` block (4 KiB). Four times the block size,
#: so on a 4-neighbour grid a block's new vertices always fit; larger degrees overflow
#: to the global queue.
LOCAL_FRONTIER_CAPACITY = 4 * BLOCK
#: Threads of the one ``singleblock`` block, and its two shared-memory queues (2 x 16 KiB).
SINGLE_BLOCK_THREADS = 1024
SINGLE_BLOCK_CAPACITY = 4096
#: Beamer's direction-switch parameters (see the module docstring).
ALPHA = 14
BETA = 24

_CTRL_WORDS = 4
_D2H = runtime.memcpyDeviceToHost


def _blocks(n: int, block: int = BLOCK) -> tuple[int]:
    return (max(1, -(-n // block)),)


class LevelSyncProblem(DeviceProblem):
    """Device CSR, target marks, control words and the shared host loop (the enactor).

    Subclasses implement :meth:`_level` and may override :meth:`_upload`,
    :meth:`_start` and :meth:`_advance`.
    """

    def __init__(self, graph: GridGraph | CSRGraph):
        super().__init__(graph)
        self.csr = graph.csr if isinstance(graph, GridGraph) else graph
        self.n = self.csr.num_vertices
        self.isTarget = cupy.zeros(self.n, dtype=cupy.uint8)
        self.ctrl = cupy.zeros(_CTRL_WORDS, dtype=cupy.uint32)
        self.host = cupyx.zeros_pinned(_CTRL_WORDS, dtype=np.uint32)
        # The kernels write the control words through these one-word views.
        self.numCurrFrontier = self.ctrl[0:1]     # also newVertexVisited and g_over
        self.targetVisited = self.ctrl[1:2]
        self.extraLevels = self.ctrl[2:3]
        self.frontierEdges = self.ctrl[3:4]
        self._upload()

    # -- graph forms -------------------------------------------------------------------
    def _upload(self) -> None:
        """Copy the graph form the strategy walks to the device (once per problem)."""
        self.srcPtrs = cupy.asarray(self.csr.srcPtrs)
        self.dst = cupy.asarray(self.csr.dst)

    def _upload_csc(self) -> None:
        if isinstance(self.graph, GridGraph) and hasattr(self, "srcPtrs"):
            # A grid's graph is undirected, so its CSC is its CSR, entry for entry
            # (in-neighbours = out-neighbours, both listed in increasing order).
            self.dstPtrs, self.src = self.srcPtrs, self.dst
        elif isinstance(self.graph, GridGraph):
            self.dstPtrs = cupy.asarray(self.csr.srcPtrs)
            self.src = cupy.asarray(self.csr.dst)
        else:
            csc = self.csr.csc()
            self.dstPtrs = cupy.asarray(csc.dstPtrs)
            self.src = cupy.asarray(csc.src)

    # -- the enactor -------------------------------------------------------------------
    def _run(self, sources, targets):
        src = self._seed(sources)
        tgt = None
        if targets is not None:
            if np.isin(sources, targets).any():
                return 1                       # a source is a target: level 0 is complete
            tgt = cupy.asarray(targets, dtype=cupy.int32)
            self.isTarget[tgt] = 1
        stream = cupy.cuda.get_current_stream()
        try:
            runtime.memsetAsync(self.ctrl.data.ptr, 0, self.ctrl.nbytes, stream.ptr)
            self._start(src)
            currLevel = 1
            while True:
                self._level(currLevel)
                count, hit, extra, edges = self._poll(stream)
                last = currLevel + extra        # the last level the kernels labelled
                if count == 0:                  # ... labelled nothing: levels 0..last-1
                    return last
                self._advance(count, edges)
                if hit:                         # a target is on level `last`, now complete
                    return last + 1
                currLevel = last + 1
        finally:
            if tgt is not None:
                self.isTarget[tgt] = 0

    def _poll(self, stream) -> tuple[int, int, int, int]:
        """Read the control words back (pinned, async) and zero them for the next level."""
        runtime.memcpyAsync(self.host.ctypes.data, self.ctrl.data.ptr, self.ctrl.nbytes,
                            _D2H, stream.ptr)
        runtime.memsetAsync(self.ctrl.data.ptr, 0, self.ctrl.nbytes, stream.ptr)
        stream.synchronize()
        count, hit, extra, edges = (int(v) for v in self.host)
        return count, hit, extra, edges

    def _start(self, src: cupy.ndarray) -> None:
        """Per-run setup once the sources are on level 0 (e.g. the first frontier)."""

    def _level(self, currLevel: int) -> None:
        """Launch the kernels that label level ``currLevel`` (or more, see singleblock).

        They leave in the control words: a nonzero ``numCurrFrontier`` if the last
        level they ran labelled any vertex, ``targetVisited``, and ``extraLevels``.
        """
        raise NotImplementedError

    def _advance(self, count: int, edges: int) -> None:
        """Carry state to the next level; ``count`` vertices were labelled (or a flag)."""


class PushProblem(LevelSyncProblem):
    """Fig. 15.6 (``gpu/push``): one thread per vertex; previous-level vertices push."""

    def __init__(self, graph):
        super().__init__(graph)
        self.kernel = get_kernel("vertex_centric", "push_kernel")

    def _level(self, currLevel):
        self.kernel(_blocks(self.n), (BLOCK,),
                    (self.srcPtrs, self.dst, np.uint32(self.n), self.level,
                     self.numCurrFrontier, np.uint32(currLevel), self.isTarget,
                     self.targetVisited))


class PullProblem(LevelSyncProblem):
    """Fig. 15.8 (``gpu/pull``): one thread per unvisited vertex scans its in-neighbours."""

    def __init__(self, graph):
        super().__init__(graph)
        self.kernel = get_kernel("vertex_centric", "pull_kernel")

    def _upload(self):
        self._upload_csc()

    def _level(self, currLevel):
        self.kernel(_blocks(self.n), (BLOCK,),
                    (self.dstPtrs, self.src, np.uint32(self.n), self.level,
                     self.numCurrFrontier, np.uint32(currLevel), self.isTarget,
                     self.targetVisited))


class EdgeProblem(LevelSyncProblem):
    """Fig. 15.10 (``gpu/edge``): one thread per edge of the COO form."""

    def __init__(self, graph):
        super().__init__(graph)
        self.kernel = get_kernel("edge_centric", "edge_kernel")

    def _upload(self):
        coo = self.csr.coo()
        self.src = cupy.asarray(coo.src)
        self.dst = cupy.asarray(coo.dst)
        self.numEdges = coo.num_edges

    def _level(self, currLevel):
        self.kernel(_blocks(self.numEdges), (BLOCK,),
                    (self.src, self.dst, np.uint32(self.numEdges), self.level,
                     self.numCurrFrontier, np.uint32(currLevel), self.isTarget,
                     self.targetVisited))


class FrontierProblem(LevelSyncProblem):
    """Fig. 15.12 (``gpu/frontier``): threads only for the previous frontier.

    Two device queues of ``n`` entries swap roles every level; the host learns the new
    frontier's size from the control words and launches that many threads next.
    """

    def __init__(self, graph):
        super().__init__(graph)
        self.prevFrontier = cupy.empty(max(1, self.n), dtype=cupy.uint32)
        self.currFrontier = cupy.empty(max(1, self.n), dtype=cupy.uint32)
        self.numPrevFrontier = 0
        self.kernel = self._frontier_kernel()

    def _frontier_kernel(self):
        return get_kernel("frontier", "frontier_kernel")

    def _start(self, src):
        self.prevFrontier[:src.size] = src
        self.numPrevFrontier = int(src.size)

    def _launch_frontier(self, kernel, currLevel):
        kernel(_blocks(self.numPrevFrontier), (BLOCK,),
               (self.srcPtrs, self.dst, self.level, self.prevFrontier, self.currFrontier,
                np.uint32(self.numPrevFrontier), self.numCurrFrontier, np.uint32(currLevel),
                self.isTarget, self.targetVisited))

    def _level(self, currLevel):
        self._launch_frontier(self.kernel, currLevel)

    def _advance(self, count, edges):
        self.prevFrontier, self.currFrontier = self.currFrontier, self.prevFrontier
        self.numPrevFrontier = count


class PrivatizedProblem(FrontierProblem):
    """Fig. 15.14 (``gpu/privatized``): block-private shared-memory frontiers.

    Each block of 256 threads appends to a ``capacity``-entry queue in shared memory
    (default :data:`LOCAL_FRONTIER_CAPACITY`) and commits it with one global atomicAdd
    and coalesced stores; a vertex that finds the block's queue full is appended to the
    global queue directly.
    """

    def __init__(self, graph, capacity: int = LOCAL_FRONTIER_CAPACITY):
        self.capacity = int(capacity)
        super().__init__(graph)

    def _frontier_kernel(self):
        return get_kernel("frontier", "privatized_kernel",
                          (f"-DLOCAL_FRONTIER_CAPACITY={self.capacity}",))


class SingleBlockProblem(FrontierProblem):
    """Fig. 15.16 (``gpu/singleblock``): one block runs consecutive small levels.

    While the previous frontier has at most ``capacity`` vertices (default
    :data:`SINGLE_BLOCK_CAPACITY`), one block of 1024 threads runs level after level
    with ``__syncthreads()`` between them, its two queues in shared memory, until a
    level's frontier overflows ``capacity``, comes out empty, or labels a target. It
    leaves that level's frontier in the global queue (shared part copied out,
    overflow already written in place) and reports how many extra levels it ran;
    a frontier larger than ``capacity`` then goes to the multi-block kernel of
    Fig. 15.12 for as many levels as it stays large.
    """

    def __init__(self, graph, capacity: int = SINGLE_BLOCK_CAPACITY):
        self.capacity = int(capacity)
        super().__init__(graph)
        self.single = get_kernel("singleblock", "singleblock_kernel",
                                 (f"-DSINGLE_BLOCK_CAPACITY={self.capacity}",))
        #: Launches of the last run: ``[single-block, multi-block]`` (for tests/benchmarks).
        self.launches = [0, 0]

    def _start(self, src):
        super()._start(src)
        self.launches = [0, 0]

    def _level(self, currLevel):
        if self.numPrevFrontier > self.capacity:
            self._launch_frontier(self.kernel, currLevel)
            self.launches[1] += 1
            return
        self.single((1,), (SINGLE_BLOCK_THREADS,),
                    (self.srcPtrs, self.dst, self.level, self.prevFrontier,
                     self.currFrontier, np.uint32(self.numPrevFrontier),
                     self.numCurrFrontier, np.uint32(currLevel), self.isTarget,
                     self.targetVisited, self.extraLevels))
        self.launches[0] += 1


class DirOptProblem(FrontierProblem):
    """Direction-optimised BFS (``gpu/diropt``): push while small, pull while large.

    Top-down levels run the frontier kernel of Fig. 15.12, bottom-up levels the pull
    kernel of Fig. 15.8 over CSC; both also append what they label to the frontier
    queue and sum its out-degrees, so either direction can follow either. The switch
    rule is Beamer's: to pull when the frontier grew and ``m_f > m_u / ALPHA``
    (``ALPHA = 14``), back to push when it shrank and ``n_f < n / BETA``
    (``BETA = 24``); the module docstring defines ``m_f``, ``m_u``, ``n_f`` and ``n``.
    """

    def __init__(self, graph, alpha: float = ALPHA, beta: float = BETA):
        self.alpha, self.beta = float(alpha), float(beta)
        super().__init__(graph)
        self.pull = get_kernel("diropt", "pull_frontier_kernel")
        self.degree = cupy.diff(self.srcPtrs)
        #: Direction of every level of the last run, ``"push"`` or ``"pull"``.
        self.directions: list[str] = []

    def _upload(self):
        super()._upload()
        self._upload_csc()

    def _frontier_kernel(self):
        return get_kernel("diropt", "push_frontier_kernel")

    def _start(self, src):
        super()._start(src)
        self.pulling = False
        self.directions = []
        unvisited = self.level == UNREACHED
        self.m_u = int(cupy.where(unvisited, self.degree, 0).sum(dtype=cupy.int64))

    def _level(self, currLevel):
        if self.pulling:
            self.pull(_blocks(self.n), (BLOCK,),
                      (self.dstPtrs, self.src, self.srcPtrs, np.uint32(self.n), self.level,
                       self.currFrontier, self.numCurrFrontier, np.uint32(currLevel),
                       self.isTarget, self.targetVisited, self.frontierEdges))
        else:
            self.kernel(_blocks(self.numPrevFrontier), (BLOCK,),
                        (self.srcPtrs, self.dst, self.level, self.prevFrontier,
                         self.currFrontier, np.uint32(self.numPrevFrontier),
                         self.numCurrFrontier, np.uint32(currLevel), self.isTarget,
                         self.targetVisited, self.frontierEdges))
        self.directions.append("pull" if self.pulling else "push")

    def _advance(self, count, edges):
        n_f, m_f = count, edges
        grew, shrank = n_f > self.numPrevFrontier, n_f < self.numPrevFrontier
        self.m_u -= m_f
        if not self.pulling and grew and m_f > self.m_u / self.alpha:
            self.pulling = True
        elif self.pulling and shrank and n_f < self.n / self.beta:
            self.pulling = False
        super()._advance(count, edges)


class RodiniaProblem(LevelSyncProblem):
    """The ROCm tutorial's Rodinia BFS (``gpu/rodinia``): two kernels per level.

    ``Kernel1`` expands every vertex of ``g_graph_mask`` into ``g_updating_graph_mask``;
    ``Kernel2`` commits that mask, marks it visited and sets ``g_over``. The graph is
    the tutorial's ``Node{starting, no_of_edges}`` array plus the edge array.
    """

    def __init__(self, graph):
        super().__init__(graph)
        self.init = get_kernel("rodinia", "rodinia_init")
        self.kernel1 = get_kernel("rodinia", "Kernel1")
        self.kernel2 = get_kernel("rodinia", "Kernel2")

    def _upload(self):
        rod = self.csr.rodinia()
        nodes = np.empty((self.n, 2), dtype=np.int32)       # struct Node, field by field
        nodes[:, 0], nodes[:, 1] = rod.starting, rod.no_of_edges
        self.g_graph_nodes = cupy.asarray(nodes)
        self.g_graph_edges = cupy.asarray(rod.edges)
        self.g_graph_mask = cupy.zeros(self.n, dtype=cupy.bool_)
        self.g_updating_graph_mask = cupy.zeros(self.n, dtype=cupy.bool_)
        self.g_graph_visited = cupy.zeros(self.n, dtype=cupy.bool_)

    def _start(self, src):
        self.init(_blocks(self.n), (BLOCK,),
                  (self.level, self.g_graph_mask, self.g_updating_graph_mask,
                   self.g_graph_visited, np.int32(self.n)))

    def _level(self, currLevel):
        n = np.int32(self.n)
        self.kernel1(_blocks(self.n), (BLOCK,),
                     (self.g_graph_nodes, self.g_graph_edges, self.g_graph_mask,
                      self.g_updating_graph_mask, self.g_graph_visited, self.level, n))
        self.kernel2(_blocks(self.n), (BLOCK,),
                     (self.g_graph_mask, self.g_updating_graph_mask, self.g_graph_visited,
                      self.numCurrFrontier, n, self.isTarget, self.targetVisited))
