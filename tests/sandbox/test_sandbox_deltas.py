"""The ``delta`` feature of protocol 1: negotiated in the handshake, invisible to the bot's ``act``."""
from __future__ import annotations

import hashlib
import io
import json
import random
import shutil
import sys
from pathlib import Path

import orjson
import pytest

from engines import protocol
from engines.bots import BotFault
from engines.games import get_game
from engines.sandbox import ProgramBot, SandboxLimits

from sandbox_helpers import write_bot

REPO = Path(__file__).resolve().parents[2]
LIMITS = SandboxLimits(move_ms=2000, start_ms=5000)
GAMES = ["el_capitan", "alhambra", "port_royal", "catan", "top_race"]

#: an SDK bot that prints, per decision, a digest of exactly what ``act`` got (key order included)
DIGEST_BOT = """
import hashlib, json, sys
import arena_bot

def act(observation, legal_actions):
    text = json.dumps([observation, legal_actions], ensure_ascii=False)
    print(arena_bot.match.move, hashlib.sha256(text.encode()).hexdigest(), file=sys.stderr, flush=True)
    observation["scribble"] = 1  # top-level changes must not leak into later decisions
    legal_actions.reverse()
    return 0

arena_bot.run(act, deltas={deltas})
"""


def digest(observation, legal_actions) -> str:
    """The digest DIGEST_BOT prints for what a whole-message bot decodes."""
    line = protocol.encode(protocol.act_message(observation, legal_actions, None))
    message = orjson.loads(line)
    text = json.dumps([message["observation"], message["legal_actions"]], ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def play_seat0(bot: ProgramBot, game_id: str, seed: int, whole: list[int] | None = None) -> int:
    """A seeded 4-player game, seat 0 asked through ``bot`` (the moves are the seeded random ones);
    checks that the bot got, at each decision, what a whole message decodes to. Returns the decisions;
    appends the length of each whole message to ``whole``."""
    game = get_game(game_id)
    state = game.setup(4, seed, None)
    rng = random.Random(seed)
    bot.start(game_id, 0, 4, game.options(None))
    decisions = 0
    while (seat := game.to_move(state)) is not None:
        legal = game.legal_actions(state, seat)
        if seat == 0:
            observation = game.observe(state, 0)
            move = bot._moves
            if whole is not None:
                whole.append(len(protocol.encode(protocol.act_message(observation, legal, None, move))))
            assert bot.act(observation, legal) == 0
            last = bot.stderr_tail().rstrip("\n").rsplit("\n", 1)[-1]
            assert last == f"{move} {digest(observation, legal)}", (game_id, seed, move)
            decisions += 1
        game.apply(state, seat, legal[rng.randrange(len(legal))])
    return decisions


@pytest.mark.sandbox
@pytest.mark.parametrize("min_bytes", [0, protocol.DeltaEncoder.MIN_BYTES], ids=["deltas", "default"])
@pytest.mark.parametrize("game_id", GAMES)
def test_delta_bot_sees_whole_observations(tmp_path, monkeypatch, game_id, min_bytes):
    """Every decision of seeded games of each game: the delta-mode SDK bot's observation and legal
    actions are equal (same JSON, same key order) to what the whole message gives; with deltas at
    every decision, and with the default (whole below ``MIN_BYTES``, switching both ways)."""
    monkeypatch.setattr(protocol.DeltaEncoder, "MIN_BYTES", min_bytes)
    path = write_bot(tmp_path / "b", DIGEST_BOT.format(deltas=True))
    bot = ProgramBot.from_path(path, limits=LIMITS, name="delta")
    try:
        sent: list[bytes] = []
        whole: list[int] = []
        exchange = bot._exchange

        def spy(data, limit_ms, what):
            sent.append(data)
            return exchange(data, limit_ms, what)

        bot._exchange = spy
        for seed in (1, 2):
            decisions = play_seat0(bot, game_id, seed, whole)
            assert decisions > 20
            assert bot._delta is not None  # it asked and the host agreed (start() relaunches it)
        acts = [m for m in sent if m.startswith(b'{"type":"act"')]
        deltas = [m for m in acts if b'"observation_bytes":' not in m[:80]]
        if min_bytes == 0 or game_id in ("el_capitan", "catan"):  # large observations: deltas
            assert len(deltas) > len(acts) // 2
            assert sum(map(len, acts)) < sum(whole)  # fewer bytes than the whole messages
        if min_bytes and game_id in ("port_royal", "top_race"):  # small ones: whole messages
            assert len(deltas) < len(acts) // 10
    finally:
        bot.close()


@pytest.mark.sandbox
def test_bot_that_does_not_ask_gets_whole_messages(tmp_path):
    """An SDK bot without ``deltas=True`` and a bot that ignores ``features``: whole messages only."""
    sdk = ProgramBot.from_path(write_bot(tmp_path / "sdk", DIGEST_BOT.format(deltas=False)), limits=LIMITS)
    raw = ProgramBot.from_path(write_bot(tmp_path / "raw", """
        import json, sys
        for line in sys.stdin:
            m = json.loads(line)
            if m["type"] == "start":
                assert m["features"] == ["delta"]
                print('{"ready": true, "protocol": 1}', flush=True)
            elif m["type"] == "act":
                if "observation" not in m or "legal_actions" not in m or "delta" in m:
                    print("not whole:", line[:200], file=sys.stderr, flush=True)
                    sys.exit(3)
                print('{"action": 0}', flush=True)
            else:
                break
        """), limits=LIMITS)
    try:
        for bot in (sdk, raw):
            bot._exchange = (lambda exchange: lambda data, limit, what: exchange(
                data if what != "decision" or data.startswith(b'{"type":"act","move":') and b'"observation"' in data
                else pytest.fail(f"a delta was sent: {data[:80]!r}"), limit, what))(bot._exchange)
        assert play_seat0(sdk, "port_royal", 3) > 20
        assert sdk._delta is None
        game = get_game("top_race")
        state = game.setup(4, 1, None)
        raw.start("top_race", 0, 4, game.options(None))
        rng = random.Random(1)
        while (seat := game.to_move(state)) is not None:
            legal = game.legal_actions(state, seat)
            if seat == 0:
                assert raw.act(game.observe(state, 0), legal) == 0
            game.apply(state, seat, legal[rng.randrange(len(legal))])
        assert raw._delta is None and raw.restarts == 0
    finally:
        sdk.close()
        raw.close()


@pytest.mark.parametrize("ready", [
    b'{"ready": true, "protocol": 1, "features": "delta"}',
    b'{"ready": true, "protocol": 1, "features": ["delta", "delta"]}',
    b'{"ready": true, "protocol": 1, "features": ["deltas"]}',
    b'{"ready": true, "protocol": 1, "features": [1]}',
    b'{"ready": true, "protocol": 1, "features": {"delta": true}}',
    b'{"ready": true, "protocol": 1, "features": null}',
    b'{"ready": true, "protocol": 1, "features": ["delta"' + b', "x"' * 10000 + b']}',
])
def test_garbled_features_refused(ready):
    with pytest.raises(protocol.ProtocolError) as info:
        protocol.parse_ready(ready)
    assert info.value.kind == "protocol"
    assert protocol.parse_ready(b'{"ready": true, "protocol": 1, "features": ["delta"]}')["features"] == ["delta"]
    assert protocol.parse_ready(b'{"ready": true, "protocol": 1, "features": []}')["features"] == []


@pytest.mark.sandbox
@pytest.mark.parametrize("ready", [
    '{"ready": true, "protocol": 1, "features": ["delta", "everything"]}',
    '{"ready": true, "protocol": 1, "features": "delta"}',
    '{"ready": true, "features": ["delta"], "protocol": 1, ',
])
def test_hostile_hello_is_a_clean_fault(tmp_path, ready):
    """A garbled or greedy ``ready`` is a fault at start: the program is killed, nothing is sent."""
    bot = ProgramBot.from_path(write_bot(tmp_path / "b", f"""
        import sys
        sys.stdin.readline()
        print({ready!r}, flush=True)
        sys.stdin.readline()
        print('{{"action": 0}}', flush=True)
        """), limits=LIMITS)
    try:
        with pytest.raises(BotFault) as info:
            bot.start("top_race", 0, 4, {})
        assert info.value.kind in ("protocol", "garbage")
        assert bot._proc is None and bot._delta is None
    finally:
        bot.close()


def test_delta_encoder_whole_messages_match_encode():
    """The encoder's whole messages are byte for byte ``encode(act_message(...))``; its deltas, merged
    as the SDK does, give equal observations; a change of keys or key order sends a whole message."""
    enc = protocol.DeltaEncoder()
    enc.MIN_BYTES = 0
    obs = {"a": 1, "b": [1, 2], "c": {"x": True}, "é": "ü"}
    legal = [{"t": 1}]
    first = enc.encode(obs, legal, 5, 1)
    assert first == protocol.encode(protocol.act_message(obs, legal, 5, 1))
    second = enc.encode({"a": 1, "b": [1, 3], "c": {"x": True}, "é": "ü"}, legal, None, 2)
    assert orjson.loads(second) == {"type": "act", "move": 2, "delta": {"b": [1, 3]}, "time_left_ms": None}
    third = enc.encode({"a": True, "b": [1, 3], "c": {"x": True}, "é": "ü"}, [{"t": 2}], 4, 3)
    assert orjson.loads(third) == {"type": "act", "move": 3, "delta": {"a": True}, "legal_actions": [{"t": 2}],
                                   "time_left_ms": 4}
    reordered = {"b": [1, 3], "a": True, "c": {"x": True}, "é": "ü"}
    assert orjson.loads(enc.encode(reordered, [{"t": 2}], 4, 4)) == {
        "type": "act", "move": 4, "keys": ["b", "a", "c", "é"], "delta": {}, "time_left_ms": 4}
    assert protocol.DeltaEncoder().encode({1: 2}, [], 1, 0) == protocol.encode(protocol.act_message({1: 2}, [], 1, 0))
    big = {"a": 0, "b": "x" * 4000}
    enc = protocol.DeltaEncoder()
    assert enc.encode(big, [], 1, 0) == protocol.encode(protocol.act_message(big, [], 1, 0))
    assert b'"delta":{"a":1}' in enc.encode({**big, "a": 1}, [], 1, 1)
    small = {"a": 1, "b": "x"}  # a delta now (the last one was large), then whole while below MIN_BYTES
    assert orjson.loads(enc.encode(small, [], 1, 2))["delta"] == {"b": "x"}
    assert enc.encode(small, [], 1, 3) == protocol.encode(protocol.act_message(small, [], 1, 3))
    assert enc.encode(big, [], 1, 4) == protocol.encode(protocol.act_message(big, [], 1, 4))
    assert enc.encode(big, [], 1, 5) == protocol.encode(protocol.act_message(big, [], 1, 5))  # refills the memo
    assert orjson.loads(enc.encode(big, [], 1, 6))["delta"] == {}


def test_sdk_merges_deltas_in_memory():
    """The SDK asks only when offered, and merges: same observations as the whole messages."""
    sys.path.insert(0, str(REPO / "engines" / "sdk"))
    try:
        import arena_bot
    finally:
        sys.path.pop(0)
    observations = [{"a": 1, "b": [1, 2]}, {"a": 2, "b": [1, 2]}, {"a": 2, "b": [3]}, {"b": [3], "a": 2},
                    {"b": [3], "c": {"1": 2}, "a": 1.0}, {"b": [3], "a": 1.0}, {"b": [3], "c": {"1": 2}, "a": 1},
                    {"a": 1 << 70, "b": [3], "é": "ü"}, {"a": True, "b": [3], "é": "ü"}]
    seen_by = {}
    for offered in (True, False):
        enc = protocol.DeltaEncoder()
        enc.MIN_BYTES = 0
        start = protocol.start_message("count", 0, 2, {}, 500)
        if not offered:
            del start["features"]
        stream = protocol.encode(start)
        for i, o in enumerate(observations):
            legal = ["x", "y"] if i % 3 else ["y", "x"]
            stream += enc.encode(o, legal, 9, i) if offered else protocol.encode(protocol.act_message(o, legal, 9, i))
        seen = []
        stdout = io.BytesIO()
        arena_bot.run(lambda o, l: seen.append((o, l)) or 1, stdin=io.BytesIO(stream), stdout=stdout, deltas=True)
        assert seen == [(o, ["x", "y"] if i % 3 else ["y", "x"]) for i, o in enumerate(observations)]
        seen_by[offered] = seen
        ready = json.loads(stdout.getvalue().splitlines()[0])
        assert ready.get("features") == (["delta"] if offered else None)
    # what the whole messages give, to the types (orjson reads an int beyond 64 bits as a float) and key order
    assert [[(k, type(v)) for k, v in o.items()] for o, _ in seen_by[True]] == \
        [[(k, type(v)) for k, v in o.items()] for o, _ in seen_by[False]]


@pytest.mark.sandbox
@pytest.mark.parametrize("min_bytes", [0, None])
def test_the_game_bench_pipes_move_the_bytes_each_mode_sends(monkeypatch, min_bytes):
    """The bytes-only pipes of ``bench_protocol_game`` replay exactly the lines the two sandboxed bots
    were sent (the first pass, where the move numbers agree too)."""
    from engines.sandbox import bench

    sent: dict[str, list[bytes]] = {"whole": [], "delta": [], "reading": []}
    exchange = ProgramBot._exchange

    def spy(self, data, limit_ms, what):
        if what == "decision":
            sent[self.name].append(data)
        return exchange(self, data, limit_ms, what)

    monkeypatch.setattr(ProgramBot, "_exchange", spy)
    result = bench.bench_protocol_game("el_capitan", seconds=0.2, min_bytes=min_bytes)
    if min_bytes is not None:
        monkeypatch.setattr(protocol.DeltaEncoder, "MIN_BYTES", min_bytes)
    whole, delta_first, _ = bench.game_messages(bench.game_decisions("el_capitan"))
    first = min(len(whole), len(sent["whole"]))
    assert first >= 250 and sent["whole"][:first] == whole[:first]
    assert sent["delta"][:first] == delta_first[:first] and sent["reading"][:first] == whole[:first]
    assert result["message_bytes_delta"] < result["message_bytes"]
    for key in ("sandbox_delta_us_per_decision", "raw_bytes_delta_us_per_decision", "ratio_to_bytes_only_delta",
                "ratio_delta_to_full_bytes", "sandbox_reading_us_per_decision", "ratio_to_bytes_only_reading",
                "ratio_to_json_pipe_reading"):
        assert result[key] > 0
    assert set(result["json_cpu_us"]) == {"host_whole", "host_delta", "bot_whole", "bot_whole_reading", "bot_delta"}


@pytest.mark.parametrize("game_id", ["port_royal", "top_race"])
def test_the_game_bench_builds_each_observation_as_the_recorded_one(game_id):
    """``live_decisions`` plays the games ``game_decisions`` recorded, building every observation when it is asked
    for: the same decisions in the same order, encoded to the same bytes, and again from the first after the last."""
    from itertools import islice

    from engines.sandbox import bench

    seeds = range(1, 3)
    recorded = bench.game_decisions(game_id, seeds)
    live = [protocol.encode_act(o, legal, 100_000, i % len(recorded))
            for i, (o, legal) in enumerate(islice(bench.live_decisions(game_id, seeds), 2 * len(recorded)))]
    assert live == [protocol.encode_act(o, legal, 100_000, i) for i, (o, legal) in enumerate(recorded)] * 2


def test_timed_steps_leave_out_what_they_do_before_their_measured_part():
    """With ``timed``, a block is the time its steps report (less the clock's own cost), not the wall clock."""
    import time

    from engines.sandbox import bench

    def step() -> float:
        time.sleep(0.002)  # as if the game were played on to the next decision
        return 0.001

    timed, = bench._interleaved([step], 0.0, block=3, timed=True)
    wall, = bench._interleaved([step], 0.0, block=3)
    assert all(0.0009 < t <= 0.001 for t in timed)
    assert all(t >= 0.002 for t in wall)


NODE_DIGEST_BOT = """
const crypto = require("crypto");
const arena = require("arena_bot");
arena.run((observation, legalActions) => {
  const text = JSON.stringify([observation, legalActions]);
  console.error(arena.match.move + " " + crypto.createHash("sha256").update(text).digest("hex"));
  observation.scribble = 1;
  legalActions.reverse();
  return 0;
}, {deltas: %s});
"""


@pytest.mark.sandbox
@pytest.mark.skipif(shutil.which("node") is None and shutil.which("nodejs") is None, reason="node is not installed")
@pytest.mark.parametrize("game_id", GAMES)
def test_node_delta_bot_sees_what_a_whole_message_bot_sees(tmp_path, monkeypatch, game_id):
    """The JavaScript SDK with deltas (at every decision) and without: the same digests, decision by decision."""
    monkeypatch.setattr(protocol.DeltaEncoder, "MIN_BYTES", 0)
    bots = {}
    for mode in ("true", "false"):
        write_bot(tmp_path / mode, NODE_DIGEST_BOT % mode, "main.js")
        bots[mode] = ProgramBot(tmp_path / mode, ["node", "main.js"], limits=LIMITS, name=mode)
    try:
        game = get_game(game_id)
        state = game.setup(4, 1, None)
        rng = random.Random(1)
        for bot in bots.values():
            bot.start(game_id, 0, 4, game.options(None))
        assert bots["true"]._delta is not None and bots["false"]._delta is None
        decisions = 0
        while (seat := game.to_move(state)) is not None:
            legal = game.legal_actions(state, seat)
            if seat == 0:
                observation = game.observe(state, 0)
                lines = []
                for bot in bots.values():
                    assert bot.act(observation, legal) == 0
                    lines.append(bot.stderr_tail().rstrip("\n").rsplit("\n", 1)[-1])
                assert lines[0] == lines[1] and lines[0].startswith(f"{decisions} "), (game_id, decisions)
                decisions += 1
            game.apply(state, seat, legal[rng.randrange(len(legal))])
        assert decisions > 20
    finally:
        for bot in bots.values():
            bot.close()
