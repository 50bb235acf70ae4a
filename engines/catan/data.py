"""Every table of Catan: resources, costs, piece and card counts, both boards, harbours, tokens.

Board geometry follows §2.5 of the rules: pointy-top hexes in axial coordinates ``(q, r)``; every
corner is the ``N`` or ``S`` corner of exactly one hex position; ids are sorted by screen position.
The geometry tables are derived here once at import from the land positions (the derivation is the
rule itself, and the tests check the result against the id tables of §2.6-§2.8).
"""
from __future__ import annotations

RESOURCES: tuple[str, ...] = ("lumber", "brick", "wool", "grain", "ore")
RES_INDEX = {name: i for i, name in enumerate(RESOURCES)}
LUMBER, BRICK, WOOL, GRAIN, ORE = range(5)

TERRAINS = ("forest", "hills", "pasture", "fields", "mountains", "desert")
#: resource index produced by each terrain (-1: desert produces nothing)
TERRAIN_RESOURCE = {"forest": LUMBER, "hills": BRICK, "pasture": WOOL, "fields": GRAIN,
                    "mountains": ORE, "desert": -1}

#: costs as resource-count vectors (lumber, brick, wool, grain, ore), §2.3
COST_ROAD = (1, 1, 0, 0, 0)
COST_SETTLEMENT = (1, 1, 1, 1, 0)
COST_CITY = (0, 0, 0, 2, 3)
COST_DEV = (0, 0, 1, 1, 1)

PIECES = {"settlements": 5, "cities": 4, "roads": 15}
COLOURS = ("red", "blue", "white", "orange", "green", "brown")

DEV_TYPES = ("knight", "victory_point", "road_building", "year_of_plenty", "monopoly")
KNIGHT, VICTORY_POINT, ROAD_BUILDING, YEAR_OF_PLENTY, MONOPOLY = range(5)
DEV_DECK_SMALL = {"knight": 14, "victory_point": 5, "road_building": 2, "year_of_plenty": 2, "monopoly": 2}
DEV_DECK_LARGE = {"knight": 20, "victory_point": 5, "road_building": 3, "year_of_plenty": 3, "monopoly": 3}

BANK_SMALL = 19  # of each resource, 3-4 players
BANK_LARGE = 24  # of each resource, 5-6 players

LONGEST_ROAD_MIN = 5
LARGEST_ARMY_MIN = 3
SPECIAL_CARD_VP = 2

#: §2.4 ways out of 36 ("pips") per number
PIPS = {2: 1, 3: 2, 4: 3, 5: 4, 6: 5, 7: 6, 8: 5, 9: 4, 10: 3, 11: 2, 12: 1}
RED_NUMBERS = (6, 8)

TERRAIN_TILES_SMALL = ("forest",) * 4 + ("pasture",) * 4 + ("fields",) * 4 + ("hills",) * 3 \
    + ("mountains",) * 3 + ("desert",)
TERRAIN_TILES_LARGE = ("forest",) * 6 + ("pasture",) * 6 + ("fields",) * 6 + ("hills",) * 5 \
    + ("mountains",) * 5 + ("desert",) * 2

#: number tokens in letter order A..R (§2.10) and A..Zc for the 5-6 board (§2.12)
TOKENS_SMALL = (5, 2, 6, 3, 8, 10, 9, 12, 11, 4, 8, 10, 9, 4, 5, 6, 3, 11)
TOKENS_LARGE = (2, 5, 4, 6, 3, 9, 8, 11, 11, 10, 6, 3, 8, 4, 8, 10, 11, 12, 10, 5, 4, 9, 5, 9, 12, 3, 2, 6)

GENERIC = "3:1"
HARBOUR_TYPES_SMALL = (GENERIC,) * 4 + RESOURCES
# the extension adds a 3:1 and a wool 2:1; all types are shuffled uniformly over the slots [HOUSE]
HARBOUR_TYPES_LARGE = (GENERIC,) * 5 + RESOURCES + ("wool",)

# Axial neighbour offsets; clockwise order E, SE, SW, W, NW, NE (§2.5).
DIRS = {"E": (1, 0), "SE": (0, 1), "SW": (-1, 1), "W": (-1, 0), "NW": (0, -1), "NE": (1, -1)}
SPIRAL_DIRS = ("NE", "NW", "W", "SW", "SE", "E")  # §2.10: counter-clockwise walk, left turns


def _land_small() -> list[tuple[int, int]]:
    return [(q, r) for r in range(-2, 3) for q in range(-2, 3) if max(abs(q), abs(r), abs(q + r)) <= 2]


