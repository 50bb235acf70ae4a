"""The cgroup of a sandboxed bot: its processes together are bounded in memory, tasks and CPU time; its
cgroups go when it does (and a killed worker's at the next first use); without cgroups bots play as before.

Tests that need cgroups skip where ``cgroup.problem()`` says they cannot be made, and fail instead where they
are required (ARENA_REQUIRE_SERVICES=1, as root on Linux: CI). Limits are small, each bot takes about a second.
"""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from arena_testing import require_services
from engines.bots import RandomBot
from engines.match import MatchLimits, play_match
from engines.sandbox import ProgramBot, SandboxLimits, cgroup

from sandbox_helpers import processes_of, write_bot

pytestmark = pytest.mark.sandbox

REPO = Path(__file__).resolve().parents[2]
MIB = 1024 * 1024
TEST_LIMITS = SandboxLimits(move_ms=3000, start_ms=4000, cpu_s=20, memory_mb=128, processes=16, open_files=32,
                            file_mb=4, tmp_mb=8, stderr_bytes=256 * 1024, total_memory_mb=256, cpus=1.0)
MATCH = MatchLimits(match_ms=30_000)

GOOD_BOT = """
import arena_bot

def act(observation, legal_actions):
    return len(legal_actions) - 1

arena_bot.run(act)
"""

# At its first decision (the count game's total is still 0), 6 children each write every page of 96 MiB and
# hold it until all have: under the 128 MiB per process, 576 MiB together. A child killed before it reports
# makes the bot exit (a worker pool that lost a worker); a restarted bot plays normally.
MEMORY_BOT = """
import os, sys, arena_bot

CHILDREN, SIZE = 6, 96 * 1024 * 1024

def act(observation, legal_actions):
    if observation["total"] != 0:
        return 0
    children = []
    for _ in range(CHILDREN):
        done_r, done_w = os.pipe()
        go_r, go_w = os.pipe()
        if os.fork() == 0:
            block = bytearray(SIZE)
            block[::4096] = b"x" * len(range(0, SIZE, 4096))  # every page: all of it resident
            os.write(done_w, b"k")
            os.read(go_r, 1)  # hold it until the parent heard from every child
            os._exit(0)
        os.close(done_w)
        os.close(go_r)
        children.append((done_r, go_w))
    for done, _ in children:
        if os.read(done, 1) != b"k":
            sys.exit("a child died before it held its memory")
    print(f"all {CHILDREN} children held {SIZE >> 20} MiB at once", file=sys.stderr, flush=True)
    for _, go in children:
        os.write(go, b"g")
    for _ in children:
        os.wait()
    return 0

arena_bot.run(act)
"""

# At its first decision: forks sleeping children until a fork fails, and says how many it made.
FORK_BOT = """
import os, sys, time, arena_bot

def act(observation, legal_actions):
    if observation["total"] == 0:
        children = 0
        while children < 200:
            try:
                pid = os.fork()
            except OSError as exc:
                print(f"forked {children}, then {exc}", file=sys.stderr, flush=True)
                break
            if pid == 0:
                time.sleep(60)
                os._exit(0)
            children += 1
    return 0

arena_bot.run(act)
"""

# At its first decision: 6 threads spin for a second (with the GIL, about one core's worth).
SPIN_BOT = """
import threading, time, arena_bot

def spin(until):
    while time.monotonic() < until:
        pass

def act(observation, legal_actions):
    if observation["total"] == 0:
        until = time.monotonic() + 1.0
        threads = [threading.Thread(target=spin, args=(until,)) for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    return 0

arena_bot.run(act)
"""

# Two children before the protocol starts (sleeping), then plays.
FAMILY_BOT = """
import os, time, arena_bot

for _ in range(2):
    if os.fork() == 0:
        time.sleep(60)
        os._exit(0)
arena_bot.run(lambda observation, legal_actions: 0)
"""

