"""Any language: JavaScript bots on node and the bot's own static x86-64 executable, in the same sandbox."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from arena_testing import zip_of
import engines.sandbox.runner as runner
from engines.bots import BotFault, RandomBot
from engines.games import GAME_IDS, get_game
from engines.match import MatchLimits, play_match
from engines.sandbox import ProgramBot, SandboxLimits, SandboxUnavailable, check_package

from sandbox_helpers import write_bot

REPO = Path(__file__).resolve().parents[2]
STARTERS = REPO / "engines" / "sdk" / "starters"
LIMITS = SandboxLimits(move_ms=2000, start_ms=10_000)
NODE = shutil.which("node") or shutil.which("nodejs")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed (Debian package 'nodejs')")


def _modes():
    return [pytest.param(False, marks=pytest.mark.sandbox, id="sandboxed"), pytest.param(True, id="trusted")]


def test_a_javascript_starter_for_every_game():
    assert {p.stem for p in STARTERS.glob("*.js")} >= set(GAME_IDS)


@needs_node
@pytest.mark.sandbox
@pytest.mark.parametrize("game", GAME_IDS)
def test_javascript_starter_through_the_sandbox(game):
    players = max(get_game(game).min_players, 3)
    bot = ProgramBot.from_path(STARTERS / f"{game}.js", limits=LIMITS)
    assert bot.command == ["node", "main.js"]
    log = play_match(game, [bot] + [RandomBot(s) for s in range(players - 1)], seed=5,
                     limits=MatchLimits(match_ms=120_000))
    assert log.faults == [], log.faults
    assert log.outcome is not None
    assert f"playing {game} as seat 0 of {players}" in bot.stderr_tail()


@needs_node
@pytest.mark.parametrize("trusted", _modes())
def test_javascript_logs_go_to_stderr_and_async_act_works(tmp_path, trusted):
    path = write_bot(tmp_path / "b", """
        const arena = require("arena_bot");
        console.log("hello from the top");
        arena.run(async (observation, legalActions) => {
          console.log("choosing among", legalActions.length, "at move", arena.match.move);
          return legalActions.length - 1;
        });
        """, name="main.js")
    bot = ProgramBot.from_path(path.parent, trusted=trusted, limits=LIMITS)
    try:
        bot.start("count", 0, 1, {})
        assert bot.act({}, [1, 2]) == 1
        assert bot.act({}, [1, 2, 3]) == 2
        tail = bot.stderr_tail()
        assert "hello from the top" in tail and "choosing among 3 at move 1" in tail
    finally:
        bot.close()


@needs_node
def test_the_javascript_sdk_says_act_must_return_an_index(tmp_path):
    """As the Python SDK: an action (or nothing) returned instead of its index stops the bot with a message
    that says so, in its stderr (the host records the crash)."""
    path = write_bot(tmp_path / "b", """
        const arena = require("arena_bot");
        arena.run((observation, legalActions) => legalActions[0]);
        """, name="main.js")
    bot = ProgramBot.from_path(path.parent, trusted=True, limits=LIMITS)
    try:
        bot.start("count", 0, 1, {})
        with pytest.raises(BotFault) as info:
            bot.act({}, [{"type": "a"}, {"type": "b"}])
        assert info.value.kind == "crash"
        assert 'act must return the index of its choice in legal_actions (an integer from 0), not object {"type":"a"}' \
            in bot.stderr_tail()
    finally:
        bot.close()


@needs_node
@pytest.mark.sandbox
def test_a_javascript_memory_hog_is_stopped_by_the_memory_limit(tmp_path, count_game):
    path = write_bot(tmp_path / "hog", """
        const arena = require("arena_bot");
        const hog = [];
        arena.run(() => {
          for (;;) hog.push(Buffer.alloc(8 * 1024 * 1024, 1));
        });
        """, name="main.js")
    bot = ProgramBot.from_path(path.parent, limits=SandboxLimits(move_ms=5000, memory_mb=128))
    log = play_match("count", [bot, RandomBot(1)], seed=3, limits=MatchLimits(match_ms=60_000))
    assert {f["kind"] for f in log.faults if f["seat"] == 0} == {"crash"}, log.faults
    tails = bot.stderr_tail() + "".join(f["stderr_tail"] for f in log.faults)
    assert re.search(r"allocation failed|out of memory|Last few GCs", tails), tails[-2000:]  # V8's own report
    assert 0 in log.forfeits


def test_a_missing_interpreter_is_the_platform_s_problem_not_the_bot_s(tmp_path, monkeypatch):
    monkeypatch.setattr(runner, "interpreter_path", lambda name: None)
    path = write_bot(tmp_path / "b", "require('arena_bot').run(() => 0);\n", name="main.js")
    with pytest.raises(SandboxUnavailable, match="node is not installed on this machine"):
        ProgramBot.from_path(path.parent, trusted=True)


# --- the bot's own executable -------------------------------------------------------------------

C_BOT = r"""
#include <stdio.h>
#include <string.h>

/* Answers "start" with ready and every "act" with the last legal action; counts the actions by
   their '{' (each action of the count game is a flat object); exits on "end" or EOF. */