def _land_large() -> list[tuple[int, int]]:
    rows = {-3: range(0, 3), -2: range(-1, 3), -1: range(-2, 3), 0: range(-3, 3), 1: range(-3, 2),
            2: range(-3, 1), 3: range(-3, 0)}
    return [(q, r) for r in range(-3, 4) for q in rows[r]]


class Board:
    """The fixed geometry of one board size: ids and adjacency as tuples of ints."""

    def __init__(self, land: list[tuple[int, int]], harbour_slots: list[tuple[tuple[int, int], str]],
                 corners: tuple[int, ...]):
        land = sorted(land, key=lambda c: (c[1], c[0]))
        self.hex_coords: tuple[tuple[int, int], ...] = tuple(land)
        self.hex_id = {c: i for i, c in enumerate(land)}
        # corners of hex (q, r): N, NE, SE, S, SW, NW as canonical keys
        def corners_of(q: int, r: int):
            return ((q, r, "N"), (q + 1, r - 1, "S"), (q, r + 1, "N"), (q, r, "S"), (q - 1, r + 1, "N"),
                    (q, r - 1, "S"))

        def vkey(v):
            q, r, c = v
            return (3 * r - 2, 2 * q + r) if c == "N" else (3 * r + 2, 2 * q + r)

        verts = sorted({v for (q, r) in land for v in corners_of(q, r)}, key=vkey)
        self.vertex_keys = tuple(verts)
        vid = {v: i for i, v in enumerate(verts)}
        self.hex_vertices = tuple(tuple(vid[v] for v in corners_of(q, r)) for (q, r) in land)
        edge_set = set()
        for hv in self.hex_vertices:
            for k in range(6):
                a, b = hv[k], hv[(k + 1) % 6]
                edge_set.add((min(a, b), max(a, b)))

        def ekey(e):
            ka, kb = vkey(verts[e[0]]), vkey(verts[e[1]])
            return (ka[0] + kb[0], ka[1] + kb[1])

        edges = sorted(edge_set, key=ekey)
        self.edge_vertices: tuple[tuple[int, int], ...] = tuple(edges)
        eid = {e: i for i, e in enumerate(edges)}
        # sides NE, E, SE, SW, W, NW = corner pairs (N,NE), (NE,SE), (SE,S), (S,SW), (SW,NW), (NW,N)
        self.hex_edges = tuple(
            tuple(eid[(min(hv[k], hv[(k + 1) % 6]), max(hv[k], hv[(k + 1) % 6]))] for k in range(6))
            for hv in self.hex_vertices)
        nv = len(verts)
        self.num_vertices, self.num_edges, self.num_hexes = nv, len(edges), len(land)
        vh = [[] for _ in range(nv)]
        for h, hv in enumerate(self.hex_vertices):
            for v in hv:
                vh[v].append(h)
        self.vertex_hexes = tuple(tuple(sorted(x)) for x in vh)
        ve = [[] for _ in range(nv)]
        va = [[] for _ in range(nv)]
        for e, (a, b) in enumerate(edges):
            ve[a].append(e)
            ve[b].append(e)
            va[a].append(b)
            va[b].append(a)
        self.vertex_edges = tuple(tuple(x) for x in ve)
        self.vertex_neighbours = tuple(tuple(x) for x in va)
        self.hex_neighbours = tuple(
            tuple(self.hex_id[(q + dq, r + dr)] for (dq, dr) in DIRS.values() if (q + dq, r + dr) in self.hex_id)
            for (q, r) in land)
        # harbours: (sea hex, facing) -> land hex and its two vertices on the facing side
        # A sea hex facing direction d touches the land hex in direction d on that hex's opposite side:
        # facing SW -> land hex's NE side, facing W -> E side, NW -> SE, NE -> SW, E -> W, SE -> NW.
        side_index = {"SW": 0, "W": 1, "NW": 2, "NE": 3, "E": 4, "SE": 5}
        slots = []
        for (sq, sr), facing in harbour_slots:
            dq, dr = DIRS[facing]
            land_hex = self.hex_id[(sq + dq, sr + dr)]
            e = self.hex_edges[land_hex][side_index[facing]]
            slots.append(((sq, sr), facing, land_hex, self.edge_vertices[e]))
        self.harbour_slots = tuple(slots)
        self.corners = corners
        self.spiral_orders = {c: tuple(self._spiral(c)) for c in corners}

    def _spiral(self, start: int) -> list[int]:
        """§2.10 walk: start at a corner hex, walk counter-clockwise inwards (left turns)."""
        coords = self.hex_id
        def land(c):
            return c in coords
        q, r = self.hex_coords[start]
        n = len(SPIRAL_DIRS)
        d = 0
        for i in range(n):
            dq, dr = DIRS[SPIRAL_DIRS[i]]
            pq, pr = DIRS[SPIRAL_DIRS[i - 1]]
            if land((q + dq, r + dr)) and not land((q + pq, r + pr)):
                d = i
                break
        order, seen = [start], {start}
        while len(order) < len(coords):
            dq, dr = DIRS[SPIRAL_DIRS[d]]
            nxt = (q + dq, r + dr)
            if nxt in coords and coords[nxt] not in seen:
                q, r = nxt
                order.append(coords[nxt])
                seen.add(coords[nxt])
            else:
                d = (d + 1) % n
        return order


