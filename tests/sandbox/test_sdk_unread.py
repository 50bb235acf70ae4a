"""The Python SDK leaves undecoded the observation of an ``act`` that never names it (engines/sdk/arena_bot.py),
and the host's ``act`` line that makes it possible (``protocol.encode_act``: the observation last, its length
given)."""
from __future__ import annotations

import copy
import importlib.util
import io
import json
import pickle
import sys
from pathlib import Path

import pytest

from engines import protocol
from engines.games import get_game

SDK = Path(__file__).resolve().parents[2] / "engines" / "sdk" / "arena_bot.py"


@pytest.fixture
def sdk():
    """A fresh copy of the SDK module (its decoder state is per process)."""
    spec = importlib.util.spec_from_file_location("arena_bot_unread", SDK)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def seat0_decisions(game_id: str, seed: int = 3, limit: int = 40) -> list[tuple[dict, list]]:
    """Seat 0's first (observation, legal actions) pairs in a seeded random 3-player game."""
    import random

    game = get_game(game_id)
    state = game.setup(3, seed, None)
    rng = random.Random(seed)
    out = []
    while (seat := game.to_move(state)) is not None and len(out) < limit:
        legal = game.legal_actions(state, seat)
        if seat == 0:
            out.append((json.loads(json.dumps(game.observe(state, 0))), json.loads(json.dumps(legal))))
        game.apply(state, seat, legal[rng.randrange(len(legal))])
    return out


@pytest.mark.parametrize("observation", [
    {"cards": [{"id": 1, "kind": "ship"}], "round": 3, "name": "Ça va", "none": None, "f": 0.5},
    {1: "int key", "x": [1, 2]},  # orjson needs its non-str-key option
    {"big": 2 ** 70, "x": "json only"},  # beyond orjson: the standard library writes it
    {},
])
def test_the_act_line_is_the_message_with_the_observation_last(observation):
    line = protocol.encode_act(observation, [{"type": "a"}, {"type": "b"}], 1234, 7)
    assert line == protocol.encode(protocol.act_message(observation, [{"type": "a"}, {"type": "b"}], 1234, 7))
    size = json.loads(line)["observation_bytes"]
    assert line.endswith(b"}\n") and line[-2 - size - 15:-2 - size] == b',"observation":'
    assert json.loads(line[-2 - size:-2]) == json.loads(json.dumps(observation))
    assert list(json.loads(line)) == ["type", "move", "time_left_ms", "observation_bytes", "legal_actions",
                                      "observation"]


def test_an_unread_observation_is_the_dict_once_anything_asks(sdk):
    observation = {"a": [1, {"b": 2}], "c": "x", "d": None}
    raw = protocol.encode_value(observation)
    reads = [
        lambda o: o == observation, lambda o: observation == o, lambda o: o != {}, lambda o: repr(o) == repr(observation),
        lambda o: dict(o) == observation, lambda o: {**o} == observation, lambda o: list(o) == list(observation),
        lambda o: len(o) == 3, lambda o: "c" in o, lambda o: o["c"] == "x", lambda o: o.get("d", 1) is None,
        lambda o: list(o.items()) == list(observation.items()), lambda o: copy.deepcopy(o) == observation,
        lambda o: pickle.loads(pickle.dumps(o)) == observation, lambda o: o.copy() == observation,
        lambda o: (o | {}) == observation, lambda o: o.pop("c") == "x" and "c" not in o,
    ]
    for read in reads:
        unread = sdk._Unread.of(raw)
        assert read(unread)
        assert isinstance(unread, dict) and type(unread) is sdk._Decoded and unread._raw is None
        assert json.loads(json.dumps(unread)) == dict(unread)
    written = sdk._Unread.of(raw)
    written["e"] = 5
    assert written == {**observation, "e": 5}


