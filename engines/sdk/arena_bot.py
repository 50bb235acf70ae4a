"""Arena bot SDK: write a bot as one function, the SDK speaks the protocol.

    import arena_bot

    def act(observation, legal_actions):
        return 0          # the index of your choice in legal_actions

    arena_bot.run(act)

``run`` reads the host's messages (JSON lines on stdin) and answers them (JSON lines on stdout);
see docs/bot-protocol.md. Once the SDK is imported by a bot the host runs (and in any case while
``run`` is active), ``print()`` goes to stderr (your owner-only log), so debug prints never
corrupt the protocol. ``arena_bot.match`` holds what ``start`` said:
game, seat, num_players, options, limits, tables (the game's static tables: cards, tiles, board,
e.g. ``arena_bot.match.tables["cards"]``; docs/games/<game>.md lists them), and ``time_left_ms``
of the current decision.

Optional hooks: ``run(act, start=on_start, end=on_end)``; ``on_start(match)`` is called once,
``on_end(outcome)`` with ``{"ranks": [...], "scores": [...]}`` (ranks are 0-based as in the protocol:
rank 0 is first place, shown to people as place 1).

Observation deltas (opt-in, faster): ``run(act, deltas=True)`` asks the host to send, after the
first decision, only the top-level parts of the observation that changed (and the legal actions
only when they changed); the SDK merges them and still calls ``act`` with the whole observation,
equal (``==``) to the one it would have got without deltas. The contract you accept: parts that
did not change are the very objects handed to you at an earlier decision. Each call gets a new
top-level dict and a new legal-actions list, so adding, replacing or deleting top-level keys, or
reordering the list, is safe; but treat everything nested inside (the lists and dicts in the
observation, the action objects) as read-only: change one in place and later observations would
show your change. Copy what you want to change (``copy.deepcopy``). Without ``deltas=True`` every
message is whole and every object is new, as before; a host that does not offer deltas is served
whole messages either way.

An observation your ``act`` never names is never decoded: the SDK looks at ``act``'s code once, and if it
is a function (or a bound method) that neither reads its first parameter nor looks at its own frame
(``locals()``, ``sys._getframe``...), ``act`` gets the observation still as the host's bytes, in a dict that
decodes them the first time anything asks for them. A bot that decides from ``legal_actions`` alone (as
the starters do) then decodes only those. Any other ``act`` (a callable object, ``functools.partial``,
``*args``) gets the decoded observation, as always.

Standard library only: this file is all a bot needs (inside the sandbox it is on the path). Where
orjson can be imported (in the arena's sandbox it can) the SDK decodes the host's messages with it,
two to three times faster than ``json``, once it has read ``ORJSON_AFTER_BYTES`` (3 MB) of them: importing
orjson costs a bot 12-24 ms at its start (it imports uuid, dataclasses and datetime), more than starting
Python itself, which only a long match repays. The result is the same either way.
"""
from __future__ import annotations

import json
import os
import re
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # for the annotations only, never evaluated: importing typing would cost each bot ~5 ms at start
    from typing import Any, Callable

PROTOCOL = 1
#: orjson is imported once the messages decoded by ``json`` reach this many bytes: about what decoding
#: them faster saves for the cost of its import (measured on the five games' observations)
ORJSON_AFTER_BYTES = 3_000_000

__all__ = ["run", "match", "Match", "PROTOCOL"]


class Match:
    """What the host told the bot at the start of the match."""

    def __init__(self, message: dict[str, Any] | None = None):
        message = message or {}
        self.game: str = message.get("game", "")
        self.seat: int = message.get("seat", 0)
        self.num_players: int = message.get("num_players", 0)
        self.options: dict[str, Any] = message.get("options") or {}
        self.limits: dict[str, Any] = message.get("limits") or {}
        #: the game's static tables (cards, tiles, board), sent once in ``start``
        self.tables: dict[str, Any] = message.get("tables") or {}
        self.time_left_ms: int | None = None
        self.move: int = 0

    def __repr__(self) -> str:
        return f"Match(game={self.game!r}, seat={self.seat}, num_players={self.num_players})"


#: the current match (filled by ``start``)
match = Match()
_protocol_out = None


