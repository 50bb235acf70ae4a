"""`manage.py serve` runs the whole platform: the site answers on its port, a worker that dies is replaced
and matches still run, and SIGTERM leaves no process behind."""
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def alive(pid: int) -> bool:
    """True while ``pid`` is a process that is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def wait_for(what: str, check, timeout: float = 120.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.3)
    raise AssertionError(f"timed out waiting for {what}")


def state(data: Path) -> dict:
    try:
        return json.loads((data / "run" / "supervisor.json").read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return {}


def site_answers(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as response:
            return response.status == 200
    except OSError:
        return False


def test_serve_restarts_a_dead_worker_and_sigterm_stops_every_child(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL", "PORT")}
    env.update(ARENA_DATA_DIR=str(tmp_path), ARENA_QUEUE=f"arena-serve-{uuid.uuid4().hex[:8]}")
    manage = [sys.executable, str(ROOT / "manage.py")]
    subprocess.run(manage + ["migrate", "--noinput", "-v0"], env=env, check=True, cwd=ROOT, timeout=300)
    port = free_port()
    env["PORT"] = str(port)  # as `make serve` passes it
    supervisor = subprocess.Popen(manage + ["serve", "--workers", "1", "--grace", "5"],
                                  env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    seen: set[int] = set()
    try:
        first = wait_for("the children", lambda: (s := state(tmp_path)) and all(
            c["pid"] for c in s["children"].values()) and s)
        assert set(first["children"]) == {"site", "worker-1", "beat"}
        seen.update(c["pid"] for c in first["children"].values())
        wait_for(f"the site on port {port}", lambda: site_answers(port))

        old = first["children"]["worker-1"]["pid"]
        os.kill(old, signal.SIGKILL)
        restarted = wait_for("a new worker", lambda: (s := state(tmp_path)) and (
            c := s["children"]["worker-1"])["pid"] not in (None, old) and c)
        assert restarted["restarts"] == 1
        seen.add(restarted["pid"])

        # The restarted worker (the only one) plays a tournament's matches.
        run = subprocess.run(manage + ["runtournament", "--game", "port_royal", "--bots", "random", "heuristic",
                                       "--seats", "2", "--games", "2", "--workers", "0", "--timeout", "180"],
                             env=env, cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
        assert "2/2 matches" in run.stdout
        assert site_answers(port)
    finally:
        supervisor.send_signal(signal.SIGTERM)
        output = supervisor.communicate(timeout=120)[0]
    assert supervisor.returncode == 0, output[-3000:]
    assert "worker-1 killed by signal SIGKILL" in output, output
    assert [pid for pid in seen if alive(pid)] == []
    assert all(c["pid"] is None for c in state(tmp_path)["children"].values())


def test_runworkers_stops_its_children_on_sigterm_and_they_die_with_it(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL")}
    env.update(ARENA_DATA_DIR=str(tmp_path), ARENA_QUEUE=f"arena-rw-{uuid.uuid4().hex[:8]}")
    manage = [sys.executable, str(ROOT / "manage.py")]

    def start() -> tuple[subprocess.Popen, list[int]]:
        (tmp_path / "run" / "supervisor.json").unlink(missing_ok=True)
        proc = subprocess.Popen(manage + ["runworkers", "-n", "2", "--grace", "5"], env=env, cwd=ROOT,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        found = wait_for("the workers", lambda: (s := state(tmp_path)) and all(
            c["pid"] for c in s["children"].values()) and s)
        assert set(found["children"]) == {"worker-1", "worker-2", "beat"}
        return proc, [c["pid"] for c in found["children"].values()]

    # SIGTERM: the supervisor stops every child, then exits.
    proc, pids = start()
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=60) == 0
    assert [pid for pid in pids if alive(pid)] == []

    # SIGKILL of the supervisor itself: its children are told by the kernel (parent-death signal) and stop.
    proc, pids = start()
    proc.kill()
    proc.wait(timeout=10)
    assert wait_for("the orphans to stop", lambda: not any(alive(pid) for pid in pids), timeout=60)


def test_serve_refuses_a_port_in_use_at_once(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL")}
    env["ARENA_DATA_DIR"] = str(tmp_path)
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        result = subprocess.run([sys.executable, str(ROOT / "manage.py"), "serve", "--port", str(port)], env=env,
                                cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode != 0
    assert f"cannot serve on 127.0.0.1:{port}" in result.stderr and "PORT=" in result.stderr
    assert not (tmp_path / "run" / "supervisor.json").exists()  # nothing was started