int main(void) {
    static char line[1 << 20];
    setvbuf(stdout, NULL, _IONBF, 0);
    while (fgets(line, sizeof line, stdin)) {
        if (strstr(line, "\"type\":\"start\"")) {
            printf("{\"ready\":true,\"protocol\":1}\n");
        } else if (strstr(line, "\"type\":\"act\"")) {
            char *legal = strstr(line, "\"legal_actions\":[");
            int n = 0;
            for (char *p = legal; p && *p && *p != ']'; p++) n += (*p == '{');
            fprintf(stderr, "choosing among %d\n", n);
            printf("{\"action\":%d}\n", n > 0 ? n - 1 : 0);
        } else if (strstr(line, "\"type\":\"end\"")) {
            return 0;
        }
    }
    return 0;
}
"""


def build_static_c_bot(folder: Path) -> bytes:
    """A static C bot built with gcc exactly as docs/bot-protocol.md says; skips where gcc cannot."""
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed (Debian package 'gcc')")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bot.c").write_text(C_BOT)
    result = subprocess.run(["gcc", "-static", "-O2", "-o", "bot", "bot.c"], cwd=folder, capture_output=True,
                            text=True, timeout=120)
    if result.returncode != 0:
        pytest.skip(f"gcc cannot link a static binary here (libc6-dev's libc.a missing?): {result.stderr[-300:]}")
    return (folder / "bot").read_bytes()


@pytest.mark.sandbox
def test_a_static_c_bot_plays_in_the_sandbox(tmp_path, count_game):
    binary = build_static_c_bot(tmp_path / "src")
    # The binary is zipped without its exec bit: the checker sets it on extraction.
    package = check_package(zip_of({"bot.json": json.dumps({"command": ["./bot"]}).encode(), "bot": binary}), "cbot.zip")
    assert package.command == ["./bot"]
    bot = ProgramBot.from_package(package, limits=LIMITS)
    log = play_match("count", [bot, RandomBot(1)], seed=3, limits=MatchLimits(match_ms=30_000))
    assert log.faults == [] and log.forfeits == {}
    assert [m[1]["n"] for m in log.moves if m[0] == 0] == [3, 3, 3, 3]  # always the last of 1, 2, 3
    assert "choosing among 3" in bot.stderr_tail()


@pytest.mark.sandbox
def test_a_static_binary_is_limited_like_any_bot(tmp_path, count_game):
    """The same limits hold for an executable: here the CPU limit stops a C busy loop."""
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed (Debian package 'gcc')")
    folder = tmp_path / "spin"
    folder.mkdir()
    (folder / "bot.c").write_text('#include <stdio.h>\nint main(void){char l[65536];setvbuf(stdout,0,_IONBF,0);'
                                  'fgets(l,sizeof l,stdin);printf("{\\"ready\\":true,\\"protocol\\":1}\\n");'
                                  'for(volatile unsigned long i=0;;i++);}\n')
    result = subprocess.run(["gcc", "-static", "-O2", "-o", "bot", "bot.c"], cwd=folder, capture_output=True,
                            timeout=120)
    if result.returncode != 0:
        pytest.skip("gcc cannot link a static binary here")
    (folder / "bot.json").write_text('{"command": ["./bot"]}')
    (folder / "bot.c").unlink()
    bot = ProgramBot.from_path(folder, limits=SandboxLimits(cpu_s=1, move_ms=20_000))
    try:
        bot.start("count", 0, 1, {})
        with pytest.raises(BotFault) as info:
            bot.act({}, [1, 2])
        assert info.value.kind == "crash" and "CPU time limit" in info.value.detail
    finally:
        bot.close()


@needs_node
@pytest.mark.sandbox
def test_the_protocol_bench_measures_a_javascript_bot():
    from engines.sandbox.bench import bench_protocol

    result = bench_protocol(seconds=0.2, language="node")
    assert result["language"] == "node" and result["sandbox"] is True
    assert result["decisions"] > 0 and result["sandbox_us_per_decision"] > 0
    assert result["json_pipe_decoder"] == "JSON.parse" and result["json_pipe_us_per_decision"] > 0


@needs_node
@pytest.mark.sandbox
def test_a_javascript_bot_sees_no_host_files_and_no_network(tmp_path, count_game):
    path = write_bot(tmp_path / "probe", """
        const fs = require("fs");
        const net = require("net");
        const arena = require("arena_bot");
        for (const file of ["/etc/passwd", "/root", "/work", "/proc/1/environ"]) {
          try { fs.readFileSync(file); console.log("LEAK read", file); } catch (e) { console.log("denied", file, e.code); }
        }
        try { fs.writeFileSync("/bot/x", "x"); console.log("LEAK wrote /bot"); } catch (e) { console.log("denied /bot", e.code); }
        const socket = net.connect(5432, "127.0.0.1");
        socket.on("connect", () => console.log("LEAK connected"));
        socket.on("error", (e) => console.log("no network", e.code));
        arena.run(() => new Promise((resolve) => setTimeout(() => resolve(0), 50)));
        """, name="main.js")
    bot = ProgramBot.from_path(path.parent, limits=LIMITS)
    log = play_match("count", [bot, RandomBot(1)], seed=3, limits=MatchLimits(match_ms=30_000))
    tail = bot.stderr_tail() + "".join(f["stderr_tail"] for f in log.faults)
    assert log.faults == [], log.faults
    assert "LEAK" not in tail and "denied /etc/passwd ENOENT" in tail and "no network" in tail, tail
