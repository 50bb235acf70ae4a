"""Side-by-side speed of our Catan engine and catanatron (an optional extra, never a dependency).

``python -m engines bench --game catan --compare catanatron`` plays uniformly random self-play games
of both engines in the same process, in alternating rounds (so that both see the same machine load),
and reports games/s and actions/s of each and their ratios. Install catanatron only for this
measurement: ``pip install -e '.[compare]'``.

Equal semantics. catanatron's ``RandomPlayer`` picks uniformly among catanatron's playable actions,
which never include a domestic trade (only bank and harbour trades); our random self-play would also
propose trades and answer them. So our side runs with ``max_trade_proposals_per_turn: 0``: the legal
lists then hold exactly the kinds catanatron offers (roll, build, buy and play development cards,
robber, discard, maritime trade, end turn), chosen uniformly by a seeded random bot. Both sides:
the same number of players, 10 victory points to win, the discard rule at more than 7 cards, the
same turn limit (1,000 player-turns, then no winner), the base board with random tiles, harbours
and number tokens (``numbers: random`` on ours). Differences left: catanatron draws the cards a
player discards at random in one action, where ours has the player choose them one card at a time
(one decision each), so action counts differ a little; games/s is the fair figure. Both name the
robber's victim in the robber move.
"""
from __future__ import annotations

import random
import sys
import time
from typing import Any

from engines.games import get_game
from engines.selfplay import random_playout

#: our options that match catanatron's rules and random players (see the module docstring)
EQUAL_SEMANTICS = {"max_trade_proposals_per_turn": 0, "numbers": "random"}


def _ours_round(num_players: int, seconds: float, seed: int, options: dict[str, Any]) -> tuple[int, int, float]:
    games = actions = 0
    started = time.perf_counter()
    while True:
        log = random_playout("catan", num_players, seed + games, options)
        games += 1
        actions += len(log.moves)
        elapsed = time.perf_counter() - started
        if elapsed >= seconds:
            return games, actions, elapsed


def _catanatron_round(num_players: int, seconds: float, seed: int) -> tuple[int, int, float]:
    from catanatron import Color, Game, RandomPlayer

    colours = [Color.RED, Color.BLUE, Color.WHITE, Color.ORANGE][:num_players]
    games = actions = 0
    started = time.perf_counter()
    while True:
        game = Game([RandomPlayer(c) for c in colours], seed=seed + games)  # 10 VP, discard above 7
        game.play()
        games += 1
        actions += len(game.state.actions)
        elapsed = time.perf_counter() - started
        if elapsed >= seconds:
            return games, actions, elapsed


def _summary(engine: str, num_players: int, games: int, actions: int, elapsed: float) -> dict[str, Any]:
    return {"engine": engine, "players": num_players, "games": games, "actions": actions,
            "seconds": round(elapsed, 3), "games_per_s": round(games / elapsed, 2),
            "actions_per_s": round(actions / elapsed, 1), "actions_per_game": round(actions / games, 1)}


def run(name: str, num_players: int = 4, seconds: float = 5.0, seed: int = 1, rounds: int = 3) -> dict[str, Any]:
    """Bench our engine and ``name`` (only ``catanatron``) at equal semantics; return both and the ratios.

    ``seconds`` per engine, split into ``rounds`` alternating rounds.
    """
    if name != "catanatron":
        print(f"error: no comparison with {name!r} (only 'catanatron')", file=sys.stderr)
        raise SystemExit(2)
    try:
        import catanatron  # noqa: F401
    except ImportError:
        print("error: catanatron is not installed; it is an optional extra for this comparison only:\n"
              "  .venv/bin/pip install -e '.[compare]'   (or: .venv/bin/pip install catanatron)",
              file=sys.stderr)
        raise SystemExit(2)
    if not 2 <= num_players <= 4:
        print("error: catanatron plays 2-4 players", file=sys.stderr)
        raise SystemExit(2)
    options = dict(EQUAL_SEMANTICS, **({"allow_two_players": True} if num_players == 2 else {}))
    get_game("catan").options(options)
    totals = {"ours": [0, 0, 0.0], "catanatron": [0, 0, 0.0]}
    state = random.getstate()  # catanatron seeds the global generator; leave it as it was
    try:
        for r in range(rounds):
            for engine, play in (("ours", lambda: _ours_round(num_players, seconds / rounds, seed + r * 100_000,
                                                              options)),
                                 ("catanatron", lambda: _catanatron_round(num_players, seconds / rounds,
                                                                          seed + r * 100_000))):
                games, actions, elapsed = play()
                total = totals[engine]
                total[0] += games
                total[1] += actions
                total[2] += elapsed
    finally:
        random.setstate(state)
    ours = _summary("ours", num_players, *totals["ours"])
    ours["options"] = options
    theirs = _summary("catanatron", num_players, *totals["catanatron"])
    return {"game": "catan", "players": num_players, "semantics": "random self-play without domestic trades",
            "ours": ours, "catanatron": theirs,
            "actions_per_s_ratio": round(ours["actions_per_s"] / theirs["actions_per_s"], 2),
            "games_per_s_ratio": round(ours["games_per_s"] / theirs["games_per_s"], 2)}
