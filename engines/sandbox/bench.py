"""Protocol benchmark: per-decision cost of a trivial bot through the sandbox vs raw pipes.

``python -m engines bench --protocol`` prints JSON lines. The sandboxed side is the real path
(``ProgramBot.act``: encode the message, write it, wait for the answer with the move deadline,
parse and check it) to a bot written with the SDK that answers 0 without reading the observation (so
the SDK decodes the legal actions only), and to one that reads it (``*_reading``: the SDK decodes the whole
message, as for any bot that names its observation). Three plain processes on
pipes (no sandbox, no SDK, no deadline, blocking reads) move the same message, interleaved with them:

- bytes only: echoes a fixed answer to each line, no JSON at all (``raw_bytes_us_per_decision``,
  the floor of any line protocol; ``ratio_to_bytes_only`` is the issue's figure);
- the JSON floor: the host encodes the message as ``ProgramBot`` does, the process decodes it with
  the bot's decoder (orjson when the sandbox offers it, which the SDK imports once it has decoded 3 MB: the
  sandboxed bots are played that far before the clock starts, ``_to_steady_state``; node's JSON.parse for a
  node bot) and answers, the host parses the answer
  (``json_pipe_us_per_decision``; ``ratio_to_json_pipe_reading``, the reading bot's, is what the sandbox, the
  runner and the SDK add; ``ratio_to_json_pipe``, the trivial bot's, is below 1 when its SDK decodes less than
  the floor does);
- the standard library: the same with ``json`` on the bot's side (``raw_pipe_us_per_decision``).

The trivial bot's decision splits in two (Python only): the host's part, the real path to a sandboxed program
that answers every line without the SDK or any JSON (``host_path_us_per_decision``; ``host_encode_us`` of it
encodes the line), and the SDK's, the rest (``sdk_us_per_decision``).

Where the processes run moves every figure (``placement``): on a virtual machine a wake-up across cores
costs tens of microseconds (this one: a bytes-only round trip of ~60 µs across cores against ~10 on one
core), and the kernel puts a bot on either. ``free`` leaves it to the kernel, as in a match; ``same`` puts
the bench and every process it starts on one core; ``apart`` the bench on one core and the rest on another.

The synthetic message is the same at every decision, so it says nothing of deltas: every message
there is whole. ``bench_protocol_game`` plays seeded 4-player games of one game and hands seat 0's
observations to the bots as a match does, built by the engine just before each decision (``live_decisions``:
an observation encoded the moment it is built costs the host a third to a half less than the same one
kept since, as a replay from a list would), in both modes of protocol 1 (whole messages, and the
``delta`` feature a bot asks for with ``arena_bot.run(act, deltas=True)``), each against a bytes-only pipe
moving exactly the bytes that mode sends. Every step plays the game on to its next decision untimed and
times the decision alone. ``ratio_delta_to_full_bytes`` compares the delta mode with moving the whole
messages; ``json_cpu_us`` is the JSON work alone (host encoding, the SDK reading).
"""
from __future__ import annotations

import importlib.util
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from typing import Any, Iterator

from engines import protocol

from .runner import SDK_DIR, ProgramBot, _python, interpreter_path, orjson_dir, sandbox_problem

TRIVIAL_BOT = "import arena_bot\narena_bot.run(lambda observation, legal_actions: 0)\n"
#: the same bot, asking for observation deltas
TRIVIAL_DELTA_BOT = "import arena_bot\narena_bot.run(lambda observation, legal_actions: 0, deltas=True)\n"
#: the same bot reading its observation: the SDK decodes every message whole
READING_BOT = "import arena_bot\narena_bot.run(lambda observation, legal_actions: len(observation) and 0)\n"
#: a program that speaks the protocol without the SDK or any JSON: ready, then answer 0 to every line; what the
#: sandboxed path costs it is the host's share (encoding, the deadline's wait, the checks)
PROTOCOL_ONLY_BOT = ("import sys\nlines, out = sys.stdin.buffer, open(1, 'wb', buffering=0)\nlines.readline()\n"
                     "out.write(b'{\"ready\":true,\"protocol\":1}\\n')\nfor line in lines:\n"
                     "    out.write(b'{\"action\":0}\\n')\n")
