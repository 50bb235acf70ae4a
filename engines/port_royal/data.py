"""Port Royal card data: the one table of all 120 cards (rules §2.6) and the values derived from it.

Ids are fixed (1-120) and the list order is the canonical order before the seeded shuffle (§8).
Card numbers come from the rules file §2.6/§2.7; nothing here is [HOUSE] except where marked.
"""
from __future__ import annotations

from typing import Any

COLOURS: tuple[str, ...] = ("yellow", "blue", "green", "red", "black")
SHIP_NAMES: dict[str, str] = {
    "yellow": "pinnace", "blue": "flute", "green": "skiff", "red": "frigate", "black": "galleon",
}
SYMBOLS: tuple[str, ...] = ("cross", "anchor", "house")

# Rules §2.6, verbatim: (first_id, count, attributes). swords None = skull (can never be repelled).
PERSONS: list[tuple[int, int, dict[str, Any]]] = [
    (1, 1, {"type": "trader", "colour": "yellow", "cost": 3, "ip": 1}),
    (2, 1, {"type": "trader", "colour": "yellow", "cost": 5, "ip": 2}),
    (3, 1, {"type": "trader", "colour": "blue", "cost": 3, "ip": 1}),
    (4, 1, {"type": "trader", "colour": "blue", "cost": 5, "ip": 2}),
    (5, 2, {"type": "trader", "colour": "green", "cost": 3, "ip": 1}),
    (7, 2, {"type": "trader", "colour": "red", "cost": 3, "ip": 1}),
    (9, 2, {"type": "trader", "colour": "black", "cost": 3, "ip": 1}),
    (11, 5, {"type": "settler", "symbol": "house", "cost": 4, "ip": 1}),
    (16, 5, {"type": "captain", "symbol": "anchor", "cost": 4, "ip": 1}),
    (21, 5, {"type": "priest", "symbol": "cross", "cost": 4, "ip": 1}),
    (26, 3, {"type": "jack_of_all_trades", "symbol": "any", "cost": 6, "ip": 1}),
    (29, 7, {"type": "sailor", "swords": 1, "cost": 3, "ip": 1}),
    (36, 2, {"type": "sailor", "swords": 1, "cost": 5, "ip": 2}),
    (38, 1, {"type": "sailor", "swords": 1, "cost": 7, "ip": 3}),
    (39, 1, {"type": "pirate", "swords": 2, "cost": 5, "ip": 1}),
    (40, 1, {"type": "pirate", "swords": 2, "cost": 7, "ip": 2}),
    (41, 1, {"type": "pirate", "swords": 2, "cost": 9, "ip": 3}),
    (42, 2, {"type": "mademoiselle", "cost": 7, "ip": 2}),
    (44, 2, {"type": "mademoiselle", "cost": 9, "ip": 3}),
    (46, 1, {"type": "jester", "cost": 5, "ip": 1}),
    (47, 3, {"type": "jester", "cost": 7, "ip": 2}),
    (50, 1, {"type": "jester", "cost": 9, "ip": 3}),
    (51, 1, {"type": "admiral", "cost": 5, "ip": 1}),
    (52, 3, {"type": "admiral", "cost": 7, "ip": 2}),
    (55, 2, {"type": "admiral", "cost": 9, "ip": 3}),
    (57, 4, {"type": "governor", "cost": 8, "ip": 0}),
]

