"""Alhambra's set-up steps (§3): the start money, the start player and where the scoring cards go."""
from __future__ import annotations

import random

from engines.alhambra.data import CARD_VALUE, PILES, SCORING_A, SCORING_B, START_MONEY


def deal_start_money(deck: list[int], n: int) -> tuple[list[list[int]], int]:
    """§3 step 6: from the top of ``deck``, each seat in turn takes cards until its total is >= 20.

    Returns the sorted hands and how many cards were dealt.
    """
    hands: list[list[int]] = []
    pos = 0
    for _seat in range(n):
        hand, total = [], 0
        while total < START_MONEY:
            card = deck[pos]
            pos += 1
            hand.append(card)
            total += CARD_VALUE[card]
        hands.append(sorted(hand))
    return hands, pos


def choose_start_player(hands: list[list[int]], rng: random.Random) -> int:
    """§3 step 7: fewest cards, then the lowest total; still tied: seeded random [HOUSE]."""
    keys = [(len(h), sum(CARD_VALUE[c] for c in h)) for h in hands]
    best = min(keys)
    tied = [seat for seat, key in enumerate(keys) if key == best]
    return tied[0] if len(tied) == 1 else rng.choice(tied)


def insert_scoring_cards(rest: list[int], rng: random.Random) -> list[int]:
    """§3 step 9: A at a uniform gap of pile 2, B at a uniform gap of pile 4 (piles floor(k*N/5))."""
    size = len(rest)
    bounds = [k * size // PILES for k in range(PILES + 1)]
    gap_a = rng.randint(0, bounds[2] - bounds[1])
    gap_b = rng.randint(0, bounds[4] - bounds[3])
    a, b = bounds[1] + gap_a, bounds[3] + gap_b
    return rest[:a] + [SCORING_A] + rest[a:b] + [SCORING_B] + rest[b:]