#: where the bench and the processes it starts run (see the module's docstring)
PLACEMENTS = ("free", "same", "apart")
#: the same bot per language: (file, command, source)
TRIVIAL_BOTS = {
    "python": ("main.py", ["python3", "main.py"], TRIVIAL_BOT),
    "node": ("main.js", ["node", "main.js"], 'require("arena_bot").run(() => 0);\n'),
}
ECHO = ("import sys\nout = sys.stdout.buffer\nfor line in sys.stdin.buffer:\n"
        "    out.write(b'{\"action\":0}\\n')\n    out.flush()\n")
#: the same work as a protocol bot (decode the message, encode the answer), no SDK, no sandbox
JSON_ECHO = ("import json, sys\nout = sys.stdout.buffer\nfor line in sys.stdin.buffer:\n"
             "    message = json.loads(line)\n"
             "    out.write(json.dumps({\"action\": 0}).encode() + b'\\n')\n    out.flush()\n")
#: the same with the SDK's decoder (``{path}``: orjson's parent folder), the message freed after the answer as the SDK does
ORJSON_ECHO = ("import sys\nsys.path.insert(0, {path!r})\nfrom orjson import loads\nout = sys.stdout.buffer\n"
               "for line in sys.stdin.buffer:\n    message = loads(line)\n"
               "    out.write(b'{{\"action\":0}}\\n')\n    out.flush()\n    message = line = None\n")
#: the same on node, with the JavaScript SDK's decoder and writer
NODE_JSON_ECHO = ('const rl = require("readline").createInterface({input: process.stdin, crlfDelay: Infinity});\n'
                  'rl.on("line", (line) => { JSON.parse(line); require("fs").writeSync(1, \'{"action":0}\\n\'); });\n')


def _clean_up(bots: list[ProgramBot], procs: list[subprocess.Popen], tmp: str) -> None:
    """Close the bots, kill the pipes' processes, remove the bench's files."""
    for bot in bots:
        bot.close()
    for proc in procs:
        proc.kill()
        proc.wait()
        proc.stdin.close()
        proc.stdout.close()
    shutil.rmtree(tmp, ignore_errors=True)


def sample_message(size: int = 2000) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """An observation of about ``size`` bytes of JSON and ten legal actions (game-independent)."""
    cards = []
    while len(protocol.encode({"cards": cards})) < size:
        n = len(cards)
        cards.append({"id": n, "kind": "ship" if n % 3 else "person", "colour": "red", "cost": n % 7, "ip": n % 4})
    observation = {"you": 0, "round": 3, "harbour": cards, "players": [{"seat": s, "coins": 3} for s in range(4)]}
    return observation, [{"type": "take", "card": i} for i in range(10)]


@contextmanager
def _placed(placement: str) -> Iterator[Any]:
    """Run the block with this process, and what it starts, where ``placement`` says; yields a function
    to call once every process is started (from then on this process runs on its own core if ``apart``)."""
    if placement not in PLACEMENTS:
        raise ValueError(f"placement must be one of {', '.join(PLACEMENTS)}")
    own = os.sched_getaffinity(0)
    cores = sorted(own)
    if placement == "apart" and len(cores) < 2:
        raise ValueError("placement 'apart' needs two cores")
    if placement != "free":
        os.sched_setaffinity(0, {cores[-1]})  # the processes started from here inherit it

    def started() -> None:
        if placement == "apart":
            os.sched_setaffinity(0, {cores[0]})
    try:
        yield started
    finally:
        os.sched_setaffinity(0, own)


def _bot_folder(tmp: str, name: str, entry: str, source: str) -> str:
    """A bot's folder under ``tmp`` holding ``source`` as ``entry``, readable by a sandboxed bot."""
    folder = os.path.join(tmp, name)
    os.mkdir(folder)
    with open(os.path.join(folder, entry), "w") as fh:
        fh.write(source)
    os.chmod(folder, 0o755)
    os.chmod(os.path.join(folder, entry), 0o644)
    return folder


