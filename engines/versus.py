"""Strength of built-in bots: many seeded matches with seats rotated, average rank per bot."""
from __future__ import annotations

from collections import defaultdict
from typing import Any, Mapping, Sequence

from engines.players import make_bot
from engines.match import play_match


def versus(game_id: str, specs: Sequence[str], games: int, seed: int = 0,
           options: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Play ``games`` matches of the bots in ``specs`` (one per seat), rotating the seat order each game.

    Returns per bot spec: matches, average rank (0 = best) and win rate (rank 0, ties included).
    """
    n = len(specs)
    ranks: dict[str, list[int]] = defaultdict(list)
    for g in range(games):
        order = [specs[(i + g) % n] for i in range(n)]
        bots = [make_bot(spec, game_id, seed=(seed + g) * 101 + seat) for seat, spec in enumerate(order)]
        log = play_match(game_id, bots, seed + g, options, seat_names=order)
        for seat, spec in enumerate(order):
            ranks[spec].append(log.outcome["ranks"][seat])
    return {
        "game": game_id,
        "seats": list(specs),
        "games": games,
        "bots": {
            spec: {
                "seat_games": len(r),
                "average_rank": round(sum(r) / len(r), 4),
                "win_rate": round(sum(1 for x in r if x == 0) / len(r), 4),
            }
            for spec, r in ranks.items()
        },
    }
