"""The bot protocol, version 1: JSON lines on stdin/stdout (see docs/bot-protocol.md).

The host (``engines.sandbox.ProgramBot``) sends one JSON object per line on the bot's stdin; the bot
answers ``start`` and ``act`` with exactly one JSON object per line on its stdout, and nothing else
on stdout (diagnostics go to stderr). ``end`` has no answer: the bot exits.

    host -> bot  {"type": "start", "protocol": 1, "game": ..., "seat": ..., "num_players": ...,
                  "options": {...}, "limits": {"move_ms": ..., "match_ms": ...}, "tables": {...},
                  "features": ["delta"]}
    bot -> host  {"ready": true, "protocol": 1}        (or ..., "features": ["delta"]} to opt in)
    host -> bot  {"type": "act", "move": n, "time_left_ms": t, "observation_bytes": k,
                  "legal_actions": [...], "observation": {...}}
                 (the observation last, ``k`` the bytes of its JSON: a reader may take the legal
                  actions and leave the observation undecoded until it is read)
              or, to a bot that opted in to "delta", after its first decision:
                 {"type": "act", "move": n, ["keys": [all top-level keys, when they changed],]
                  "delta": {changed top-level keys}, ["legal_actions": [...] when changed,] "time_left_ms": t}
    bot -> host  {"action": i}            (i: index into legal_actions)
    host -> bot  {"type": "end", "outcome": {"ranks": [...], "scores": [...]}, "seat": s}

This module is the host side: message builders and strict answer parsers. It has no dependency
on a game; the bot side is the standalone SDK ``engines/sdk/arena_bot.py``.
"""
from __future__ import annotations

import json
import re
from typing import Any, Mapping, Sequence

try:  # a dependency of the project; the standard library stays the fallback
    import orjson
except ImportError:  # pragma: no cover - only without the dependency installed
    orjson = None

PROTOCOL_VERSION = 1
#: optional features the host offers in ``start``; a bot opts in by naming them in its ``ready``
FEATURES = ("delta",)
#: the longest answer line a bot may write (an answer is ``{"action": 12}``; this is generous).
MAX_ANSWER_BYTES = 64 * 1024

_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False).encode
#: the answer every SDK writes, parsed without a JSON parser (any other form takes the full parse)
_PLAIN_ANSWER = re.compile(rb'\{"action":(0|[1-9][0-9]{0,8})\}\Z')


class ProtocolError(Exception):
    """A bot's line that breaks the protocol; ``kind`` is a BotFault kind (garbage, illegal, protocol)."""

    def __init__(self, kind: str, detail: str):
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail


def encode(message: Mapping[str, Any]) -> bytes:
    """One protocol line (compact JSON, UTF-8, newline-terminated).

    orjson writes it straight to bytes, ten to twenty times faster than the standard library on a
    typical observation; what orjson refuses (a non-str key, an int beyond 64 bits) takes a slower
    path, which writes the same JSON values.
    """
    if orjson is not None:
        try:
            return orjson.dumps(message, option=_ORJSON_LINE)
        except TypeError:  # orjson.JSONEncodeError is a TypeError: a non-str key, a too large int...
            pass
        try:  # int dict keys become strings as with the standard library (twice slower: not first)
            return orjson.dumps(message, option=_ORJSON_LINE | orjson.OPT_NON_STR_KEYS)
        except TypeError:
            pass
    return (_dumps(message) + "\n").encode("utf-8")


_ORJSON_LINE = orjson.OPT_APPEND_NEWLINE if orjson is not None else 0


def _no_orjson(value: Any) -> bytes:
    raise TypeError("orjson is not installed")


_orjson_dumps = orjson.dumps if orjson is not None else _no_orjson


def start_message(game_id: str, seat: int, num_players: int, options: Mapping[str, Any],
                  move_ms: int | None = None, match_ms: int | None = None) -> dict[str, Any]:
    """The first message of a match, sent once (again after a restart of a crashed bot).

    ``tables`` are the game's static tables (cards, tiles, board: ``Game.tables``), sent here once
    so that observations can name cards by id.
    """
    return {"type": "start", "protocol": PROTOCOL_VERSION, "game": game_id, "seat": seat,
            "num_players": num_players, "options": dict(options),
            "limits": {"move_ms": move_ms, "match_ms": match_ms},
            "tables": game_tables(game_id, num_players, options), "features": list(FEATURES)}


