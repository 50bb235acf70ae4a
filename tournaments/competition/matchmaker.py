"""The ladder's matchmaker as pure functions: which table size comes next, and who sits at it.

One matchmaker serves every ladder: the platform's rated ladder of a game (``tournaments.competition.ladder``:
every active bot, tables of several sizes, one bot per author at a table) and a ladder tournament
with a fixed field (one size, any author).

Fairness (the bound every active bot is held to). Bots are ordered by how long they have waited: the
number of ladder matches created since the last one they sat in (or since they joined). A bot that
has waited ``patience`` matches or more is *overdue*, and every table is seeded with the free bot
that has waited longest when any is overdue. Once a free bot is overdue, only bots that have waited
longer can be seeded before it, each of them at most once (once seated it has waited less), so:

    a free active bot sits in at least one of any ``patience + N`` consecutive ladder matches of its
    game that are created while it is free (N: the active bots),

(the seed can always be seated: a table of a size is only made when the free bots have as many
authors as it has seats, and then the seed's author plus the others suffice). A bot that is playing
is not waiting; matches created meanwhile still count towards its wait, so it is seeded soon after it
is free again. When the size due next cannot be filled from the free bots, no table is made until
busy bots are free (the sizes are only those the whole field can fill, so this never waits for ever):
no match is created meanwhile, so the bound is untouched. ``patience`` is ``ceil(PATIENCE * N / mean table size)``: a bot plays
on average once every ``N / mean table size`` matches, and is forced in at twice that.

When nobody is overdue, the seed is the free bot that most needs games (fewest rated games, then the
highest sigma), and its opponents are drawn at random (seeded, so replayable) from the free bots whose
mu lies within ``window`` of the seed's (Halite III's matchmaker); when the window holds too few,
the nearest in mu fill the table.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

#: ``ratings(size, keys)`` -> {key: (mu, sigma, games)} under the ruleset of tables of that size.
RatingsBySize = Callable[[int, Sequence[int]], dict[int, tuple[float, float, int]]]

#: How many times the average gap between a bot's matches it may wait before it is forced in.
PATIENCE = 2.0


@dataclass(frozen=True)
class Candidate:
    """A bot the matchmaker may seat: its version id, author, rating and wait."""

    key: int
    author: str
    mu: float
    sigma: float
    games: int
    wait: int  # ladder matches created since it last sat in one (or since it joined)


def mean_table(weights: Mapping[int, float]) -> float:
    """The average table size the weights ask for."""
    total = sum(weights.values())
    return sum(size * w for size, w in weights.items()) / total if total else 0.0


def patience(active: int, weights: Mapping[int, float], factor: float = PATIENCE) -> int:
    """How many ladder matches a bot may wait before it is overdue (seeded before any other)."""
    mean = mean_table(weights) or 2.0
    return max(1, math.ceil(factor * active / mean))


def bound(active: int, weights: Mapping[int, float], factor: float = PATIENCE) -> int:
    """The most ladder matches created while a bot is free in a row without it: ``patience + N``."""
    return patience(active, weights, factor) + active


def feasible_sizes(weights: Mapping[int, float], free: Sequence[Candidate], distinct_authors: bool) -> list[int]:
    """The table sizes that can be filled from the free bots (with one bot per author if asked)."""
    available = len({c.author for c in free}) if distinct_authors else len(free)
    return sorted(size for size, w in weights.items() if w > 0 and size <= available)


def next_size(weights: Mapping[int, float], played: Mapping[int, int], sizes: Sequence[int]) -> int | None:
    """The size among ``sizes`` that is furthest behind its share of the matches played so far.

    Deterministic (smooth weighted round robin over the counts in the database), so a restart goes on
    where it stopped: after n matches each size has been played about ``n * weight / total`` times.
    """
    if not sizes:
        return None
    total_weight = sum(weights[s] for s in weights if weights[s] > 0)
    n = sum(played.get(s, 0) for s in weights) + 1
    return max(sizes, key=lambda s: (n * weights[s] / total_weight - played.get(s, 0), weights[s], -s))


def pick_table(free: Sequence[Candidate], size: int, *, patience: int, window: float, rng: random.Random,
               distinct_authors: bool) -> list[Candidate] | None:
    """The bots of one table of ``size`` (the seed first), or None if it cannot be filled.

    Seed: the longest-waiting overdue bot if any, else the one that most needs games (fewest games, then
    highest sigma, then longest wait). Opponents: other overdue bots first (longest wait first), then
    bots within ``window`` of the seed's mu in random order, then the rest nearest in mu.
    """
    if len(free) < size:
        return None
    overdue = [c for c in free if c.wait >= patience]
    if overdue:
        seed = max(overdue, key=lambda c: (c.wait, -c.key))
    else:
        seed = min(free, key=lambda c: (c.games, -c.sigma, -c.wait, c.key))
    rest = [c for c in free if c.key != seed.key]
    shuffled = {c.key: rng.random() for c in rest}

    def order(c: Candidate) -> tuple:
        distance = abs(c.mu - seed.mu)
        if c.wait >= patience:
            return (0, -c.wait, c.key)
        if distance <= window:
            return (1, shuffled[c.key], c.key)
        return (2, distance, c.key)

    table = [seed]
    authors = {seed.author}
    for c in sorted(rest, key=order):
        if len(table) == size:
            break
        if distinct_authors and c.author in authors:
            continue
        table.append(c)
        authors.add(c.author)
    return table if len(table) == size else None


def plan_tables(free: Sequence[Candidate], weights: Mapping[int, float], played: Mapping[int, int], count: int,
                *, patience: int, window: float, rng: random.Random, distinct_authors: bool,
                ratings: RatingsBySize | None = None) -> list[list[int]]:
    """Up to ``count`` tables (lists of keys, seed first) from the free bots, one after another: each
    table's bots are busy for the next, the others have waited one match more. ``weights`` must hold
    only sizes the whole field can fill (with one bot per author if asked).

    ``ratings(size, keys)`` may give each candidate's (mu, sigma, games) under the ruleset of a size
    (a game's 2-player ratings are not its 4-player ones); without it the candidates' own are used.
    """
    pool = {c.key: c for c in free}
    played = dict(played)
    tables: list[list[int]] = []
    for _ in range(count):
        # The size furthest behind its share; if the free bots cannot fill it now, wait for the busy ones
        # (``weights`` holds only sizes the whole field can fill, so this never waits for ever). Making a
        # smaller table instead would let a busy ladder drift to its smallest tables.
        size = next_size(weights, played, sorted(weights))
        if size is None or size not in feasible_sizes(weights, list(pool.values()), distinct_authors):
            break
        candidates = list(pool.values())
        if ratings is not None:
            known = ratings(size, [c.key for c in candidates])
            candidates = [Candidate(c.key, c.author, *known.get(c.key, (c.mu, c.sigma, c.games)), c.wait)
                          for c in candidates]
        table = pick_table(candidates, size, patience=patience, window=window, rng=rng,
                           distinct_authors=distinct_authors)
        if table is None:
            break
        tables.append([c.key for c in table])
        played[size] = played.get(size, 0) + 1
        seated = {c.key for c in table}
        pool = {k: Candidate(c.key, c.author, c.mu, c.sigma, c.games, c.wait + 1)
                for k, c in pool.items() if k not in seated}
    return tables

