"""Alhambra grid geometry (rules §4.6, §5.2): legal cells, removals, swaps and the longest wall.

An Alhambra is a dict ``cell -> tile id`` with the fountain (tile 0) at (0, 0). A cell is one int,
``(x + OFFSET) * STRIDE + (y + OFFSET)``, so that a neighbour is one addition away (N +1, E +STRIDE,
S -1, W -STRIDE). 55 tiles cannot reach the edge of that range. Both the rules and the heuristic bot
use these functions.
"""
from __future__ import annotations

from engines.alhambra.data import E, FOUNTAIN, N, S, TILE_WALLS, W

OFFSET = 64
# Not a power of two: the low bits of a cell, where a small dict looks first, then depend on x as well
# as on y (with 128 the cells of a row all start at the same slot).
STRIDE = 137
LIMIT = 60  # coordinates beyond this would alias other cells; no Alhambra gets there
#: CELLS[c]: the one int object of cell ``c`` (any cell within LIMIT + 1 of the origin). A dict finds a
#: key by identity before comparing values, and ``c + step`` makes a new int every time: the engine
#: takes its cells from here so that its dicts of cells skip that comparison. Values are unchanged.
CELLS: tuple[int, ...] = tuple(range(STRIDE * STRIDE))
ORIGIN = CELLS[OFFSET * STRIDE + OFFSET]


def cell_key(c: int) -> int:
    """``CELLS[c]``, or ``c`` itself for a cell outside CELLS (only hand-built Alhambras get there)."""
    return CELLS[c] if 0 <= c < len(CELLS) else c


class _OwnKeys:
    """Stands in for CELLS around a cell that has no 8 neighbours in it: each cell is its own key."""

    __slots__ = ()

    def __getitem__(self, c: int) -> int:
        return c


_OWN_KEYS = _OwnKeys()
_LAST_AROUND = len(CELLS) - STRIDE - 2  # the cells STRIDE + 1 to this have their 8 neighbours in CELLS

# (direction bit, cell step, opposite direction bit)
STEPS: tuple[tuple[int, int, int], ...] = ((N, 1, S), (E, STRIDE, W), (S, -1, N), (W, -STRIDE, E))
# The 8 cells around a cell in circular order NW, N, NE, E, SE, S, SW, W (for the hole test P4).
RING: tuple[int, ...] = (
    -STRIDE + 1, 1, STRIDE + 1, STRIDE, STRIDE - 1, -1, -STRIDE - 1, -STRIDE,
)


def cell(x: int, y: int) -> int:
    """The cell key of (x, y)."""
    return (x + OFFSET) * STRIDE + (y + OFFSET)


def on_grid(x: int, y: int) -> bool:
    """Whether (x, y) has its own cell key (55 tiles in a row reach at most 55 cells out)."""
    return -LIMIT <= x <= LIMIT and -LIMIT <= y <= LIMIT


def xy(c: int) -> tuple[int, int]:
    """The (x, y) of a cell key."""
    return c // STRIDE - OFFSET, c % STRIDE - OFFSET


def new_alhambra() -> dict[int, int]:
    """An Alhambra holding only the fountain."""
    return {ORIGIN: FOUNTAIN}


def sides(alhambra: dict[int, int], c: int) -> tuple[int, int]:
    """(occupied, walled): direction masks of the occupied neighbours of ``c`` and of those whose side
    facing ``c`` carries a wall."""
    occ = req = 0
    for bit, step, opp in STEPS:
        t = alhambra.get(c + step)
        if t is not None:
            occ |= bit
            if TILE_WALLS[t] & opp:
                req |= bit
    return occ, req


def ring_ok(alhambra: dict[int, int], c: int) -> bool:
    """P4: the occupied cells around ``c`` form one contiguous arc, so filling ``c`` makes no hole."""
    prev = (c + RING[7]) in alhambra
    changes = 0
    for step in RING:
        cur = (c + step) in alhambra
        if cur != prev:
            changes += 1
        prev = cur
    return changes == 2


def fits(walls: int, occ: int, req: int) -> bool:
    """P2 + P3 for a tile with ``walls`` at a cell with the given neighbour masks."""
    return (walls & occ) == req and bool(occ & ~walls)


def _one_arc(ring: int) -> bool:
    """Whether the 8 ring bits (circular) change between set and clear exactly twice."""
    return sum(1 for i in range(8) if (ring >> i & 1) != (ring >> ((i + 7) % 8) & 1)) == 2