def game_tables(game_id: str, num_players: int, options: Mapping[str, Any]) -> dict[str, Any]:
    """The static tables of a game for ``start`` ({} for an id that is no registered game)."""
    from engines.games import GAME_IDS, get_game

    if game_id not in GAME_IDS:
        return {}
    return get_game(game_id).tables(num_players, options)


def act_message(observation: Mapping[str, Any], legal_actions: Sequence[Any], time_left_ms: int | None,
                move: int = 0) -> dict[str, Any]:
    """A decision as a dict (docs and tests; ``encode_act`` writes the line the host sends, the same bytes
    as ``encode`` of this): the bot answers with the index of its choice in ``legal_actions``."""
    return {"type": "act", "move": move, "time_left_ms": time_left_ms,
            "observation_bytes": len(encode_value(observation)), "legal_actions": legal_actions,
            "observation": observation}


def encode_act(observation: Mapping[str, Any], legal_actions: Sequence[Any], time_left_ms: int | None,
               move: int = 0) -> bytes:
    """The ``act`` line: ``{"type":"act","move":n,"time_left_ms":t,"observation_bytes":k,"legal_actions":[...],
    "observation":{...}}``. The observation comes last and ``k`` is the length of its JSON, so that the SDK
    can decode the legal actions alone and the observation only if the bot reads it."""
    try:  # the usual case, in two orjson calls
        observation_json, legal_json = _orjson_dumps(observation), _orjson_dumps(legal_actions)
    except TypeError:  # no orjson, or a value it refuses: encode_value's slower paths write the same JSON
        observation_json, legal_json = encode_value(observation), encode_value(legal_actions)
    time_left = b"%d" % time_left_ms if type(time_left_ms) is int else encode_value(time_left_ms)
    return _act_line(move, time_left, legal_json, observation_json)


def _act_line(move: int, time_left: bytes, legal: bytes, observation: bytes) -> bytes:
    return b'{"type":"act","move":%d,"time_left_ms":%s,"observation_bytes":%d,"legal_actions":%s,"observation":%s}\n' % (
        move, time_left, len(observation), legal, observation)


def end_message(outcome: Mapping[str, Any], seat: int) -> dict[str, Any]:
    """The last message: the outcome (ranks 0 = best, scores); the bot should exit."""
    return {"type": "end", "seat": seat, "outcome": dict(outcome)}


def _parse_object(line: bytes) -> dict[str, Any]:
    if len(line) > MAX_ANSWER_BYTES:
        raise ProtocolError("garbage", f"answer line of {len(line)} bytes (limit {MAX_ANSWER_BYTES})")
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ProtocolError("garbage", f"answer is not UTF-8 ({exc.reason} at byte {exc.start})") from None
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise ProtocolError("garbage", f"answer is not JSON ({exc}): {text[:80]!r} "
                                       "(stdout is for answers only: print diagnostics to stderr)") from None
    except RecursionError:  # arrays or objects nested thousands deep: a bot must not fail the match this way
        raise ProtocolError("garbage", f"answer is nested too deeply to be an answer: {text[:80]!r}") from None
    if not isinstance(value, dict):
        raise ProtocolError("garbage", f"answer must be a JSON object, got {text[:80]!r}")
    return value


def parse_ready(line: bytes) -> dict[str, Any]:
    """Check the answer to ``start``: ``{"ready": true, "protocol": 1}``, optionally with
    ``"features": [...]``, a list of distinct features from ``FEATURES`` (anything else is refused)."""
    value = _parse_object(line)
    if value.get("ready") is not True:
        raise ProtocolError("protocol", f'expected {{"ready": true, "protocol": {PROTOCOL_VERSION}}} after start, '
                                        f"got {line[:80].decode('utf-8', 'replace')!r}")
    if value.get("protocol", PROTOCOL_VERSION) != PROTOCOL_VERSION:
        raise ProtocolError("protocol", f"bot speaks protocol {value.get('protocol')!r}, "
                                        f"the host speaks {PROTOCOL_VERSION}")
    features = value.get("features", [])
    if (not isinstance(features, list) or len(features) > len(FEATURES)
            or any(not isinstance(f, str) or f not in FEATURES for f in features)
            or len(set(features)) != len(features)):
        raise ProtocolError("protocol", f'"features" must be a list of distinct features the host offers '
                                        f"({', '.join(FEATURES)}), got {str(features)[:80]!r}")
    return value


