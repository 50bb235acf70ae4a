"""All the tables of Top Race: money, card distribution, tempo cards, tip table and the four tracks.

Copied from the rules file (rules/top_race.md, §2). Values the rules file marks [HOUSE] (designed
because the rulebook's figure was lost) carry a ``# [HOUSE]`` comment so they can be corrected here.
The tracks are given as segments (§2.8) and expanded into a space graph by ``expand_track``.
"""
from __future__ import annotations

from typing import Any

# --- cars (§2.1) ---------------------------------------------------------------------------
CARS: tuple[str, ...] = ("red", "yellow", "blue", "black", "purple", "green")
CAR_INDEX: dict[str, int] = {c: i for i, c in enumerate(CARS)}
JOKER = "joker"

# --- money (§2.2) --------------------------------------------------------------------------
START_CAPITAL = 200_000
MIN_OPENING_BID = 10_000
BID_UNIT = 10_000
LAST_CAR_FIXED_PRICE = 30_000
#: prize by place 1..6 (index 0 = 1st place)
PRIZE: tuple[int, ...] = (200_000, 150_000, 100_000, 60_000, 30_000, 10_000)  # [HOUSE]

# --- tip table (§2.7): TIP[marker k - 1][place - 1] ---------------------------------------------
TIP: tuple[tuple[int, ...], ...] = (  # [HOUSE]
    (100_000, 60_000, 30_000, 0, -10_000, -20_000),
    (70_000, 40_000, 20_000, -10_000, -20_000, -30_000),
    (40_000, 20_000, 10_000, -20_000, -30_000, -40_000),
)

# --- card distribution (§2.3) ------------------------------------------------------------------
#: basic game and Tips: players -> (cards each, cards out of the race)
DEAL_BASIC: dict[int, tuple[int, int]] = {2: (24, 0), 3: (16, 0), 4: (12, 0), 5: (9, 3), 6: (8, 0)}
#: Pitstop: players -> (cards each, Box)
DEAL_PITSTOP: dict[int, tuple[int, int]] = {  # [HOUSE]
    2: (21, 6), 3: (14, 6), 4: (10, 8), 5: (8, 8), 6: (7, 6)}
#: Shares: players -> (cards each, extra offer cards besides the 3 spurt cards, cards out)
DEAL_SHARES: dict[int, tuple[int, int, int]] = {  # [HOUSE]
    2: (22, 1, 0), 3: (15, 0, 0), 4: (11, 1, 0), 5: (8, 2, 3), 6: (7, 3, 0)}
#: Shares + Pitstop: players -> (cards each, extra offer cards, Box)
DEAL_SHARES_PITSTOP: dict[int, tuple[int, int, int]] = {  # [HOUSE]
    2: (19, 1, 6), 3: (13, 0, 6), 4: (9, 1, 8), 5: (7, 2, 8), 6: (6, 3, 6)}

PITSTOP_CARDS_PER_PLAYER = 3
SHARES_START = 5
SHARES_MAX = 15
SHARES_TOTAL = 30