# --- neighbourhood codes: what the engine keeps of each Alhambra --------------------------------
# The code of a cell: bits 0-3 its occupied N, E, S, W neighbours (the direction bits), bits 4-7 its
# occupied NE, SE, SW, NW neighbours, bits 8-11 the N, E, S, W neighbours whose side facing it is
# walled, bits 12-15 the walls of its own tile (0 for an empty cell). A tile on cell c owns fixed
# bits of its 8 neighbours' codes, so a change on c updates the codes (and with them the frontier)
# by a few XORs instead of a rescan.
NE_BIT, SE_BIT, SW_BIT, NW_BIT = 16, 32, 64, 128
#: POPCOUNT[mask]: the number of directions in a 4-bit direction mask
POPCOUNT: tuple[int, ...] = tuple(bin(mask).count("1") for mask in range(16))
EMPTY = 16  # the "walls" index of an empty cell in CODE_DELTA


def _code_bits(walls: int) -> tuple[tuple[int, int], ...]:
    """(step to the neighbour, the bits a tile with ``walls`` sets in that neighbour's code)."""
    out = [(step, opp | (opp << 8 if walls & bit else 0)) for bit, step, opp in STEPS]
    out += [(STRIDE + 1, SW_BIT), (STRIDE - 1, NW_BIT), (-STRIDE - 1, NE_BIT), (-STRIDE + 1, SE_BIT)]
    return tuple(out)


_CODE_BITS = [_code_bits(w) for w in range(16)] + [tuple((step, 0) for step, _ in _code_bits(0))]
#: CODE_DELTA[old][new]: (step, what to add) for each neighbour when a cell goes from walls ``old`` to
#: ``new`` (EMPTY: no tile); neighbours whose code does not change are left out. An addition rather
#: than a XOR (the cell's bits are exactly the old tile's): Python 3.11 specializes + on ints, not ^.
CODE_DELTA: tuple[tuple[tuple[tuple[int, int], ...], ...], ...] = tuple(
    tuple(tuple((step, b - a) for (step, a), (_, b) in zip(_CODE_BITS[old], _CODE_BITS[new]) if a != b)
          for new in range(17))
    for old in range(17))


#: OWN_DELTA[old][new]: what to add to a cell's code when its walls go from ``old`` to ``new`` (EMPTY: no tile)
OWN_DELTA: tuple[tuple[int, ...], ...] = tuple(
    tuple(((new & 15) - (old & 15)) << 12 for new in range(17)) for old in range(17))


def _code_fits(code: int) -> int:
    """Bit w set iff a tile with walls w may go on an empty cell with this code (P1-P4)."""
    occ, req = code & 15, code >> 8
    ring = ((code >> 7 & 1) | (code & N) << 1 | (code >> 4 & 1) << 2 | (code & E) << 2
            | (code >> 5 & 1) << 4 | (code & S) << 3 | (code >> 6 & 1) << 6 | (code & W) << 4)
    if not occ or not occ & ~req or not _one_arc(ring):
        return 0
    return sum(1 << w for w in range(16) if fits(w, occ, req))


#: CODE_FITS[code]: the wall masks that fit an empty cell with that code (0: not on the frontier)
CODE_FITS: tuple[int, ...] = tuple(_code_fits(code) for code in range(4096))
_SWAP_FITS = [sum(1 << w for w in range(16) if (w & code & 15) == code >> 8) for code in range(4096)]
#: SWAP_FITS[code]: the wall masks a tile may have to replace the tile of a cell with that code (L2)
SWAP_FITS: tuple[int, ...] = tuple(_SWAP_FITS) * 16
_SHARED_FLAGS: dict[int, tuple[bool, ...]] = {}


def _flags(mask: int) -> tuple[bool, ...]:
    """A wall-mask set as 16 flags indexed by the wall mask, one shared tuple per set."""
    flags = _SHARED_FLAGS.get(mask)
    if flags is None:
        flags = _SHARED_FLAGS[mask] = tuple(bool(mask >> w & 1) for w in range(16))
    return flags