def _load_sdk(name: str = "arena_bot_bench") -> Any:
    """A fresh copy of the Python SDK's module, loaded from its file (no package module: bots import it in the
    sandbox)."""
    spec = importlib.util.spec_from_file_location(name, SDK_DIR / "arena_bot.py")
    sdk = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sdk)
    return sdk


def _to_steady_state(bot: ProgramBot, decisions: list[tuple[Any, list]], decoded: Any) -> None:
    """Play ``decisions`` to ``bot``, in whole passes from the first, until its SDK has decoded
    ``ORJSON_AFTER_BYTES`` as ``decoded(i)`` counts the bytes of decision ``i`` (the legal actions' JSON alone for
    a bot that never reads its observation): from then on it decodes with orjson, as the JSON floor does. A
    match of a few hundred decisions mostly stays on ``json``; the bench measures the SDK's steady state, like
    with like. Every pass numbers its moves as the first, so its lines are the bytes the pipes move."""
    left, first_move = _load_sdk().ORJSON_AFTER_BYTES, bot._moves
    while left >= 0:
        bot._moves = first_move
        for i, (observation, legal) in enumerate(decisions):
            bot.act(observation, legal, 100_000)
            left -= decoded(i)
    bot._moves = first_move


def _interleaved(steps: list, seconds: float, block: int = 200, timed: bool = False) -> list[list[float]]:
    """Run each step in turn in blocks of ``block`` calls until ``seconds`` have passed; return, per
    step, the seconds per call of each block (one block of every step per round).

    Interleaving makes the steps see the same machine load (other processes, CPU frequency); the
    ratio of two steps is taken within each round and the median over rounds reported, so that a
    burst of load elsewhere moves neither. ``timed``: every step times its own measured part and
    returns it (what it does before, such as playing the game on, is left out); the clock's own cost
    around a call is taken off.
    """
    for step in steps:
        for _ in range(50):  # warm up
            step()
    blocks: list[list[float]] = [[] for _ in steps]
    clock = time.perf_counter
    own = _clock_cost() if timed else 0.0
    started = clock()
    while clock() - started < seconds or not blocks[0]:
        for step, times in zip(steps, blocks):
            if timed:
                total = 0.0
                for _ in range(block):
                    total += step()
                times.append(total / block - own)
                continue
            t0 = clock()
            for _ in range(block):
                step()
            times.append((clock() - t0) / block)
    return blocks


def _encode_cost(observation: Any, legal: list, calls: int = 20_000) -> float:
    """Seconds ``protocol.encode_act`` takes for this decision (the least of three tries)."""
    encode, clock, best = protocol.encode_act, time.perf_counter, 1.0
    for _ in range(3):
        t0 = clock()
        for _ in range(calls):
            encode(observation, legal, 100_000, 10_000)
        best = min(best, (clock() - t0) / calls)
    return best


def _clock_cost(calls: int = 20_000) -> float:
    """Seconds that ``time.perf_counter`` reports around nothing (the least of three tries)."""
    clock, best = time.perf_counter, 1.0
    for _ in range(3):
        total = 0.0
        for _ in range(calls):
            t0 = clock()
            total += clock() - t0
        best = min(best, total / calls)
    return best


def bench_protocol(seconds: float = 5.0, size: int = 2000, trusted: bool | None = None,
                   language: str = "python", placement: str = "free") -> dict[str, Any]:
    """Per-decision microseconds through the sandbox and through raw pipes, and their ratios.

    ``language``: the trivial bot's (``python`` or ``node``); the raw pipes are Python processes either way.
    ``placement``: where the processes run (``PLACEMENTS``).
    """
    if trusted is None:
        trusted = sandbox_problem() is not None
    observation, legal = sample_message(size)
    # the bytes ProgramBot sends: its move counter starts at 10,000 below, so its messages have this length
    message = protocol.encode_act(observation, legal, 100_000, 10_000)
    bot_orjson = orjson_dir() is not None and language == "python" and not trusted

    tmp = tempfile.mkdtemp(prefix="arena-bench-")
    bots: list[ProgramBot] = []
    procs: list[subprocess.Popen] = []
    try:
        with _placed(placement) as started:
            entry, command, source = TRIVIAL_BOTS[language]
            sources = [("trivial", source)]
            if language == "python":
                sources += [("reading", READING_BOT), ("protocol_only", PROTOCOL_ONLY_BOT)]
            for name, text in sources:
                bot = ProgramBot(_bot_folder(tmp, name, entry, text), command, trusted=trusted, name=name)
                bots.append(bot)
                bot.start("bench", 0, 2, {})
                bot._moves = 10_000  # five digits, as in the pipes' message (up to 90,000 decisions)
            # the JSON floor decodes as the bot does: orjson where the sandboxed SDK has it
            python = [_python(), "-I", "-S", "-c"]
            if language == "node":
                floor, decoder = [interpreter_path("node"), "-e", NODE_JSON_ECHO], "JSON.parse"
            elif bot_orjson:
                floor, decoder = python + [ORJSON_ECHO.format(path=os.path.dirname(orjson_dir()))], "orjson"
            else:
                floor, decoder = python + [JSON_ECHO], "json"
            for argv in (python + [ECHO], floor, python + [JSON_ECHO]):
                procs.append(subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE))
            started()
            if bot_orjson:  # the trivial bot decodes the legal actions alone, the reading one whole messages
                legal_bytes = len(protocol.encode_value(legal))
                _to_steady_state(bots[0], [(observation, legal)], lambda i: legal_bytes)
                _to_steady_state(bots[1], [(observation, legal)], lambda i: len(message))

            def json_step(proc: subprocess.Popen) -> Any:
                fd, readline = proc.stdin.fileno(), proc.stdout.readline

                def step() -> None:
                    os.write(fd, protocol.encode_act(observation, legal, 100_000, 10_000))
                    protocol.parse_answer(readline(), len(legal))
                return step

            fd, readline = procs[0].stdin.fileno(), procs[0].stdout.readline

            def raw_step() -> None:
                os.write(fd, message)
                readline()

            def sandbox_step(bot: ProgramBot) -> Any:
                return lambda: bot.act(observation, legal, 100_000)

            sandbox_t, floor_t, json_t, raw_t, *python_t = _interleaved(
                [sandbox_step(bots[0]), json_step(procs[1]), json_step(procs[2]), raw_step]
                + [sandbox_step(bot) for bot in bots[1:]], seconds)
    finally:
        _clean_up(bots, procs, tmp)

    med = statistics.median
    python_only = {}
    if python_t:  # the same bot reading its observation (every message decoded whole); the host's share alone
        reading_t, host_t = python_t
        python_only = {
            "sandbox_reading_us_per_decision": round(med(reading_t) * 1e6, 1),
            "ratio_to_bytes_only_reading": round(med(s / r for s, r in zip(reading_t, raw_t)), 2),
            "ratio_to_json_pipe_reading": round(med(s / f for s, f in zip(reading_t, floor_t)), 2),
            # the real path to a program that answers without the SDK or JSON: the host's part of a decision
            "host_path_us_per_decision": round(med(host_t) * 1e6, 1),
            "ratio_host_path_to_bytes_only": round(med(h / r for h, r in zip(host_t, raw_t)), 2),
            # of which encoding the line (encode_act, in this process)
            "host_encode_us": round(_encode_cost(observation, legal) * 1e6, 1),
            # the rest is the SDK's: the trivial bot's decision less the host's part
            "sdk_us_per_decision": round(med(s - h for s, h in zip(sandbox_t, host_t)) * 1e6, 1)}
    return {
        "bench": "protocol",
        "sandbox": not trusted,
        "language": language,
        "placement": placement,
        # every side moves these bytes per decision (the whole observation: no deltas) and a 13-byte answer
        "message_bytes": len(message),
        "decisions": len(sandbox_t) * 200,
        "rounds": len(sandbox_t),
        # medians over rounds (each round: 200 decisions of each step, back to back)
        # the real path: ProgramBot.act -> bwrap -> SDK bot -> back, deadline and checks included
        "sandbox_us_per_decision": round(med(sandbox_t) * 1e6, 1),
        # the floor: the same bytes echoed with no JSON at all
        "raw_bytes_us_per_decision": round(med(raw_t) * 1e6, 1),
        "ratio_to_bytes_only": round(med(s / r for s, r in zip(sandbox_t, raw_t)), 2),
        "goal_ratio_to_bytes_only": 2.0,
        **python_only,
        # the JSON floor: the host encodes, a plain process decodes with the bot's decoder, the host parses
        "json_pipe_us_per_decision": round(med(floor_t) * 1e6, 1),
        "json_pipe_decoder": decoder,
        "ratio_to_json_pipe": round(med(s / f for s, f in zip(sandbox_t, floor_t)), 2),
        # the same with the standard library's json on the bot's side
        "raw_pipe_us_per_decision": round(med(json_t) * 1e6, 1),
        "ratio": round(med(s / j for s, j in zip(sandbox_t, json_t)), 2),
        "goal_ratio": 1.5,
        "orjson": {"host": protocol.orjson is not None, "bot": bot_orjson},
        "python": sys.version.split()[0],
    }