def encode_value(value: Any) -> bytes:
    """One JSON value as ``encode`` writes it inside a message (no newline)."""
    if orjson is not None:
        try:
            return orjson.dumps(value)
        except TypeError:
            pass
        try:
            return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)
        except TypeError:
            pass
    return _dumps(value).encode("utf-8")


class DeltaEncoder:
    """The host's side of the ``delta`` feature, for one bot process (a new one after a restart).

    ``encode`` returns the ``act`` line to send. The first decision gets the whole message (byte
    for byte what ``encode_act`` writes); every later one
    ``{"type":"act","move":n,["keys":[...],]"delta":{...},["legal_actions":[...],]"time_left_ms":t}``:
    ``delta`` holds the top-level keys of the observation whose JSON differs from the last one sent
    (and keys the last one did not have), ``keys`` (only when they changed) all the keys in order,
    ``legal_actions`` is left out when its JSON is the same as last time. Changes are found on the
    encoded bytes (str, int, bool and None by type and value), never by keeping the engine's objects:
    an engine may hand out the same list again and change it in place later (Top Race does).

    Deltas cost the host one orjson call per top-level value (~0.1 µs each) and save the bot the
    objects it does not decode: they pay only on large observations. While the last message was
    below ``MIN_BYTES``, whole messages are sent (a bot must accept either at any decision).
    """

    #: measured on seeded games (bench --protocol): Port Royal (0.9 kB), Top Race (1.7 kB) and
    #: Alhambra (2.1 kB) are slower with deltas, El Capitán (5 kB) and Catan (7.6 kB) faster
    MIN_BYTES = 3000

    def __init__(self) -> None:
        self._size = self.MIN_BYTES  # the last message's length, whole (an estimate after a delta)
        self._keys: tuple[Any, ...] | None = None
        self._values: dict[Any, Any] = {}  # per key: the str/int/bool/None sent, or the JSON of another value
        self._legal: bytes | None = None
        self._names: dict[str, bytes] = {}  # key -> b'"key":'

    def encode(self, observation: Mapping[str, Any], legal_actions: Sequence[Any], time_left_ms: int | None,
               move: int) -> bytes:
        """The ``act`` line for this decision (whole or delta, see the class)."""
        if self._size < self.MIN_BYTES:  # small: whole, and the next large one whole again
            data = encode_act(observation, legal_actions, time_left_ms, move)
            self._size = len(data)
            self._keys = None
            return data
        if orjson is not None:
            try:
                return self._encode(observation, legal_actions, time_left_ms, move, orjson.dumps)
            except TypeError:  # orjson refused a value (a non-str key, a huge int): start afresh, slowly
                self.__init__()
        return self._encode(observation, legal_actions, time_left_ms, move, encode_value)

    def _encode(self, observation: Mapping[str, Any], legal_actions: Sequence[Any], time_left_ms: int | None,
                move: int, dumps: Any) -> bytes:
        keys = tuple(observation)
        last_keys = self._keys
        values, names = self._values, self._names
        whole = last_keys is None
        new_keys = not whole and keys != last_keys
        if new_keys:  # keys the last observation had not are sent whatever their value
            for key in set(keys).difference(last_keys):
                values.pop(key, None)
        get = values.get
        same_when_equal = _SAME_JSON_WHEN_EQUAL
        parts = []
        size = 80  # the message's length if whole (roughly: keys, numbers, quotes are estimated)
        for key, value in observation.items():
            kind = type(value)
            if kind in same_when_equal:  # compared without encoding (an orjson call is ~0.1 µs)
                if kind is str:
                    size += len(value)
                if not whole:
                    old = get(key, values)
                    if type(old) is kind and old == value:
                        continue
                values[key] = value
                data = dumps(value)
            else:
                data = dumps(value)
                size += len(data)
                if not whole and get(key) == data:
                    continue
                values[key] = data
            name = names.get(key)
            if name is None:
                if type(key) is not str:  # not a JSON key as it is: whole messages from now on
                    self.__init__()
                    return encode_act(observation, legal_actions, time_left_ms, move)
                name = names[key] = dumps(key) + b":"
            parts.append(name + data)
        legal = dumps(legal_actions)
        self._keys = keys
        self._size = size + len(legal) + 12 * len(keys)
        if whole:
            self._legal = legal
            return _act_line(move, dumps(time_left_ms), legal, b"{%s}" % b",".join(parts))
        tail = b'"time_left_ms":' + dumps(time_left_ms) + b"}\n"
        head = b'{"type":"act","move":%d,' % move
        if new_keys:
            head += b'"keys":' + dumps(keys) + b","
        if legal == self._legal:
            return b'%s"delta":{%s},%s' % (head, b",".join(parts), tail)
        self._legal = legal
        return b'%s"delta":{%s},"legal_actions":%s,%s' % (head, b",".join(parts), legal, tail)


