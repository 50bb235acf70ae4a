"""Side-by-side speed of our Catan engine and catanatron (an optional extra, never a dependency).

``python -m engines bench --game catan --compare catanatron`` runs random 4-player self-play of both
engines in the same process, one after the other for ``seconds`` each, and reports actions/s of each
and their ratio. Install catanatron only for this measurement: ``pip install -e '.[compare]'``.
"""
from __future__ import annotations

import sys
import time
from typing import Any

from engines.bench import bench_game


def _catanatron_bench(num_players: int, seconds: float, seed: int) -> dict[str, Any]:
    from catanatron import Color, Game, RandomPlayer

    colours = [Color.RED, Color.BLUE, Color.WHITE, Color.ORANGE][:num_players]
    games = actions = 0
    started = time.perf_counter()
    while True:
        game = Game([RandomPlayer(c) for c in colours], seed=seed + games)
        game.play()
        games += 1
        actions += len(game.state.actions)
        elapsed = time.perf_counter() - started
        if elapsed >= seconds:
            break
    return {"engine": "catanatron", "players": num_players, "games": games, "actions": actions,
            "seconds": round(elapsed, 3), "games_per_s": round(games / elapsed, 2),
            "actions_per_s": round(actions / elapsed, 1), "actions_per_game": round(actions / games, 1)}


def run(name: str, num_players: int = 4, seconds: float = 5.0, seed: int = 1) -> dict[str, Any]:
    """Bench our engine and ``name`` (only ``catanatron``) with random self-play; return both and the ratio."""
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
    ours = bench_game("catan", num_players, seconds, seed=seed,
                      options={"allow_two_players": True} if num_players == 2 else None)
    ours["engine"] = "ours"
    theirs = _catanatron_bench(num_players, seconds, seed)
    return {"game": "catan", "players": num_players, "ours": ours, "catanatron": theirs,
            "actions_per_s_ratio": round(ours["actions_per_s"] / theirs["actions_per_s"], 2),
            "games_per_s_ratio": round(ours["games_per_s"] / theirs["games_per_s"], 2)}
