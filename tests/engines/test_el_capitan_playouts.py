"""El Capitán: 2,000 seeded random games per player count reach an outcome and replay to it."""
from __future__ import annotations

import pytest

from engines.selfplay import check_playout

CHUNKS = 10
PER_CHUNK = 200


@pytest.mark.parametrize("chunk", range(CHUNKS))
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_random_playouts(players: int, chunk: int) -> None:
    for seed in range(chunk * PER_CHUNK, (chunk + 1) * PER_CHUNK):
        # every seat's observation is built and JSON-encoded at every step for one seed in 100
        # (observing costs ten times the playout; test_el_capitan.py checks the observations)
        outcome = check_playout("el_capitan", players, seed, observe=seed % 100 == 0)
        assert sorted(outcome.ranks)[0] == 0