#: immutable values whose JSON is the same when they are equal and of the same type (not float: -0.0 == 0.0)
_SAME_JSON_WHEN_EQUAL = frozenset((int, str, bool, type(None)))


def parse_answer(line: bytes, num_legal: int) -> int:
    """The index a bot answered to ``act``; ProtocolError unless it is an int in 0..num_legal-1."""
    plain = _PLAIN_ANSWER.match(line)
    if plain is not None:  # the SDKs' own form: no JSON parser needed
        index = int(plain.group(1))
        if index < num_legal:
            return index
    value = _parse_object(line)
    if "action" not in value:
        raise ProtocolError("garbage", f'answer has no "action": {line[:80].decode("utf-8", "replace")!r}')
    index = value["action"]
    if not isinstance(index, int) or isinstance(index, bool):
        raise ProtocolError("garbage", f'"action" must be an integer index, got {index!r:.80}')
    if not 0 <= index < num_legal:
        raise ProtocolError("illegal", f"answered {index}, expected an index 0..{num_legal - 1}")
    return index


# --- documentation: real exchanges rendered from the engines -------------------------------------

def example_exchange(game_id: str, num_players: int | None = None, seed: int = 1, decisions: int = 2,
                     skip: int = 0) -> list[tuple[str, dict[str, Any]]]:
    """A real exchange for seat 0 of a seeded game: start, ``decisions`` act/answer pairs, end.

    The other seats and the rest of the game are played by seeded random choices; seat 0 answers
    the first legal action. ``skip`` seat-0 decisions are played silently before the ones shown.
    Returns ``[(direction, message)]`` where direction is ``"host"`` or ``"bot"``.
    """
    import copy
    import random

    from engines.games import get_game

    game = get_game(game_id)
    n = num_players or max(game.min_players, min(game.max_players, 3))
    state = game.setup(n, seed, None)
    options = game.options(None)
    rng = random.Random(seed)
    lines: list[tuple[str, dict[str, Any]]] = [
        ("host", start_message(game_id, 0, n, options, 2000, 120_000)),
        ("bot", {"ready": True, "protocol": PROTOCOL_VERSION}),
    ]
    shown = seen = move = 0
    while (seat := game.to_move(state)) is not None:
        legal = game.legal_actions(state, seat)
        choice = rng.randrange(len(legal))
        if seat == 0:
            seen += 1
            if seen > skip and shown < decisions:
                shown += 1
                choice = 0
                # a copy: an observation may share lists with the state, which the rest of the game changes
                lines.append(("host", copy.deepcopy(act_message(game.observe(state, 0), legal, 118_000, move))))
                lines.append(("bot", {"action": choice}))
        game.apply(state, seat, legal[choice])
        move += 1
    lines.append(("host", end_message(game.outcome(state).to_dict(), 0)))
    return lines


def render_exchange(lines: Sequence[tuple[str, Mapping[str, Any]]], width: int = 1200) -> str:
    """Markdown for an exchange: each line as sent, prefixed ``> `` (to the bot) or ``< `` (from it)."""
    out = []
    for direction, message in lines:
        text = _dumps(message)
        if len(text) > width:  # keep the doc readable; the real line is sent whole
            text = text[:width] + " …(cut for the doc)"
        out.append(("> " if direction == "host" else "< ") + text)
    return "```\n" + "\n".join(out) + "\n```\n"
