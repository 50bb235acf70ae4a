"""Alhambra's scoring rounds (§5.1): the points of a round from the buildings of each type and the walls."""
from __future__ import annotations

from engines.alhambra.data import BUILDING_TYPES, POINTS, TILE_TYPE


def score_round(r: int, seat_counts: list[list[int]], dirk_counts: list[int] | None,
                walls: list[int]) -> tuple[list[int], int, list[int]]:
    """Points of scoring round ``r`` (§5.1): (per seat, Dirk, wall points per seat).

    Tied scorers add the values of the places they occupy, split equally, rounded down; scorers with
    no building of a type take no place.
    """
    n = len(seat_counts)
    scorers = list(seat_counts) + ([dirk_counts] if dirk_counts is not None else [])
    gained = [0] * len(scorers)
    for t in BUILDING_TYPES:
        table = POINTS[t][r - 1]
        left = []  # each scorer's count of type t, set to 0 once the scorer has its place
        for counts in scorers:
            left.append(counts[t])
        place = 0
        # the highest count left takes the next places (plain loops: a comprehension's frame costs more
        # than the few scorers it loops over)
        while place < len(table):
            count = max(left)
            if count <= 0:
                break
            group = []
            for i, k in enumerate(left):
                if k == count:
                    group.append(i)
                    left[i] = 0
            share = sum(table[place:place + len(group)]) // len(group)  # places beyond the table pay 0
            for i in group:
                gained[i] += share
            place += len(group)
    for i in range(n):
        gained[i] += walls[i]
    return gained[:n], (gained[n] if dirk_counts is not None else 0), list(walls)


def building_counts(tiles) -> list[int]:
    """Buildings per type id among ``tiles`` (index 0, the fountain's, stays 0)."""
    counts = [0] * 7
    for t in tiles:
        counts[TILE_TYPE[t]] += 1
    counts[0] = 0
    return counts
