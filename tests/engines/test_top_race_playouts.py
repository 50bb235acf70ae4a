"""Top Race: seeded random games of every variant and player count reach an outcome and replay.

Every (variant, player count) cell plays 2 000 seeds (50 000 games in all, about 4 CPU-minutes).
Observations are built and encoded at every step of every 100th seed (20 games a cell), as for El Capitán and
Alhambra: a game observed costs ten unobserved ones, and the leak tests in test_top_race.py check observations
in depth.
"""
from __future__ import annotations

import pytest

from engines.selfplay import check_playout

PER_CELL = 2000
CHUNK = 200
VARIANTS = {
    "basic": {},  # the default game: 3 races
    "pitstop": {"pitstop": True, "tracks": ["turbo_town", "speed_street", "lake_lane"]},
    "tips": {"tips": True, "tracks": ["lake_lane", "desert_drive", "turbo_town"]},
    "shares": {"shares": True},
    "shares_pitstop": {"shares": True, "pitstop": True, "tracks": ["desert_drive"]},
}


@pytest.mark.parametrize("chunk", range(PER_CELL // CHUNK))
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_random_games_reach_an_outcome_and_replay(variant, players, chunk):
    options = VARIANTS[variant]
    for seed in range(chunk * CHUNK, (chunk + 1) * CHUNK):
        outcome = check_playout("top_race", players, seed, options, observe=seed % 100 == 0)
        # the tie-breaks always resolve: ranks are a permutation (§5)
        assert sorted(outcome.ranks) == list(range(players)), (variant, players, seed, outcome)


def test_tips_with_pitstop_and_all_tracks():
    for seed in range(100):
        check_playout("top_race", 2 + seed % 5, seed, {"tips": True, "pitstop": True,
                                                      "tracks": ["speed_street", "lake_lane", "desert_drive"]},
                      observe=seed % 10 == 0)
