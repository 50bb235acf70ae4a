"""Hostile bots: each is contained, its match ends with a result, nothing of it survives, and the
same process then serves the next match normally.

A probe bot prints ``LEAK`` on stderr if something it must not be able to do worked; the test reads
its stderr tail. Limits are small so that every bot takes about a second.
"""
from __future__ import annotations

import gc
import os
import random
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest

from engines.bots import RandomBot
from engines.match import MatchLimits, play_match
from engines.sandbox import ProgramBot, SandboxLimits

from sandbox_helpers import open_fds, processes_of, write_bot

REPO = Path(__file__).resolve().parents[2]
TEST_LIMITS = SandboxLimits(move_ms=400, start_ms=4000, cpu_s=20, memory_mb=128, processes=16, open_files=32,
                            file_mb=4, tmp_mb=8, stderr_bytes=256 * 1024)

GOOD_BOT = """
import arena_bot

def act(observation, legal_actions):
    return len(legal_actions) - 1

arena_bot.run(act)
"""


@dataclass
class Hostile:
    source: str
    faults: set[str] = field(default_factory=set)  # the fault kinds its seat must get (empty: none)
    stderr_has: str | None = None  # a text its stderr tail must show (the owner's diagnostics)
    host_paths: tuple[str, ...] = ()  # paths (formatted) that must not exist on the host afterwards
    move_ms: int | None = None  # when the default per-move limit is too tight to see the fault kind