def _claim_stdout():
    """Keep the real stdout for the protocol; point fd 1 and sys.stdout at stderr (once)."""
    global _protocol_out
    if _protocol_out is None:
        sys.stdout.flush()
        _protocol_out = os.fdopen(os.dup(1), "wb", buffering=0)
        os.dup2(2, 1)
        sys.stdout = sys.stderr
    return _protocol_out


# Run by the arena host: from the import on, print() anywhere goes to stderr.
if os.environ.get("ARENA_PROTOCOL"):
    _claim_stdout()


_fast_loads: Any = None  # orjson's loads once imported; False where there is none
_json_bytes = 0  # what json decoded before that


def _decode(line: bytes) -> Any:
    """One host message: ``json`` for the first ``ORJSON_AFTER_BYTES``, then orjson where it can be
    imported (it refuses ints beyond 64 bits, which json reads)."""
    global _fast_loads, _json_bytes
    fast = _fast_loads
    if fast is None:
        _json_bytes += len(line)
        if _json_bytes < ORJSON_AFTER_BYTES:
            return json.loads(line)
        try:
            from orjson import loads as fast
        except ImportError:
            fast = False
        _fast_loads = fast
    if fast:
        try:
            return fast(line)
        except ValueError:
            pass
    return json.loads(line)


#: an ``act`` line as the host writes it (``engines.protocol.encode_act``): the observation last, its length
#: given, so that the legal actions can be decoded without it (any other form is decoded whole)
_ACT_HEAD = re.compile(rb'\{"type":"act","move":(\d+),"time_left_ms":(null|-?\d+),"observation_bytes":(\d+),'
                       rb'"legal_actions":')
_OBSERVATION_KEY = b',"observation":'
#: names in an ``act``'s code through which it could reach its observation without naming it
_FRAME_NAMES = frozenset(("locals", "vars", "eval", "exec", "_getframe", "currentframe", "stack", "f_locals",
                          "settrace", "setprofile", "getargvalues", "getframeinfo", "trace"))


def _reads_observation(act: Any) -> bool:
    """Whether ``act`` may read its first argument. False only for a function, or a method bound to an object,
    whose code never loads, stores, deletes or closes over that parameter and names nothing that reaches its
    frame; True for anything else (the safe answer: the observation is then decoded before the call)."""
    import opcode  # only here: ~0.5 ms at the start of a bot

    function, position = act, 0
    if type(act).__name__ == "method":
        function, position = act.__func__, 1
    code = getattr(function, "__code__", None)
    if type(function).__name__ != "function" or code is None or code.co_argcount <= position:
        return True
    if code.co_varnames[position] in code.co_cellvars or not _FRAME_NAMES.isdisjoint(code.co_names):
        return True
    names, extended_arg, raw = opcode.opname, opcode.EXTENDED_ARG, code.co_code
    extended = 0
    for i in range(0, len(raw), 2):
        op, arg = raw[i], raw[i + 1] | extended
        extended = arg << 8 if op == extended_arg else 0
        name = names[op]
        if "LOCALS" in name:  # the frame's locals as a mapping (class bodies and annotation scopes)
            return True
        if "FAST" in name or "DEREF" in name or "CELL" in name or "CLOSURE" in name:
            if arg == position or (name.count("FAST") > 1 and position in (arg >> 4, arg & 15)):
                return True  # (LOAD_FAST_LOAD_FAST and its kin hold two locals, four bits each)
    return False


class _Decoded(dict):
    """An ``_Unread`` observation once decoded: a dict (copied and pickled as a plain one)."""

    __slots__ = ("_raw",)

    def __reduce_ex__(self, protocol: Any) -> Any:
        return dict, (dict(self),)


class _Unread(_Decoded):
    """An observation still as the host's bytes: decoded the first time anything asks for its items (then an
    ``_Decoded``); handed only to an ``act`` that never names it."""

    __slots__ = ()

    @classmethod
    def of(cls, raw: bytes) -> "_Unread":
        observation = cls()
        observation._raw = raw
        return observation

    def _read(self) -> None:
        dict.update(self, _decode(self._raw))
        self._raw = None
        self.__class__ = _Decoded


def _reading(name: str) -> Any:
    method = getattr(_Decoded, name)

    def read(self, *args, **kwargs):
        self._read()
        return method(self, *args, **kwargs)
    read.__name__ = name
    return read