#: §2.9 harbour slots of the 3-4 board: (sea hex (q, r), facing), clockwise from the top side
HARBOUR_SLOTS_SMALL = [((2, -3), "SW"), ((3, -2), "SW"), ((3, 0), "W"), ((1, 2), "NW"), ((-1, 3), "NW"),
                       ((-3, 3), "NE"), ((-3, 1), "E"), ((-2, -1), "E"), ((0, -3), "SE")]
#: §2.12 harbour slots of the 5-6 board (positions from the 5th-edition frame; facings [HOUSE] rule)
HARBOUR_SLOTS_LARGE = [((2, -4), "SW"), ((3, -3), "SW"), ((3, 0), "W"), ((1, 2), "NW"), ((0, 3), "NW"),  # [HOUSE]
                       ((-2, 4), "NW"), ((-4, 4), "NE"), ((-4, 2), "E"), ((-4, 1), "E"), ((-3, -1), "E"),
                       ((0, -4), "SE")]

BOARD_SMALL = Board(_land_small(), HARBOUR_SLOTS_SMALL, (0, 2, 7, 11, 16, 18))
BOARD_LARGE = Board(_land_large(), HARBOUR_SLOTS_LARGE, (0, 2, 12, 17, 27, 29))

# --- §2.11 beginner board -------------------------------------------------------------------------
BEGINNER_TERRAIN = ("mountains", "pasture", "forest", "fields", "hills", "pasture", "hills", "fields", "forest",
                    "desert", "forest", "mountains", "forest", "mountains", "fields", "pasture", "hills",
                    "fields", "pasture")
BEGINNER_NUMBERS = (10, 2, 9, 12, 6, 4, 10, 9, 11, 0, 3, 8, 8, 3, 4, 5, 5, 6, 11)
BEGINNER_HARBOURS = ("grain", "ore", GENERIC, "wool", GENERIC, GENERIC, "brick", "lumber", GENERIC)

#: §3.3 beginner preset: colour -> (settlements with the lettered one first, roads, starting hand).
#: Only blue 39, orange 40 and white on hex 10 are derived from the seed; the rest is [HOUSE].
BEGINNER_PRESET = {  # [HOUSE]
    "red": ((28, 8), (40, 13), ("grain", "lumber", "lumber")),
    "blue": ((39, 41), (55, 60), ("lumber", "brick", "ore")),
    "white": ((31, 48), (37, 68), ("lumber", "ore", "wool")),
    "orange": ((40, 14), (51, 21), ("ore", "grain", "grain")),
}
BEGINNER_COLOURS = {3: ("blue", "white", "orange"), 4: ("red", "blue", "white", "orange")}

# --- [HOUSE] values ---------------------------------------------------------------------------------
DEFAULT_MAX_TRADE_PROPOSALS = 3  # [HOUSE] §4.4 proposals per turn
DEFAULT_TRADE_MAX_CARDS = 2      # [HOUSE] §4.4 cards per side of a proposal
DEFAULT_MAX_TURNS = 1000         # [HOUSE] §5 turn limit
# Bounds of the options (the work of a game grows with them)
MAX_TRADE_PROPOSALS = 5          # [HOUSE] proposals per turn (each asks every other seat)
MAX_TRADE_CARDS = 3              # [HOUSE] 3 cards a side: 1,170 (give, get) pairs; 4: 4,000; 5: 10,750
MAX_TURNS = 2000                 # [HOUSE] turn limit: twice the default
MIN_VP_TO_WIN, MAX_VP_TO_WIN = 3, 20  # set-up alone gives 2 VP; 22 is the most a player can hold

# --- Best Friends (§6.5) --------------------------------------------------------------------------
GUILDS = ("merchant", "trader", "road_builder", "scholar", "architect")
#: favour tokens in play per guild for 3/4/5/6 players and tokens needed per use
FAVOUR_TOKENS = {"merchant": (6, 8, 10, 12), "trader": (6, 8, 10, 12), "road_builder": (6, 8, 10, 12),
                 "scholar": (12, 16, 20, 24), "architect": (12, 16, 20, 24)}
FAVOUR_COST = {"merchant": 1, "trader": 1, "road_builder": 1, "scholar": 2, "architect": 2}
CATAN_TOKENS = 12
BEST_FRIENDS_VP = 11