# --- tempo cards (§2.4); groups A-H are [HOUSE], the spurt cards S are from the seed -----------------
_SLOTS: dict[int, tuple[tuple[str, int], ...]] = {  # [HOUSE] composition of cards 1-45
    1: (("red", 10),), 2: (("yellow", 10),), 3: (("blue", 10),),
    4: (("black", 10),), 5: (("purple", 10),), 6: (("green", 10),),
    7: (("joker", 5), ("red", 2)), 8: (("joker", 5), ("yellow", 2)), 9: (("joker", 5), ("blue", 2)),
    10: (("joker", 5), ("black", 2)), 11: (("joker", 5), ("purple", 2)), 12: (("joker", 5), ("green", 2)),
    13: (("red", 6), ("yellow", 5), ("blue", 4), ("black", 3), ("purple", 2), ("green", 1)),
    14: (("yellow", 6), ("blue", 5), ("black", 4), ("purple", 3), ("green", 2), ("red", 1)),
    15: (("blue", 6), ("black", 5), ("purple", 4), ("green", 3), ("red", 2), ("yellow", 1)),
    16: (("black", 6), ("purple", 5), ("green", 4), ("red", 3), ("yellow", 2), ("blue", 1)),
    17: (("purple", 6), ("green", 5), ("red", 4), ("yellow", 3), ("blue", 2), ("black", 1)),
    18: (("green", 6), ("red", 5), ("yellow", 4), ("blue", 3), ("black", 2), ("purple", 1)),
    19: (("red", 6), ("yellow", 4), ("black", 2), ("blue", 1)),
    20: (("yellow", 6), ("blue", 4), ("purple", 2), ("black", 1)),
    21: (("blue", 6), ("black", 4), ("green", 2), ("purple", 1)),
    22: (("black", 6), ("purple", 4), ("red", 2), ("green", 1)),
    23: (("purple", 6), ("green", 4), ("yellow", 2), ("red", 1)),
    24: (("green", 6), ("red", 4), ("blue", 2), ("yellow", 1)),
    25: (("red", 6), ("black", 4), ("joker", 2), ("purple", 1)),
    26: (("yellow", 6), ("purple", 4), ("joker", 2), ("green", 1)),
    27: (("blue", 6), ("green", 4), ("joker", 2), ("red", 1)),
    28: (("black", 6), ("red", 4), ("joker", 2), ("yellow", 1)),
    29: (("purple", 6), ("yellow", 4), ("joker", 2), ("blue", 1)),
    30: (("green", 6), ("blue", 4), ("joker", 2), ("black", 1)),
    31: (("red", 6), ("joker", 4), ("green", 2), ("purple", 1)),
    32: (("yellow", 6), ("joker", 4), ("red", 2), ("green", 1)),
    33: (("blue", 6), ("joker", 4), ("yellow", 2), ("red", 1)),
    34: (("black", 6), ("joker", 4), ("blue", 2), ("yellow", 1)),
    35: (("purple", 6), ("joker", 4), ("black", 2), ("blue", 1)),
    36: (("green", 6), ("joker", 4), ("purple", 2), ("black", 1)),
    37: (("red", 6), ("green", 4), ("blue", 2)),
    38: (("yellow", 6), ("red", 4), ("black", 2)),
    39: (("blue", 6), ("yellow", 4), ("purple", 2)),
    40: (("black", 6), ("blue", 4), ("green", 2)),
    41: (("purple", 6), ("black", 4), ("red", 2)),
    42: (("green", 6), ("purple", 4), ("yellow", 2)),
    43: (("joker", 5),), 44: (("joker", 5),), 45: (("joker", 5),),
}
#: Spurt/Breakdown cards (46-48): the two cars they name [SEED]
SPURT_CARDS: dict[int, tuple[str, str]] = {46: ("blue", "red"), 47: ("yellow", "black"), 48: ("purple", "green")}
ALL_CARDS: tuple[int, ...] = tuple(range(1, 49))
GROUPS: dict[int, str] = {i: "ABCDEFGH"[(i - 1) // 6] if i <= 42 else ("H" if i <= 45 else "S") for i in ALL_CARDS}


def card_slots(card: int) -> tuple[tuple[str, int], ...]:
    """The slots (car or "joker", spaces) of a normal tempo card, top to bottom; () for a spurt card."""
    return _SLOTS.get(card, ())


def card_json(card: int) -> dict[str, Any]:
    """A card as the rules file prints it (§2.4)."""
    if card in SPURT_CARDS:
        return {"id": card, "group": "S", "spurt_breakdown": list(SPURT_CARDS[card])}
    return {"id": card, "group": GROUPS[card], "slots": [[c, n] for c, n in _SLOTS[card]]}


# --- tracks (§2.9), all [HOUSE] geometry --------------------------------------------------------
TRACK_IDS: tuple[str, ...] = ("speed_street", "lake_lane", "desert_drive", "turbo_town")
DEFAULT_TRACK = "speed_street"
MAX_RACES = 10  # [HOUSE] the most races an option may set (3-5 recommended, §0 [SRC 10])


def _seg(spec: str) -> list[dict[str, Any]]:
    # compact segment notation "S2:0-2 C6:0-2R K2:1-1"; expanded to the rules file's JSON form
    out = []
    for tok in spec.split():
        kind, rest = tok[0], tok[1:]
        rows, lanes = rest.split(":")
        direction = None
        if lanes[-1] in "RL":
            lanes, direction = lanes[:-1], lanes[-1]
        lo, hi = (int(x) for x in lanes.split("-"))
        seg: dict[str, Any] = {"k": kind, "rows": int(rows), "lanes": [lo, hi]}
        if direction:
            seg["dir"] = direction
        out.append(seg)
    return out


TRACKS: dict[str, dict[str, Any]] = {  # [HOUSE] all four geometries
    "speed_street": {
        "segments": _seg("S2:0-2 S8:0-2 C6:0-2R S6:0-2 K2:1-1 S8:0-2 C6:0-2R S4:0-2 C4:0-2R S3:0-2 K2:1-1 "
                         "S3:0-2 C4:0-2R S6:0-2"),
        "finish": 64, "tip_lines": [26, 40, 52],
        "start_spaces": {"1": "r1l2", "2": "r1l1", "3": "r1l0", "4": "r0l2", "5": "r0l1", "6": "r0l0"},
        "inner_side": [[0, 63, "R"]],
    },
    "lake_lane": {
        "segments": _seg("S2:0-2 S4:0-2 C6:0-2L S4:0-1 K2:1-1 S4:0-2 C8:0-2R S4:0-2 K3:1-1 S4:0-2 C6:0-1L "
                         "S4:0-1 C6:0-2R K2:1-1 S3:0-2 C6:0-2L S4:0-2"),
        "finish": 72, "tip_lines": [20, 39, 60],
        "start_spaces": {"1": "r1l0", "2": "r1l1", "3": "r1l2", "4": "r0l0", "5": "r0l1", "6": "r0l2"},
        "inner_side": [[0, 11, "L"], [12, 29, "R"], [30, 46, "L"], [47, 56, "R"], [57, 71, "L"]],
    },
    "desert_drive": {
        "segments": _seg("S2:0-2 S10:0-2 K2:1-1 S3:0-2 C8:0-2R S2:0-2 K2:1-1 S8:0-2 C6:0-2L S2:0-2 K3:1-1 "
                         "S3:0-2 C8:0-2R S2:0-2 K2:1-1 S8:0-2"),
        "finish": 71, "tip_lines": [15, 34, 49],
        "start_spaces": {"1": "r1l2", "2": "r1l1", "3": "r1l0", "4": "r0l2", "5": "r0l1", "6": "r0l0"},
        "inner_side": [[0, 24, "R"], [25, 42, "L"], [43, 70, "R"]],
    },
    "turbo_town": {
        "segments": _seg("S2:0-2 S6:0-2 C4:0-2R S4:0-1 C4:0-1R S4:0-2 K2:1-1 S4:0-2 C4:0-2L S4:0-1 C4:0-1R "
                         "S2:0-1 K2:1-1 S4:0-2 C6:0-2R S4:0-2 K3:1-1 S3:0-2 C4:0-2L S2:0-1 K2:1-1 C4:0-2R "
                         "S4:0-2"),
        "finish": 82, "tip_lines": [22, 43, 64],
        "start_spaces": {"1": "r1l2", "2": "r1l1", "3": "r1l0", "4": "r0l2", "5": "r0l1", "6": "r0l0"},
        "inner_side": [[0, 19, "R"], [20, 33, "L"], [34, 55, "R"], [56, 69, "L"], [70, 81, "R"]],
    },
}


class Track:
    """A track expanded into spaces (§2.8). Spaces are numbered 0..len-1 in (back, lane) order;
    ``FINISH`` (== number of spaces) is the virtual node beyond the finish line."""

    __slots__ = ("id", "ids", "index", "lane", "back", "front", "succ", "key", "finish", "tip_lines",
                 "start_spaces", "FINISH", "inner_side_of_row", "tip_count", "succ_mask", "union")

    def __init__(self, track_id: str, spec: dict[str, Any]):
        self.id = track_id
        self.finish = spec["finish"]
        self.tip_lines = tuple(spec["tip_lines"])
        inner = [""] * self.finish
        for lo, hi, side in spec["inner_side"]:
            for r in range(lo, hi + 1):
                inner[r] = side
        self.inner_side_of_row = tuple(inner)
        spaces: list[tuple[int, int, int]] = []  # (back, lane, front)
        row = 0
        for seg in spec["segments"]:
            lo, hi = seg["lanes"]
            n = seg["rows"]
            inner_lane = None
            if seg["k"] == "C":
                inner_lane = hi if seg["dir"] == "R" else lo
            for lane in range(lo, hi + 1):
                if lane == inner_lane:
                    for b in range(row, row + n, 2):
                        spaces.append((b, lane, b + 2))
                else:
                    for b in range(row, row + n):
                        spaces.append((b, lane, b + 1))
            row += n
        if row != self.finish:
            raise ValueError(f"track {track_id}: segments cover {row} rows, finish is {self.finish}")
        spaces.sort()
        self.back = tuple(s[0] for s in spaces)
        self.lane = tuple(s[1] for s in spaces)
        self.front = tuple(s[2] for s in spaces)
        self.ids = tuple(f"r{b}l{ln}" for b, ln, _ in spaces)
        self.index = {sid: i for i, sid in enumerate(self.ids)}
        self.FINISH = len(spaces)
        # covering[row][lane] = the space covering that row in that lane
        covering: list[dict[int, int]] = [dict() for _ in range(self.finish)]
        for i, (b, ln, f) in enumerate(spaces):
            for r in range(b, f):
                covering[r][ln] = i
        succ = []
        for i, (b, ln, f) in enumerate(spaces):
            # step relation: |lane diff| <= 1, back(t) <= front(s) < front(t): t covers row front(s)
            if f == self.finish:
                succ.append((self.FINISH,))
                continue
            succ.append(tuple(sorted(covering[f][x] for x in (ln - 1, ln, ln + 1) if x in covering[f])))
        self.succ = tuple(succ)
        # "ahead" key (§4.6): front, then innerness of row front-1 (R: higher lane is inner)
        self.key = tuple(f * 4 + (ln if inner[f - 1] == "R" else 2 - ln) for b, ln, f in spaces)
        self.start_spaces = {int(k): self.index[v] for k, v in spec["start_spaces"].items()}
        # number of tip lines a car has crossed when standing on a space (back >= line)
        self.tip_count = tuple(sum(1 for t in self.tip_lines if b >= t) for b in self.back)
        # successor sets as bit masks (bit FINISH = the finish), and a cache of layer -> union of successors
        self.succ_mask = tuple(sum(1 << t for t in ts) for ts in succ)
        self.union: dict[int, int] = {}

    def successor_union(self, layer: int) -> int:
        """Bit mask of every successor of the spaces in the bit mask ``layer`` (cached)."""
        u = 0
        rest = layer
        while rest:
            low = rest & -rest
            u |= self.succ_mask[low.bit_length() - 1]
            rest ^= low
        if len(self.union) < 200_000:
            self.union[layer] = u
        return u

    def innerness(self, space: int) -> int:
        """lane if the inner side of the space's last row is R, else -lane (§4.6)."""
        ln = self.lane[space]
        return ln if self.inner_side_of_row[self.front[space] - 1] == "R" else -ln


_TRACK_CACHE: dict[str, Track] = {}


def get_track(track_id: str) -> Track:
    """The expanded ``Track`` of an id (cached)."""
    track = _TRACK_CACHE.get(track_id)
    if track is None:
        track = _TRACK_CACHE[track_id] = Track(track_id, TRACKS[track_id])
    return track