SUICIDE_BOT = """
import os, signal, arena_bot

def act(observation, legal_actions):
    os.kill(os.getpid(), signal.SIGKILL)

arena_bot.run(act)
"""

# A worker: starts a sandboxed bot, prints its cgroups, waits to be killed.
WORKER = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
from engines.sandbox import ProgramBot, SandboxLimits
bot = ProgramBot(sys.argv[2], ["python3", "main.py"], limits=SandboxLimits(move_ms=2000, start_ms=4000))
bot.start("count", 0, 2, {})
print(json.dumps({"paths": bot._cgroup.paths(), "uids": bot.uids}), flush=True)
time.sleep(60)
"""


@pytest.fixture
def cgroups():
    """The host's cgroup support; skips (fails where required: CI, as root on Linux) when there is none.
    Afterwards no cgroup of this process is left."""
    problem = cgroup.problem()
    if problem is not None:
        if require_services() and os.geteuid() == 0 and sys.platform.startswith("linux"):
            pytest.fail(f"bot cgroups are required here (ARENA_REQUIRE_SERVICES=1, root) but: {problem}")
        pytest.skip(f"bot cgroups unusable here: {problem}")
    yield cgroup.support()
    assert cgroup.leftovers() == [] and _ours_anywhere() == []


def _ours_anywhere(pid: int | None = None) -> list[str]:
    """Cgroups named ``arena-bot-<pid>-*`` (default: this process's) in any hierarchy under the cgroup root."""
    prefix = f"arena-bot-{os.getpid() if pid is None else pid}-"
    found = []
    for folder, subfolders, _files in os.walk(cgroup.CGROUP_ROOT):
        found += [os.path.join(folder, name) for name in subfolders if name.startswith(prefix)]
    return found


def _play(bot: ProgramBot, seed: int = 7):
    log = play_match("count", [bot, RandomBot(seed=1)], seed=seed, seat_names=["bot", "random"], limits=MATCH)
    assert log.outcome is not None and len(log.outcome["ranks"]) == 2
    assert len(log.moves) == 8
    assert all(f["seat"] == 0 for f in log.faults)  # the other seat is never harmed
    return log


def _stderr(bot: ProgramBot, log) -> str:
    return bot.stderr_tail() + "".join(f["stderr_tail"] for f in log.faults)


def _gone(uids: set[int], seconds: float = 3.0) -> list[str]:
    deadline = time.monotonic() + seconds
    while (left := processes_of(uids)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def test_the_bots_processes_together_are_bounded_in_memory(tmp_path, count_game, cgroups):
    if "memory" not in cgroups.controllers:
        pytest.skip("no memory controller here")
    bot = ProgramBot.from_path(write_bot(tmp_path / "hog", MEMORY_BOT), limits=TEST_LIMITS)
    log = _play(bot)

    # One crash at its first decision, saying why; restarted, it played the rest: no forfeit.
    assert [(f["kind"], f["move"]) for f in log.faults] == [("crash", 0)], log.faults
    assert "processes together used more than 256 MiB (killed)" in log.faults[0]["detail"], log.faults[0]
    assert log.forfeits == {}
    assert "children held" not in _stderr(bot, log)
    first = bot.cgroup_stats[0]
    assert first["oom_kills"] >= 1, first
    assert "memory 256 MiB" in first["bounded"]
    if "memory_peak" in first:
        assert first["memory_peak"] <= 256 * MIB, first
    assert len(bot.cgroup_stats) == 2 and bot.cgroup_stats[1]["oom_kills"] == 0  # the restart: a fresh cgroup
    assert _gone(set(bot.uids)) == []


def test_without_the_whole_bot_bound_the_same_bot_holds_six_times_its_per_process_memory(tmp_path, count_game,
                                                                                          cgroups):
    """The same bot with the cgroup's memory unbounded (0): the per-process rlimits alone let it hold 576 MiB."""
    if "memory" not in cgroups.controllers:
        pytest.skip("no memory controller here")
    bot = ProgramBot.from_path(write_bot(tmp_path / "hog", MEMORY_BOT),
                               limits=replace(TEST_LIMITS, total_memory_mb=0))
    log = _play(bot)
    assert log.faults == [], log.faults
    assert "all 6 children held 96 MiB at once" in _stderr(bot, log)
    stats = bot.cgroup_stats[0]
    assert stats["oom_kills"] == 0
    if "memory_peak" in stats:
        assert stats["memory_peak"] >= 6 * 96 * MIB, stats


def test_a_fork_loop_stops_at_the_bots_process_bound(tmp_path, count_game, cgroups):
    if "pids" not in cgroups.controllers:
        pytest.skip("no pids controller here")
    limits = replace(TEST_LIMITS, processes=12)
    bot = ProgramBot.from_path(write_bot(tmp_path / "forks", FORK_BOT), limits=limits)
    log = _play(bot)
    assert log.faults == [], log.faults
    found = re.search(r"forked (\d+), then", _stderr(bot, log))
    assert found, _stderr(bot, log)
    # bubblewrap's two processes and the bot are in its cgroup too; RLIMIT_NPROC (12, the bot's uid only)
    # would have allowed 11 children: the cgroup refused first
    assert 1 <= int(found.group(1)) <= 12 - 3
    stats = bot.cgroup_stats[0]
    assert stats["pids_refused"] >= 1, stats
    if "pids_peak" in stats:
        assert stats["pids_peak"] <= 12, stats
    assert _gone(set(bot.uids)) == []  # the sleeping children went with the bot


def test_spinning_threads_are_throttled_to_the_bots_cpu_share(tmp_path, count_game, cgroups):
    if "cpu" not in cgroups.controllers:
        pytest.skip("no cpu controller here")
    bot = ProgramBot.from_path(write_bot(tmp_path / "spin", SPIN_BOT), limits=replace(TEST_LIMITS, cpus=0.25))
    log = _play(bot)
    assert log.faults == [], log.faults
    stats = bot.cgroup_stats[0]
    assert "0.25 CPU" in stats["bounded"]
    assert stats["cpu_throttled"] > 0, stats


def test_the_whole_tree_is_in_the_bots_cgroup(tmp_path, cgroups):
    bot = ProgramBot.from_path(write_bot(tmp_path / "family", FAMILY_BOT), limits=TEST_LIMITS)
    try:
        bot.start("count", 0, 2, {})
        group = bot._cgroup
        assert group is not None and len(group.paths()) >= 1
        members = set()
        for path in group.paths():
            inside = {int(p) for p in Path(path, "cgroup.procs").read_text().split()}
            assert bot._proc.pid in inside  # bubblewrap itself
            members |= inside
        deadline = time.monotonic() + 3
        while True:  # the bot and its two children (they may still be forking)
            mine = {int(line.split()[0]) for line in processes_of(set(bot.uids))}
            if len(mine) >= 3 or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert len(mine) >= 3
        for path in group.paths():
            inside = {int(p) for p in Path(path, "cgroup.procs").read_text().split()}
            assert mine <= inside, (path, mine, inside)
    finally:
        bot.close()
    assert bot._cgroup is None and not any(os.path.exists(p) for p in group.paths())
    assert _gone(set(bot.uids)) == []


def test_a_bot_killed_by_sigkill_leaves_no_cgroup(tmp_path, count_game, cgroups):
    bot = ProgramBot.from_path(write_bot(tmp_path / "suicide", SUICIDE_BOT), limits=TEST_LIMITS)
    log = _play(bot)
    assert {f["kind"] for f in log.faults} == {"crash"}
    assert "SIGKILL" in log.faults[0]["detail"] and "together used" not in log.faults[0]["detail"]
    assert len(bot.cgroup_stats) == 3  # each of its three runs had a cgroup
    assert _ours_anywhere() == []


def test_the_cgroups_of_a_killed_worker_are_swept(tmp_path, cgroups):
    folder = tmp_path / "good"
    write_bot(folder, GOOD_BOT)
    worker = subprocess.Popen([sys.executable, "-c", WORKER, str(REPO), str(folder)], stdout=subprocess.PIPE,
                              start_new_session=True)
    try:
        line = worker.stdout.readline()
        assert line, "the worker did not start its bot"
        info = json.loads(line)
        assert info["paths"] and all(os.path.isdir(p) for p in info["paths"])
        assert all(f"arena-bot-{worker.pid}-" in p for p in info["paths"])
        os.kill(worker.pid, signal.SIGKILL)
        # Not reaped yet, the dead worker's pid still counts as alive: no sweep (another test's sandbox
        # starting beside this one sweeps too) takes its cgroups before they are checked.
        assert _gone(set(info["uids"])) == []  # the sandbox dies with its parent...
        assert all(os.path.isdir(p) for p in info["paths"])  # ...but its cgroups stay, until:
    finally:
        os.kill(worker.pid, signal.SIGKILL)
        worker.wait()
        worker.stdout.close()
    cgroup.sweep_stale()
    assert not any(os.path.exists(p) for p in info["paths"])  # this sweep's work, or a sweep beside it
    assert cgroup.leftovers(worker.pid) == [] and _ours_anywhere(worker.pid) == []


def test_the_sweep_kills_what_is_left_in_a_dead_processs_cgroup(cgroups):
    dead = subprocess.Popen(["true"])
    dead.wait()
    name = f"arena-bot-{dead.pid}-0"
    paths = sorted({os.path.join(base, name) for base in cgroups.bases.values()})
    sleeper = subprocess.Popen(["sleep", "60"], start_new_session=True)
    try:
        for path in paths:
            os.mkdir(path)
            Path(path, "cgroup.procs").write_text(str(sleeper.pid))
        removed = cgroup.sweep_stale()
        assert set(paths) <= set(removed)
        assert sleeper.wait(timeout=5) == -signal.SIGKILL
    finally:
        sleeper.kill()
        sleeper.wait()
        for path in paths:
            if os.path.isdir(path):
                os.rmdir(path)
    assert not any(os.path.exists(p) for p in paths)


def test_the_sweep_leaves_the_cgroups_of_live_processes(tmp_path, cgroups):
    bot = ProgramBot.from_path(write_bot(tmp_path / "good", GOOD_BOT), limits=TEST_LIMITS)
    try:
        bot.start("count", 0, 2, {})
        paths = bot._cgroup.paths()
        cgroup.sweep_stale()
        assert all(os.path.isdir(p) for p in paths)
    finally:
        bot.close()
    assert not any(os.path.exists(p) for p in paths)


@pytest.fixture
def no_cgroups(tmp_path, monkeypatch):
    """The cgroup module pointed at an empty folder: no hierarchy there."""
    monkeypatch.setattr(cgroup, "CGROUP_ROOT", str(tmp_path / "no-cgroups"))
    cgroup._probe.cache_clear()
    yield
    monkeypatch.undo()
    cgroup._probe.cache_clear()


def test_without_cgroups_a_bot_plays_as_before(tmp_path, count_game, no_cgroups):
    assert cgroup.support() is None
    assert "no-cgroups" in cgroup.problem()
    assert cgroup.BotCgroup.create(256, 16, 1.0) is None
    bot = ProgramBot.from_path(write_bot(tmp_path / "good", GOOD_BOT), limits=TEST_LIMITS)
    log = _play(bot)
    assert log.faults == [] and log.forfeits == {}
    assert [m[1]["n"] for m in log.moves if m[0] == 0] == [3, 3, 3, 3]
    assert bot.cgroup_stats == []
    assert _gone(set(bot.uids)) == []