# The fit sets as flags: in Python 3.11 ``flags[w]`` is two specialized subscripts, where ``mask & 1 << w``
# is an unspecialized operator that makes a new int (the redesign loops test ~25 of them a list).
#: CODE_FIT_FLAGS[code]: CODE_FITS[code] as flags, () when nothing fits (the cell is not on the frontier)
CODE_FIT_FLAGS: tuple[tuple[bool, ...], ...] = tuple(_flags(m) if m else () for m in CODE_FITS)
#: SWAP_FIT_FLAGS[code]: SWAP_FITS[code] as flags
SWAP_FIT_FLAGS: tuple[tuple[bool, ...], ...] = tuple(_flags(m) for m in _SWAP_FITS) * 16
#: PASS_COUNT[code]: the number of passages of the tile on an occupied cell with that code
# (tuples, not bytes: Python 3.11 specializes a tuple's subscript only)
PASS_COUNT: tuple[int, ...] = tuple(POPCOUNT[code & 15 & ~(code >> 8) & ~w] for w in range(16) for code in range(4096))
#: LEAF[code]: whether the tile on a cell with that code has at most one passage and an empty side (R1)
LEAF: tuple[bool, ...] = tuple(PASS_COUNT[code] < 2 and code & 15 != 15 for code in range(1 << 16))


def codes_of(alhambra: dict[int, int]) -> dict[int, int]:
    """The code of every cell next to a tile (8 directions), occupied or not."""
    codes: dict[int, int] = {}
    walls_of = TILE_WALLS
    cells = CELLS
    for c, t in alhambra.items():
        walls = walls_of[t]
        for step, bits in _CODE_BITS[walls]:
            e = c + step
            if 0 <= e < len(cells):  # cell_key without the call
                e = cells[e]
            codes[e] = codes.get(e, 0) | bits
        codes[c] = codes.get(c, 0) | walls << 12
    return codes


def front_of(alhambra: dict[int, int], codes: dict[int, int]) -> dict[int, tuple[bool, ...]]:
    """The frontier: empty cell -> the wall masks that fit it as flags (``CODE_FIT_FLAGS``), fitting
    cells only."""
    fits_of = CODE_FIT_FLAGS
    return {e: fits_of[code] for e, code in codes.items() if e not in alhambra and fits_of[code]}


def recode(alhambra: dict[int, int], codes: dict[int, int], front: dict[int, tuple[bool, ...]], c: int,
           old: int | None, new: int | None) -> None:
    """Bring ``codes`` and ``front`` up to date after cell ``c`` went from tile ``old`` to ``new``
    (None: empty); ``alhambra`` already holds the change."""
    walls_of = TILE_WALLS
    fits_of = CODE_FIT_FLAGS
    cells = CELLS if STRIDE < c <= _LAST_AROUND else _OWN_KEYS  # the first unless hand-built far off the grid
    was = EMPTY if old is None else walls_of[old]
    now = EMPTY if new is None else walls_of[new]
    own = OWN_DELTA[was][now]
    if own:
        codes[c] = codes.get(c, 0) + own
    for step, delta in CODE_DELTA[was][now]:
        e = cells[c + step]
        code = codes[e] = codes.get(e, 0) + delta  # a new tile's neighbours may have no code yet
        if e not in alhambra:
            fit = fits_of[code]
            if fit:
                front[e] = fit
            elif e in front:
                del front[e]
    if new is None:
        fit = fits_of[codes.get(c, 0)]
        if fit:
            front[c] = fit
    elif old is None and c in front:
        del front[c]


def frontier_map(alhambra: dict[int, int]) -> dict[int, tuple[int, int]]:
    """Every cell where some tile could go: cell -> (occupied, walled) masks of its neighbours; a
    tile with walls ``w`` fits there iff ``fits(w, occupied, walled)``."""
    codes = codes_of(alhambra)
    return {e: (codes[e] & 15, codes[e] >> 8) for e in front_of(alhambra, codes)}


def frontier(alhambra: dict[int, int]) -> list[tuple[int, int, int]]:
    """``frontier_map`` as a sorted list of (cell, occupied, walled)."""
    return sorted((e, occ, req) for e, (occ, req) in frontier_map(alhambra).items())


def can_place(alhambra: dict[int, int], c: int, tile: int) -> bool:
    """P0-P4: may ``tile`` be placed on the empty cell ``c``?"""
    if c in alhambra:
        return False
    occ, req = sides(alhambra, c)
    if not occ:
        return False
    return fits(TILE_WALLS[tile], occ, req) and ring_ok(alhambra, c)


def reachable(alhambra: dict[int, int], without: int | None = None) -> int:
    """How many tiles are reachable from the fountain by passable steps (ignoring cell ``without``)."""
    seen = {ORIGIN}
    stack = [ORIGIN]
    while stack:
        c = stack.pop()
        walls = TILE_WALLS[alhambra[c]]
        for bit, step, opp in STEPS:
            if walls & bit:
                continue
            e = c + step
            if e == without or e in seen:
                continue
            t = alhambra.get(e)
            if t is not None and not TILE_WALLS[t] & opp:
                seen.add(e)
                stack.append(e)
    return len(seen)


