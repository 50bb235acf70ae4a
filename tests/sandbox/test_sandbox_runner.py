"""The protocol, the SDK, ProgramBot (sandboxed and trusted), starters, the CLI and the doc."""
from __future__ import annotations

import importlib.util
import io
import json
import shutil
import os
import subprocess
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

import pytest

import engines.sandbox.runner as runner
from engines import protocol
from engines.bots import Bot, BotFault, RandomBot
from engines.games import GAME_IDS, available_games
from engines.match import MatchLimits, play_match
from engines.sandbox import ProgramBot, SandboxLimits, SandboxUnavailable

from sandbox_helpers import write_bot

REPO = Path(__file__).resolve().parents[2]
STARTERS = REPO / "engines" / "sdk" / "starters"
LIMITS = SandboxLimits(move_ms=1000, start_ms=5000)


# --- protocol ----------------------------------------------------------------------------------

def test_encode_is_one_compact_utf8_line():
    line = protocol.encode({"a": "é\n", "b": [1, 2]})
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert json.loads(line) == {"a": "é\n", "b": [1, 2]}


@pytest.mark.parametrize("line, kind", [
    (b'{"action": 5}', "illegal"), (b'{"action": -1}', "illegal"), (b'{"action": "1"}', "garbage"),
    (b'{"action": true}', "garbage"), (b'{"action": 1.0}', "garbage"), (b'[1]', "garbage"),
    (b'{"move": 1}', "garbage"), (b"1", "garbage"), (b"\xff", "garbage"), (b"", "garbage"),
    (b'{"action": 0' + b" " * protocol.MAX_ANSWER_BYTES + b"}", "garbage"),
])
def test_parse_answer_refuses(line, kind):
    with pytest.raises(protocol.ProtocolError) as info:
        protocol.parse_answer(line, 3)
    assert info.value.kind == kind


def test_parse_answer_and_ready():
    assert protocol.parse_answer(b'{"action": 2, "note": "x"}', 3) == 2
    assert protocol.parse_ready(b'{"ready": true, "protocol": 1}')["ready"] is True
    with pytest.raises(protocol.ProtocolError):
        protocol.parse_ready(b'{"ready": true, "protocol": 2}')
    with pytest.raises(protocol.ProtocolError):
        protocol.parse_ready(b'{"action": 0}')


# --- SDK ---------------------------------------------------------------------------------------

def load_sdk():
    sys.path.insert(0, str(REPO / "engines" / "sdk"))
    try:
        import arena_bot
    finally:
        sys.path.pop(0)
    return arena_bot


def test_sdk_speaks_the_protocol():
    arena_bot = load_sdk()
    seen = {}
    messages = [protocol.start_message("count", 1, 2, {"moves": 2}, 500),
                protocol.act_message({"total": 0}, [{"type": "a"}, {"type": "b"}], 900, 1),
                protocol.act_message({"total": 3}, [{"type": "a"}, {"type": "b"}, {"type": "c"}], 800, 3),
                protocol.end_message({"ranks": [1, 0], "scores": [1.0, 2.0]}, 1)]
    stdin = io.BytesIO(b"".join(protocol.encode(m) for m in messages))
    stdout = io.BytesIO()

    def act(observation, legal_actions):
        seen.setdefault("time", []).append(arena_bot.match.time_left_ms)
        return len(legal_actions) - 1

    arena_bot.run(act, start=lambda m: seen.update(seat=m.seat, game=m.game),
                  end=lambda outcome: seen.update(outcome=outcome), stdin=stdin, stdout=stdout)
    lines = stdout.getvalue().splitlines()
    assert protocol.parse_ready(lines[0])
    assert [protocol.parse_answer(line, 3) for line in lines[1:]] == [1, 2]
    assert seen == {"seat": 1, "game": "count", "time": [900, 800], "outcome": {"ranks": [1, 0], "scores": [1.0, 2.0]}}


@pytest.mark.parametrize("reads_observation", [False, True])  # the SDK's two loops (observation left unread or not)
@pytest.mark.parametrize("answer", [{"type": "a"}, None, "first"])
def test_sdk_says_act_must_return_an_index(answer, reads_observation):
    arena_bot = load_sdk()
    messages = [protocol.start_message("count", 0, 2, {}, 500),
                protocol.act_message({"total": 0}, [{"type": "a"}, {"type": "b"}], None, 0)]
    stdin = io.BytesIO(b"".join(protocol.encode(m) for m in messages))
    act = (lambda observation, legal_actions: observation and answer) if reads_observation else \
        (lambda o, legal_actions: answer)
    with pytest.raises(TypeError, match=f"act must return the index of its choice in legal_actions .*, not "
                                        f"{type(answer).__name__}"):
        arena_bot.run(act, stdin=stdin, stdout=io.BytesIO())


