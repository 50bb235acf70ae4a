"""Seeded random self-play straight on the engine: the workhorse of playout tests and benchmarks."""
from __future__ import annotations

import json
import random
from typing import Any, Mapping

from engines import protocol
from engines.core import Outcome
from engines.games import get_game
from engines.match import MatchLog, replay


def random_playout(game_id: str, num_players: int, seed: int, options: Mapping[str, Any] | None = None,
                   observe: bool = False) -> MatchLog:
    """Play one game with uniformly random legal actions (seeded) and return its log.

    With ``observe`` every seat's observation and the spectator view are built and JSON-encoded at
    every step, so that a playout test also exercises ``observe`` on every state it reaches.
    """
    game = get_game(game_id)
    rng = random.Random(seed)
    state = game.setup(num_players, seed, options)
    log = MatchLog(game_id, game.options(options), seed, ["random"] * num_players)
    to_move, legal_actions, apply = game.to_move, game.legal_actions, game.apply
    while (seat := to_move(state)) is not None:
        legal = legal_actions(state, seat)
        if not legal:
            raise AssertionError(f"{game_id}: seat {seat} is to move with no legal action (seed {seed})")
        if observe:
            for viewer in [None, *range(num_players)]:
                json.dumps(game.observe(state, viewer))
        index = rng.randrange(len(legal))
        action = legal[index]
        apply(state, seat, action)
        log.moves.append([seat, action, 0])
        log.choices.append(index)
        if len(log.moves) > 200_000:
            raise AssertionError(f"{game_id}: no end after 200000 moves (seed {seed})")
    log.outcome = game.outcome(state).to_dict()
    return log


def _through_json(value: Any) -> Any:
    """``value`` encoded as JSON and decoded again; orjson where installed (a long Catan log: 14 ms instead of 26)."""
    orjson = protocol.orjson
    if orjson is not None:
        try:
            return orjson.loads(orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS))
        except TypeError:  # an int beyond 64 bits, which orjson neither writes nor reads exactly
            pass
    return json.loads(json.dumps(value))


def check_playout(game_id: str, num_players: int, seed: int, options: Mapping[str, Any] | None = None,
                  observe: bool = True) -> Outcome:
    """A random playout that must end with a valid outcome and replay to the same outcome.

    Used by every game's playout tests; raises AssertionError on any violation.
    """
    log = random_playout(game_id, num_players, seed, options, observe=observe)
    outcome = Outcome.from_dict(log.outcome)
    assert len(outcome.ranks) == num_players and len(outcome.scores) == num_players
    assert min(outcome.ranks) == 0 and all(0 <= r < num_players for r in outcome.ranks)
    # The log survives a JSON round trip and replays to the same outcome.
    _, replayed = replay(MatchLog.from_dict(_through_json(log.to_dict())))
    assert replayed.to_dict() == log.outcome, (replayed, log.outcome)
    return outcome
