"""Exact completion in windows: the unrouted nets of a routing of two-pin nets, connected
by re-solving a window around their pins exactly (SAT), the wires outside it kept.

Negotiation leaves a net unrouted when the wires around its pins hold the cells it
needs and no move of one wire at a time along the costs frees them; on dense layouts
(numberlink puzzles are the extreme case) the way out is a joint move of several wires
at once. This is large neighbourhood search: a window (the net's pins' box, grown) is cut
out of the routing; every wire that crosses it is kept outside, and inside it only its
ends are kept (where the wire enters and leaves the window, or its pins); the window's
cells are then re-assigned so that every piece of wire inside and the unrouted net are
connected, no cell used twice, which is a satisfiability problem that a CDCL solver
settles exactly (when it answers within its conflict budget). A window with no answer
grows (its margin doubles) up to the whole layout or ``max_vars``.

Encoding. One variable per window cell and piece ("this cell is on piece k"); a cell
holds at most one piece; the two ends of a piece are its own; an end has exactly one
neighbour on its piece, and any other cell of a piece exactly two. A solution's piece
``k`` is then a path between its ends (the cells reached from one end, each with two
such neighbours, can only stop at the other end), plus perhaps loops of piece ``k``
elsewhere, which are dropped. A wire of the found routing never touches itself, but no
routing is missed by that: any path between two cells contains one that does not.

The solver is deterministic and bounded by conflicts, not by a clock, so the same input
gives the same routes. Wires it draws may wind (it has no cost to minimise); the caller
shortens them (:func:`~mazeroute.router.shorten.shorten_wires`).

Examples
--------
>>> import numpy as np
>>> free = np.ones((3, 4), bool)
>>> pins = [np.array([[0, 0], [3, 0]]), np.array([[0, 2], [3, 2]])]
>>> a = [(0, 0), (0, 1), (1, 1), (1, 2), (2, 2), (2, 1), (3, 1), (3, 0)]  # dips into row 2
>>> a = np.array([y * 4 + x for x, y in a])
>>> got = complete_in_windows(free, pins, [a, None], max_unrouted=1)   # b: half the nets
>>> got.added, [r.tolist() for r in got.routes]   # a along row 0; b by any way at all
(1, [[0, 1, 2, 3], [8, 4, 5, 6, 7, 11]])
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

#: Most (cell, piece) variables of one window's problem.
MAX_VARS = 1 << 16
#: The work of one call, in conflicts of the solver (each window also counts one per
#: :data:`CONFLICTS_PER_VAR` variables, its encoding's share, and one per 64 cells of
#: its box, its building's): the solver's time per conflict grows with the window, some
#: 20-400 us on one core.
WORK = 50_000
#: Conflicts the solver may spend on one window before it is given up: this many per
#: variable of its problem, at most :data:`MAX_CONFLICTS` (a window that has no
#: solution for reasons of the whole window, such as wires that would have to cross, is
#: seldom refuted quickly; one that has is mostly solved within a few conflicts per
#: variable).
CONFLICTS_PER_VAR = 8
MAX_CONFLICTS = 10_000
#: Windows are solved only where wires and ends hold at least this share of the free
#: cells. Where most cells are free, negotiation's moves of one wire at a time (and
#: repair's of two) had room; a net they left unrouted there is cut off by how the wires
#: cross, which the solver seldom refutes within its budget, so such windows cost
#: seconds for nothing (benchmarks/RESULTS.md, "Held-out numberlink puzzles").
MIN_DENSITY = 1 / 3
#: ... and only on layouts whose wires and pins hold at least this share of the free
#: cells (numberlink puzzles hold far more after negotiation, sparse rectangle layouts
#: far less): the same reason, for the whole layout.
MIN_LAYOUT_DENSITY = 1 / 4
#: ... and only while at most this share of the nets is left to connect: where more
#: are, the layout has far more nets than room, and every window is one more of the
#: problems without a solution that the solver seldom refutes within its budget (random
#: layouts of 120 nets on 40 x 36 cells, 100 of them unrouted: 8 s for none).
MAX_UNROUTED = 1 / 4
#: The first window's margin around the net's pins (it doubles on each failure).
FIRST_MARGIN = 2


def available() -> bool:
    """Whether a SAT solver (the ``python-sat`` package) can be imported."""
    try:
        import pysat.solvers  # noqa: F401
    except ImportError:
        return False
    return True


@dataclass
class WindowResult:
    """What :func:`complete_in_windows` did.

    Attributes
    ----------
    routes : each net's wire as flat cell indices from its first pin to its second, or
        None (unrouted); the input's where nothing changed
    added : nets connected that were not before
    windows : windows solved (found, none, or out of conflicts)
    found : windows whose problem had a solution
    work : the work done, in conflicts (:data:`WORK`)
    full : whether the search stopped at ``work``
    """

    routes: list[np.ndarray | None]
    added: int = 0
    windows: int = 0
    found: int = 0
    work: int = 0
    full: bool = False


def complete_in_windows(free: np.ndarray, pins: Sequence[np.ndarray],
                        routes: Sequence[np.ndarray | None],
                        nets: Sequence[int] | None = None, max_vars: int = MAX_VARS,
                        max_conflicts: int = MAX_CONFLICTS,
                        work: int = WORK, min_density: float = MIN_DENSITY,
                        min_layout_density: float = MIN_LAYOUT_DENSITY,
                        max_unrouted: float = MAX_UNROUTED,
                        first_margin: int = FIRST_MARGIN,
                        until: Callable[[], bool] | None = None) -> WindowResult:
    """Connect unrouted two-pin nets by exact re-solves of windows (module notes).

    Parameters
    ----------
    free : (H, W) bool, True where a wire may pass
    pins : each net's two pins as a ``(2, 2)`` array of x, y
    routes : each net's wire as flat indices (``y * W + x``) from one pin to the other,
        or None; together a legal routing (no cell shared)
    nets : the unrouted nets to connect, in this order (default: every unrouted net)
    max_vars : largest window problem, in (cell, piece) variables
    max_conflicts : the solver's conflict budget per window (at most
        :data:`CONFLICTS_PER_VAR` per variable of the window's problem)
    work : the bound of the call's work, in the solver's conflicts (:data:`WORK`;
        passes over the nets left repeat while one connects a net, within it)
    min_density : windows whose wires and ends hold a smaller share of their free cells
        are not solved (:data:`MIN_DENSITY`)
    min_layout_density : nor is any on a layout whose wires and pins hold a smaller
        share of its free cells (:data:`MIN_LAYOUT_DENSITY`)
    max_unrouted : nor when a larger share of the nets is left to connect
        (:data:`MAX_UNROUTED`)
    first_margin : cells added round the pins' box in the first window of a net
    until : asked before each window: once it says True (a time limit ran out) no more
        windows are solved and the result is ``full`` as when the work is spent

    Returns
    -------
    WindowResult
        Every net routed before stays routed, and no cell is shared.

    Raises
    ------
    ValueError
        When the input is no legal routing: a pin off the grid or of the wrong shape, two
        nets on one pin, a route that is no path between its pins, passes a cell that is
        not free, another route's cell or another net's pin (where windows run at all:
        the gates come first).
    """
    free = np.asarray(free, bool)
    if free.ndim != 2:
        raise ValueError(f"free must be a 2-D grid, got {free.ndim} dimensions")
    h, w = free.shape
    if len(routes) != len(pins):
        raise ValueError(f"{len(routes)} routes for {len(pins)} nets")
    if first_margin < 0:
        raise ValueError(f"first_margin must be 0 or more, got {first_margin}")
    routes = [None if r is None else np.asarray(r, np.int64).ravel() for r in routes]
    out = WindowResult(list(routes))
    if not len(pins) or any(len(p) != 2 for p in pins):
        return out                          # no nets, or a tree: nothing to do here
    xy = _pin_array(pins, w, h)
    if nets is not None:
        nets = list(dict.fromkeys(int(i) for i in nets))
        if any(not 0 <= i < len(pins) for i in nets):
            raise ValueError(f"nets must be net indices below {len(pins)}")
    # the gates first: on a big sparse layout the checks below
    # are most of this call's time, for no window
    held = sum(len(r) for r in routes if r is not None) + 2 * sum(r is None for r in routes)
    if held < min_layout_density * free.sum():
        return out                          # a sparse layout: see MIN_LAYOUT_DENSITY
    todo = [i for i in (range(len(pins)) if nets is None else nets) if routes[i] is None]
    if len(todo) > max_unrouted * len(pins):
        return out                          # far more nets than room: see MAX_UNROUTED
    passes = _Passes(free, pins, xy, out, _Limits(max_vars, max_conflicts, work, min_density,
                                                  first_margin), until)
    passes.run(todo)
    out.work, out.full = passes.spent, passes.full or passes.spent >= work
    return out


def _pin_array(pins: Sequence[np.ndarray], w: int, h: int) -> np.ndarray:
    """The two-pin nets' pins as one ``(nets, 2, 2)`` int64 array, checked."""
    try:
        xy = np.asarray(pins)
    except ValueError:                      # pins of several shapes
        xy = np.zeros(0)
    if xy.shape != (len(pins), 2, 2) or not np.issubdtype(xy.dtype, np.integer):
        raise ValueError("each net's pins must be two cells of two integers x, y")
    xy = xy.astype(np.int64)
    if ((xy < 0).any() or (xy[:, :, 0] >= w).any() or (xy[:, :, 1] >= h).any()):
        raise ValueError(f"a pin lies outside the {w} x {h} grid")
    return xy