# --- ProgramBot --------------------------------------------------------------------------------

def test_untrusted_refused_without_bwrap(tmp_path, monkeypatch):
    path = write_bot(tmp_path / "b", "import arena_bot\narena_bot.run(lambda o, l: 0)\n")
    monkeypatch.setattr(runner.shutil, "which", lambda name: None)
    runner.bwrap_path.cache_clear()
    runner.sandbox_problem.cache_clear()
    staged = set(Path(tempfile.gettempdir()).glob(f"arena-bot-{os.getpid()}-*"))
    try:
        with pytest.raises(SandboxUnavailable, match="bubblewrap"):
            ProgramBot.from_path(path)
        assert set(Path(tempfile.gettempdir()).glob(f"arena-bot-{os.getpid()}-*")) <= staged  # its folder is gone
        bot = ProgramBot.from_path(path, trusted=True, limits=LIMITS)  # an explicit trusted run works
        bot.start("count", 0, 1, {})
        assert bot.act({}, [1, 2]) == 0
        bot.close()
    finally:
        runner.bwrap_path.cache_clear()
        runner.sandbox_problem.cache_clear()


def test_staged_folders_of_dead_processes_are_swept(tmp_path):
    """A worker killed by SIGKILL never closes its bots: the next process to stage one removes their folders."""
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    root = Path(tempfile.gettempdir())
    stale, live, other = (root / f"arena-bot-{dead.pid}-x1", root / f"arena-bot-{os.getpid()}-x2",
                          root / "arena-bot-notapid")
    try:
        for folder in (stale, live, other):
            (folder / "bot").mkdir(parents=True)
            (folder / "bot" / "main.py").write_text("pass\n")
        assert stale.name in runner.sweep_staged.__wrapped__()
        assert not stale.exists() and live.exists() and other.exists()
    finally:
        for folder in (stale, live, other):
            shutil.rmtree(folder, ignore_errors=True)


def test_cli_refuses_untrusted_without_bwrap(tmp_path):
    path = write_bot(tmp_path / "b", "import arena_bot\narena_bot.run(lambda o, l: 0)\n")
    game = available_games()[0]
    result = subprocess.run([sys.executable, "-m", "engines", "play", "--game", game, "--bots", str(path),
                             "random", "random"], cwd=REPO, capture_output=True, text=True,
                            env={"PATH": "/nonexistent"}, timeout=60)
    assert result.returncode == 2 and "bubblewrap" in result.stderr and "--trusted" in result.stderr


def _modes():
    return [pytest.param(False, marks=pytest.mark.sandbox, id="sandboxed"), pytest.param(True, id="trusted")]


@pytest.mark.parametrize("trusted", _modes())
def test_restart_after_a_crash_and_time_bank(tmp_path, count_game, trusted):
    """A bot that crashes once is started again and finishes its match; time_left_ms caps a move."""
    path = write_bot(tmp_path / "b", """
        import sys, time, arena_bot
        def act(observation, legal_actions):
            if arena_bot.match.move == 0:
                sys.exit("x" * 20000 + " first move: crash")
            if arena_bot.match.move == 4:
                time.sleep(0.6)   # within move_ms but over the 300 ms left in the bank
            return 2
        arena_bot.run(act)
        """)
    # move 4's 0.6 s well within its move limit here (a busy machine may add to it); the bank's 300 ms below
    bot = ProgramBot.from_path(path, trusted=trusted, limits=replace(LIMITS, move_ms=5000))
    log = play_match("count", [bot, RandomBot(seed=3)], seed=1, limits=MatchLimits(match_ms=None))
    assert [(f["move"], f["kind"]) for f in log.faults] == [(0, "crash")]
    assert "first move: crash" in log.faults[0]["stderr_tail"]
    assert len(log.faults[0]["stderr_tail"]) <= LIMITS.stderr_tail_bytes
    assert bot.restarts == 1
    assert [m[1]["n"] for m in log.moves if m[0] == 0][1:] == [3, 3, 3]

    bot = ProgramBot.from_path(path, trusted=trusted, limits=LIMITS)
    bot.start("count", 0, 2, {})
    with pytest.raises(BotFault):
        bot.act({}, [1, 2, 3])  # move 0 crashes
    assert bot.act({}, [1, 2, 3], 5000) == 2  # move 1, restarted
    bot.act({}, [1, 2, 3], 5000), bot.act({}, [1, 2, 3], 5000)
    with pytest.raises(BotFault) as info:
        bot.act({}, [1, 2, 3], 300)  # move 4 sleeps 0.6 s, only 300 ms left
    assert info.value.kind == "timeout" and "300 ms" in info.value.detail
    bot.close()