SHIPS: list[tuple[int, int, dict[str, Any]]] = [
    (61, 3, {"colour": "yellow", "coins": 1, "swords": 1}),
    (64, 1, {"colour": "yellow", "coins": 2, "swords": 1}),
    (65, 2, {"colour": "yellow", "coins": 2, "swords": 2}),
    (67, 1, {"colour": "yellow", "coins": 3, "swords": 2}),
    (68, 2, {"colour": "yellow", "coins": 3, "swords": 4}),
    (70, 1, {"colour": "yellow", "coins": 4, "swords": 4}),
    (71, 3, {"colour": "blue", "coins": 1, "swords": 1}),
    (74, 1, {"colour": "blue", "coins": 2, "swords": 1}),
    (75, 2, {"colour": "blue", "coins": 2, "swords": 2}),
    (77, 1, {"colour": "blue", "coins": 3, "swords": 2}),
    (78, 2, {"colour": "blue", "coins": 3, "swords": 5}),
    (80, 1, {"colour": "blue", "coins": 4, "swords": 5}),
    (81, 3, {"colour": "green", "coins": 1, "swords": 1}),
    (84, 1, {"colour": "green", "coins": 2, "swords": 1}),
    (85, 2, {"colour": "green", "coins": 2, "swords": 3}),
    (87, 1, {"colour": "green", "coins": 3, "swords": 3}),
    (88, 2, {"colour": "green", "coins": 3, "swords": 5}),
    (90, 1, {"colour": "green", "coins": 4, "swords": 5}),
    (91, 3, {"colour": "red", "coins": 1, "swords": 1}),
    (94, 3, {"colour": "red", "coins": 2, "swords": 3}),
    (97, 2, {"colour": "red", "coins": 3, "swords": 6}),
    (99, 1, {"colour": "red", "coins": 3, "swords": None}),
    (100, 1, {"colour": "red", "coins": 4, "swords": None}),
    (101, 3, {"colour": "black", "coins": 1, "swords": 2}),
    (104, 3, {"colour": "black", "coins": 2, "swords": 4}),
    (107, 2, {"colour": "black", "coins": 3, "swords": 7}),
    (109, 1, {"colour": "black", "coins": 3, "swords": None}),
    (110, 1, {"colour": "black", "coins": 4, "swords": None}),
]

TAX_INCREASES: list[tuple[int, int, dict[str, Any]]] = [
    (111, 2, {"bonus": "most_swords"}),
    (113, 2, {"bonus": "fewest_ip"}),
]

EXPEDITIONS: list[dict[str, Any]] = [
    {"id": 115, "requires": {"cross": 2}, "ip": 4, "coins": 2, "five_player_only": False},
    {"id": 116, "requires": {"anchor": 2}, "ip": 4, "coins": 2, "five_player_only": False},
    {"id": 117, "requires": {"house": 2}, "ip": 4, "coins": 2, "five_player_only": False},
    {"id": 118, "requires": {"anchor": 2, "house": 1}, "ip": 6, "coins": 3, "five_player_only": False},
    {"id": 119, "requires": {"cross": 2, "house": 1}, "ip": 6, "coins": 3, "five_player_only": False},
    # The 5-player expedition: in the expedition area from the start, never in the deck, no coin back.
    {"id": 120, "requires": {"cross": 1, "anchor": 1, "house": 1}, "ip": 5, "coins": 3, "five_player_only": True},
]

STARTING_COINS = 3
END_IP = 12
TAX_THRESHOLD = 12  # a player with at least this many coins pays half (rounded down)
#: Active player's base allowance by number of ship colours in the harbour when Phase 2 starts.
BASE_ALLOWANCE = (1, 1, 1, 1, 2, 3)
ADMIRAL_HARBOUR_MIN = 5  # harbour cards needed for the Admiral payout
ADMIRAL_COINS = 2
FIVE_PLAYER_EXPEDITION = 120
MAX_ROUNDS_DEFAULT = 100  # [HOUSE] safety cap (§5, §10 A26)
MAX_ROUNDS_LIMIT = 1000  # [HOUSE] the largest cap an option may set
DEFAULT_START_SEAT = 0  # [HOUSE] start player (§3, §10 A23)

# --- derived per-id tables (index = card id; index 0 unused) --------------------------------------
NUM_CARDS = 120
DECK_IDS: tuple[int, ...] = tuple(range(1, 120))  # the 119 cards shuffled into the draw pile

PERSON, SHIP, TAX, EXPEDITION = 0, 1, 2, 3
KIND_NAMES = ("person", "ship", "tax_increase", "expedition")