def _played(game_id: str, seeds: range, players: int) -> Iterator[tuple[Any, list]]:
    """Seat 0's (observation, legal actions) at each of its decisions in seeded random games, one pass, each
    built by the engine when it is yielded (and good until the next: an engine may change them as it plays on)."""
    import random

    from engines.games import get_game

    game = get_game(game_id)
    for seed in seeds:
        state = game.setup(players, seed, None)
        rng = random.Random(seed)
        while (seat := game.to_move(state)) is not None:
            legal = game.legal_actions(state, seat)
            if seat == 0:
                yield game.observe(state, 0), legal
            game.apply(state, seat, legal[rng.randrange(len(legal))])


def game_decisions(game_id: str, seeds: range = range(1, 4), players: int = 4) -> list[tuple[Any, list]]:
    """Seat 0's (observation, legal actions) at each of its decisions in seeded random games (copies:
    an engine may change a list it handed out later)."""
    import copy

    return [copy.deepcopy(decision) for decision in _played(game_id, seeds, players)]


def live_decisions(game_id: str, seeds: range = range(1, 4), players: int = 4) -> Iterator[tuple[Any, list]]:
    """``game_decisions``' decisions, in the same order and looping, each built by the engine when it is asked
    for, as a match builds an observation just before it sends it (its objects fresh in the CPU's caches)."""
    while True:
        yield from _played(game_id, seeds, players)


def game_messages(decisions: list[tuple[Any, list]], move0: int = 10_000) -> tuple[list[bytes], ...]:
    """The act lines ``ProgramBot`` sends for ``decisions`` from move ``move0`` on (time left 100,000 ms):
    whole, and with deltas on the first pass and on later passes (which follow the last decision)."""
    whole = [protocol.encode_act(o, legal, 100_000, move0 + i) for i, (o, legal) in enumerate(decisions)]
    encoder = protocol.DeltaEncoder()
    delta_first = [encoder.encode(o, legal, 100_000, move0 + i) for i, (o, legal) in enumerate(decisions)]
    delta_loop = [encoder.encode(o, legal, 100_000, move0 + i) for i, (o, legal) in enumerate(decisions)]
    return whole, delta_first, delta_loop