def can_remove(alhambra: dict[int, int], c: int) -> bool:
    """R1 + R2: may the tile on ``c`` go to the reserve (never the fountain)?"""
    if c == ORIGIN or c not in alhambra:
        return False
    occ, _ = sides(alhambra, c)
    if occ == 15:  # R1: the cell would become a hole
        return False
    if occ & (occ - 1) == 0:  # a single neighbour: nothing hangs on this tile
        return True
    return reachable(alhambra, c) == len(alhambra) - 1


#: PASS_STEPS[mask]: the cell steps of the directions in a 4-bit direction mask
PASS_STEPS: tuple[tuple[int, ...], ...] = tuple(
    tuple(step for bit, step, _opp in STEPS if mask & bit) for mask in range(16))
#: CODE_PASS_STEPS[code]: the steps of the passages of the tile on an occupied cell with that code (its
#: own walls in bits 12-15): one subscript instead of four operators Python 3.11 does not specialize
CODE_PASS_STEPS: tuple[tuple[int, ...], ...] = tuple(
    PASS_STEPS[open_ & ~w] for w in range(16) for open_ in [code & 15 & ~(code >> 8) for code in range(4096)])


def passage_mask(code: int, walls: int) -> int:
    """Direction mask of the passages of a tile with ``walls`` on a cell with ``code``: its open
    sides facing open sides."""
    return code & 15 & ~(code >> 8) & ~walls


def _adjacency(alhambra: dict[int, int], codes: dict[int, int]) -> dict[int, list[int]]:
    """Tile -> the cells its passages lead to."""
    walls_of = TILE_WALLS
    steps = PASS_STEPS
    adj: dict[int, list[int]] = {}
    for c, t in alhambra.items():
        code = codes.get(c, 0)
        adj[c] = [c + step for step in steps[code & 15 & ~(code >> 8) & ~walls_of[t]]]
    return adj


def cut_cells(alhambra: dict[int, int], codes: dict[int, int]) -> set[int] | None:
    """The cut tiles of the passage graph (removing one strands others; the fountain may be listed
    too), or None when some tile is already unreachable (only hand-built Alhambras). One depth-first
    search from the fountain with Hopcroft-Tarjan low points, the passages read from ``codes``."""
    disc = {ORIGIN: 0}
    cut: set[int] = set()
    _low_point(ORIGIN, 0, codes, disc, cut, CODE_PASS_STEPS)
    return cut if len(disc) == len(alhambra) else None


def _low_point(v: int, d: int, codes: dict[int, int], disc: dict[int, int], cut: set[int],
               steps: tuple[tuple[int, ...], ...]) -> int:
    """Visit cell ``v`` (discovered ``d``-th) for ``cut_cells``: number the cells it leads to in ``disc``,
    add the cut tiles to ``cut`` and return the lowest number reachable from its subtree by one back
    passage. Recursive (at most 55 deep), a module function: half the time of an explicit stack, and no
    closure cycle for the garbage collector."""
    low = d
    for step in steps[codes[v]]:
        w = CELLS[v + step]  # a tile joined to the fountain: within 54 cells of it
        dw = disc.get(w)
        if dw is None:
            dw = disc[w] = len(disc)
            below = _low_point(w, dw, codes, disc, cut, steps)
            if below >= d:  # nothing under w reaches above v: v cuts w off
                cut.add(v)
            if below < low:
                low = below
        elif dw < low:
            low = dw
    return low


def removable(alhambra: dict[int, int], codes: dict[int, int] | None = None,
              cut: set[int] | None = None) -> list[int]:
    """Cells (sorted) whose tile may be removed: not the fountain, not enclosed on 4 sides (R1), and
    every other tile still reachable (R2). ``codes``: the Alhambra's ``codes_of`` and ``cut`` its
    ``cut_cells``, if known.

    R2 holds for a tile exactly when it is no cut vertex of the passage graph.
    """
    if codes is None:
        codes = codes_of(alhambra)
    if cut is None:
        cut = cut_cells(alhambra, codes)
    if cut is None:  # not every tile reachable: test each tile alone
        return _removable_slow(alhambra, _adjacency(alhambra, codes))
    return [c for c in sorted(alhambra) if c != ORIGIN and c not in cut and codes.get(c, 0) & 15 != 15]