def run_sdk(sdk, act, decisions, *, offset: int = 0, line_of=protocol.encode_act):
    """Feed a match of ``decisions`` to ``sdk.run(act)``; its answers."""
    lines = [protocol.encode(protocol.start_message("port_royal", 0, 3, {}))]
    lines += [line_of(o, legal, 5000 - i if i % 4 else None, offset + i) for i, (o, legal) in enumerate(decisions)]
    lines.append(protocol.encode(protocol.end_message({"ranks": [0, 1, 2], "scores": [1, 0, 0]}, 0)))
    out = io.BytesIO()
    sdk.run(act, stdin=io.BytesIO(b"".join(lines)), stdout=out)
    return [protocol.parse_answer(line, 10 ** 6) for line in out.getvalue().splitlines()[1:]]


@pytest.mark.parametrize("game_id", ["el_capitan", "alhambra", "port_royal", "catan", "top_race"])
def test_an_act_that_never_names_its_observation_decodes_only_the_legal_actions(sdk, game_id, monkeypatch):
    decisions = seat0_decisions(game_id)
    decoded: list[bytes] = []
    decode = sdk._decode
    monkeypatch.setattr(sdk, "_decode", lambda line: decoded.append(bytes(line)) or decode(line))
    moves, banks, seen = [], [], []

    def act(observation, legal_actions):
        moves.append(sdk.match.move)
        banks.append(sdk.match.time_left_ms)
        seen.append(legal_actions)
        return len(legal_actions) - 1

    # what a debugger sees of the observation in act's frame: the whole observation
    def profile(frame, event, arg):
        if event == "call" and frame.f_code is act.__code__:
            observations.append(frame.f_locals["observation"])
    observations: list = []
    sys.setprofile(profile)
    try:
        answers = run_sdk(sdk, act, decisions)
    finally:
        sys.setprofile(None)

    assert answers == [len(legal) - 1 for _, legal in decisions]
    assert seen == [legal for _, legal in decisions]
    assert moves == list(range(len(decisions)))
    assert banks == [5000 - i if i % 4 else None for i in range(len(decisions))]
    # start, then the legal actions of each decision and nothing else, then end
    assert decoded[1:-1] == [protocol.encode_value(legal) for _, legal in decisions]
    assert all(type(o) is sdk._Unread for o in observations)
    assert observations == [o for o, _ in decisions]  # decoded now, by the comparison
    assert all(type(o) is sdk._Decoded for o in observations)


def test_a_reading_act_and_other_lines_get_the_decoded_message(sdk, monkeypatch):
    decisions = seat0_decisions("port_royal", limit=12)
    seen = []

    def reading(observation, legal_actions):
        seen.append((type(observation), observation))
        return 0

    assert run_sdk(sdk, reading, decisions) == [0] * len(decisions)
    assert seen == [(dict, o) for o, _ in decisions]

    # a line in another layout (the observation first, as hosts before encode_act wrote it): decoded whole
    def old_layout(observation, legal, time_left, move):
        return protocol.encode({"type": "act", "move": move, "observation": observation, "legal_actions": legal,
                                "time_left_ms": time_left})
    moves = []
    assert run_sdk(sdk, lambda observation, legal_actions: moves.append(sdk.match.move) or len(legal_actions) - 1,
                   decisions, offset=10, line_of=old_layout) == [len(legal) - 1 for _, legal in decisions]
    assert moves == [10 + i for i in range(len(decisions))]

    # a line whose stated observation length is wrong (shorter, longer, longer than the line): decoded whole
    for wrong in (lambda n: n - 3, lambda n: n + 3, lambda n: 10 * n + 1000):
        def misstated(observation, legal, time_left, move, wrong=wrong):
            line = protocol.encode_act(observation, legal, time_left, move)
            size = len(protocol.encode_value(observation))
            return line.replace(b'"observation_bytes":%d,' % size, b'"observation_bytes":%d,' % wrong(size), 1)
        seen.clear()
        assert run_sdk(sdk, lambda observation, legal_actions: seen.append(legal_actions) or 0, decisions,
                       line_of=misstated) == [0] * len(decisions)
        assert seen == [legal for _, legal in decisions]


