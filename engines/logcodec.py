"""A compact stored form of match logs: each move as its index in the legal list, then compressed.

A match log (``engines.match.MatchLog.to_dict()``) spells every action out, though a replay can rebuild
it from the index of the action in the legal list of its state: the engine is deterministic, and the
seat to move is the engine's to say. So the stored form keeps, per move, only that index and the time
its seat took (varints), and once per match the rest of the log (options as their difference from the
game's defaults, seats, faults, forfeits, outcome, stderr) as JSON; the whole is compressed (zstd where
the ``zstandard`` package is installed, zlib otherwise; the first byte says which).

``decode(encode(log)) == log`` for every log the engine can replay, JSON-equal (the decoded log is what
``json.loads(json.dumps(log))`` is). A log the engine cannot replay as recorded (an action not in its
state's legal list, a seat out of turn) is stored whole instead, compressed JSON, and decodes to itself.
"""
from __future__ import annotations

import json
import zlib
from typing import Any, Mapping, Sequence

from engines.games import get_game
from engines.match import MAX_MOVES, MatchLog

try:  # optional: a little smaller and faster than zlib
    import zstandard
except ImportError:  # pragma: no cover - depends on the environment
    zstandard = None

# First byte: how the rest is compressed (high nibble) and what it holds (low nibble).
ZLIB, ZSTD = 0x10, 0x20
COMPACT, WHOLE = 0x01, 0x02


class LogCodecError(ValueError):
    """Bytes that are not a stored match log."""


def _varints(values: Sequence[int]) -> bytes:
    out = bytearray()
    for value in values:
        if value < 0:
            raise ValueError(f"varint of a negative number {value}")
        while value >= 0x80:
            out.append((value & 0x7F) | 0x80)
            value >>= 7
        out.append(value)
    return bytes(out)


def _read_varints(data: bytes, count: int, pos: int) -> tuple[list[int], int]:
    values = []
    for _ in range(count):
        value = shift = 0
        while True:
            byte = data[pos]
            pos += 1
            value |= (byte & 0x7F) << shift
            if byte < 0x80:
                break
            shift += 7
        values.append(value)
    return values, pos


def _compress(kind: int, payload: bytes) -> bytes:
    if zstandard is not None:
        return bytes([ZSTD | kind]) + zstandard.ZstdCompressor(level=19).compress(payload)
    return bytes([ZLIB | kind]) + zlib.compress(payload, 9)


def _decompress(blob: bytes) -> tuple[int, bytes]:
    if not blob:
        raise LogCodecError("an empty stored log")
    head, body = blob[0], bytes(blob[1:])
    if head & 0xF0 == ZLIB:
        return head & 0x0F, zlib.decompress(body)
    if head & 0xF0 == ZSTD:
        if zstandard is None:
            raise LogCodecError("this log is zstd-compressed: install the zstandard package to read it")
        return head & 0x0F, zstandard.ZstdDecompressor().decompress(body)
    raise LogCodecError(f"unknown stored log header {head:#x}")