def json_cpu_us(game_id: str, decisions: list[tuple[Any, list]], whole: list[bytes], deltas: list[bytes],
                repeats: int = 5) -> dict[str, float]:
    """Microseconds a decision of the JSON work alone, in this process (best of ``repeats``): the host
    building the lines (whole: ``encode_act``, delta: a ``DeltaEncoder``), timed around each call as the game
    is played (``live_decisions``: the observation just built, as in a match), and the Python SDK's ``run``
    reading them, in CPU time (decode, merge, the bot's copies, the answer, freeing) for a bot that does not
    read its observation (``bot_whole``: the legal actions alone are decoded) and for one that does
    (``bot_whole_reading``; with deltas, every message is decoded)."""
    import io
    from itertools import islice

    sdk = _load_sdk()
    sdk.ORJSON_AFTER_BYTES = 0  # the steady state: orjson from the first message (a bot switches after 3 MB)
    start = protocol.encode(protocol.start_message(game_id, 0, 4, {}))
    n = len(decisions)

    def best(work: Any) -> float:
        times = []
        for _ in range(repeats):
            t0 = time.process_time()
            work()
            times.append(time.process_time() - t0)
        return round(min(times) / n * 1e6, 2)

    def host(encoder: Any) -> float:
        clock, own, times = time.perf_counter, _clock_cost(), []
        for _ in range(repeats):
            total, encode = 0.0, encoder()
            for i, (observation, legal) in enumerate(islice(live_decisions(game_id), n)):
                t0 = clock()
                encode(observation, legal, 100_000, 10_000 + i)
                total += clock() - t0
            times.append(total / n - own)
        return round(min(times) * 1e6, 2)

    def bot(lines: list[bytes], deltas: bool, act: Any = lambda observation, legal_actions: 0) -> Any:
        stream = start + b"".join(lines)
        return lambda: sdk.run(act, stdin=io.BytesIO(stream), stdout=io.BytesIO(), deltas=deltas)

    return {"host_whole": host(lambda: protocol.encode_act), "host_delta": host(lambda: protocol.DeltaEncoder().encode),
            "bot_whole": best(bot(whole, False)),
            "bot_whole_reading": best(bot(whole, False, lambda observation, legal_actions: len(observation) and 0)),
            "bot_delta": best(bot(deltas, True))}


