"""Port Royal: 2,000 seeded random games per player count reach an outcome and replay to it."""
from __future__ import annotations

import pytest

from engines.selfplay import check_playout

CHUNKS = 10
PER_CHUNK = 200


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_random_playouts(players, chunk):
    for seed in range(chunk * PER_CHUNK, (chunk + 1) * PER_CHUNK):
        # every 10th game also builds and JSON-encodes every view at every step
        check_playout("port_royal", players, seed, observe=seed % 10 == 0)


VARIANTS = [
    {"end_condition": "expedition_required"},
    {"start_seat": "random"},
    {"explicit_jack_allocation": True},
    {"max_rounds": 3},
]


@pytest.mark.parametrize("options", VARIANTS, ids=lambda o: next(iter(o)))
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_random_playouts_with_options(players, options):
    for seed in range(100):
        outcome = check_playout("port_royal", players, seed, options, observe=seed % 10 == 0)
        if options.get("max_rounds") == 3:
            assert outcome.detail["rounds"] <= 3