for _name in ("__getitem__", "__iter__", "__len__", "__contains__", "__eq__", "__ne__", "__repr__", "__or__",
              "__ror__", "__ior__", "__reversed__", "__setitem__", "__delitem__", "__reduce_ex__", "get", "keys",
              "items", "values", "copy", "pop", "popitem", "setdefault", "update", "clear"):
    if hasattr(dict, _name):
        setattr(_Unread, _name, _reading(_name))


def _not_an_index(answer: Any) -> str:
    return (f"act must return the index of its choice in legal_actions (an int from 0), "
            f"not {type(answer).__name__} {str(answer)[:100]!r}")


def run(act: Callable[[dict, list], int], start: Callable[[Match], None] | None = None,
        end: Callable[[dict], None] | None = None, stdin: Any = None, stdout: Any = None,
        deltas: bool = False) -> None:
    """Serve one match: answer every ``act`` with ``act(observation, legal_actions)``.

    Returns after the ``end`` message (or when the host closes stdin). ``stdin``/``stdout`` are
    for tests (binary streams); by default the process's own are used. ``deltas=True`` asks for
    observation deltas (see the module's docstring: unchanged nested parts are shared with earlier
    decisions, so treat them as read-only).
    """
    global match
    if stdout is None:
        stdout = _claim_stdout()
    if stdin is None:
        stdin = sys.stdin.buffer
    write = stdout.write
    flush = getattr(stdout, "flush", None)
    dumps = json.dumps
    observation: dict = {}  # with deltas: the whole observation so far (the SDK's own top-level dict)
    legal: list = []
    previous: Any = None
    unread = not deltas and not _reads_observation(act)  # with deltas every message is decoded to merge it
    head_of = _ACT_HEAD.match
    for line in stdin:
        head = head_of(line) if unread else None
        if head is not None:  # the legal actions alone are decoded: act never names its observation
            move, time_left, size = head.groups()
            last = len(line) - 2
            begin = last - int(size)
            if begin > 15 and line.endswith(b"}\n") and line.startswith(_OBSERVATION_KEY, begin - 15):
                match.time_left_ms = None if time_left == b"null" else int(time_left)
                match.move = int(move)
                index = act(_Unread.of(line[begin:last]), _decode(line[head.end():begin - 15]))
                try:
                    write(b'{"action":%d}\n' % int(index))
                except (TypeError, ValueError):
                    raise TypeError(_not_an_index(index)) from None
                if flush is not None:
                    flush()
                line = head = None
                continue
        message = _decode(line)
        kind = message.get("type")
        if kind == "act":
            match.time_left_ms = message.get("time_left_ms")
            match.move = message.get("move", 0)
            if not deltas:
                index = act(message["observation"], message["legal_actions"])
            else:
                # what is replaced is freed after the answer (below), not before the bot's turn
                previous = observation, legal
                if "delta" not in message:
                    observation = message["observation"]
                elif "keys" not in message:
                    observation = {**observation, **message["delta"]}  # the same keys in the same order
                else:  # other keys: rebuilt in the host's order
                    delta = message["delta"]
                    observation = {key: delta[key] if key in delta else previous[0][key] for key in message["keys"]}
                legal = message.get("legal_actions", legal)
                # new top-level containers for the bot: what it does to them cannot reach the SDK's
                index = act(dict(observation), list(legal))
            try:
                write(b'{"action":%d}\n' % int(index))
            except (TypeError, ValueError):
                raise TypeError(_not_an_index(index)) from None
        elif kind == "start":
            if message.get("protocol") != PROTOCOL:
                print(f"arena_bot: the host speaks protocol {message.get('protocol')}, this SDK {PROTOCOL}",
                      file=sys.stderr)
            match = Match(message)
            if start is not None:
                start(match)
            ready: dict[str, Any] = {"ready": True, "protocol": PROTOCOL}
            # deltas only when the host offers them; the first act after (re)start is always whole
            deltas = deltas and "delta" in (message.get("features") or ())
            if deltas:
                ready["features"] = ["delta"]
            write((dumps(ready) + "\n").encode())
        elif kind == "end":
            if end is not None:
                end(message.get("outcome") or {})
            return
        else:
            print(f"arena_bot: ignoring a message of unknown type {kind!r}", file=sys.stderr)
        if flush is not None:
            flush()
        # Free the message now, after the answer is out, not when the next one is decoded: the
        # host reads the answer meanwhile, and the next decision does not wait for it.
        message = line = previous = None
