"""Digests of seeded random games: one sha256 over every legal list, every event, some observations and
the outcome, so that speed work on an engine can show it plays the very same games."""
from __future__ import annotations

import hashlib
import json
import random
from typing import Any

from engines.core import Game


def _dump(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


def seeded_game_digest(game: Game, players: int, seed: int, options: dict[str, Any], *,
                       every_viewer: bool = False, clones: bool = False) -> str:
    """The sha256 of one seeded random game: every legal list (order and key order included; the other
    seats' lists must be empty), every event, an observation every 50 steps (the seat that moved, or with
    ``every_viewer`` every seat and the spectator) and the outcome. With ``clones`` the game goes on from a
    fresh clone at every 7th step, whose ``apply`` checks the action without the cached legal list."""
    rng = random.Random(seed * 7 + players)
    state = game.setup(players, seed, options)
    h = hashlib.sha256()
    steps = 0
    while (seat := game.to_move(state)) is not None:
        legal = game.legal_actions(state, seat)
        h.update(_dump(legal))
        for other in range(players):
            if other != seat:
                assert game.legal_actions(state, other) == []
        action = legal[rng.randrange(len(legal))]
        if clones and steps % 7 == 3:
            state = game.clone(state)
        h.update(_dump(game.apply(state, seat, action)))
        steps += 1
        if steps % 50 == 0:
            for viewer in ([None, *range(players)] if every_viewer else [seat]):
                h.update(_dump(game.observe(state, viewer)))
    h.update(_dump(game.outcome(state).to_dict()))
    return h.hexdigest()
