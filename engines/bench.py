"""Speed benchmarks: random self-play on the engine (games/s, actions/s). Not tests."""
from __future__ import annotations

import time
from typing import Any, Mapping

from engines.games import get_game
from engines.selfplay import random_playout


def bench_game(game_id: str, num_players: int = 4, seconds: float = 5.0, games: int | None = None,
               seed: int = 1, options: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Play seeded random games for ``seconds`` (or exactly ``games``) and report the rates.

    ``actions_per_s`` is per second of wall clock; ``actions_per_cpu_s`` per second of this process's
    CPU time, which other processes on a busy machine move far less.
    """
    get_game(game_id)
    played = actions = 0
    cpu_started = time.process_time()
    started = time.perf_counter()
    while True:
        log = random_playout(game_id, num_players, seed + played, options)
        played += 1
        actions += len(log.moves)
        elapsed = time.perf_counter() - started
        if (games is not None and played >= games) or (games is None and elapsed >= seconds):
            break
    cpu = max(time.process_time() - cpu_started, 1e-9)
    return {
        "game": game_id,
        "players": num_players,
        "games": played,
        "actions": actions,
        "seconds": round(elapsed, 3),
        "games_per_s": round(played / elapsed, 2),
        "actions_per_s": round(actions / elapsed, 1),
        "actions_per_game": round(actions / played, 1),
        "cpu_seconds": round(cpu, 3),
        "actions_per_cpu_s": round(actions / cpu, 1),
    }
