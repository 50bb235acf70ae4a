"""Catan: seeded random games per player count (1,000 by default: 4,000 in all) reach an outcome and replay to
it; variants too.

Random Catan games are long (about 5,000 actions with the trade protocol: ~70 ms a game played and replayed),
so this is the suite's heaviest family: ``ARENA_CATAN_PLAYOUTS`` sets the games per player count (2000 for a
deeper run, a multiple of 100). Observations are built at every step for one seed in 500 only (the leak test in
test_catan.py covers observations in depth).
"""
from __future__ import annotations

import os

import pytest

from engines.selfplay import check_playout
from engines.versus import versus

GAMES_PER_COUNT = int(os.environ.get("ARENA_CATAN_PLAYOUTS", 1000))
CHUNK = 100


@pytest.mark.parametrize("num_players", [3, 4, 5, 6])
@pytest.mark.parametrize("chunk", range(GAMES_PER_COUNT // CHUNK))
def test_random_games_reach_an_outcome_and_replay(num_players, chunk):
    winners = 0
    for seed in range(chunk * CHUNK, (chunk + 1) * CHUNK):
        outcome = check_playout("catan", num_players, seed, observe=seed % 500 == 0)
        if outcome.detail["winner"] is not None:
            winners += 1
            assert outcome.ranks[outcome.detail["winner"]] == 0
            assert outcome.scores[outcome.detail["winner"]] >= 10
    assert winners >= CHUNK * 0.9  # random games nearly always end with a winner before the turn limit


@pytest.mark.parametrize("num_players,options", [
    (4, {"numbers": "random"}),
    (6, {"numbers": "random"}),
    (4, {"combined_trade_build": True}),
    (4, {"scenario": "best_friends"}),
    (5, {"scenario": "best_friends"}),
    (4, {"board": "beginner"}),
    (3, {"board": "beginner", "start_positions": "beginner_preset"}),
    (4, {"board": "beginner", "start_positions": "beginner_preset"}),
    (4, {"trade_max_cards_per_side": 1, "max_trade_proposals_per_turn": 1}),
    (2, {"allow_two_players": True}),
    (4, {"max_turns": 30}),
])
def test_variants_reach_an_outcome_and_replay(num_players, options):
    for seed in range(20):
        outcome = check_playout("catan", num_players, seed, options, observe=seed == 0)
        if options.get("scenario") == "best_friends" and outcome.detail["winner"] is not None:
            assert outcome.scores[outcome.detail["winner"]] >= 11
        if options.get("max_turns") == 30:
            assert outcome.detail["turns"] <= 30


def test_heuristic_beats_random_clearly():
    result = versus("catan", ["heuristic", "random", "random", "random"], 120, seed=3)
    heuristic, random_ = result["bots"]["heuristic"], result["bots"]["random"]
    assert heuristic["average_place"] < 1.5 < 2.2 < random_["average_place"]
    assert heuristic["win_rate"] > 0.7