KIND: list[int] = [-1] * (NUM_CARDS + 1)
CARD: list[dict[str, Any]] = [{}] * (NUM_CARDS + 1)  # the public face of every card (JSON)
#: equal for cards that differ only by id (one `take` action per kind, §9)
KIND_KEY: list[Any] = [None] * (NUM_CARDS + 1)
PERSON_TYPE: list[str | None] = [None] * (NUM_CARDS + 1)
COST: list[int] = [0] * (NUM_CARDS + 1)
IP: list[int] = [0] * (NUM_CARDS + 1)  # persons and expeditions
SWORDS: list[int] = [0] * (NUM_CARDS + 1)  # persons: swords owned; ships: swords needed (-1 = skull)
COLOUR: list[int] = [-1] * (NUM_CARDS + 1)  # ships and Traders: colour index
COINS: list[int] = [0] * (NUM_CARDS + 1)  # ships and expeditions
SYMBOL: list[str | None] = [None] * (NUM_CARDS + 1)  # cross/anchor/house/any
TAX_BONUS: list[str | None] = [None] * (NUM_CARDS + 1)
REQUIRES: list[dict[str, int]] = [{}] * (NUM_CARDS + 1)
SKULL = -1


def _build() -> None:
    for first, count, attrs in PERSONS:
        for cid in range(first, first + count):
            KIND[cid] = PERSON
            CARD[cid] = {"id": cid, "kind": "person", **attrs}
            KIND_KEY[cid] = ("person",) + tuple(sorted(attrs.items()))
            PERSON_TYPE[cid] = attrs["type"]
            COST[cid] = attrs["cost"]
            IP[cid] = attrs["ip"]
            SWORDS[cid] = attrs.get("swords", 0)
            COLOUR[cid] = COLOURS.index(attrs["colour"]) if "colour" in attrs else -1
            SYMBOL[cid] = attrs.get("symbol")
    for first, count, attrs in SHIPS:
        for cid in range(first, first + count):
            KIND[cid] = SHIP
            CARD[cid] = {"id": cid, "kind": "ship", "colour": attrs["colour"],
                         "name": SHIP_NAMES[attrs["colour"]], "coins": attrs["coins"], "swords": attrs["swords"]}
            KIND_KEY[cid] = ("ship", attrs["colour"], attrs["coins"], attrs["swords"])
            COLOUR[cid] = COLOURS.index(attrs["colour"])
            COINS[cid] = attrs["coins"]
            SWORDS[cid] = SKULL if attrs["swords"] is None else attrs["swords"]
    for first, count, attrs in TAX_INCREASES:
        for cid in range(first, first + count):
            KIND[cid] = TAX
            CARD[cid] = {"id": cid, "kind": "tax_increase", "bonus": attrs["bonus"]}
            KIND_KEY[cid] = ("tax_increase", attrs["bonus"])
            TAX_BONUS[cid] = attrs["bonus"]
    for exp in EXPEDITIONS:
        cid = exp["id"]
        KIND[cid] = EXPEDITION
        CARD[cid] = {"id": cid, "kind": "expedition", "requires": dict(exp["requires"]), "ip": exp["ip"],
                     "coins": exp["coins"], "five_player_only": exp["five_player_only"]}
        KIND_KEY[cid] = ("expedition", cid)
        IP[cid] = exp["ip"]
        COINS[cid] = exp["coins"]
        REQUIRES[cid] = dict(exp["requires"])


_build()


def card(card_id: int) -> dict[str, Any]:
    """A fresh JSON copy of the public face of a card."""
    data = dict(CARD[card_id])
    if "requires" in data:
        data["requires"] = dict(data["requires"])
    return data


def _check() -> None:
    persons = sum(1 for k in KIND[1:] if k == PERSON)
    ships = sum(1 for k in KIND[1:] if k == SHIP)
    assert (persons, ships, KIND[1:].count(TAX), KIND[1:].count(EXPEDITION)) == (60, 50, 4, 6)
    for c in range(5):
        ids = [i for i in range(61, 111) if COLOUR[i] == c]
        assert len(ids) == 10 and sum(COINS[i] for i in ids) == 22


_check()

#: KIND_KEY as small ints, for the fast de-duplication of `take` actions.
KIND_NO: list[int] = [0] * (NUM_CARDS + 1)
_kind_numbers: dict[Any, int] = {}
for _cid in range(1, NUM_CARDS + 1):
    KIND_NO[_cid] = _kind_numbers.setdefault(KIND_KEY[_cid], len(_kind_numbers))
del _cid, _kind_numbers