#: acts, and whether the SDK must decode their observation, checked by a script that a Python of any version runs
CLASSIFY = '''
import functools, importlib.util, json, sys
spec = importlib.util.spec_from_file_location("arena_bot_classified", sys.argv[1])
sdk = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sdk)
def unread(observation, legal_actions):
    return [a for a in legal_actions if a] and len(legal_actions) - 1
def read(observation, legal_actions):
    return legal_actions[0] + observation["x"]
def pair(observation, legal_actions):
    a, b = legal_actions, observation
    return 0
def passes_it_on(observation, legal_actions):
    return print(observation)
def stores_it(observation, legal_actions):
    observation = None
    return 0
def closure(observation, legal_actions):
    return (lambda: observation)() and 0
def frame(observation, legal_actions):
    return len(locals())
def through_sys(observation, legal_actions):
    return sys._getframe().f_lineno and 0
def in_comprehension(observation, legal_actions):
    return [x for x in observation if x] and 0
class Player:
    def act(self, observation, legal_actions):
        return 0
    def act_reading(self, observation, legal_actions):
        return len(observation)
    def __call__(self, observation, legal_actions):
        return 0
# locals beyond 255: their loads carry an EXTENDED_ARG
many = "def act(observation, legal_actions):\\n" + "".join("    v%d = %d\\n" % (i, i) for i in range(300))
namespace = {}
exec(many + "    return v299 and 0\\n", namespace)
exec(many.replace("def act", "def act_reading") + "    return observation and v299\\n", namespace)
acts = {"unread": unread, "lambda": lambda observation, legal_actions: 0, "method": Player().act,
        "many locals": namespace["act"], "read": read, "pair": pair, "passes it on": passes_it_on,
        "stores it": stores_it, "closure": closure, "frame": frame, "through sys": through_sys,
        "in comprehension": in_comprehension, "method reading": Player().act_reading, "callable object": Player(),
        "partial": functools.partial(unread), "*args": lambda *args: 0, "builtin": print,
        "many locals reading": namespace["act_reading"], "lambda reading": lambda observation, legal_actions: observation}
print(json.dumps({name: sdk._reads_observation(act) for name, act in acts.items()}))
'''
UNREAD_ACTS = {"unread", "lambda", "method", "many locals"}


def other_python(minor: int) -> str | None:
    """An interpreter of Python 3.<minor> that runs: on the PATH, or one of pyenv's versions."""
    import glob
    import shutil
    import subprocess

    found = [shutil.which(f"python3.{minor}")] + sorted(glob.glob(str(
        Path.home() / ".pyenv" / "versions" / f"3.{minor}.*" / "bin" / f"python3.{minor}")))
    for python in filter(None, found):
        try:  # a pyenv shim of a version that is installed but not selected exits 127
            if subprocess.run([python, "-c", "pass"], capture_output=True, timeout=30).returncode == 0:
                return python
        except OSError:
            continue
    return None


@pytest.mark.parametrize("minor", [None, 8, 9, 10, 12, 13])
def test_which_acts_read_their_observation(minor):
    """The check on this Python (``None``) and, where they are installed, on others: bots run the SDK on the
    host's Python in the sandbox, but authors run it on theirs, and it reads each version's bytecode (3.12
    inlines comprehensions, 3.13 packs two locals in one instruction)."""
    import subprocess

    python = sys.executable if minor is None else other_python(minor)
    if python is None:
        pytest.skip(f"no Python 3.{minor} here (on the PATH or in ~/.pyenv/versions)")
    done = subprocess.run([python, "-I", "-c", CLASSIFY, str(SDK)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    reads = json.loads(done.stdout)
    assert len(reads) == 19 and {name for name, read in reads.items() if not read} == UNREAD_ACTS, reads
