"""Throw-away servers for fault tests: a PostgreSQL cluster (initdb in a temporary folder) and a Redis
server, on their own ports, that a test may stop, kill and restart without touching the machine's own."""
from __future__ import annotations

import glob
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(host: str, port: int, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with socket.create_connection((host, port), timeout=1):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"nothing answers on {host}:{port}") from None
            time.sleep(0.1)


def postgres_bin(name: str) -> str | None:
    """A PostgreSQL program (initdb, pg_ctl) from PATH, /usr/local/bin or /usr/lib/postgresql/*/bin."""
    found = shutil.which(name) or shutil.which(name, path="/usr/local/bin")
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return candidates[-1] if candidates else None


def missing_tools() -> str | None:
    """Why these servers cannot be started here, or None."""
    for tool in ("initdb", "pg_ctl"):
        if postgres_bin(tool) is None:
            return f"{tool} not found"
    if shutil.which("redis-server") is None:
        return "redis-server not found"
    if os.geteuid() == 0:
        try:
            import pwd

            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root without a postgres user (PostgreSQL refuses to run as root)"
    return None


class OwnPostgres:
    """A PostgreSQL cluster in a temporary folder (run as the postgres user when we are root)."""

    def __init__(self, host: str = "127.0.0.1", port: int | None = None, prefix: list[str] | None = None,
                 listen: list[str] | None = None):
        self.host, self.port = host, port or free_port()
        self.listen = listen or [host]
        self.prefix = list(prefix or [])  # e.g. ["ip", "netns", "exec", "arena-db"]
        self.dir = Path(tempfile.mkdtemp(prefix="arena-pg-"))
        self.data = self.dir / "data"
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres", "postgres")
            self.prefix += ["runuser", "-u", "postgres", "--"]
        self._run([postgres_bin("initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres", "--no-sync",
                   "-E", "UTF8"])
        # initdb trusts local connections only; these test hosts reach it over their veth addresses.
        with open(self.data / "pg_hba.conf", "a") as hba:
            hba.write("host all all 0.0.0.0/0 trust\n")

    @property
    def url(self) -> str:
        return f"postgresql://postgres@{self.host}:{self.port}/postgres"

    def _run(self, cmd: list[str]) -> None:
        subprocess.run(self.prefix + cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       cwd=self.dir)

    def start(self) -> None:
        options = (f"-p {self.port} -k {self.dir} -c listen_addresses={','.join(self.listen)} -c fsync=off "
                   "-c max_connections=100")
        self._run([postgres_bin("pg_ctl"), "-D", str(self.data), "-o", options, "-l", str(self.dir / "log"),
                   "-w", "-t", "60", "start"])

    def stop(self, mode: str = "immediate") -> None:
        """Stop the server (immediate: as abrupt as a crash; connections drop at once)."""
        self._run([postgres_bin("pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop"])

    def close(self) -> None:
        try:
            self.stop()
        except subprocess.CalledProcessError:
            pass
        shutil.rmtree(self.dir, ignore_errors=True)


class OwnRedis:
    """A Redis server with no persistence: a restart comes back empty."""

    def __init__(self, host: str = "127.0.0.1", port: int | None = None, prefix: list[str] | None = None,
                 listen: list[str] | None = None):
        self.host, self.port = host, port or free_port()
        self.listen = listen or [host]
        self.prefix = list(prefix or [])
        self.dir = Path(tempfile.mkdtemp(prefix="arena-redis-"))
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://{self.host}:{self.port}/0"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            self.prefix + ["redis-server", "--port", str(self.port), "--bind", *self.listen, "--save", "",
                           "--appendonly", "no", "--dir", str(self.dir), "--protected-mode", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for_port(self.host, self.port)

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def close(self) -> None:
        self.kill()
        shutil.rmtree(self.dir, ignore_errors=True)
