"""Local Celery worker processes, started by the project's own commands (embedded default)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from django.conf import settings

ROOT = Path(__file__).resolve().parents[2]


def worker_env() -> dict[str, str]:
    env = dict(os.environ)
    paths = [str(ROOT), str(ROOT / "platform")]
    if env.get("PYTHONPATH"):
        paths.append(env["PYTHONPATH"])
    env["PYTHONPATH"] = os.pathsep.join(paths)
    env.setdefault("DJANGO_SETTINGS_MODULE", settings.SETTINGS_MODULE)
    return env


def data_dir() -> Path:
    return Path(settings.DATA_DIR)


def logs_dir() -> Path:
    logs = data_dir() / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    return logs


def worker_command(node: str, loglevel: str = "WARNING") -> list[str]:
    """One Celery worker process, a solo pool: one match at a time."""
    return [sys.executable, "-m", "celery", "-A", "arena", "worker", "--pool=solo", f"--loglevel={loglevel}",
            "-n", f"{node}@%h", "--without-gossip", "--without-mingle", "--without-heartbeat"]


def beat_command(loglevel: str = "WARNING") -> list[str]:
    """The scheduler that triggers the reconciler (exactly one per deployment)."""
    return [sys.executable, "-m", "celery", "-A", "arena", "beat", f"--loglevel={loglevel}",
            "-s", str(data_dir() / "celerybeat-schedule")]


def start_workers(count: int, name: str = "arena", loglevel: str = "WARNING", beat: bool = False) -> list[subprocess.Popen]:
    """Start ``count`` worker processes (each a solo pool: one match at a time per process).

    With ``beat`` one more process runs the scheduler that triggers the reconciler. Their output goes
    to ``<data dir>/logs/``. For a long-running platform use ``tournaments.running.supervisor`` (restarts, signals).
    """
    logs = logs_dir()
    procs = []
    for i in range(count):
        with open(logs / f"{name}-{i + 1}.log", "ab") as out:
            procs.append(subprocess.Popen(worker_command(f"{name}-{i + 1}", loglevel), cwd=ROOT, env=worker_env(),
                                          start_new_session=True, stdout=out, stderr=subprocess.STDOUT))
    if beat:
        with open(logs / "beat.log", "ab") as out:
            procs.append(subprocess.Popen(beat_command(loglevel), cwd=ROOT, env=worker_env(), start_new_session=True,
                                          stdout=out, stderr=subprocess.STDOUT))
    return procs


def stop_workers(procs: list[subprocess.Popen], timeout: float = 15.0) -> None:
    """Warm shutdown (SIGTERM: finish the current match), then kill what is left."""
    for p in procs:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    for p in procs:
        try:
            p.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
