"""Every table of Alhambra: the 54 building tiles, the money cards, the market slots, the points.

Source: the rules file, section 2 (tile list from thoun/bga-alhambra, cross-checked with
lukfugl/alhambra). Values the rulebook does not give are marked ``# [HOUSE]``.
"""
from __future__ import annotations

# --- directions -------------------------------------------------------------------------------
# A wall set is a bit mask; tiles are never rotated, so the letters are absolute directions.
N, E, S, W = 1, 2, 4, 8
DIRECTIONS: tuple[tuple[str, int], ...] = (("N", N), ("E", E), ("S", S), ("W", W))


def wall_mask(letters: str) -> int:
    """The bit mask of a wall string such as ``"NEW"``."""
    return sum(bit for name, bit in DIRECTIONS if name in letters)


# --- building types (table 2.1) ----------------------------------------------------------------
# type id -> name; id 0 is the Lion Fountain (start tile), which is no building type.
TYPE_NAMES: tuple[str, ...] = ("fountain", "pavilion", "seraglio", "arcades", "chambers", "garden", "tower")
TYPE_COLOURS: tuple[str, ...] = ("none", "blue", "red", "brown", "white", "green", "purple")
BUILDING_TYPES: tuple[int, ...] = (1, 2, 3, 4, 5, 6)
TYPE_COUNTS: dict[int, int] = {1: 7, 2: 7, 3: 9, 4: 9, 5: 11, 6: 11}

# POINTS[type][round - 1] = points for 1st, 2nd, 3rd place (places beyond the list pay 0).
POINTS: dict[int, tuple[tuple[int, ...], ...]] = {
    1: ((1,), (8, 1), (16, 8, 1)),
    2: ((2,), (9, 2), (17, 9, 2)),
    3: ((3,), (10, 3), (18, 10, 3)),
    4: ((4,), (11, 4), (19, 11, 4)),
    5: ((5,), (12, 5), (20, 12, 5)),
    6: ((6,), (13, 6), (21, 13, 6)),
}

# --- the 54 building tiles (table 2.2): id -> (type id, price, walls) ---------------------------
FOUNTAIN = 0
_TILE_TABLE: tuple[tuple[int, int, int, str], ...] = (
    (1, 1, 2, "NEW"), (2, 1, 3, "SW"), (3, 1, 4, "ES"), (4, 1, 5, "NW"), (5, 1, 6, "N"),
    (6, 1, 7, "E"), (7, 1, 8, ""),
    (8, 2, 3, "ESW"), (9, 2, 4, "NE"), (10, 2, 5, "SW"), (11, 2, 6, "ES"), (12, 2, 7, "W"),
    (13, 2, 8, "S"), (14, 2, 9, ""),
    (15, 3, 4, "NES"), (16, 3, 5, "NW"), (17, 3, 6, "SW"), (18, 3, 6, "NE"), (19, 3, 7, "ES"),
    (20, 3, 8, "N"), (21, 3, 8, "E"), (22, 3, 9, ""), (23, 3, 10, ""),
    (24, 4, 5, "NSW"), (25, 4, 6, "ES"), (26, 4, 7, "SW"), (27, 4, 7, "NE"), (28, 4, 8, "NW"),
    (29, 4, 9, "W"), (30, 4, 9, "S"), (31, 4, 10, ""), (32, 4, 11, ""),
    (33, 5, 6, "ESW"), (34, 5, 7, "NSW"), (35, 5, 8, "SW"), (36, 5, 8, "NE"), (37, 5, 8, "NW"),
    (38, 5, 9, "E"), (39, 5, 10, "N"), (40, 5, 10, "W"), (41, 5, 10, ""), (42, 5, 11, ""),
    (43, 5, 12, "S"),
    (44, 6, 7, "NEW"), (45, 6, 8, "NES"), (46, 6, 9, "ES"), (47, 6, 9, "NE"), (48, 6, 9, "NW"),
    (49, 6, 10, "W"), (50, 6, 11, "N"), (51, 6, 11, "S"), (52, 6, 11, ""), (53, 6, 12, ""),
    (54, 6, 13, "E"),
)
BUILDING_TILES: tuple[int, ...] = tuple(row[0] for row in _TILE_TABLE)
# Indexed by tile id (0 = fountain: no type, no price, no walls).
TILE_TYPE: tuple[int, ...] = (0,) + tuple(row[1] for row in _TILE_TABLE)
TILE_PRICE: tuple[int, ...] = (0,) + tuple(row[2] for row in _TILE_TABLE)
TILE_WALLS: tuple[int, ...] = (0,) + tuple(wall_mask(row[3]) for row in _TILE_TABLE)
TILE_WALL_LETTERS: tuple[str, ...] = ("",) + tuple(row[3] for row in _TILE_TABLE)

# --- money (section 2.3) -----------------------------------------------------------------------
CURRENCY_NAMES: tuple[str, ...] = ("gulden", "dirham", "denar", "ducat")
CURRENCY_COLOURS: tuple[str, ...] = ("yellow", "green", "blue", "orange")
# Building-market slot s (1-4) is paid in currency SLOT_CURRENCY[s]; the seed gives no order, we use
# the order of the two public implementations (rules file §10 #2).
SLOT_CURRENCY: dict[int, int] = {1: 0, 2: 1, 3: 2, 4: 3}
MONEY_VALUES: tuple[int, ...] = tuple(range(1, 10))
COPIES = 3  # copies of each (currency, value); the 2-player game keeps only 2
COPIES_TWO_PLAYERS = 2
SCORING_A = 108  # scoring card A (1st scoring round)
SCORING_B = 109  # scoring card B (2nd scoring round)


def card_id(currency: int, value: int, copy: int) -> int:
    """Money card id: ``27*currency + 3*(value-1) + copy``."""
    return 27 * currency + 3 * (value - 1) + copy


def money_deck(num_players: int) -> list[int]:
    """The money cards (without the scoring cards) in id order: 108, or 72 for 2 players."""
    return list(_DECKS[COPIES_TWO_PLAYERS if num_players == 2 else COPIES])


# copies -> the deck, built once (a game set-up copies it rather than calling card_id 108 times)
_DECKS: dict[int, tuple[int, ...]] = {
    copies: tuple(card_id(c, v, k) for c in range(4) for v in MONEY_VALUES for k in range(copies))
    for copies in (COPIES_TWO_PLAYERS, COPIES)}


# Decoding tables indexed by card id (0-107).
CARD_CURRENCY: tuple[int, ...] = tuple(i // 27 for i in range(108))
CARD_VALUE: tuple[int, ...] = tuple((i % 27) // 3 + 1 for i in range(108))

# --- set-up and game length ---------------------------------------------------------------------
START_MONEY = 20  # deal to each seat until its total is at least this
MARKET_MONEY = 4  # cards in a full money market
MARKET_SLOTS: tuple[int, ...] = (1, 2, 3, 4)
TAKE_MONEY_LIMIT = 5  # several cards may be taken if their values add up to at most this
PILES = 5  # the money deck is split in 5 piles; A goes into pile 2, B into pile 4
DIRK_START_TILES = 6  # the imaginary third player's tiles at set-up (2 players)
DIRK_ROUND1_TILES = 6  # ... and after scoring round 1; after round 2 a third of the bag
MAX_TURNS = 500  # [HOUSE] turn limit over all seats: the rules let a game run forever
MAX_TURNS_LIMIT = 2000  # [HOUSE] the largest turn limit an option may set
OPEN_MONEY = False  # [HOUSE] hands are private by default; True shows every hand to everyone
ALL_PAYMENTS = False  # list only minimal payments by default (rules §9.3)
