"""Alhambra's payments (§4.3): ``payment_sets`` against every sub-multiset of the cards, counted out."""
from __future__ import annotations

import random
from itertools import combinations

from engines.alhambra.money import payment_sets


def every_payment(values: list[int], price: int, every: bool) -> set[tuple[int, ...]]:
    """The multisets of ``values`` worth at least ``price``, minimal ones only (no card to spare) unless ``every``."""
    found = set()
    for size in range(1, len(values) + 1):
        for cards in combinations(values, size):
            if sum(cards) >= price and (every or sum(cards) - min(cards) < price):
                found.add(cards)
    return found


def test_payments_are_exactly_the_worthy_multisets_once_each():
    rng = random.Random(5)
    for _ in range(3000):
        values = sorted((rng.randint(1, 9) for _ in range(rng.randint(0, 7))), reverse=True)
        price = rng.randint(1, 16)
        every = rng.random() < 0.5
        found = payment_sets(values, price, every)
        assert len(set(found)) == len(found), (values, price, every)
        assert set(found) == every_payment(values, price, every), (values, price, every)
