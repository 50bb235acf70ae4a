"""Alhambra: 2,000 seeded random games per player count end, replay to the same outcome, and
(one seed in 100) build and JSON-encode every observation on the way."""
from __future__ import annotations

import pytest

from engines.selfplay import check_playout

GAMES = 2000
CHUNKS = 10
SIZE = GAMES // CHUNKS


@pytest.mark.parametrize("chunk", range(CHUNKS))
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_random_games_reach_an_outcome(players: int, chunk: int) -> None:
    for seed in range(chunk * SIZE, (chunk + 1) * SIZE):
        outcome = check_playout("alhambra", players, seed, observe=seed % 100 == 0)
        assert outcome.detail["ended_by"] in ("bag", "max_turns")
        assert 3 in outcome.detail["scoring_rounds"]
