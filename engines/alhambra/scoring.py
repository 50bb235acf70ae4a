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
        counts = sorted({c[t] for c in scorers if c[t] > 0}, reverse=True)
        place = 0
        for count in counts:
            group = [i for i, c in enumerate(scorers) if c[t] == count]
            pot = sum(table[place + k] for k in range(len(group)) if place + k < len(table))
            for i in group:
                gained[i] += pot // len(group)
            place += len(group)
            if place >= len(table):
                break
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