def _removable_slow(alhambra: dict[int, int], adj: dict[int, list[int]]) -> list[int]:
    """``removable`` by one search per tile (any Alhambra, reachable or not)."""
    n = len(alhambra)
    result = []
    for c in sorted(alhambra):
        if c == ORIGIN:
            continue
        if c + 1 in alhambra and c - 1 in alhambra and c + STRIDE in alhambra and c - STRIDE in alhambra:
            continue
        if len(adj[c]) > 1:
            seen = {ORIGIN, c}
            stack = [ORIGIN]
            while stack:
                for e in adj[stack.pop()]:
                    if e not in seen:
                        seen.add(e)
                        stack.append(e)
            if len(seen) != n:
                continue
        result.append(c)
    return result


def can_swap(alhambra: dict[int, int], c: int, tile: int) -> bool:
    """May reserve ``tile`` take the cell ``c`` of an Alhambra tile (L2 against every neighbour)?"""
    if c == ORIGIN or c not in alhambra:
        return False
    occ, req = sides(alhambra, c)
    return (TILE_WALLS[tile] & occ) == req


def is_legal(alhambra: dict[int, int]) -> bool:
    """L1-L4 checked from scratch (for tests and assertions; the engine keeps it by construction)."""
    if alhambra.get(ORIGIN) != FOUNTAIN:
        return False
    for c, t in alhambra.items():
        walls = TILE_WALLS[t]
        for bit, step, opp in STEPS:
            u = alhambra.get(c + step)
            if u is not None and bool(walls & bit) != bool(TILE_WALLS[u] & opp):
                return False
    if reachable(alhambra) != len(alhambra):
        return False
    xs = [xy(c) for c in alhambra]
    x0, x1 = min(p[0] for p in xs) - 1, max(p[0] for p in xs) + 1
    y0, y1 = min(p[1] for p in xs) - 1, max(p[1] for p in xs) + 1
    outside = {(x0, y0)}
    stack = [(x0, y0)]
    while stack:
        x, y = stack.pop()
        for nx, ny in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if x0 <= nx <= x1 and y0 <= ny <= y1 and (nx, ny) not in outside and cell(nx, ny) not in alhambra:
                outside.add((nx, ny))
                stack.append((nx, ny))
    empties = (x1 - x0 + 1) * (y1 - y0 + 1) - len(alhambra)
    return len(outside) == empties


def outer_walls(alhambra: dict[int, int]) -> list[tuple[int, int]]:
    """Outer wall segments (cell, side bit): a walled side whose neighbouring cell is empty."""
    out = []
    for c, t in alhambra.items():
        walls = TILE_WALLS[t]
        if walls:
            for bit, step, _opp in STEPS:
                if walls & bit and (c + step) not in alhambra:
                    out.append((c, bit))
    return out


# A corner (x, y) is keyed like the cell (x, y) whose lower-left corner it is. _WALL_SIDES[walls]:
# (step to the neighbour, first corner, second corner) of each walled side, the corners as offsets.
_SIDE_CORNERS = {N: (1, STRIDE + 1), E: (STRIDE, STRIDE + 1), S: (0, STRIDE), W: (0, 1)}
_WALL_SIDES: tuple[tuple[tuple[int, int, int], ...], ...] = tuple(
    tuple((step,) + _SIDE_CORNERS[bit] for bit, step, _opp in STEPS if walls & bit) for walls in range(16))


def wall_lengths(alhambra: dict[int, int]) -> list[int]:
    """Lengths of the walls (segments joined when their edges share an end point), longest first."""
    parent: dict[int, int] = {}  # union-find over corners; a corner without an entry is a root
    firsts = []
    walls_of = TILE_WALLS
    sides = _WALL_SIDES
    for c, t in alhambra.items():
        walls = walls_of[t]
        if walls:
            for step, da, db in sides[walls]:
                if c + step not in alhambra:  # an outer wall segment
                    a = ra = c + da
                    rb = c + db
                    while ra in parent:
                        ra = parent[ra]
                    while rb in parent:
                        rb = parent[rb]
                    if ra != rb:
                        parent[ra] = rb
                    firsts.append(a)
    counts: dict[int, int] = {}
    for r in firsts:
        while r in parent:
            r = parent[r]
        counts[r] = counts.get(r, 0) + 1
    return sorted(counts.values(), reverse=True)


def longest_wall(alhambra: dict[int, int]) -> int:
    """Length of the longest outer wall (§5.2), 0 without outer walls."""
    lengths = wall_lengths(alhambra)
    return lengths[0] if lengths else 0