def _json(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def _normal(value: Any) -> Any:
    """The value as JSON gives it back (tuples become lists, keys strings)."""
    return json.loads(_json(value))


def choices_of(log: Mapping[str, Any]) -> list[int] | None:
    """Each move's index in the legal list of its state, found by replaying; None if the log does not
    replay as recorded (a seat out of turn, an action the state does not offer)."""
    game = get_game(log["game"])
    state = game.setup(len(log["seats"]), log["seed"], log["options"])
    choices = []
    for seat, action, _ms in log["moves"]:
        if game.to_move(state) != seat:
            return None
        legal = game.legal_actions(state, seat)
        try:
            index = legal.index(action)
        except ValueError:  # the log's action came through JSON: compare as JSON
            wanted = _normal(action)
            index = next((i for i, a in enumerate(legal) if _normal(a) == wanted), -1)
            if index < 0:
                return None
        choices.append(index)
        game.apply(state, seat, legal[index])
    return choices if game.to_move(state) is None else None


def encode(log: Mapping[str, Any], choices: Sequence[int] | None = None) -> bytes:
    """The stored form of a match log (``MatchLog.to_dict()`` or its JSON).

    ``choices``: each move's index in its legal list, as the runner knew them (``MatchLog.choices``);
    without them they are found by replaying the log. A log that does not replay is stored whole.
    """
    if choices is None or len(choices) != len(log["moves"]):
        try:
            choices = choices_of(log)
        except Exception:  # an unknown game, options the engine refuses now: keep the log whole
            choices = None
    if choices is None:
        return _compress(WHOLE, _json(dict(log)))
    try:
        return _compact(log, choices)
    except (ValueError, TypeError, KeyError, IndexError):  # times that are not counts, odd options: keep it whole
        return _compress(WHOLE, _json(dict(log)))


def _compact(log: Mapping[str, Any], choices: Sequence[int]) -> bytes:
    game = get_game(log["game"])
    defaults = game.options(None)
    options = log.get("options") or {}
    rest = {k: v for k, v in log.items() if k not in ("moves", "options")}
    changed = {k: v for k, v in options.items() if defaults.get(k, _MISSING) != v}
    if game.options(changed) == options:
        rest["changed_options"] = changed
    else:  # options the engine would not rebuild from their difference: keep them as they are
        rest["options"] = options
    header = _json(rest)
    moves = log["moves"]
    payload = b"".join([_varints([len(header)]), header, _varints([len(moves)]), _varints(choices),
                        _varints([m[2] for m in moves])])
    return _compress(COMPACT, payload)


_MISSING = object()
LOG_KEYS = ("format", "game", "options", "seed", "seats", "moves", "faults", "forfeits", "outcome", "stderr")


def decode(blob: bytes) -> dict[str, Any]:
    """The match log (as ``MatchLog.to_dict()`` gives it, JSON-equal) from its stored form; the moves
    are rebuilt by replaying the game."""
    kind, payload = _decompress(blob)
    if kind == WHOLE:
        return json.loads(payload)
    if kind != COMPACT:
        raise LogCodecError(f"unknown stored log kind {kind}")
    (size,), pos = _read_varints(payload, 1, 0)
    rest = json.loads(payload[pos:pos + size])
    pos += size
    (count,), pos = _read_varints(payload, 1, pos)
    if count > MAX_MOVES:
        raise LogCodecError(f"a stored log of {count} moves")
    choices, pos = _read_varints(payload, count, pos)
    times, pos = _read_varints(payload, count, pos)
    game = get_game(rest["game"])
    options = rest.pop("options") if "options" in rest else game.options(rest.pop("changed_options"))
    state = game.setup(len(rest["seats"]), rest["seed"], options)
    moves = []
    to_move, legal_actions, apply = game.to_move, game.legal_actions, game.apply
    for index, ms in zip(choices, times):
        seat = to_move(state)
        if seat is None:
            raise LogCodecError(f"the game ended after {len(moves)} of {count} stored moves")
        action = legal_actions(state, seat)[index]
        apply(state, seat, action)
        moves.append([seat, action, ms])
    rest["options"] = options
    rest["moves"] = _normal(moves)  # the engine's own objects (tuples, shared dicts) as JSON gives them back
    order = {key: i for i, key in enumerate(LOG_KEYS)}  # MatchLog.to_dict's order, then any others
    return dict(sorted(rest.items(), key=lambda item: order.get(item[0], len(order))))


def encode_checked(log: Mapping[str, Any]) -> bytes:
    """The stored form of a log from elsewhere (an older platform's JSON): decoded once to check it;
    stored whole if the compact form would not give it back exactly."""
    blob = encode(log)
    try:
        if decode(blob) == _normal(dict(log)):
            return blob
    except Exception:  # an engine that no longer replays it as recorded
        pass
    return _compress(WHOLE, _json(dict(log)))


def encode_log(log: MatchLog) -> bytes:
    """The stored form of a ``MatchLog`` just played (its ``choices`` spare a replay)."""
    return encode(log.to_dict(), log.choices or None)
