"""Protocol benchmark: per-decision cost of a trivial bot through the sandbox vs raw pipes.

``python -m engines bench --protocol`` prints one JSON line. The sandboxed side is the real path
(``ProgramBot.act``: encode the message, write it, wait for the answer with the move deadline,
parse and check it) to a bot written with the SDK that answers 0. Three plain processes on
pipes (no sandbox, no SDK, no deadline, blocking reads) move the same message, interleaved with it:

- bytes only: echoes a fixed answer to each line, no JSON at all (``raw_bytes_us_per_decision``,
  the floor of any line protocol; ``ratio_to_bytes_only`` is the issue's figure);
- the JSON floor: the host encodes the message as ``ProgramBot`` does, the process decodes it with
  the bot's decoder (orjson when the sandbox offers it; node's JSON.parse for a node bot) and answers,
  the host parses the answer
  (``json_pipe_us_per_decision``; ``ratio_to_json_pipe`` is what the sandbox, the runner and the SDK add);
- the standard library: the same with ``json`` on the bot's side (``raw_pipe_us_per_decision``).

Every message is the whole observation: protocol 1 sends no deltas.
"""
from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

from engines import protocol

from .runner import ProgramBot, _python, interpreter_path, orjson_dir, sandbox_problem

TRIVIAL_BOT = "import arena_bot\narena_bot.run(lambda observation, legal_actions: 0)\n"
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


def sample_message(size: int = 2000) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """An observation of about ``size`` bytes of JSON and ten legal actions (game-independent)."""
    cards = []
    while len(protocol.encode({"cards": cards})) < size:
        n = len(cards)
        cards.append({"id": n, "kind": "ship" if n % 3 else "person", "colour": "red", "cost": n % 7, "ip": n % 4})
    observation = {"you": 0, "round": 3, "harbour": cards, "players": [{"seat": s, "coins": 3} for s in range(4)]}
    return observation, [{"type": "take", "card": i} for i in range(10)]


def _interleaved(steps: list, seconds: float, block: int = 200) -> list[list[float]]:
    """Run each step in turn in blocks of ``block`` calls until ``seconds`` have passed; return, per
    step, the seconds per call of each block (one block of every step per round).

    Interleaving makes the steps see the same machine load (other processes, CPU frequency); the
    ratio of two steps is taken within each round and the median over rounds reported, so that a
    burst of load elsewhere moves neither.
    """
    for step in steps:
        for _ in range(50):  # warm up
            step()
    blocks: list[list[float]] = [[] for _ in steps]
    clock = time.perf_counter
    started = clock()
    while clock() - started < seconds or not blocks[0]:
        for step, times in zip(steps, blocks):
            t0 = clock()
            for _ in range(block):
                step()
            times.append((clock() - t0) / block)
    return blocks


def bench_protocol(seconds: float = 5.0, size: int = 2000, trusted: bool | None = None,
                   language: str = "python") -> dict[str, Any]:
    """Per-decision microseconds through the sandbox and through raw pipes, and their ratios.

    ``language``: the trivial bot's (``python`` or ``node``); the raw pipes are Python processes either way.
    """
    if trusted is None:
        trusted = sandbox_problem() is not None
    observation, legal = sample_message(size)
    # the bytes ProgramBot sends: its move counter starts at 10,000 below, so its messages have this length
    message = protocol.encode(protocol.act_message(observation, legal, 100_000, 10_000))
    bot_orjson = orjson_dir() is not None and language == "python" and not trusted

    tmp = tempfile.mkdtemp(prefix="arena-bench-")
    bot = None
    procs: list[subprocess.Popen] = []
    try:
        folder = os.path.join(tmp, "bot")
        os.mkdir(folder)
        entry, command, source = TRIVIAL_BOTS[language]
        with open(os.path.join(folder, entry), "w") as fh:
            fh.write(source)
        os.chmod(folder, 0o755)
        os.chmod(os.path.join(folder, entry), 0o644)
        bot = ProgramBot(folder, command, trusted=trusted, name="trivial")
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

        def json_step(proc: subprocess.Popen) -> Any:
            fd, readline = proc.stdin.fileno(), proc.stdout.readline

            def step() -> None:
                os.write(fd, protocol.encode(protocol.act_message(observation, legal, 100_000, 10_000)))
                protocol.parse_answer(readline(), len(legal))
            return step

        fd, readline = procs[0].stdin.fileno(), procs[0].stdout.readline

        def raw_step() -> None:
            os.write(fd, message)
            readline()

        def sandbox_step() -> None:
            bot.act(observation, legal, 100_000)

        sandbox_t, floor_t, json_t, raw_t = _interleaved(
            [sandbox_step, json_step(procs[1]), json_step(procs[2]), raw_step], seconds)
    finally:
        if bot is not None:
            bot.close()
        for proc in procs:
            proc.kill()
            proc.wait()
            proc.stdin.close()
            proc.stdout.close()
        shutil.rmtree(tmp, ignore_errors=True)

    med = statistics.median
    return {
        "bench": "protocol",
        "sandbox": not trusted,
        "language": language,
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
