"""The whole platform in one process tree: the site, N Celery workers and the scheduler, kept running.

``Supervisor`` starts each child in a process group of its own (so a terminal's Ctrl-C reaches only the
supervisor, which then stops them in order), restarts a child that dies (after a growing pause, logged),
and on SIGINT or SIGTERM stops every child: SIGTERM to its process group, a grace period (a worker
finishes its current match), then SIGKILL. Children also get SIGTERM from the kernel if the supervisor
itself is killed (``PR_SET_PDEATHSIG``), so none outlives it.

The pids of the running children are written to ``<data dir>/run/supervisor.json`` at every change.
"""
from __future__ import annotations

import ctypes
import json
import logging
import os
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from tournaments.running.workers import ROOT, beat_command, data_dir, logs_dir, worker_command, worker_env

log = logging.getLogger(__name__)

BACKOFF_FIRST_S = 1.0
BACKOFF_MAX_S = 30.0
STEADY_S = 60.0  # a child that ran this long is healthy again: its next restart waits the first pause only
PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:  # runs in the child between fork and exec
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):  # not Linux: the signal handlers still stop the children
        pass


@dataclass
class Child:
    """One supervised process: its command, its log file, and what happened to it so far."""

    name: str
    argv: list[str]
    to_terminal: bool = False  # the site's requests show on the terminal; the others write to <data>/logs/
    proc: subprocess.Popen | None = None
    started_at: float = 0.0
    restarts: int = 0
    backoff: float = BACKOFF_FIRST_S
    restart_at: float | None = None
    pids: list[int] = field(default_factory=list)

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None and self.proc.poll() is None else None


def platform_children(workers: int, *, beat: bool = True, site: Sequence[str] | None = None,
                      loglevel: str = "WARNING") -> list[Child]:
    """The children of a local platform: the site (``site`` is its argv), ``workers`` workers, the scheduler."""
    children = [Child("site", list(site), to_terminal=True)] if site else []
    children += [Child(f"worker-{i + 1}", worker_command(f"arena-{i + 1}", loglevel)) for i in range(workers)]
    if beat:
        children.append(Child("beat", beat_command(loglevel)))
    return children


class Supervisor:
    """Runs ``children`` until SIGINT/SIGTERM (or ``stop()``), restarting any that dies."""

    def __init__(self, children: list[Child], *, grace_s: float = 15.0, say: Callable[[str], None] = print,
                 state_file: Path | None = None):
        self.children = children
        self.grace_s = grace_s
        self.say = say
        self.state_file = state_file or data_dir() / "run" / "supervisor.json"
        self._stopping = False

    # --- life cycle ---------------------------------------------------------------------------
    def run(self) -> None:
        """Start every child and supervise until a stop signal; every child is gone when this returns."""
        previous = {sig: signal.signal(sig, self._on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            for child in self.children:
                self._start(child)
            self._write_state()
            while not self._stopping:
                self.check()
                time.sleep(0.2)
        finally:
            self.stop()
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def check(self) -> None:
        """Restart the children that died, each after its pause."""
        now = time.monotonic()
        changed = False
        for child in self.children:
            if child.proc is not None and child.proc.poll() is not None:
                code = child.proc.returncode
                ran = now - child.started_at
                child.backoff = BACKOFF_FIRST_S if ran >= STEADY_S else min(child.backoff * 2, BACKOFF_MAX_S)
                child.proc, child.restart_at = None, now + (BACKOFF_FIRST_S if ran >= STEADY_S else child.backoff)
                how = f"killed by signal {signal.Signals(-code).name}" if code < 0 else f"exited with status {code}"
                self.say(f"{child.name} {how} after {ran:.0f}s; restarting in {child.restart_at - now:.0f}s")
                log.warning("%s %s; restarting", child.name, how)
                changed = True
            if child.proc is None and child.restart_at is not None and now >= child.restart_at and not self._stopping:
                child.restarts += 1
                self._start(child)
                changed = True
        if changed:
            self._write_state()

    def stop(self) -> None:
        """SIGTERM every child's process group, wait up to the grace period, SIGKILL what is left."""
        self._stopping = True
        running = [c for c in self.children if c.proc is not None]
        for child in running:
            _signal_group(child.proc, signal.SIGTERM)
        deadline = time.monotonic() + self.grace_s
        for child in running:
            try:
                child.proc.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                self.say(f"{child.name} did not stop within {self.grace_s:.0f}s; killing it")
            _signal_group(child.proc, signal.SIGKILL)  # also whatever it left behind in its group
            child.proc.wait()
            child.proc = None
        self._write_state()

    def _on_signal(self, signum: int, frame) -> None:
        if not self._stopping:
            self.say(f"{signal.Signals(signum).name}: stopping every process")
        self._stopping = True

    # --- children -----------------------------------------------------------------------------
    def _start(self, child: Child) -> None:
        with open(os.devnull if child.to_terminal else logs_dir() / f"{child.name}.log", "ab") as out:
            child.proc = subprocess.Popen(child.argv, cwd=ROOT, env=worker_env(), stdin=subprocess.DEVNULL,
                                          stdout=None if child.to_terminal else out,
                                          stderr=None if child.to_terminal else subprocess.STDOUT,
                                          start_new_session=True, preexec_fn=_die_with_parent)
        child.started_at, child.restart_at = time.monotonic(), None
        child.pids.append(child.proc.pid)
        self.say(f"{child.name} started (pid {child.proc.pid})" + (f", restart {child.restarts}" if child.restarts else ""))

    def _write_state(self) -> None:
        state = {"supervisor": os.getpid(), "stopping": self._stopping,
                 "children": {c.name: {"pid": c.pid, "restarts": c.restarts, "argv": c.argv} for c in self.children}}
        self.state_file.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.state_file.with_suffix(".tmp")
        tmp.write_text(json.dumps(state, indent=1))
        os.replace(tmp, self.state_file)


def _signal_group(proc: subprocess.Popen, sig: int) -> None:
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass
