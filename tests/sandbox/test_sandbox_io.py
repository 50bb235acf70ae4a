"""ProgramBot's reading of answers: whole lines, lines in pieces, output nobody asked for, stderr
alongside, messages larger than a pipe holds; and the protocol bench's like-with-like comparison."""
from __future__ import annotations

import os
import select
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from engines.bots import BotFault
from engines.sandbox import ProgramBot, SandboxLimits

from sandbox_helpers import write_bot

LIMITS = SandboxLimits(move_ms=2000, start_ms=5000)
#: a bot without the SDK: answers ``start``, then runs ``body`` once per ``act`` (``line`` is the message)
RAW = """
import os, sys, time
sys.stdin.readline()
os.write(1, b'{"ready": true, "protocol": 1}\\n')
for n, line in enumerate(sys.stdin):
{body}
"""


@contextmanager
def _bot(tmp_path, body: str, trusted: bool) -> Iterator[ProgramBot]:
    """A started RAW bot running ``body``, closed when the block ends."""
    indented = "\n".join("    " + line for line in body.strip().splitlines())
    path = write_bot(tmp_path / "b", RAW.replace("{body}", indented))
    bot = ProgramBot.from_path(path, trusted=trusted, limits=LIMITS)
    try:
        bot.start("count", 0, 2, {})
        yield bot
    finally:
        bot.close()


def _modes():
    return [pytest.param(False, marks=pytest.mark.sandbox, id="sandboxed"), pytest.param(True, id="trusted")]


@pytest.mark.parametrize("trusted", _modes())
def test_answer_in_pieces(tmp_path, trusted):
    """An answer written in several pieces is read whole."""
    with _bot(tmp_path, """
os.write(1, b'{"act')
time.sleep(0.05)
os.write(1, b'ion": ')
time.sleep(0.05)
os.write(1, b'%d}\\n' % (n % 3))
""", trusted) as bot:
        assert [bot.act({}, [1, 2, 3]) for _ in range(4)] == [0, 1, 2, 0]


@pytest.mark.parametrize("trusted", _modes())
def test_stderr_alongside_answers(tmp_path, trusted):
    """stderr written before, with and after each answer is kept and never taken for an answer."""
    with _bot(tmp_path, """
os.write(2, b'thinking %d\\n' % n)
time.sleep(0.01)
os.write(2, b'still thinking\\n')
os.write(1, b'{"action": 1}\\n')
os.write(2, b'answered %d\\n' % n)
""", trusted) as bot:
        assert [bot.act({}, [1, 2, 3]) for _ in range(5)] == [1] * 5
        tail = bot.stderr_tail()
        assert "thinking 0" in tail and "answered 3" in tail and "thinking 4" in tail


@pytest.mark.parametrize("trusted", _modes())
@pytest.mark.parametrize("with_stderr", [False, True], ids=["alone", "with_stderr"])
def test_output_nobody_asked_for(tmp_path, trusted, with_stderr):
    """A line written after the answer, before the next request, is a protocol fault at that request, also
    when stderr has something waiting too."""
    with _bot(tmp_path, """
os.write(1, b'{"action": 0}\\n')
if n == 1:
    time.sleep(0.05)
    if %s:
        os.write(2, b'a note\\n')
    os.write(1, b'{"action": 2}\\n')
""" % with_stderr, trusted) as bot:
        assert bot.act({}, [1, 2, 3]) == 0
        assert bot.act({}, [1, 2, 3]) == 0
        pipes = [bot._proc.stdout] + ([bot._proc.stderr] if with_stderr else [])
        deadline = time.monotonic() + 30
        while len(select.select(pipes, [], [], 1)[0]) < len(pipes) and time.monotonic() < deadline:
            pass
        assert len(select.select(pipes, [], [], 0)[0]) == len(pipes)  # the stray line (and the note) are waiting
        with pytest.raises(BotFault) as info:
            bot.act({}, [1, 2, 3])
        assert info.value.kind == "protocol" and "no answer was asked" in info.value.detail


@pytest.mark.parametrize("trusted", _modes())
def test_two_lines_in_pieces(tmp_path, trusted):
    """A second line, even one that comes in a later read than the first, is a protocol fault."""
    with _bot(tmp_path, """
os.write(1, b'{"action": 0}\\n{"act')
time.sleep(0.05)
os.write(1, b'ion": 1}\\n')
""", trusted) as bot:
        with pytest.raises(BotFault) as info:
            bot.act({}, [1, 2, 3])
        assert info.value.kind == "protocol" and "more than one line" in info.value.detail