@pytest.mark.parametrize("trusted", _modes())
def test_start_tells_the_time_bank_the_match_keeps(tmp_path, count_game, trusted):
    """``limits.match_ms`` in ``start`` is the bank the match enforces (it said null while a bank ran out)."""
    path = write_bot(tmp_path / "b", """
        import sys, arena_bot
        def act(observation, legal_actions):
            print("LIMITS", arena_bot.match.limits["move_ms"], arena_bot.match.limits["match_ms"], file=sys.stderr)
            return 0
        arena_bot.run(act)
        """)
    for bank in (120_000, None):
        bot = ProgramBot.from_path(path, trusted=trusted, limits=LIMITS)
        log = play_match("count", [bot, RandomBot(seed=3)], seed=1, limits=MatchLimits(match_ms=bank))
        assert not log.faults
        assert f"LIMITS {LIMITS.move_ms} {bank}" in bot.stderr_tail()


# --- starters ----------------------------------------------------------------------------------

class StarterInProcess(Bot):
    """A starter's act() called in-process (fast), to check it over many games."""

    def __init__(self, path: Path, seat: int = 0):
        spec = importlib.util.spec_from_file_location(f"starter_{path.stem}", path)
        sys.path.insert(0, str(REPO / "engines" / "sdk"))
        try:
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
        finally:
            sys.path.pop(0)
        self.module = module
        self.name = path.stem

    def act(self, observation, legal_actions, time_left_ms=None):
        return self.module.act(observation, legal_actions)


def test_a_starter_for_every_game():
    assert {p.stem for p in STARTERS.glob("*.py")} >= set(GAME_IDS)


@pytest.mark.parametrize("game", GAME_IDS)
def test_starter_plays_legally(game):
    if game not in available_games():
        pytest.skip(f"no {game} engine yet")
    from engines.games import get_game

    players = max(get_game(game).min_players, 3)
    for seed in range(3):
        bots = [StarterInProcess(STARTERS / f"{game}.py")] + [RandomBot(seed * 10 + s) for s in range(players - 1)]
        log = play_match(game, bots, seed)
        assert log.faults == [] and log.outcome is not None


def test_smart_port_royal_beats_random():
    if "port_royal" not in available_games():
        pytest.skip("no port_royal engine yet")
    ranks = []
    for seed in range(60):
        seat = seed % 3
        bots = [RandomBot(seed * 10 + s) for s in range(3)]
        bots[seat] = StarterInProcess(STARTERS / "port_royal_smart.py")
        ranks.append(play_match("port_royal", bots, seed).outcome["ranks"][seat])
    assert sum(ranks) / len(ranks) < 0.5  # random's average rank among 3 is about 1


@pytest.mark.sandbox
@pytest.mark.parametrize("game", GAME_IDS)
def test_starter_through_the_sandbox(game):
    if game not in available_games():
        pytest.skip(f"no {game} engine yet")
    from engines.games import get_game

    players = max(get_game(game).min_players, 3)
    bot = ProgramBot.from_path(STARTERS / f"{game}.py", limits=SandboxLimits(move_ms=2000))
    log = play_match(game, [bot] + [RandomBot(s) for s in range(players - 1)], seed=5,
                     limits=MatchLimits(match_ms=120_000))
    assert log.faults == [], log.faults
    assert f"playing {game} as seat 0" in bot.stderr_tail()


# --- CLI and doc -------------------------------------------------------------------------------