@dataclass(frozen=True)
class _Limits:
    """The bounds of one :func:`complete_in_windows` call (its parameters)."""

    max_vars: int
    max_conflicts: int
    work: int
    min_density: float
    first_margin: int


class _Passes:
    """The passes of :func:`complete_in_windows` over the nets left: smallest windows
    first, every net's before any net's larger one (the cheap ones move wires, which may
    give another net's small window a solution); after a net is connected the sizes start
    again (problems that did not change are not tried twice)."""

    def __init__(self, free, pins, xy, out: WindowResult, limits: _Limits, until):
        h, w = free.shape
        self.free, self.pins, self.out, self.limits, self.until = free, pins, out, limits, until
        self.w, self.h = w, h
        flat_ends = xy[:, :, 1] * w + xy[:, :, 0]
        self.ends_of = [(int(a), int(b)) for a, b in flat_ends.tolist()]
        self.owner = _check_routing(free, out.routes, flat_ends)   # the net holding a cell
        self.pin_net = np.full(h * w, -1, np.int64)               # the net whose pin it is
        self.pin_net[flat_ends.ravel()] = np.repeat(np.arange(len(pins)), 2)
        self.spent, self.full = 0, False
        self.failed: set = set()
        self.out_of_room: set[int] = set()

    def run(self, todo: list[int]) -> None:
        level, first = 0, self.limits.first_margin
        while self.spent < self.limits.work:
            todo = [i for i in todo if self.out.routes[i] is None and i not in self.out_of_room]
            if not todo:
                break
            margin = max(1, first) << level if level else first
            smaller = (margin >> 1) if level > 1 else first
            connected = False
            for i in todo:
                box = _box(self.pins[i], margin, self.w, self.h)
                if level and box == _box(self.pins[i], smaller, self.w, self.h):
                    continue                    # the window was the whole grid already
                connected = self._window(i, box) or connected
                if self.full:
                    break
            if self.full:
                break
            if connected:
                level = 0
            elif all(_box(self.pins[i], margin, self.w, self.h)
                     == (0, 0, self.w - 1, self.h - 1) for i in todo):
                break
            else:
                level += 1

    def _window(self, i: int, box) -> bool:
        """Try net ``i``'s window ``box``; whether it connected a net more."""
        from pysat.solvers import Solver

        lim, out = self.limits, self.out
        window = _Window(self.free, self.ends_of, out.routes, self.owner, self.pin_net, box)
        # building a window is work too (a cell of its box a 64th of a conflict), so that
        # windows passed over below cannot add up without bound on a big grid
        self.spent += 1 + (box[2] - box[0] + 1) * (box[3] - box[1] + 1) // 64
        if window.variables > lim.max_vars:
            self.out_of_room.add(i)
            return False
        if window.density < lim.min_density:
            return False                    # a larger window may be denser
        left = lim.work - self.spent - window.variables // CONFLICTS_PER_VAR
        if left <= 0:
            self.full = True                # the work is spent
            return False
        budget = max(1, min(lim.max_conflicts, CONFLICTS_PER_VAR * window.variables, left))
        key = window.key()
        if key in self.failed:              # the same problem failed before
            return False
        if self.until is not None and self.until():
            self.full = True
            return False
        out.windows += 1
        paths, conflicts = window.solve(Solver, budget)
        self.spent += conflicts + window.variables // CONFLICTS_PER_VAR
        if paths is None:
            self.failed.add(key)
            return False
        out.found += 1
        before = sum(r is not None for r in out.routes)
        moved = window.nets()
        for j in moved:
            if out.routes[j] is not None:
                self.owner[out.routes[j]] = -1
        out.routes = window.apply(out.routes, paths)
        for j in moved:
            self.owner[out.routes[j]] = j
        gained = sum(r is not None for r in out.routes) - before
        out.added += gained
        return gained > 0