# Placeholders filled per test: {token} unique digits, {host} a host folder, {repo} this checkout,
# {victim} the host folder of another bot's staged code.
HOSTILE: dict[str, Hostile] = {
    "fork_bomb": Hostile("""
        import os, arena_bot
        def act(observation, legal_actions):
            while True:
                try:
                    os.fork()
                except OSError:
                    pass
        arena_bot.run(act)
        """, {"timeout"}),
    "memory_hog": Hostile("""
        import arena_bot
        hog = []
        def act(observation, legal_actions):
            while True:
                hog.append(bytearray(8 * 1024 * 1024))
        arena_bot.run(act)
        """, {"crash"}, stderr_has="MemoryError", move_ms=3000),
    "endless_loop": Hostile("""
        import arena_bot
        def act(observation, legal_actions):
            while True:
                pass
        arena_bot.run(act)
        """, {"timeout"}),
    "orphan_children": Hostile("""
        import os, subprocess, time, arena_bot
        subprocess.Popen(["sleep", "1000.{token}"], start_new_session=True)
        if os.fork() == 0:          # a daemon: double fork, new session, outlives its parent
            os.setsid()
            if os.fork() == 0:
                os.execv("/usr/bin/sleep", ["sleep", "999.{token}"])
            os._exit(0)
        def act(observation, legal_actions):
            return 0
        arena_bot.run(act)
        """),
    "connect_postgres": Hostile("""
        import socket, arena_bot
        def act(observation, legal_actions):
            for host in ("127.0.0.1", "localhost", "::1"):
                try:
                    socket.create_connection((host, 5432), timeout=0.2).close()
                    print("LEAK connected to PostgreSQL at", host)
                except OSError as exc:
                    print("refused", host, exc)
            return 0
        arena_bot.run(act)
        """, stderr_has="refused"),
    "connect_redis": Hostile("""
        import socket, arena_bot
        def act(observation, legal_actions):
            try:
                s = socket.create_connection(("127.0.0.1", 6379), timeout=0.2)
                s.sendall(b"PING\\r\\n")
                print("LEAK redis said", s.recv(100))
            except OSError as exc:
                print("refused", exc)
            return 0
        arena_bot.run(act)
        """, stderr_has="refused"),
    "read_passwd": Hostile("""
        import arena_bot
        def act(observation, legal_actions):
            for path in ("/etc/passwd", "/etc/shadow", "/etc/hostname", "/root/.bashrc"):
                try:
                    print("LEAK", path, open(path).read()[:50])
                except OSError as exc:
                    print("denied", exc)
            return 0
        arena_bot.run(act)
        """, stderr_has="denied"),
    "read_project_settings": Hostile("""
        import os, arena_bot
        def act(observation, legal_actions):
            for path in ("{repo}/platform/arena/settings.py", "{repo}/pyproject.toml", "/work", "{repo}"):
                try:
                    data = os.listdir(path) if os.path.isdir(path) else open(path).read()[:50]
                    print("LEAK", path, data)
                except OSError as exc:
                    print("denied", exc)
            return 0
        arena_bot.run(act)
        """, stderr_has="denied"),
    "read_other_bot": Hostile("""
        import glob, os, arena_bot
        def act(observation, legal_actions):
            for path in ("{victim}/main.py", "{victim}"):
                try:
                    print("LEAK", path, os.listdir(path) if os.path.isdir(path) else open(path).read()[:50])
                except OSError as exc:
                    print("denied", exc)
            found = glob.glob("/tmp/arena-bot-*") + glob.glob("/tmp/*/bot/main.py")
            if found:
                print("LEAK other bots in /tmp:", found)
            return 0
        arena_bot.run(act)
        """, stderr_has="denied"),
    "write_outside": Hostile("""
        import os, arena_bot
        def act(observation, legal_actions):
            for path in ("/bot/pwned", "/pwned", "/usr/pwned", "{host}/pwned", "{repo}/pwned-{token}",
                         "/arena/sdk/pwned"):
                try:
                    with open(path, "w") as fh:
                        fh.write("pwned")
                    print("LEAK wrote", path)
                except OSError as exc:
                    print("denied", exc)
            with open("/tmp/scratch", "w") as fh:   # its own empty /tmp is allowed
                fh.write("ok")
            return 0
        arena_bot.run(act)
        """, stderr_has="denied", host_paths=("{host}/pwned", "{repo}/pwned-{token}")),
    "stdout_flood": Hostile("""
        import os, sys
        sys.stdin.readline()
        os.write(1, b'{{"ready": true, "protocol": 1}}\\n')
        sys.stdin.readline()
        while True:
            os.write(1, b"x" * 65536)
        """, {"garbage"}),
    "stderr_flood": Hostile("""
        import os, arena_bot
        def act(observation, legal_actions):
            while True:
                os.write(2, b"flood " * 10000)
        arena_bot.run(act)
        """, {"protocol"}, stderr_has="flood"),
    "never_answers": Hostile("""
        import time, arena_bot
        def act(observation, legal_actions):
            time.sleep(1000)
        arena_bot.run(act)
        """, {"timeout"}),
    "never_ready": Hostile("""
        import sys, time
        sys.stdin.readline()
        time.sleep(1000)
        """, {"timeout"}),
    "closes_stdout": Hostile("""
        import os, sys, time
        sys.stdin.readline()
        os.write(1, b'{{"ready": true, "protocol": 1}}\\n')
        sys.stdin.readline()
        os.close(1)
        time.sleep(1000)
        """, {"timeout"}),  # bwrap holds the pipe too: no EOF while it lives, so it times out
    "invalid_utf8": Hostile("""
        import os, sys
        sys.stdin.readline()
        os.write(1, b'{{"ready": true, "protocol": 1}}\\n')
        for line in sys.stdin:
            os.write(1, b'{{"action": "\\xff\\xfe"}}\\n')
        """, {"garbage"}),
    "giant_json": Hostile("""
        import os, sys
        sys.stdin.readline()
        os.write(1, b'{{"ready": true, "protocol": 1}}\\n')
        for line in sys.stdin:
            os.write(1, b'{{"action": 0, "pad": "' + b"x" * (8 * 1024 * 1024) + b'"}}\\n')
        """, {"garbage"}),
    "nested_answer": Hostile("""
        import os, sys
        sys.stdin.readline()
        os.write(1, b'{{"ready": true, "protocol": 1}}\\n')
        for line in sys.stdin:  # within the answer's 64 KiB, nested past the host parser's recursion limit
            os.write(1, b'{{"action": 0, "x": ' + b"[" * 20000 + b"]" * 20000 + b'}}\\n')
        """, {"garbage"}),
    "new_user_namespace": Hostile("""
        import ctypes, sys, arena_bot
        libc = ctypes.CDLL(None, use_errno=True)
        CLONE_NEWUSER, CLONE_NEWNS, SIGCHLD = 0x10000000, 0x00020000, 17
        if libc.unshare(CLONE_NEWUSER) == 0:  # root of a namespace of its own could mount a tmpfs past /tmp's limit
            print("LEAK unshare made a user namespace", file=sys.stderr)
        else:
            print("unshare refused, errno", ctypes.get_errno(), file=sys.stderr)
        pid = libc.syscall(56, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0)  # clone(2) itself
        if pid == 0:
            libc._exit(0)
        if pid > 0:
            print("LEAK clone made a user namespace", file=sys.stderr)
        # clone3 takes its flags in memory the filter cannot read: it must not run at all (ENOSYS, 38); unfiltered,
        # these bad arguments would give EFAULT or EINVAL
        if libc.syscall(435, None, 0) != -1 or ctypes.get_errno() != 38:
            print("LEAK clone3 was let through, errno", ctypes.get_errno(), file=sys.stderr)
        arena_bot.run(lambda observation, legal_actions: 0)
        """, stderr_has="unshare refused, errno 1"),
    "nul_on_stderr": Hostile("""
        import sys, arena_bot
        def act(observation, legal_actions):
            sys.stderr.write("debug\\x00info\\n")  # PostgreSQL's text cannot hold NUL: it must not fail the store
            return 0
        arena_bot.run(act)
        """, stderr_has="debug\ufffdinfo"),
    "ignores_sigterm": Hostile("""
        import signal, time, arena_bot
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGPIPE):
            signal.signal(sig, signal.SIG_IGN)
        def act(observation, legal_actions):
            while True:
                time.sleep(1)
        arena_bot.run(act)
        """, {"timeout"}),
    "raises": Hostile("""
        import arena_bot
        def act(observation, legal_actions):
            raise ValueError("boom {token}")
        arena_bot.run(act)
        """, {"crash"}, stderr_has="ValueError: boom"),
    "exits_at_start": Hostile("""
        import sys
        print("giving up", file=sys.stderr)
        sys.exit(3)
        """, {"crash"}, stderr_has="giving up"),
    "answers_out_of_range": Hostile("""
        import arena_bot
        arena_bot.run(lambda observation, legal_actions: 99)
        """, {"illegal"}),
    "answers_two_lines": Hostile("""
        import os, sys
        sys.stdin.readline()
        os.write(1, b'{{"ready": true, "protocol": 1}}\\n')
        for line in sys.stdin:
            os.write(1, b'{{"action": 0}}\\n{{"action": 1}}\\n')
        """, {"protocol"}),
    "prints_garbage": Hostile("""
        import sys
        sys.stdin.readline()
        print('{{"ready": true}}', flush=True)
        for line in sys.stdin:
            print("hello, I think I will play the first one", flush=True)
        """, {"garbage"}),
    "thread_storm": Hostile("""
        import sys, threading, time, arena_bot
        started = 0
        try:
            for _ in range(500):
                threading.Thread(target=time.sleep, args=(1000,), daemon=True).start()
                started += 1
        except RuntimeError as exc:
            print("stopped after", started, "threads:", exc, file=sys.stderr)
        if started >= 16:
            print("LEAK started", started, "threads", file=sys.stderr)
        arena_bot.run(lambda observation, legal_actions: 0)
        """, stderr_has="stopped after"),
    "fills_disk": Hostile("""
        import sys, arena_bot
        written = 0
        try:
            with open("/tmp/big", "wb") as fh:
                while written < 64 * 1024 * 1024:
                    fh.write(b"x" * 1024 * 1024)
                    written += 1024 * 1024
        except OSError as exc:
            print("stopped after", written, exc, file=sys.stderr)
        if written > 8 * 1024 * 1024:
            print("LEAK wrote", written, file=sys.stderr)
        arena_bot.run(lambda observation, legal_actions: 0)
        """, stderr_has="stopped after"),
    "exhausts_files": Hostile("""
        import sys, arena_bot
        files = []
        try:
            while len(files) < 10000:
                files.append(open("/dev/null"))
        except OSError as exc:
            print("stopped after", len(files), exc, file=sys.stderr)
        if len(files) > 32:
            print("LEAK opened", len(files), file=sys.stderr)
        for fh in files:
            fh.close()
        arena_bot.run(lambda observation, legal_actions: 0)
        """, stderr_has="stopped after"),
    "kills_everything": Hostile("""
        import os, signal, sys
        sys.stdin.readline()
        os.write(1, b'{{"ready": true, "protocol": 1}}\\n')
        sys.stdin.readline()
        os.kill(-1, signal.SIGKILL)   # every process it may signal; it must be only its own
        os.kill(os.getpid(), signal.SIGKILL)
        """, {"crash"}),
    "snoops_proc": Hostile("""
        import os, arena_bot
        def act(observation, legal_actions):
            pids = [p for p in os.listdir("/proc") if p.isdigit()]
            print("sees pids", pids)
            if len(pids) > 10:
                print("LEAK sees", len(pids), "processes")
            for path in ("/proc/1/root/etc/passwd", "/proc/1/environ"):
                try:
                    print("LEAK", path, open(path).read()[:60])
                except OSError as exc:
                    print("denied", exc)
            return 0
        arena_bot.run(act)
        """, stderr_has="sees pids"),
}