def bench_protocol_game(game_id: str, seconds: float = 5.0, trusted: bool | None = None,
                        min_bytes: int | None = None, placement: str = "same") -> dict[str, Any]:
    """Per-decision microseconds of real observations (``live_decisions``: seat 0's, built by the engine just
    before each decision, in order and in a loop) through the sandbox to a trivial Python SDK bot, whole messages and deltas, each with
    its bytes-only pipe (the very bytes that mode sends), and the JSON floor of whole messages; with whole
    messages also to the same bot reading its observation (``*_reading``).

    ``min_bytes``: the host's ``DeltaEncoder.MIN_BYTES`` for this run (0: a delta at every decision).
    ``placement``: where the processes run (``PLACEMENTS``; by default on one core, where the kernel's
    placement moves the figures least).
    """
    if min_bytes is not None:
        default = protocol.DeltaEncoder.MIN_BYTES
        protocol.DeltaEncoder.MIN_BYTES = min_bytes
        try:
            return bench_protocol_game(game_id, seconds, trusted, placement=placement)
        finally:
            protocol.DeltaEncoder.MIN_BYTES = default
    if trusted is None:
        trusted = sandbox_problem() is not None
    decisions = game_decisions(game_id)
    n = len(decisions)
    move0 = 10_000
    whole, delta_first, delta_loop = game_messages(decisions, move0)

    cpu = json_cpu_us(game_id, decisions, whole, delta_first)
    tmp = tempfile.mkdtemp(prefix="arena-bench-")
    bots: list[ProgramBot] = []
    procs: list[subprocess.Popen] = []
    try:
        with _placed(placement) as started:
            for name, source in (("whole", TRIVIAL_BOT), ("delta", TRIVIAL_DELTA_BOT), ("reading", READING_BOT)):
                bot = ProgramBot(_bot_folder(tmp, name, "main.py", source), ["python3", "main.py"], trusted=trusted,
                                 name=name)
                bots.append(bot)
                bot.start(game_id, 0, 4, {})
                bot._moves = move0
            assert bots[1]._delta is not None and bots[0]._delta is None
            python = [_python(), "-I", "-S", "-c"]
            bot_orjson = orjson_dir() is not None and not trusted
            floor = ORJSON_ECHO.format(path=os.path.dirname(orjson_dir())) if bot_orjson else JSON_ECHO
            for argv in (python + [ECHO], python + [ECHO], python + [floor]):
                procs.append(subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE))
            started()
            if bot_orjson:  # then each goes on from the first decision, after the last
                legal_bytes = [len(protocol.encode_value(legal)) for _, legal in decisions]
                for bot, decoded in zip(bots, (legal_bytes, list(map(len, delta_loop)), list(map(len, whole)))):
                    _to_steady_state(bot, decisions, decoded.__getitem__)

            # Every step plays its own game on to seat 0's next decision (untimed), then times the decision.
            clock = time.perf_counter

            def sandbox_step(bot: ProgramBot) -> Any:
                live = live_decisions(game_id)

                def step() -> float:
                    observation, legal = next(live)
                    t0 = clock()
                    bot.act(observation, legal, 100_000)
                    return clock() - t0
                return step

            def bytes_step(proc: subprocess.Popen, first: list[bytes], loop: list[bytes]) -> Any:
                fd, readline, counter, live = proc.stdin.fileno(), proc.stdout.readline, [0], live_decisions(game_id)

                def step() -> float:
                    i = counter[0]
                    counter[0] = i + 1
                    next(live)  # the engine's work between two decisions, as the sandboxed bots' steps do
                    line = (first if i < n else loop)[i % n]
                    t0 = clock()
                    os.write(fd, line)
                    readline()
                    return clock() - t0
                return step

            fd, readline, counter, live = procs[2].stdin.fileno(), procs[2].stdout.readline, [0], live_decisions(game_id)

            def floor_step() -> float:
                i = counter[0]
                counter[0] = i + 1
                observation, legal = next(live)
                t0 = clock()
                os.write(fd, protocol.encode_act(observation, legal, 100_000, move0 + i % n))
                protocol.parse_answer(readline(), len(legal))
                return clock() - t0

            whole_t, delta_t, bytes_t, bytes_delta_t, floor_t, reading_t = _interleaved(
                [sandbox_step(bots[0]), sandbox_step(bots[1]), bytes_step(procs[0], whole, whole),
                 bytes_step(procs[1], delta_first, delta_loop), floor_step, sandbox_step(bots[2])], seconds,
                timed=True)
    finally:
        _clean_up(bots, procs, tmp)

    med = statistics.median
    return {
        "bench": "protocol",
        "game": game_id,
        "sandbox": not trusted,
        "placement": placement,
        "decisions": len(whole_t) * 200,
        "rounds": len(whole_t),
        # seat 0 of seeded 4-player games, seeds 1-3, replayed in order
        "observations": n,
        "message_bytes": round(statistics.mean(map(len, whole))),
        "message_bytes_delta": round(statistics.mean(map(len, delta_loop))),
        "delta_min_bytes": protocol.DeltaEncoder.MIN_BYTES,
        # whole messages (every bot that does not ask for deltas)
        "sandbox_us_per_decision": round(med(whole_t) * 1e6, 1),
        "raw_bytes_us_per_decision": round(med(bytes_t) * 1e6, 1),
        "ratio_to_bytes_only": round(med(s / r for s, r in zip(whole_t, bytes_t)), 2),
        "json_pipe_us_per_decision": round(med(floor_t) * 1e6, 1),
        "ratio_to_json_pipe": round(med(s / f for s, f in zip(whole_t, floor_t)), 2),
        "sandbox_reading_us_per_decision": round(med(reading_t) * 1e6, 1),
        "ratio_to_bytes_only_reading": round(med(s / r for s, r in zip(reading_t, bytes_t)), 2),
        "ratio_to_json_pipe_reading": round(med(s / f for s, f in zip(reading_t, floor_t)), 2),
        # deltas: against a pipe moving the delta bytes, and against the whole messages' pipe
        "sandbox_delta_us_per_decision": round(med(delta_t) * 1e6, 1),
        "raw_bytes_delta_us_per_decision": round(med(bytes_delta_t) * 1e6, 1),
        "ratio_to_bytes_only_delta": round(med(s / r for s, r in zip(delta_t, bytes_delta_t)), 2),
        "ratio_delta_to_full_bytes": round(med(s / r for s, r in zip(delta_t, bytes_t)), 2),
        "goal_ratio_to_bytes_only": 2.0,
        "delta_speedup": round(med(w / d for w, d in zip(whole_t, delta_t)), 2),
        # the JSON work alone, CPU µs a decision in this process: host encoding, the SDK's side
        "json_cpu_us": cpu,
    }
