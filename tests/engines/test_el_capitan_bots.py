"""El Capitán built-in bots: the heuristic beats random clearly."""
from __future__ import annotations

from engines.el_capitan import BOTS
from engines.versus import versus


def test_bots_are_registered_and_seedable() -> None:
    assert {"random", "heuristic"} <= set(BOTS)
    for cls in BOTS.values():
        cls(seed=3)


def test_heuristic_beats_random_four_players() -> None:
    result = versus("el_capitan", ["heuristic", "random", "random", "random"], games=60, seed=1)
    heuristic, rnd = result["bots"]["heuristic"], result["bots"]["random"]
    assert heuristic["average_place"] < 1.5 < 2.5 < rnd["average_place"]
    assert heuristic["win_rate"] > 0.75


def test_heuristic_beats_random_two_players() -> None:
    result = versus("el_capitan", ["heuristic", "random"], games=40, seed=2)
    assert result["bots"]["heuristic"]["win_rate"] > 0.85