@pytest.mark.parametrize("trusted", _modes())
def test_messages_larger_than_a_pipe(tmp_path, trusted):
    """An observation of a few hundred KiB (more than the pipe holds) reaches the bot whole."""
    with _bot(tmp_path, """
import json
message = json.loads(line)
os.write(1, b'{"action": %d}\\n' % (len(message["observation"]["pad"]) % 3))
""", trusted) as bot:
        for size in (70_000, 300_001, 10):
            assert bot.act({"pad": "x" * size}, [1, 2, 3]) == size % 3


@pytest.mark.parametrize("trusted", _modes())
def test_exit_after_answering(tmp_path, trusted):
    """A bot that answers and then exits crashes at the next request, not before."""
    with _bot(tmp_path, """
os.write(1, b'{"action": 2}\\n')
if n == 1:
    sys.exit(4)
""", trusted) as bot:
        assert bot.act({}, [1, 2, 3]) == 2
        assert bot.act({}, [1, 2, 3]) == 2
        with pytest.raises(BotFault) as info:
            bot.act({}, [1, 2, 3])
        assert info.value.kind == "crash"


@pytest.mark.sandbox
@pytest.mark.parametrize("placement", ["free", "same", "apart"])
def test_the_protocol_bench_compares_like_with_like(monkeypatch, placement):
    """The pipes of the bench move the bytes ProgramBot sends; the JSON floor decodes as the bot does; the
    processes run where the placement says (same: all on one core; apart: the bench on another)."""
    from engines import protocol
    from engines.sandbox.bench import bench_protocol

    cores = os.sched_getaffinity(0)
    if placement == "apart" and len(cores) < 2:
        pytest.skip("one core: nothing to put apart")
    sent: set[int] = set()
    encode_act = protocol.encode_act
    where: set[tuple[frozenset, frozenset]] = set()
    act = ProgramBot.act

    def recording(*args):
        line = encode_act(*args)
        sent.add(len(line))
        return line

    def placed(self, *args):
        where.add((frozenset(os.sched_getaffinity(0)), frozenset(os.sched_getaffinity(self._proc.pid))))
        return act(self, *args)

    monkeypatch.setattr(protocol, "encode_act", recording)
    monkeypatch.setattr(ProgramBot, "act", placed)
    result = bench_protocol(seconds=0.2, placement=placement)
    assert sent == {result["message_bytes"]}
    assert result["json_pipe_decoder"] == ("orjson" if result["orjson"]["bot"] else "json")
    for key in ("sandbox_us_per_decision", "raw_bytes_us_per_decision", "json_pipe_us_per_decision",
                "ratio_to_bytes_only", "ratio_to_json_pipe", "sandbox_reading_us_per_decision",
                "ratio_to_bytes_only_reading", "ratio_to_json_pipe_reading", "host_path_us_per_decision",
                "ratio_host_path_to_bytes_only", "host_encode_us"):
        assert result[key] > 0
    assert result["host_encode_us"] < result["host_path_us_per_decision"]  # encoding is a part of the host's path
    assert result["placement"] == placement and os.sched_getaffinity(0) == cores
    (host, bot), = where
    if placement == "free":
        assert host == bot == cores
    else:
        assert len(host) == len(bot) == 1 and (host == bot) == (placement == "same")


def test_the_protocol_bench_refuses_apart_on_one_core(monkeypatch, capsys):
    """``--placement apart`` on one core is an error with a reason, not a traceback; ``all`` leaves it out."""
    from engines import cli
    from engines.sandbox import bench

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0})
    assert cli.main(["bench", "--protocol", "--placement", "apart"]) == 2
    assert "needs two cores" in capsys.readouterr().err
    ran = []
    monkeypatch.setattr(bench, "bench_protocol", lambda **kw: ran.append(kw["placement"]) or {})
    monkeypatch.setattr(bench, "bench_protocol_game", lambda game_id, **kw: ran.append((game_id, kw["placement"])) or {})
    assert cli.main(["bench", "--protocol", "--game", "top_race"]) == 0
    assert ran == ["free", "same", ("top_race", "same")]
