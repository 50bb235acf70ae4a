"""Tournament formats as pure functions: which bots meet, in which seat order."""
from __future__ import annotations

from itertools import combinations
from math import comb
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
        orders.extend(rotated_games(group, games_per_pairing, seat_count))
    return orders


def duplicate_round_robin(num_bots: int, seats: int, series_per_pairing: int) -> list[tuple[tuple[int, ...], int]]:
    """A duplicate round robin: every ``seats``-subset of the bots plays ``series_per_pairing`` series, a
    series being one match per rotation of the subset, all on one seed (the same deals: luck cancels).

    Returns (seat order, series number) per match, series numbered from 0 over the whole tournament, the
    matches of a series consecutive."""
    if seats < 1 or num_bots < seats:
        raise ValueError(f"a round robin of {seats}-seat matches needs at least {seats} bots, got {num_bots}")
    if series_per_pairing < 1:
        raise ValueError("series per pairing must be at least 1")
    games, number = [], 0
    for group in combinations(range(num_bots), seats):
        for _ in range(series_per_pairing):
            games.extend((order, number) for order in rotation_series(group))
            number += 1
    return games


def rotation_series(table: Sequence) -> list[tuple]:
    """One duplicate series of a table: its seat order rotated once per seat (everyone sits everywhere once)."""
    return [_rotate(table, r) for r in range(len(table))]


def rotated_games(group: Sequence[int], games: int, seat_count: list[list[int]]) -> list[tuple[int, ...]]:
    """Seat orders of ``games`` matches of one group, rotations spread so that no bot keeps a seat.

    Whole cycles sit every bot in every seat once; the remaining games take distinct rotations whose
    bots have sat least often where the rotation puts them. ``seat_count[bot][seat]`` is updated.
    """
    seats = len(group)
    cycles, rest = divmod(games, seats)
    chosen = [r for _ in range(cycles) for r in range(seats)]
    spare = list(range(seats))
    for _ in range(rest):
        best = min(spare, key=lambda r: (_load(seat_count, _rotate(group, r)), r))
        spare.remove(best)
        chosen.append(best)
    orders = [_rotate(group, r) for r in chosen]
    for order in orders:
        for seat, bot in enumerate(order):
            seat_count[bot][seat] += 1
    return orders


def _rotate(group: Sequence[int], r: int) -> tuple[int, ...]:
    return tuple(group[r:]) + tuple(group[:r])


def _load(seat_count: list[list[int]], order: Sequence[int]) -> tuple[int, int]:
    # First seat weighs most (it is the advantage to spread), then all seats.
    return seat_count[order[0]][0], sum(seat_count[bot][seat] for seat, bot in enumerate(order))


def seats_beaten(ranks: Sequence[int]) -> list[int]:
    """Tournament points of one match: for every seat, how many seats finished strictly below it."""
    return [sum(1 for other in ranks if other > mine) for mine in ranks]


def swiss_round(order: Sequence[int], seats: int, met: dict[frozenset, int], byes: dict[int, int]) -> tuple[list[tuple[int, ...]], list[int]]:
    """Groups of one Swiss round.

    ``order`` is the standings (best first); ``met[frozenset({a, b})]`` counts earlier meetings. Bots that
    do not fill a last group sit out (a bye): the lowest-standing ones with the fewest byes so far.
    Groups are filled greedily from the top of the standings, each slot taking the next bot that has met
    the group's members least often, so bots of similar standing meet and rematches are avoided.
    """
    pool = list(order)
    sit_out = len(pool) % seats
    bye: list[int] = []
    if sit_out:
        # Fewest byes first, then lowest standing.
        candidates = sorted(pool, key=lambda b: (byes.get(b, 0), -pool.index(b)))
        bye = candidates[:sit_out]
        pool = [b for b in pool if b not in bye]
    groups = []
    while pool:
        group = [pool.pop(0)]
        while len(group) < seats:
            best = min(range(len(pool)), key=lambda i: (sum(met.get(frozenset((pool[i], g)), 0) for g in group), i))
            group.append(pool.pop(best))
        groups.append(tuple(group))
    return groups, bye


def knockout_groups(seeded: Sequence[int], seats: int, smallest: int) -> tuple[list[tuple[int, ...]], list[int]]:
    """Groups and byes of one knockout round; ``seeded`` is best first.

    With n bots: n // seats full groups; the n % seats best seeds sit the round out (a bye) and
    advance. Fewer bots than seats play one smaller group if the game allows (``smallest``), else
    none. The rest are dealt in snake order, so the top seeds of a round meet as late as possible.
    Every round with a group eliminates at least one bot, so a knockout always ends.
    """
    n = len(seeded)
    if n < seats:
        return ([tuple(seeded)], []) if n >= smallest and n > 1 else ([], list(seeded))
    count, spare = divmod(n, seats)
    byes, playing = list(seeded[:spare]), seeded[spare:]
    groups: list[list[int]] = [[] for _ in range(count)]
    for i, bot in enumerate(playing):
        lap, pos = divmod(i, count)
        groups[pos if lap % 2 == 0 else count - 1 - pos].append(bot)
    return [tuple(g) for g in groups], byes


def planned_matches(format: str, num_bots: int, seats: int, games_per_pairing: int, rounds: int,
                    max_matches: int, smallest: int) -> int:
    """How many matches a tournament of this shape plays in all (a ladder: ``max_matches``, 0 if unbounded).

    Exact for every format: a Swiss round always seats ``num_bots // seats`` groups, and the number of
    groups of each knockout round depends only on how many bots are left, not on who they are.
    """
    if format == "round_robin":
        return comb(num_bots, seats) * games_per_pairing
    if format == "swiss":
        return rounds * (num_bots // seats) * games_per_pairing
    if format == "knockout":
        total, left = 0, num_bots
        while left > 1:
            groups, byes = knockout_groups(range(left), seats, smallest)
            if not groups:
                break
            total += len(groups) * games_per_pairing
            left = len(groups) + len(byes)
        return total
    if format == "ladder":
        return max_matches
    raise ValueError(f"unknown tournament format {format!r}")
