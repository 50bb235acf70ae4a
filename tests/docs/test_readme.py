"""The README's "Your first bot in 5 minutes", run as written, so the first page a newcomer reads cannot drift
from the code.

Its shell blocks (```sh, one per numbered step) run in order in one bash process from the clone's root, as a
reader pastes them into a second terminal: no DJANGO_* variable set, only PORT (the README's
``${PORT:-8000}``) and the data folder of the platform this test starts the way ``make serve`` does (a fresh
ARENA_DATA_DIR, migrated, DJANGO_DEBUG=1, ``manage.py serve --port``). Each step's real result is asserted:
the token, both uploads valid, the tournament finished with standings of three bots, the match log replayed,
both bots ranked by the ladder."""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import time
import urllib.request
from pathlib import Path

import pytest

from arena_testing import ON_THE_CLOCK

ROOT = Path(__file__).resolve().parents[2]
SECTION = "## Your first bot in 5 minutes"
BLOCK = re.compile(r"^( *)```sh\n(.*?)^\1```[ \t]*$", re.M | re.S)
STEPS = 8
# What a reader's second terminal does not have: the settings the tests and the server run with.
NOT_IN_A_READERS_SHELL = re.compile(r"^(DJANGO_|ARENA_|CELERY_|DATABASE_URL$|PORT$|PYTEST_)")
STEP = re.compile(r"^@@ step (\d+) exit (\d+) at (\d+) s$", re.M)
VAR = re.compile(r"^@@ var (\w+)=(.*)$", re.M)


def newcomer_section() -> str:
    return (ROOT / "README.md").read_text().split(SECTION, 1)[1].split("\n## ", 1)[0]


def newcomer_blocks() -> list[str]:
    """The section's shell blocks, in order, as a reader copies them (the list item's indent removed)."""
    return [textwrap.dedent(code) for _, code in BLOCK.findall(newcomer_section())]


def readers_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not NOT_IN_A_READERS_SHELL.match(k)}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status == 200
    except OSError:
        return False


def test_the_steps_are_shell_blocks_and_the_server_is_make_serve():
    """One block a step, the first setting the base URL from PORT; the platform they run against is what
    `make serve` starts, which the test below starts the same way."""
    blocks = newcomer_blocks()
    assert len(blocks) == STEPS
    assert blocks[0].startswith("A=http://127.0.0.1:${PORT:-8000}/api\n")
    assert "`make serve`" in newcomer_section()
    makefile = (ROOT / "Makefile").read_text()
    assert "setup demo serve: export DJANGO_DEBUG ?= 1" in makefile
    assert re.search(r"^serve: setup\n\t\$\(PY\) manage\.py serve --port \$\(PORT\)$", makefile, re.M)
    assert re.search(r"^setup: .*\n(?:\t.*\n)*\t\$\(PY\) manage\.py migrate --noinput", makefile, re.M)


@ON_THE_CLOCK
@pytest.mark.sandbox
@pytest.mark.skipif(shutil.which("node") is None and shutil.which("nodejs") is None,
                    reason="node is not installed (Debian package 'nodejs'): the README uploads a JavaScript bot")
@pytest.mark.skipif(shutil.which("curl") is None, reason="the README's steps use curl")
@pytest.mark.skipif(not (ROOT / ".venv" / "bin" / "python").exists(),
                    reason="the README's steps use the clone's .venv (make setup makes it)")
def test_the_first_bot_steps_run_as_written(tmp_path):
    blocks = newcomer_blocks()
    data = tmp_path / "data"
    reader = {**readers_env(), "ARENA_DATA_DIR": str(data)}
    server_env = {**reader, "DJANGO_DEBUG": "1"}  # as `make serve` exports it
    manage = [sys.executable, "manage.py"]
    subprocess.run(manage + ["migrate", "--noinput", "-v0"], cwd=ROOT, env=server_env, check=True, timeout=300)
    port = free_port()
    outputs = ROOT / "var" / "match.json", ROOT / "var" / "match.html"
    for path in outputs:
        path.unlink(missing_ok=True)
    with (tmp_path / "serve.log").open("w") as log:
        server = subprocess.Popen(manage + ["serve", "--port", str(port)], cwd=ROOT, env=server_env,
                                  stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 120
        while not answers(f"http://127.0.0.1:{port}/api/games/"):
            assert server.poll() is None and time.monotonic() < deadline, (tmp_path / "serve.log").read_text()
            time.sleep(0.5)

        script = []
        for number, block in enumerate(blocks, 1):
            script += [block, f'echo "@@ step {number} exit $? at $SECONDS s"']
        script.append('for v in A TOKEN PYBOT JSBOT T M; do echo "@@ var $v=${!v}"; done')
        (tmp_path / "readme.sh").write_text("\n".join(script) + "\n")
        run = subprocess.run(["bash", str(tmp_path / "readme.sh")], cwd=ROOT, env={**reader, "PORT": str(port)},
                             capture_output=True, text=True, timeout=400)
        said = f"stdout:\n{run.stdout[-6000:]}\nstderr:\n{run.stderr[-4000:]}"

        ends = list(STEP.finditer(run.stdout))
        assert [int(m[1]) for m in ends] == list(range(1, STEPS + 1)), said
        assert [int(m[2]) for m in ends] == [0] * STEPS, said
        starts = [0] + [m.end() for m in ends]
        out = {int(m[1]): run.stdout[starts[i]:m.start()].strip().splitlines() for i, m in enumerate(ends)}
        var = dict(VAR.findall(run.stdout))
        print("seconds at the end of each step:", [int(m[3]) for m in ends])

        assert var["A"] == f"http://127.0.0.1:{port}/api", said
        assert re.fullmatch(r"[0-9a-f]{40}", var["TOKEN"]) and out[2] == [var["TOKEN"]], said  # 2. registered
        assert var["PYBOT"].isdigit() and var["JSBOT"].isdigit() and var["PYBOT"] != var["JSBOT"], said  # 3.
        assert out[4] == ["valid", "valid"], said  # 4. validated in the sandbox
        assert out[5] == ["finished"], said  # 5. the friendly tournament played
        standings = json.loads(out[6][-1])  # 6. its standings
        assert sorted(s["label"] for s in standings) == ["heuristic v1", "newcomer/jsbot v1", "newcomer/pybot v1"]
        assert all(s["matches"] == 2 for s in standings) and sum(s["wins"] for s in standings) >= 2, standings
        assert out[7] and out[7][0].startswith("replay ok:"), said  # 7. the log replays to its outcome
        log = json.loads(outputs[0].read_text())
        assert log["game"] == "port_royal" and log["outcome"]["ranks"], said
        assert outputs[1].stat().st_size > 10_000 and "open it in a browser" in out[7][-1], said
        board = json.loads(out[8][-1])  # 8. ranked by the rated ladder
        labels = [row["label"] for row in board]
        assert "newcomer/pybot v1" in labels and "newcomer/jsbot v1" in labels, said
        assert [row["place"] for row in board] == sorted(row["place"] for row in board), board
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=10)
        for path in outputs:
            path.unlink(missing_ok=True)
    assert server.returncode == 0, (tmp_path / "serve.log").read_text()[-3000:]
