"""The compact stored form of match logs: seeded playouts of every game round-trip exactly.

``ARENA_LOGCODEC_PLAYOUTS`` (default 100) seeded playouts per game, every player count in turn, some
with a non-default option; ``ARENA_LOGCODEC_PLAYOUTS=1000`` checks five thousand logs.
"""
from __future__ import annotations

import json
import os
import zlib

import pytest

from engines import logcodec
from engines.bots import Bot, BotFault, RandomBot
from engines.core import BadOptions
from engines.games import GAME_IDS, get_game
from engines.match import MatchLimits, MatchLog, play_match, replay
from engines.players import make_bot
from engines.selfplay import random_playout

PLAYOUTS = int(os.environ.get("ARENA_LOGCODEC_PLAYOUTS", 100))
CHUNKS = 4


def as_json(log: dict) -> dict:
    return json.loads(json.dumps(log))


def setups(game_id: str):
    """(players, options) the game accepts, in turn: every player count, some with a non-default option."""
    game = get_game(game_id)
    found = []
    for players in range(game.min_players, game.max_players + 1):
        for options in ({}, {spec.name: _other(spec) for spec in game.option_specs[:1]}):
            try:
                game.setup(players, 0, game.options(options))
            except BadOptions:
                continue
            found.append((players, options))
    return found


def _other(spec):
    """A value of the option other than its default."""
    if spec.kind == "bool":
        return not spec.default
    if spec.kind == "int":
        return spec.minimum if spec.default != spec.minimum else spec.maximum
    if spec.kind == "choice":
        return next(c for c in spec.choices if c != spec.default)
    return spec.default


@pytest.mark.parametrize("chunk", range(CHUNKS))
@pytest.mark.parametrize("game_id", GAME_IDS)
def test_seeded_playouts_round_trip_exactly(game_id, chunk):
    kinds = setups(game_id)
    assert kinds
    for seed in range(chunk, PLAYOUTS, CHUNKS):
        players, options = kinds[seed % len(kinds)]
        log = random_playout(game_id, players, seed, options)
        original = as_json(log.to_dict())
        # The runner's indexes, and (every 8th log) the indexes found by replaying the JSON log.
        blob = logcodec.encode(log.to_dict(), log.choices) if seed % 8 else logcodec.encode(original)
        assert blob[0] & 0x0F == logcodec.COMPACT
        decoded = logcodec.decode(blob)
        assert decoded == original, (game_id, players, seed)
        assert json.dumps(decoded) == json.dumps(original)  # same keys in the same order
        replay(MatchLog.from_dict(decoded))


class FaultyBot(RandomBot):
    """Answers garbage every third decision and writes on stderr."""

    def __init__(self, seed=0):
        super().__init__(seed)
        self.calls = 0

    def act(self, observation, legal_actions, time_left_ms=None):
        self.calls += 1
        if self.calls % 3 == 0:
            raise BotFault("garbage", f"printed 'x{self.calls}'", stderr_tail="Traceback ...")
        return super().act(observation, legal_actions, time_left_ms)

    def stderr_tail(self):
        return "some\nstderr"


def test_faults_forfeits_times_and_stderr_survive():
    bots: list[Bot] = [FaultyBot(1), make_bot("heuristic", "port_royal", seed=2), make_bot("random", "port_royal", 3)]
    log = play_match("port_royal", bots, 5, {"max_rounds": 3}, seat_names=["a/x@1", "heuristic", "random"],
                     limits=MatchLimits(max_faults=3))
    log.moves[4][2] = 1234567  # a slow decision: times are kept exactly
    data = log.to_dict()
    assert data["faults"] and data["forfeits"] and data["stderr"]
    blob = logcodec.encode_log(log)
    assert logcodec.decode(blob) == as_json(data)


def test_a_log_the_engine_cannot_replay_is_kept_whole():
    log = as_json(random_playout("top_race", 3, 7).to_dict())
    log["moves"][3][1] = {"not": "an action of this state"}
    blob = logcodec.encode(log)
    assert blob[0] & 0x0F == logcodec.WHOLE
    assert logcodec.decode(blob) == log


def test_port_royal_logs_of_the_built_in_bots_are_small():
    sizes, zipped = [], []
    for seed in range(20):
        bots = [make_bot(name, "port_royal", seed=seed * 10 + i) for i, name in enumerate(["random", "heuristic"])]
        log = play_match("port_royal", bots, seed)
        sizes.append(len(logcodec.encode_log(log)))
        zipped.append(len(zlib.compress(json.dumps(log.to_dict()).encode(), 9)))
    assert sum(sizes) / len(sizes) <= 1024
    assert sum(sizes) * 2 < sum(zipped)  # the indexes, not just the compression, make it small


def test_bytes_that_are_not_a_log_are_refused():
    for blob in (b"", b"\x99abc"):
        with pytest.raises(logcodec.LogCodecError):
            logcodec.decode(blob)


def test_a_log_with_odd_times_is_kept_whole_rather_than_refused():
    log = as_json(random_playout("port_royal", 2, 3).to_dict())
    log["moves"][0][2] = -1  # a clock that went backwards
    blob = logcodec.encode(log)
    assert blob[0] & 0x0F == logcodec.WHOLE and logcodec.decode(blob) == log


def test_forfeited_seats_rank_below_the_others_and_keep_the_games_order_among_themselves():
    """What docs/bot-protocol.md says of forfeits, and what every stored log replays to."""
    from engines.core import Outcome
    from engines.match import apply_forfeits

    played = Outcome(ranks=[0, 1, 2, 2, 3], scores=[9, 7, 5, 5, 1])
    assert apply_forfeits(played, [0, 2]).ranks == [3, 0, 4, 1, 2]  # 0 beat 2 in play: still above it
    assert apply_forfeits(played, [2, 3]).ranks == [0, 1, 3, 3, 2]  # tied in play: tied below the rest
    assert apply_forfeits(played, []).ranks == played.ranks
    assert apply_forfeits(played, [4]).detail["forfeited"] == [4]


def test_the_playout_check_round_trips_a_log_as_the_standard_library_does():
    """check_playout's JSON round trip (orjson where installed) gives what json.loads(json.dumps(...)) gives."""
    from engines.selfplay import _through_json, random_playout

    log = random_playout("catan", 4, 3).to_dict()
    odd = {"ints": {1: "a"}, "big": [2 ** 70 + 1, -2 ** 64 - 1], "tuple": (1, (2, 3)), "text": "é\u2028\x00", "float": 0.1}
    for value in (log, odd):
        assert _through_json(value) == json.loads(json.dumps(value))
