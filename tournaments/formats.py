"""Tournament formats as pure functions: which bots meet, in which seat order."""
from __future__ import annotations

from itertools import combinations
from typing import Sequence


def round_robin(num_bots: int, seats: int, games_per_pairing: int) -> list[tuple[int, ...]]:
    """Seat orders (tuples of entry indexes) of a round robin: every ``seats``-subset of the bots
    plays ``games_per_pairing`` matches.

    The order within a match is a rotation of the subset, chosen so that over the whole tournament
    every bot spreads over the seats as evenly as rotations allow (no bot keeps the first seat):
    each match takes the rotation whose bots have sat least often in the seats it gives them.
    """
    if seats < 1 or num_bots < seats:
        raise ValueError(f"a round robin of {seats}-seat matches needs at least {seats} bots, got {num_bots}")
    if games_per_pairing < 1:
        raise ValueError("games per pairing must be at least 1")
    seat_count = [[0] * seats for _ in range(num_bots)]
    orders: list[tuple[int, ...]] = []
    for group in combinations(range(num_bots), seats):
        # Whole cycles sit every bot of the group in every seat once; the rest of the games take
        # distinct rotations whose bots have sat least often where the rotation puts them.
        cycles, rest = divmod(games_per_pairing, seats)
        chosen = [r for _ in range(cycles) for r in range(seats)]
        spare = list(range(seats))
        for _ in range(rest):
            best = min(spare, key=lambda r: (_load(seat_count, _rotate(group, r)), r))
            spare.remove(best)
            chosen.append(best)
            for seat, bot in enumerate(_rotate(group, best)):
                seat_count[bot][seat] += 1
        orders.extend(_rotate(group, r) for r in chosen)
    return orders


def _rotate(group: Sequence[int], r: int) -> tuple[int, ...]:
    return tuple(group[r:]) + tuple(group[:r])


def _load(seat_count: list[list[int]], order: Sequence[int]) -> tuple[int, int]:
    # First seat weighs most (it is the advantage to spread), then all seats.
    return seat_count[order[0]][0], sum(seat_count[bot][seat] for seat, bot in enumerate(order))
