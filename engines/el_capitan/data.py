"""El Capitán: every table of the game (board, cities, cards, loans, payouts).

Numbers marked ``# [HOUSE]`` were designed by us (the rules file marks them [HOUSE]); the real
board values can replace them here without touching the rules code. Rules: el_capitan.md §2.
"""
from __future__ import annotations

STARTING_MONEY = 20
#: pieces added to each supply at the start of every phase (§2.7, §5.4, §6.2.2)
PHASE_WAREHOUSES = 6
PHASE_FORTRESSES = 1
PHASE_NEUTRAL_2P = 2
DISPLAY_DESTINATION = 4
DISPLAY_LINK = 6
NUM_PHASES = 3
#: §6.4 round cap: a phase that reaches the end of this round without a trigger ends there.
ROUND_CAP = 60  # [HOUSE]

#: proliferation income by number of cities with an active warehouse (§2.4)
PROLIFERATION = (
    0,
    0,  # [HOUSE]
    2,  # [HOUSE]
    5,
    10,
    15,  # [HOUSE]
    20,  # [HOUSE]
    30,  # [HOUSE]
    40,  # [HOUSE]
    60,
)
BONUS_CARDS = (15, 10, 5)

#: loan sizes: count, amount received, repay, repay after extension (§2.5; see §10 #27)
LOANS = {
    "small": {"count": 18, "amount": 10, "repay": 12, "repay_extended": 16},
    "large": {"count": 12, "amount": 16, "repay": 20, "repay_extended": 30},
}
#: loan card ids, small first: LS01..LS18, LL01..LL12 (§9.2)
LOAN_IDS = tuple([f"LS{i:02d}" for i in range(1, 19)] + [f"LL{i:02d}" for i in range(1, 13)])
LOAN_SIZE = tuple(["small"] * 18 + ["large"] * 12)

NUM_SITES = 12  # warehouse sites 1..12; track space 13 is not buildable

#: value tiers (§2.3): harbour prices H1/H2, fortress prices F1/F2, track values for spaces 1..13
TIERS = {
    # all of tier A is [HOUSE]
    "A": {"harbor_price": (5, 6), "fortress_price": (10, 12),  # [HOUSE]
          "track_values": (0, 5, 10, 15, 20, 25, 30, 32, 30, 28, 25, 22, 20)},  # [HOUSE]
    # tier B: Marseille's prices and spaces 1-3 are from the seed, the rest [HOUSE]
    "B": {"harbor_price": (4, 5), "fortress_price": (8, 10),
          "track_values": (0, 4, 8, 12, 16, 20, 24, 26, 24, 22, 20, 18, 16)},  # [HOUSE] spaces 4-13
    # all of tier C is [HOUSE] except space 1 = 0
    "C": {"harbor_price": (3, 4), "fortress_price": (6, 8),  # [HOUSE]
          "track_values": (0, 3, 6, 9, 12, 15, 18, 20, 19, 17, 15, 13, 12)},  # [HOUSE]
}

#: the nine cities in the 3x3 grid (row 1 = north, col 1 = west), §2.1/§2.3.
#: Black sites and triangle sites are [HOUSE] except Marseille's first black site (6).
CITIES = (
    {"id": "MAR", "name": "Marseille", "row": 1, "col": 1, "tier": "B", "black_sites": (6, 9, 11), "triangle_site": 8},  # [HOUSE] except 6
    {"id": "VEN", "name": "Venezia", "row": 1, "col": 2, "tier": "A", "black_sites": (5, 8, 11), "triangle_site": 7},  # [HOUSE]
    {"id": "CON", "name": "Constantinople", "row": 1, "col": 3, "tier": "A", "black_sites": (5, 8, 10), "triangle_site": 12},  # [HOUSE]
    {"id": "VAL", "name": "Valencia", "row": 2, "col": 1, "tier": "C", "black_sites": (7, 9, 12), "triangle_site": 5},  # [HOUSE]
    {"id": "NAP", "name": "Napoli", "row": 2, "col": 2, "tier": "B", "black_sites": (7, 10, 12), "triangle_site": 9},  # [HOUSE]
    {"id": "ATH", "name": "Athina", "row": 2, "col": 3, "tier": "B", "black_sites": (6, 8, 11), "triangle_site": 10},  # [HOUSE] name and data
    {"id": "TAN", "name": "Tanger", "row": 3, "col": 1, "tier": "C", "black_sites": (6, 9, 12), "triangle_site": 7},  # [HOUSE]
    {"id": "TUN", "name": "Tunis", "row": 3, "col": 2, "tier": "C", "black_sites": (5, 9, 11), "triangle_site": 7},  # [HOUSE] name and data
    {"id": "ALE", "name": "Alexandria", "row": 3, "col": 3, "tier": "A", "black_sites": (6, 9, 11), "triangle_site": 5},  # [HOUSE]
)
CITY_IDS = tuple(c["id"] for c in CITIES)
CITY_INDEX = {cid: i for i, cid in enumerate(CITY_IDS)}

#: destination / sea-route cards (§2.6): id, city, seals, price. Split, seals and prices [HOUSE]
#: (the seed fixes only that Marseille has a 3-seal card).
DESTINATION_CARDS = (  # [HOUSE]
    ("D01", "MAR", 1, 4), ("D02", "MAR", 3, 6),
    ("D03", "VEN", 2, 5), ("D04", "VEN", 3, 6),
    ("D05", "CON", 1, 4), ("D06", "CON", 2, 5),
    ("D07", "VAL", 2, 5), ("D08", "VAL", 3, 6),
    ("D09", "NAP", 1, 4), ("D10", "NAP", 2, 5),
    ("D11", "ATH", 1, 4), ("D12", "ATH", 3, 6),
    ("D13", "TAN", 1, 4), ("D14", "TAN", 3, 6),
    ("D15", "TUN", 2, 5), ("D16", "TUN", 3, 6),
    ("D17", "ALE", 1, 4), ("D18", "ALE", 2, 5),
)


def city_distance(a: str, b: str) -> int:
    """Manhattan distance on the 3x3 grid (§2.1): the number of seals from a to b."""
    ca, cb = CITIES[CITY_INDEX[a]], CITIES[CITY_INDEX[b]]
    return abs(ca["row"] - cb["row"]) + abs(ca["col"] - cb["col"])


def _link_cards() -> tuple[tuple[str, str, str, int], ...]:
    # One card per unordered pair in city-list order (inferred); price = distance ([HOUSE] rule).
    cards = []
    for i, a in enumerate(CITY_IDS):
        for b in CITY_IDS[i + 1:]:
            cards.append((f"L{len(cards) + 1:02d}", a, b, city_distance(a, b)))  # [HOUSE] price
    return tuple(cards)


#: city-interconnection cards (§2.6): id, city a, city b, price
LINK_CARDS = _link_cards()