def _wait_gone(uids: set[int], marker: str, seconds: float = 3.0) -> list[str]:
    deadline = time.monotonic() + seconds
    while True:
        left = processes_of(uids, marker)
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.05)


@pytest.fixture
def victim(tmp_path):
    """Another bot's staged code, whose host folder the hostile bot tries to read."""
    bot = ProgramBot.from_path(write_bot(tmp_path / "victim", GOOD_BOT.replace("import", "import os  # victim\nimport", 1)),
                               limits=TEST_LIMITS)
    yield bot
    bot.close()


@pytest.mark.sandbox
def test_at_least_fifteen_hostile_bots():
    assert len(HOSTILE) >= 15


@pytest.mark.sandbox
@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_bot_is_contained(name, tmp_path, count_game, victim):
    spec = HOSTILE[name]
    token = str(random.randrange(10**8, 10**9))
    values = {"token": token, "host": str(tmp_path), "repo": str(REPO), "victim": victim.package_dir}
    source = spec.source.format(**values)
    gc.collect()  # files an earlier test left to the collector are closed now, not during this match
    fds_before, threads_before = open_fds(), threading.active_count()

    limits = TEST_LIMITS if spec.move_ms is None else replace(TEST_LIMITS, move_ms=spec.move_ms)
    bot = ProgramBot.from_path(write_bot(tmp_path / "hostile", source), limits=limits)
    staged = bot._cleanup
    started = time.monotonic()
    log = play_match("count", [bot, RandomBot(seed=1)], seed=7, seat_names=[name, "random"],
                     limits=MatchLimits(match_ms=30_000))
    elapsed = time.monotonic() - started

    # The match ended with a result, in reasonable time.
    assert log.outcome is not None and len(log.outcome["ranks"]) == 2
    assert len(log.moves) == 8
    # within its faults' waits (at most three starts or moves before it forfeits), plus room for a busy machine
    bound = 3 * (limits.start_ms + limits.move_ms) / 1000 + 15
    assert elapsed < bound, f"{name} took {elapsed:.1f}s"
    kinds = {f["kind"] for f in log.faults if f["seat"] == 0}
    assert kinds == spec.faults, log.faults
    if spec.faults and spec.faults != {"illegal"}:
        assert 0 in log.forfeits and log.outcome["ranks"][0] == 1
    if not spec.faults:
        assert not log.forfeits
    # Its owner sees what it wrote on stderr; nothing it probed worked.
    tails = bot.stderr_tail() + "".join(f["stderr_tail"] for f in log.faults)
    assert "LEAK" not in tails, tails[-2000:]
    if spec.stderr_has:
        assert spec.stderr_has in tails, tails[-2000:]
    # Nothing of it is left running, nor written on the host.
    assert bot.uids or os.geteuid() != 0
    assert _wait_gone(set(bot.uids), token) == []
    assert staged and not os.path.exists(staged)
    for path in spec.host_paths:
        assert not os.path.exists(path.format(**values))
    assert os.path.exists(os.path.join(victim.package_dir, "main.py"))  # the victim is untouched

    # The same process serves the next match normally.
    good = ProgramBot.from_path(write_bot(tmp_path / "good", GOOD_BOT), limits=TEST_LIMITS)
    log = play_match("count", [RandomBot(seed=2), good], seed=8, limits=MatchLimits(match_ms=30_000))
    assert log.faults == [] and log.forfeits == {}
    assert [m[1]["n"] for m in log.moves if m[0] == 1] == [3, 3, 3, 3]
    assert _wait_gone(set(good.uids), token) == []
    gc.collect()
    assert open_fds() == fds_before
    assert threading.active_count() == threads_before