@pytest.mark.sandbox
def test_cli_play_with_seat_view_and_log(tmp_path):
    if "port_royal" not in available_games():
        pytest.skip("no port_royal engine yet")
    log_path = tmp_path / "match.json"
    result = subprocess.run([sys.executable, "-m", "engines", "play", "--game", "port_royal", "--bots",
                             str(STARTERS / "port_royal_smart.py"), "random", "random", "--seed", "3",
                             "--seat-view", "0", "--log", str(log_path)],
                            cwd=REPO, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    views = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    assert views and all(v["observation"]["you"] == 0 for v in views)
    assert "place 1" in result.stdout and log_path.exists()
    replayed = subprocess.run([sys.executable, "-m", "engines", "replay", str(log_path)], cwd=REPO,
                              capture_output=True, text=True, timeout=120)
    assert replayed.returncode == 0 and "replay ok" in replayed.stdout


def test_cli_play_shows_a_crashing_bot_s_traceback(tmp_path):
    path = write_bot(tmp_path / "b", """
        import arena_bot
        def act(observation, legal_actions):
            print("thinking about move", arena_bot.match.move)
            return observation["no_such_field"]
        arena_bot.run(act)
        """)
    result = subprocess.run([sys.executable, "-m", "engines", "play", "--game", "port_royal", "--bots", str(path),
                             "random", "--seed", "3", "--trusted"], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr  # the match was played: the faults are its result
    assert "fault: seat 0 move 0 crash" in result.stdout and "forfeited" in result.stdout
    shown = result.stdout.split("seat 0 wrote on stderr", 1)[1].splitlines()
    assert "    | KeyError: 'no_such_field'" in shown and any("thinking about move" in line for line in shown)
    assert len(shown) <= 21


def test_cli_play_read_in_part_ends_without_a_traceback():
    """``play ... | head``: the reader leaves early; the command stops quietly."""
    proc = subprocess.Popen([sys.executable, "-m", "engines", "play", "--game", "port_royal", "--bots", "heuristic",
                             "random", "--seat-view", "0"], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout.readline().startswith(b'{"decision": 0')
    proc.stdout.close()
    assert proc.wait(120) == 1
    assert b"Traceback" not in proc.stderr.read()
    proc.stderr.close()


def test_doc_has_an_example_per_present_game():
    doc = (REPO / "docs" / "bot-protocol.md").read_text()
    for game in available_games():
        section = doc.split(f"### {game}", 1)[1].split("###", 1)[0]
        lines = [line for line in section.splitlines() if line.startswith(("> ", "< "))]
        kinds = [json.loads(line[2:]).get("type", "answer") for line in lines]
        assert kinds == ["start", "answer", "act", "answer", "end"], game


@pytest.mark.parametrize("trusted", _modes())
def test_cpu_limit(tmp_path, trusted):
    path = write_bot(tmp_path / "b", "import arena_bot\ndef act(o, l):\n    while True:\n        pass\narena_bot.run(act)\n")
    bot = ProgramBot.from_path(path, trusted=trusted, limits=SandboxLimits(cpu_s=1, move_ms=20_000))
    try:
        bot.start("count", 0, 1, {})
        with pytest.raises(BotFault) as info:
            bot.act({}, [1, 2])
        assert info.value.kind == "crash" and "CPU time limit" in info.value.detail
    finally:
        bot.close()


@pytest.mark.parametrize("trusted", _modes())
def test_prints_anywhere_go_to_stderr(tmp_path, trusted):
    """With the SDK, print() at import time or in act() never reaches the protocol."""
    path = write_bot(tmp_path / "b", """
        import arena_bot
        print("hello from the top")
        def act(observation, legal_actions):
            print("choosing among", len(legal_actions))
            return 1
        arena_bot.run(act)
        """)
    bot = ProgramBot.from_path(path, trusted=trusted, limits=LIMITS)
    try:
        bot.start("count", 0, 1, {})
        assert bot.act({}, [1, 2]) == 1
        assert bot.act({}, [1, 2, 3]) == 1
        tail = bot.stderr_tail()
        assert "hello from the top" in tail and "choosing among 3" in tail
    finally:
        bot.close()


# --- what a Python bot starts with ----------------------------------------------------------------

@pytest.mark.sandbox
def test_a_sandboxed_python_bot_gets_the_standard_library_only(tmp_path):
    """The bot's Python is the host's as a bare virtual environment: none of the host's site-packages on
    its path (nor their .pth files run at its start), the SDK and orjson beside the standard library, and
    what ``site`` gives every script (``exit``) still there."""
    import site
    import sysconfig

    path = write_bot(tmp_path / "b", """
        import importlib.util, json, sys
        import arena_bot
        orjson = importlib.util.find_spec("orjson")
        print("ENV " + json.dumps({"path": sys.path, "executable": sys.executable, "exit": callable(exit),
                                   "prefix": sys.prefix, "base_prefix": sys.base_prefix,
                                   "orjson": orjson and orjson.origin}))
        arena_bot.run(lambda observation, legal_actions: 0)
        """)
    bot = ProgramBot.from_path(path, limits=LIMITS)
    try:
        bot.start("count", 0, 1, {})
        assert bot.act({}, [1, 2]) == 0
        env = json.loads(bot.stderr_tail().split("ENV ", 1)[1].splitlines()[0])
    finally:
        bot.close()
    assert env["executable"] == runner.BOT_PYTHON and env["exit"] is True
    assert env["prefix"] == "/arena/python" and env["base_prefix"] == sys.base_prefix
    host_site = set(site.getsitepackages()) | {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    assert host_site and not host_site & set(env["path"])
    assert not [p for p in env["path"] if "site-packages" in p or "dist-packages" in p]
    stdlib = sysconfig.get_paths()["stdlib"]
    assert env["path"][:3] == ["/bot", "/arena/sdk", "/arena/lib"] and stdlib in env["path"]
    # orjson is the one the sandbox shows at /arena/lib (which the bot's uid can enter), not the host's own
    if runner.orjson_dir() is not None:
        assert env["orjson"] == "/arena/lib/orjson/__init__.py"


def test_the_sdk_imports_orjson_only_for_a_long_match():
    """Importing the SDK costs a bot's start neither typing nor orjson; orjson comes once the messages
    read reach ORJSON_AFTER_BYTES, and the answers are the same before and after."""
    sdk_path = str(REPO / "engines" / "sdk")
    lib = os.path.dirname(runner.orjson_dir()) if runner.orjson_dir() else ""
    probe = subprocess.run(
        [runner._python(), "-S", "-c", "import sys, arena_bot; print(sorted({'typing', 'orjson'} & set(sys.modules)))"],
        env={"PYTHONPATH": f"{sdk_path}:{lib}", "PATH": "/usr/bin:/bin"}, capture_output=True, text=True, timeout=60)
    assert probe.returncode == 0, probe.stderr
    assert probe.stdout.strip() == "[]"

    spec = importlib.util.spec_from_file_location("arena_bot_orjson_after", REPO / "engines" / "sdk" / "arena_bot.py")
    sdk = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sdk)
    sdk.ORJSON_AFTER_BYTES = 5_000
    cards = [{"id": i, "name": f"card {i}"} for i in range(40)]
    # every third observation holds an int beyond 64 bits, which orjson refuses and json reads
    observations = [{"cards": cards, "n": 2 ** 70 if i % 3 == 0 else i} for i in range(12)]
    acts = [protocol.act_message(o, list(range(i % 5 + 1)), 1000, i) for i, o in enumerate(observations)]
    lines = [protocol.encode(protocol.start_message("count", 0, 1, {}))] + [protocol.encode(m) for m in acts]
    seen, decoders = [], []

    def act(observation, legal_actions):
        seen.append(observation)
        decoders.append(sdk._fast_loads)
        return len(legal_actions) - 1

    stdout = io.BytesIO()
    sdk.run(act, stdin=io.BytesIO(b"".join(lines)), stdout=stdout)
    assert [protocol.parse_answer(line, 5) for line in stdout.getvalue().splitlines()[1:]] == [i % 5 for i in range(12)]
    assert seen == observations
    # json until the messages read reach 5,000 bytes (the fourth act here), orjson from then on
    reached = next(i for i in range(len(lines)) if sum(map(len, lines[:i + 1])) >= 5_000)
    assert 2 <= reached < len(lines) - 2
    assert decoders[:reached - 1] == [None] * (reached - 1) and None not in decoders[reached - 1:]
    assert decoders[-1] is (False if runner.orjson_dir() is None else sys.modules["orjson"].loads)


@pytest.mark.parametrize("trusted", _modes())
def test_a_bot_s_last_words_after_end_reach_its_log(tmp_path, count_game, trusted, monkeypatch):
    """After ``end`` a program may still write on stderr until it exits (the bots of a match are ended
    together, then each closed once it has exited); one that does not exit is killed after its grace."""
    monkeypatch.setattr(runner, "END_GRACE_S", 3.0)  # the polite bots' 0.1 s, with room for a busy machine
    polite = write_bot(tmp_path / "polite", """
        import sys, time
        import arena_bot
        def on_end(outcome):
            time.sleep(0.1)
            print("final ranks", outcome["ranks"], file=sys.stderr)
        arena_bot.run(lambda observation, legal_actions: 0, end=on_end)
        """)
    stubborn = write_bot(tmp_path / "stubborn", """
        import sys, time
        import arena_bot
        def on_end(outcome):
            print("not leaving", file=sys.stderr, flush=True)
            while True:
                time.sleep(1)
        arena_bot.run(lambda observation, legal_actions: 0, end=on_end)
        """)
    bots = [ProgramBot.from_path(path, trusted=trusted, limits=LIMITS) for path in (polite, stubborn, polite)]
    log = play_match("count", bots, seed=3, options={"moves": 6})
    assert not log.faults
    assert "final ranks" in log.stderr[0] and "final ranks" in log.stderr[2]
    assert "not leaving" in log.stderr[1]
    assert all(bot._proc is None for bot in bots)  # every program is gone, the stubborn one killed


def test_the_bots_of_a_match_start_at_once(tmp_path, count_game):
    """Every program of a match is launched before any is awaited: seat 0 answers ``ready`` only once
    seat 1's program is running (told by a file: trusted bots share the host's disk), which it never
    would be if seat 0 had to be ready first."""
    meeting = tmp_path / "meeting"
    meeting.mkdir()
    waiter = write_bot(tmp_path / "waiter", f"""
        import os, sys, time
        import arena_bot
        for _ in range(300):
            if os.path.exists({str(meeting / "seat1")!r}):
                break
            time.sleep(0.01)
        else:
            sys.exit("seat 1 never started")
        arena_bot.run(lambda observation, legal_actions: 0)
        """)
    arriver = write_bot(tmp_path / "arriver", f"""
        import arena_bot
        open({str(meeting / "seat1")!r}, "w").close()
        arena_bot.run(lambda observation, legal_actions: 0)
        """)
    bots = [ProgramBot.from_path(path, trusted=True, limits=LIMITS) for path in (waiter, arriver)]
    log = play_match("count", bots, seed=1, options={"moves": 4})
    assert not log.faults, log.faults
    assert all(bot.restarts == 0 for bot in bots)


@pytest.mark.parametrize("trusted", _modes())
def test_starting_together_keeps_each_start_its_own(tmp_path, count_game, trusted):
    """A slow start, a start that fills its stderr pipe several times over before ``ready`` (it waits,
    blocked, until its turn to be read comes) and a crash at start, in one match: only the crash is a
    fault, at move 0, and the flood reaches its seat's log."""
    slow = write_bot(tmp_path / "slow", """
        import time
        import arena_bot
        time.sleep(0.5)
        arena_bot.run(lambda observation, legal_actions: 0)
        """)
    flood = write_bot(tmp_path / "flood", """
        import sys
        import arena_bot
        for i in range(4000):
            print("warming up", i, "." * 70, file=sys.stderr)
        print("warm at last", file=sys.stderr)
        arena_bot.run(lambda observation, legal_actions: 0)
        """)
    crash = write_bot(tmp_path / "crash", "import sys\nsys.exit('no start for me')\n")
    bots = [ProgramBot.from_path(path, trusted=trusted, limits=LIMITS) for path in (slow, flood, crash)]
    log = play_match("count", bots, seed=2, options={"moves": 3})
    assert {fault["seat"] for fault in log.faults} == {2}
    first = log.faults[0]
    assert (first["move"], first["kind"]) == (0, "crash") and "no start for me" in first["stderr_tail"]
    assert "warm at last" in log.stderr[1]
    assert bots[0].restarts == bots[1].restarts == 0


@pytest.mark.parametrize("trusted", _modes())
def test_a_program_launched_and_never_awaited_is_awaited_before_its_first_decision(tmp_path, trusted):
    """``act`` after ``launch`` alone reads the program's ``ready`` first, never as the decision's answer."""
    path = write_bot(tmp_path / "b", "import arena_bot\narena_bot.run(lambda observation, legal_actions: 2)\n")
    bot = ProgramBot.from_path(path, trusted=trusted, limits=LIMITS)
    try:
        bot.launch("count", 0, 2, {})
        assert bot.act({"total": 0}, [0, 1, 2], 10_000) == 2
        assert bot.restarts == 0
    finally:
        bot.close()
