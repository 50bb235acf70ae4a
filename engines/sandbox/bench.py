"""Protocol benchmark: per-decision cost of a trivial bot through the sandbox vs a raw pipe.

``python -m engines bench --protocol`` prints one JSON line. The sandboxed side is the real path
(``ProgramBot.act``: encode the message, write it, wait for the answer with the move deadline,
parse and check it) to a bot written with the SDK that answers 0. The raw pipe does the same
JSON work with no sandbox, no SDK and no deadline handling (the host encodes the same message, a
plain Python process decodes it and answers, the host parses the answer): the ratio between them is
the cost of the sandbox and the runner. The floor, the same bytes echoed with no JSON at all, is
reported too (``raw_bytes_us_per_decision``).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Any

from engines import protocol

from .runner import ProgramBot, _python, sandbox_problem

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


def sample_message(size: int = 2000) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """An observation of about ``size`` bytes of JSON and ten legal actions (game-independent)."""
    cards = []
    while len(protocol.encode({"cards": cards})) < size:
        n = len(cards)
        cards.append({"id": n, "kind": "ship" if n % 3 else "person", "colour": "red", "cost": n % 7, "ip": n % 4})
    observation = {"you": 0, "round": 3, "harbour": cards, "players": [{"seat": s, "coins": 3} for s in range(4)]}
    return observation, [{"type": "take", "card": i} for i in range(10)]


def _interleaved(steps: list, seconds: float, block: int = 200) -> list[tuple[int, float]]:
    """Run each step in turn in blocks of ``block`` calls until ``seconds`` have passed.

    Interleaving makes both sides see the same machine load (other processes, CPU frequency).
    """
    for step in steps:
        for _ in range(50):  # warm up
            step()
    totals = [[0, 0.0] for _ in steps]
    clock = time.perf_counter
    started = clock()
    while clock() - started < seconds:
        for step, total in zip(steps, totals):
            t0 = clock()
            for _ in range(block):
                step()
            total[0] += block
            total[1] += clock() - t0
    return [(n, s) for n, s in totals]


def bench_protocol(seconds: float = 5.0, size: int = 2000, trusted: bool | None = None,
                   language: str = "python") -> dict[str, Any]:
    """Per-decision microseconds through the sandbox and through a raw pipe, and their ratio.

    ``language``: the trivial bot's (``python`` or ``node``); the raw pipe is a Python process either way.
    """
    if trusted is None:
        trusted = sandbox_problem() is not None
    observation, legal = sample_message(size)
    message = protocol.encode(protocol.act_message(observation, legal, 100_000, 1))

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
        for code in (ECHO, JSON_ECHO):
            procs.append(subprocess.Popen([_python(), "-I", "-S", "-c", code],
                                          stdin=subprocess.PIPE, stdout=subprocess.PIPE))
        fd, readline = procs[0].stdin.fileno(), procs[0].stdout.readline
        json_fd, json_readline = procs[1].stdin.fileno(), procs[1].stdout.readline

        def raw_step() -> None:
            os.write(fd, message)
            readline()

        def raw_json_step() -> None:
            os.write(json_fd, protocol.encode(protocol.act_message(observation, legal, 100_000, 1)))
            protocol.parse_answer(json_readline(), len(legal))

        def sandbox_step() -> None:
            bot.act(observation, legal, 100_000)

        results = _interleaved([sandbox_step, raw_json_step, raw_step], seconds)
    finally:
        if bot is not None:
            bot.close()
        for proc in procs:
            proc.kill()
            proc.wait()
            proc.stdin.close()
            proc.stdout.close()
        shutil.rmtree(tmp, ignore_errors=True)

    (sandbox_n, sandbox_s), (json_n, json_s), (raw_n, raw_s) = results
    sandbox_us, json_us, raw_us = sandbox_s / sandbox_n * 1e6, json_s / json_n * 1e6, raw_s / raw_n * 1e6
    return {
        "bench": "protocol",
        "sandbox": not trusted,
        "language": language,
        "message_bytes": len(message),
        "decisions": sandbox_n,
        # the real path: ProgramBot.act -> bwrap -> SDK bot -> back, deadline and checks included
        "sandbox_us_per_decision": round(sandbox_us, 1),
        # a plain process on a pipe doing the same JSON work (encode, decode, answer, parse)
        "raw_pipe_us_per_decision": round(json_us, 1),
        "ratio": round(sandbox_us / json_us, 2),
        "goal_ratio": 1.5,
        # the floor: the same bytes echoed with no JSON at all
        "raw_bytes_us_per_decision": round(raw_us, 1),
        "ratio_to_bytes_only": round(sandbox_us / raw_us, 2),
        "python": sys.version.split()[0],
    }