def _box(pins: np.ndarray, margin: int, w: int, h: int) -> tuple[int, int, int, int]:
    """The pins' box grown by ``margin``, inside the grid."""
    (ax, ay), (bx, by) = np.asarray(pins, np.int64).tolist()
    return (max(0, min(ax, bx) - margin), max(0, min(ay, by) - margin),
            min(w - 1, max(ax, bx) + margin), min(h - 1, max(ay, by) + margin))


class _Window:
    """One window's problem: its pieces (each a piece of a net's wire between two ends
    inside the window, or an unrouted net between its pins) and the cells they may
    take (the window's free cells that no end holds)."""

    def __init__(self, free: np.ndarray, ends_of: list[tuple[int, int]],
                 routes: Sequence[np.ndarray | None], owner: np.ndarray,
                 pin_net: np.ndarray, box: tuple[int, int, int, int]):
        h, w = free.shape
        x0, y0, x1, y1 = box
        self.box, self.w = box, w
        self.pieces: list[tuple[int, int, int, int, int]] = []   # net, a, b, start, end
        self.fixed: dict[int, int] = {}                          # an end's cell: its piece
        held = np.zeros((y1 - y0 + 1, x1 - x0 + 1), bool)       # ends, lone cells, pins
        here = owner.reshape(h, w)[y0:y1 + 1, x0:x1 + 1]
        for j in np.unique(here[here >= 0]).tolist():
            r = routes[j]
            x, y = r % w, r // w
            inside = (x >= x0) & (x <= x1) & (y >= y0) & (y <= y1)
            if not inside.any():
                continue
            edges = np.flatnonzero(np.diff(np.concatenate([[0], inside.view(np.int8), [0]])))
            for s, e in zip(edges[::2].tolist(), (edges[1::2] - 1).tolist()):
                held[y[s] - y0, x[s] - x0] = held[y[e] - y0, x[e] - x0] = True
                if e > s:                   # a lone cell stays as it is
                    self._piece(j, int(r[s]), int(r[e]), s, e)
        pins_here = pin_net.reshape(h, w)[y0:y1 + 1, x0:x1 + 1]
        for k in np.unique(pins_here[pins_here >= 0]).tolist():
            if routes[k] is not None:
                continue
            ends = ends_of[k]
            inside = [c for c in ends if x0 <= c % w <= x1 and y0 <= c // w <= y1]
            for c in inside:
                held[c // w - y0, c % w - x0] = True
            if len(inside) == 2:
                self._piece(k, ends[0], ends[1], -1, -1)
        window = free[y0:y1 + 1, x0:x1 + 1] & ~held
        #: the share of the window's free cells that wires or ends hold
        self.density = float((window & (here >= 0)).sum() + held.sum()) / max(
            1, int(free[y0:y1 + 1, x0:x1 + 1].sum()))
        yy, xx = np.nonzero(window)
        self.cells = ((yy + y0) * w + xx + x0).tolist()
        self.variables = len(self.cells) * len(self.pieces)

    def nets(self) -> list[int]:
        """The nets of the pieces."""
        return sorted({p[0] for p in self.pieces})

    def key(self) -> int:
        """A hash of the problem (box, pieces, cells), to try each problem once."""
        return hash((self.box, tuple(p[:3] for p in self.pieces), tuple(self.cells)))

    def _piece(self, net: int, a: int, b: int, s: int, e: int) -> None:
        self.fixed[a] = self.fixed[b] = len(self.pieces)
        self.pieces.append((net, a, b, s, e))

    def _neighbours(self, c: int):
        x0, y0, x1, y1 = self.box
        w = self.w
        x, y = c % w, c // w
        if y > y0:
            yield c - w
        if x > x0:
            yield c - 1
        if x < x1:
            yield c + 1
        if y < y1:
            yield c + w

    def solve(self, solver_class, max_conflicts: int) -> tuple[list[np.ndarray] | None, int]:
        """Each piece's path from its end a to its end b, or None (no solution, or the
        budget ran out first); and the conflicts the solver spent."""
        n = len(self.pieces)
        index = {c: j for j, c in enumerate(self.cells)}
        top = len(self.cells) * n
        clauses: list[list[int]] = []

        def lit(c: int, k: int):
            j = index.get(c)
            return 1 + j * n + k if j is not None else self.fixed.get(c) == k

        for j, c in enumerate(self.cells):
            top = _at_most_one([1 + j * n + k for k in range(n)], top, clauses)
            nb = list(self._neighbours(c))
            for k in range(n):
                _degree(1 + j * n + k, [lit(d, k) for d in nb], 2, clauses)
        for c, k in self.fixed.items():
            _degree(None, [lit(d, k) for d in self._neighbours(c)], 1, clauses)
        # a 2 x 2 block of one piece can only be a loop (a path through it would have a
        # cell with three neighbours on it): ruling loops out loses no path, and prunes
        x0, y0, x1, y1 = self.box
        w = self.w
        for c in (y * w + x for y in range(y0, y1) for x in range(x0, x1)):
            block = (c, c + 1, c + w, c + w + 1)
            for k in range(n):
                lits = [lit(d, k) for d in block]
                if False not in lits:
                    clauses.append([-x for x in lits if x is not True])
        if [] in clauses:
            return None, 0
        with _signals_left_to_python(), solver_class(name="cadical195",
                                                     bootstrap_with=clauses) as s:
            s.conf_budget(max_conflicts)
            ok = s.solve_limited()
            conflicts = int(s.accum_stats().get("conflicts", 0))
            if not ok:
                return None, conflicts
            model = np.asarray(s.get_model()[:len(self.cells) * n], np.int64)
        owner = dict(self.fixed)
        on = np.flatnonzero(model > 0)
        for j, k in zip((on // n).tolist(), (on % n).tolist()):
            owner[self.cells[j]] = k
        paths = []
        for k, (_, a, b, _, _) in enumerate(self.pieces):
            path, prev, cur = [a], -1, a
            while cur != b:
                step = [d for d in self._neighbours(cur) if d != prev and owner.get(d) == k]
                if len(step) != 1:
                    raise RuntimeError("the SAT model is not a set of paths")
                prev, cur = cur, step[0]
                path.append(cur)
            paths.append(np.asarray(path, np.int64))
        return paths, conflicts

    def apply(self, routes: Sequence[np.ndarray | None],
              paths: list[np.ndarray]) -> list[np.ndarray | None]:
        """``routes`` with each piece replaced by its new path (later pieces of a wire
        first, so that the earlier ones' positions stay valid)."""
        new = list(routes)
        for k in sorted(range(len(self.pieces)), key=lambda k: -self.pieces[k][3]):
            net, _, _, s, e = self.pieces[k]
            if s < 0:
                new[net] = paths[k]
            else:
                r = new[net]
                new[net] = np.concatenate([r[:s], paths[k], r[e + 1:]])
        return new


def _check_routing(free: np.ndarray, routes: Sequence[np.ndarray | None],
                   ends: np.ndarray) -> np.ndarray:
    """Refuse ``routes`` (flat cells) that are no legal routing of the nets whose two
    pins are ``ends`` (an ``(n, 2)`` array of flat cells), all routes at once: two nets on
    one pin; a route that is no path of grid neighbours between its pins (in either
    direction); a cell that is not free, on two routes or twice on one; a route over
    another net's pin. Returns, per flat cell, the net whose route holds it (-1: none)."""
    pins = ends.ravel()
    if np.unique(pins).size != pins.size:
        raise ValueError("two nets share a pin")
    owner = np.full(free.size, -1, np.int64)
    have = [i for i, r in enumerate(routes) if r is not None]
    if not have:
        return owner
    h, w = free.shape
    sizes = np.fromiter((routes[i].size for i in have), np.int64, len(have))
    cells = np.concatenate([routes[i] for i in have])
    last = np.cumsum(sizes) - 1
    first = last - sizes + 1
    if sizes.min() < 2 or cells.min() < 0 or cells.max() >= h * w:
        raise ValueError("every route must be a path of grid neighbours between its pins")
    got = np.stack([cells[first], cells[last]], axis=1)
    want = ends[have]
    step = np.diff(cells)
    across = (np.abs(step) == 1) & (np.minimum(cells[:-1], cells[1:]) % w != w - 1)
    ok = across | (np.abs(step) == w)
    ok[last[:-1]] = True                    # the step from one route to the next
    if not (((got == want) | (got == want[:, ::-1])).all(axis=1).all() and ok.all()):
        raise ValueError("every route must be a path of grid neighbours between its pins")
    if not free.ravel()[cells].all():
        raise ValueError("a route passes a cell that is not free")
    if np.unique(cells).size != cells.size:
        raise ValueError("a cell is on two routes, or twice on one")
    owner[cells] = np.repeat(np.asarray(have, np.int64), sizes)
    net = np.repeat(np.arange(len(ends)), 2)
    if ((owner[pins] >= 0) & (owner[pins] != net)).any():
        raise ValueError("a route passes another net's pin")
    return owner


@contextlib.contextmanager
def _signals_left_to_python():
    """Keep python-sat from installing its own SIGINT handler round a solve.

    In the main thread, python-sat's solve sets a C handler that jumps out of the solver
    on Ctrl-C and is not taken down after the jump. The interrupt then came out as
    pysat's own error (a batch logged it as a failed layout and went on), and a later
    signal could deadlock in the solver's destructor or crash the process. Told that it
    is not in the main thread, the solve leaves SIGINT to Python's handler, whose
    KeyboardInterrupt is raised when the solve returns (within one window's conflict
    budget). Only this module's solves are changed: the check is restored after each.
    """
    from pysat.solvers import MainThread
    check = MainThread.__dict__["check"]
    MainThread.check = staticmethod(_never)
    try:
        yield
    finally:
        MainThread.check = check


def _never() -> bool:
    return False


def _at_most_one(lits: list[int], top: int, clauses: list[list[int]]) -> int:
    """Clauses for "at most one of ``lits``" (pairwise up to 6, else a sequential
    counter with new variables from ``top + 1``); the new top."""
    if len(lits) <= 6:
        clauses.extend([-a, -b] for a, b in itertools.combinations(lits, 2))
        return top
    s = list(range(top + 1, top + len(lits)))
    clauses.append([-lits[0], s[0]])
    for i in range(1, len(lits) - 1):
        clauses.append([-lits[i], s[i]])
        clauses.append([-s[i - 1], s[i]])
        clauses.append([-lits[i], -s[i - 1]])
    clauses.append([-lits[-1], -s[-1]])
    return top + len(lits) - 1


def _degree(v: int | None, lits: list, want: int, clauses: list[list[int]]) -> None:
    """Clauses for "if ``v`` (None: always), exactly ``want`` of ``lits`` hold", where a
    literal may be a constant True or False."""
    guard = [] if v is None else [-v]
    need = want - sum(1 for x in lits if x is True)
    free = [x for x in lits if x is not True and x is not False]
    if need < 0 or need > len(free):
        clauses.append(guard)           # impossible: v is false (or the problem is)
        return
    for s in itertools.combinations(free, need + 1):     # at most `need`
        clauses.append(guard + [-x for x in s])
    if need:                                              # at least `need`
        for s in itertools.combinations(free, len(free) - need + 1):
            clauses.append(guard + list(s))
