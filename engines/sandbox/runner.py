"""``ProgramBot``: a bot program run as its own process, in the bubblewrap sandbox, over protocol 1
(with observation deltas to a program that asks for them in its ``ready``: ``protocol.DeltaEncoder``).

The sandbox (bubblewrap, Debian package ``bubblewrap``):

- namespaces: pid, net (no network at all, not even the host's loopback), ipc, uts, cgroup;
  ``--die-with-parent`` and a fresh session; the whole sandbox dies with its pid namespace;
- files: a read-only root holding only /usr (with the /bin, /lib... links), the Python prefix
  (``sys.base_prefix``; a Python bot runs it as ``BOT_PYTHON``, a virtual environment with no site-packages)
  and node's (when the bot runs on node), the SDK at /arena/sdk, the bot's own
  files read-only at /bot (its own executable, if it has one, among them), an empty
  size-limited /tmp, /proc and a minimal /dev. No /etc, /work, /root, nor any other bot;
- user: when the host runs as root, the bot runs as a uid of its own (1,000,000 + the pid of its
  bwrap process, unique while it runs), because RLIMIT_NPROC is not enforced for root and counts
  per real uid; as an ordinary user, in a user namespace of its own (where the count is per bot);
- no new user namespaces inside, either way (``seccomp``: a root of its own could mount past its limits);
- resource limits: CPU seconds, memory (writable data, RLIMIT_DATA, and address space, RLIMIT_AS: node's V8
  reserves gigabytes of address space it never uses, so node gets ``reserve_mb`` more of it), processes,
  open files, file size, no core dumps, all per process; and, where the host can make cgroups (``cgroup``:
  v2 or v1, ``cgroup.problem()`` says why not), a cgroup per bot bounds the whole tree: ``total_memory_mb``
  of memory, ``processes`` tasks and ``cpus`` cores' time, so that 32 processes cannot take 32 times the
  memory, nor every core; bwrap's tree is moved into it before the launcher reads its configuration;
- wall clock: per decision ``min(move_ms, time_left_ms)`` (the match time bank is kept by
  ``engines.match``), checked here; output: one answer line of at most 64 KiB per request, at most
  ``stderr_bytes`` on stderr (the last ``stderr_tail_bytes`` are kept for the owner).

Faults raise ``BotFault`` (kinds: crash, timeout, garbage, illegal, protocol). After a fault that
leaves the program in an unknown state it is killed; it is started again (with a new ``start``
message) at its next decision, so a bot that crashed once may still finish its match.
"""
from __future__ import annotations

import functools
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Mapping, Sequence

from engines import protocol
from engines.bots import Bot, BotFault
from engines.core import Outcome

from . import cgroup, seccomp
from .package import DEFAULT_LIMITS as PACKAGE_LIMITS
from .package import BotPackage, PackageError, check_package, executable_path, package_from_folder

SDK_DIR = Path(__file__).resolve().parent.parent / "sdk"
LAUNCHER = Path(__file__).resolve().parent / "launcher.py"
UID_BASE = 1_000_000
#: a staged bot's folder in the temporary folder: ``arena-bot-<pid of the process that staged it>-<random>``
STAGED_PREFIX = "arena-bot-"
#: after ``end``, how long a program may take to exit (writing its last words on stderr) before it is killed
END_GRACE_S = 0.5


@functools.cache
def sweep_staged() -> list[str]:
    """Remove the staged bot folders (``arena-bot-<pid>-*`` in the temporary folder) of processes that are gone:
    a worker killed by SIGKILL never closed its bots. Once per process, at its first staging; returns them."""
    removed = []
    root = tempfile.gettempdir()
    for entry in os.listdir(root):
        pid = entry[len(STAGED_PREFIX):].partition("-")[0]
        if entry.startswith(STAGED_PREFIX) and pid.isdigit() and not cgroup.process_alive(int(pid)):
            shutil.rmtree(os.path.join(root, entry), ignore_errors=True)
            removed.append(entry)
    return removed


class SandboxUnavailable(OSError):
    """Untrusted code cannot be run here (no working bubblewrap)."""


@dataclass(frozen=True)
class SandboxLimits:
    """Limits of one bot program. Times in ms, sizes in MiB unless named bytes."""

    move_ms: int = 2000  # wall clock per decision (also capped by the match time bank)
    start_ms: int = 10_000  # wall clock to start and answer ``start``
    cpu_s: int = 300  # CPU seconds of each process of the bot (RLIMIT_CPU)
    memory_mb: int = 512  # writable memory (RLIMIT_DATA) and address space (RLIMIT_AS) of each process
    reserve_mb: int = 4096  # more address space (not memory) for node: V8 reserves it at start
    processes: int = 32  # processes and threads of the bot (RLIMIT_NPROC; its cgroup's pids.max, bwrap's two included)
    total_memory_mb: int = 1024  # memory of all its processes together, swap included (its cgroup, if any; 0: none)
    cpus: float = 1.0  # cores' worth of CPU time of all its processes together (its cgroup's quota; 0: none)
    open_files: int = 64
    file_mb: int = 16  # largest file it may write (RLIMIT_FSIZE), in its /tmp only
    tmp_mb: int = 32  # size of its /tmp
    stderr_bytes: int = 1024 * 1024  # more stderr than this over the match: killed
    stderr_tail_bytes: int = 8192


DEFAULT_LIMITS = SandboxLimits()


@functools.cache
def bwrap_path() -> str | None:
    """The path of bubblewrap (``bwrap``) on PATH, or None."""
    return shutil.which("bwrap")


@functools.cache
def sandbox_problem() -> str | None:
    """None when the sandbox works here, else why not (bwrap missing or refused to start)."""
    bwrap = bwrap_path()
    if bwrap is None:
        return ("bubblewrap (bwrap) is not installed: untrusted bots cannot be run "
                "(install the Debian package 'bubblewrap', or run your own bot with --trusted)")
    seccomp_fd = _readable(seccomp.no_new_user_namespaces()) if seccomp.supported() else None
    cmd = _bwrap_argv(bwrap, None, seccomp_fd=seccomp_fd) + ["--", _python(), "-I", "-S", "-c", "pass"]
    try:
        result = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, timeout=30,
                                pass_fds=() if seccomp_fd is None else (seccomp_fd,))
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap cannot be started: {exc}"
    finally:
        if seccomp_fd is not None:
            os.close(seccomp_fd)
    if result.returncode != 0:
        return f"bubblewrap does not work here: {result.stderr.decode('utf-8', 'replace').strip()[:500]}"
    return None


@functools.cache
def orjson_dir() -> str | None:
    """The host's orjson package folder, or None: shown read-only to sandboxed bots at /arena/lib/orjson,
    where the Python SDK decodes the host's messages with it (three times faster than ``json``)."""
    try:
        import orjson
    except ImportError:
        return None
    return os.path.dirname(os.path.realpath(orjson.__file__))


def _python() -> str:
    """The base interpreter (not a venv: the venv lives in the project, which the bot must not see)."""
    exe = getattr(sys, "_base_executable", None) or sys.executable
    return os.path.realpath(exe)


@functools.cache
def interpreter_path(name: str) -> str | None:
    """The host's binary of an interpreter the workers provide (``python3``, ``node``), or None if missing."""
    if name == "python3":
        return _python()
    found = shutil.which(name) or (shutil.which("nodejs") if name == "node" else None)
    return os.path.realpath(found) if found else None


def _ro_tree(path: str, bound: set[str], made: set[str]) -> list[str]:
    """bwrap args that bind ``path`` read-only, creating its missing parents traversable only (0711)."""
    if any(path == p or path.startswith(p + "/") for p in bound):
        return []
    args: list[str] = []
    parts = Path(path).parts
    for i in range(2, len(parts)):
        parent = str(Path(*parts[:i]))
        if parent not in made and parent not in bound:
            args += ["--perms", "0711", "--dir", parent]
            made.add(parent)
    bound.add(path)
    return args + ["--ro-bind", path, path]


#: the bot's Python inside the sandbox: the host's interpreter seen as a bare virtual environment (a
#: pyvenv.cfg of its own, no site-packages), so a bot gets the standard library only, as the protocol's doc
#: promises, and its start runs none of the .pth files of what is installed beside the host's interpreter
BOT_PYTHON = "/arena/python/bin/python3"


def bare_python_config() -> bytes:
    """The pyvenv.cfg that makes ``BOT_PYTHON`` the host's interpreter with no site-packages."""
    return f"home = {os.path.dirname(_python())}\ninclude-system-site-packages = false\n".encode()


def _readable(data: bytes) -> int:
    """A descriptor bubblewrap reads ``data`` from (a pipe: the few bytes wait in it until then)."""
    read_fd, write_fd = os.pipe()
    os.write(write_fd, data)
    os.close(write_fd)
    return read_fd


def _bwrap_argv(bwrap: str, bot_dir: str | None, limits: SandboxLimits = DEFAULT_LIMITS,
                interpreter: str | None = None, python_config_fd: int | None = None,
                seccomp_fd: int | None = None) -> list[str]:
    """bubblewrap's arguments up to the command (the module's docstring says what they build);
    ``python_config_fd``: a readable descriptor of ``bare_python_config()``, to provide ``BOT_PYTHON``;
    ``seccomp_fd``: one of ``seccomp.no_new_user_namespaces()``."""
    as_root = os.geteuid() == 0
    args = [bwrap, "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
            "--die-with-parent", "--new-session", "--hostname", "arena"]
    if as_root:
        # Root keeps only what the launcher needs to drop to the bot's own uid (then it has nothing).
        args += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    else:
        args += ["--unshare-user", "--disable-userns"]
    bound, made = {"/usr"}, set()
    args += ["--ro-bind", "/usr", "/usr"]
    for link in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(link):
            args += ["--symlink", os.readlink(link), link]
        elif os.path.isdir(link):
            args += ["--ro-bind", link, link]
            bound.add(link)
    prefixes = {os.path.realpath(sys.base_prefix), os.path.realpath(sys.base_exec_prefix),
                os.path.dirname(os.path.dirname(_python()))}
    if interpreter is not None:  # e.g. node under /usr (already there) or /usr/local, /opt/node
        prefixes.add(os.path.dirname(os.path.dirname(interpreter)))
    for prefix in sorted(prefixes):
        args += _ro_tree(prefix, bound, made)
    args += ["--proc", "/proc", "--dev", "/dev",
             "--perms", "1777", "--size", str(limits.tmp_mb * 1024 * 1024), "--tmpfs", "/tmp",
             "--dir", "/arena", "--ro-bind", str(SDK_DIR), "/arena/sdk",
             "--ro-bind", str(LAUNCHER), "/arena/launcher.py"]
    if orjson_dir() is not None:  # bwrap would make /arena/lib root's own (0700): a bot's uid could not enter it
        args += ["--perms", "0755", "--dir", "/arena/lib", "--ro-bind", orjson_dir(), "/arena/lib/orjson"]
    if bot_dir is not None:
        args += ["--ro-bind", bot_dir, "/bot"]
    if python_config_fd is not None:
        args += ["--dir", "/arena/python/bin", "--symlink", _python(), BOT_PYTHON,
                 "--perms", "0444", "--file", str(python_config_fd), "/arena/python/pyvenv.cfg"]
    if seccomp_fd is not None:
        args += ["--seccomp", str(seccomp_fd)]
    args += ["--remount-ro", "/", "--clearenv", "--chdir", "/"]
    return args


class ProgramBot(Bot):
    """A bot program (protocol 1) in its own process, sandboxed unless ``trusted``.

    ``package_dir`` holds the bot's files; ``command`` is ``[interpreter, script, *args]`` (python3, node)
    or ``["./executable", *args]``, paths relative to it (``BotPackage.command``).
    ``trusted=True`` runs it without bubblewrap (your own code on your own machine only).
    """

    def __init__(self, package_dir: str | os.PathLike[str], command: Sequence[str] = ("python3", "main.py"), *,
                 trusted: bool = False, move_ms: int | None = None, limits: SandboxLimits | None = None,
                 name: str | None = None, cleanup: str | os.PathLike[str] | None = None):
        self.limits = limits or DEFAULT_LIMITS
        if move_ms is not None:
            self.limits = replace(self.limits, move_ms=int(move_ms))
        self.package_dir = str(Path(package_dir).resolve())
        self.command = list(command)
        self.trusted = trusted
        self.name = name or Path(package_dir).name
        self._cleanup = str(cleanup) if cleanup is not None else None
        self._proc: subprocess.Popen | None = None
        self._buf = bytearray()
        self._poller: Any = None  # select.poll of the running program's stdout and stderr
        self._in_fd = self._out_fd = -1  # the running program's stdin and stdout
        self._tail = bytearray()
        self._stderr_total = 0
        self._start_msg: dict[str, Any] | None = None
        self._moves = 0
        self._delta: protocol.DeltaEncoder | None = None  # when the running program opted in to deltas
        self._exit_by: float | None = None  # told ``end``: when ``close`` stops waiting for it to exit
        self._starting: tuple[memoryview, float] | None = None  # launched: the rest of start and its deadline
        self.restarts = 0
        self.uids: list[int] = []  # the uids its sandboxes ran under (root hosts), for checks
        self._killed_stats: dict[str, Any] = {}  # the cgroup counters of the program killed last (``_memory_note``)
        self._cgroup: cgroup.BotCgroup | None = None  # the running program's cgroup, if the host makes them
        self.cgroup_stats: list[dict[str, Any]] = []  # per program run, its cgroup's last counters, for checks
        problem = None if trusted else sandbox_problem()
        if problem is None and not executable_path(self.command) and interpreter_path(self.command[0]) is None:
            problem = f"{self.command[0]} is not installed on this machine: this bot cannot run here"
        if problem is not None:
            self._remove_cleanup()
            raise SandboxUnavailable(problem)

    # --- construction -------------------------------------------------------------------------
    @classmethod
    def from_package(cls, package: BotPackage, **kwargs: Any) -> "ProgramBot":
        """Stage a checked package into a private temporary folder (removed by ``close``)."""
        sweep_staged()
        tmp = tempfile.mkdtemp(prefix=f"{STAGED_PREFIX}{os.getpid()}-")
        try:
            folder = package.store(os.path.join(tmp, "bot"))
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        kwargs.setdefault("name", package.source_name or "bot")
        return cls(folder, package.command, cleanup=tmp, **kwargs)

    @classmethod
    def from_path(cls, spec: str | os.PathLike[str], *, validated: bool = False, **kwargs: Any) -> "ProgramBot":
        """A bot from a path: a ``.py`` file, a ``.zip`` or a folder (checked like an upload).

        ``validated``: ``spec`` is a package accepted at its upload (the platform's stored versions, at every
        match start): it is unpacked under the checks of sizes and paths but not compiled again, and errors
        name its file only (its owner reads them; the host's folders are not theirs to see).
        """
        path = Path(spec)
        shown = path.name if validated else str(spec)
        if path.is_dir():
            package = package_from_folder(path)
        elif path.is_file():
            data = path.read_bytes()
            # a stored package's size was the platform's to bound at its upload (it may allow more than a local run)
            limits = replace(PACKAGE_LIMITS, max_upload_bytes=max(PACKAGE_LIMITS.max_upload_bytes, len(data))) \
                if validated else PACKAGE_LIMITS
            package = check_package(data, path.name, limits, compile_python=not validated)
        else:
            raise PackageError(f"{shown}: no such file or folder")
        kwargs.setdefault("name", shown)
        return cls.from_package(package, **kwargs)

    # --- the Bot interface --------------------------------------------------------------------
    def start(self, game_id: str, seat: int, num_players: int, options: Mapping[str, Any]) -> None:
        """Launch the program and send it ``start``; it must answer ``ready`` within ``start_ms``."""
        self.launch(game_id, seat, num_players, options)
        self.ready()

    def launch(self, game_id: str, seat: int, num_players: int, options: Mapping[str, Any],
               match_ms: int | None = None) -> None:
        """Launch the program and send it ``start`` (with its move limit and its time bank ``match_ms``)
        without waiting for its answer (``ready`` waits)."""
        super().start(game_id, seat, num_players, options)
        self._start_msg = protocol.start_message(game_id, seat, num_players, options, self.limits.move_ms, match_ms)
        self._spawn()

    def ready(self) -> None:
        """Wait for the launched program's ``ready``, within ``start_ms`` of its launch (``BotFault`` if it
        does not come or is not one). Meanwhile it may fill its stderr pipe and block: it is read here."""
        if self._starting is not None:
            self._await_ready()

    def act(self, observation: Mapping[str, Any], legal_actions: Sequence[Any], time_left_ms: int | None = None) -> int:
        """Send the decision (whole, or as a delta if the program asked) and read its answer (``BotFault`` if bad);
        a program stopped by an earlier fault is started afresh first."""
        if self._proc is None:
            self.restarts += 1
            self._launch()
        elif self._starting is not None:  # launched, never awaited
            self._await_ready()
        limit = self.limits.move_ms
        if time_left_ms is not None:
            limit = min(limit, max(int(time_left_ms), 0))
        self._check_silent()
        if self._delta is not None:
            data = self._delta.encode(observation, legal_actions, time_left_ms, self._moves)
        else:
            data = protocol.encode_act(observation, legal_actions, time_left_ms, self._moves)
        self._moves += 1
        line = self._exchange(data, limit, "decision")
        try:
            return protocol.parse_answer(line, len(legal_actions))
        except protocol.ProtocolError as exc:
            if exc.kind != "illegal":  # the program's state is unknown: start afresh next time
                self._kill()
            raise BotFault(exc.kind, exc.detail, self.stderr_tail()) from None

    def end(self, outcome: Outcome) -> None:
        """Send ``end`` with the outcome and close the program's stdin. It may still write on stderr until it
        exits: ``close`` gives it ``END_GRACE_S`` from now, so the bots of a match wind up together."""
        proc = self._proc
        if proc is None:
            return
        try:
            self._write_all(protocol.encode(protocol.end_message(outcome.to_dict(), getattr(self, "seat", 0))),
                            time.monotonic() + END_GRACE_S)
            proc.stdin.close()  # EOF: the end of the conversation
        except (BotFault, OSError, ValueError):
            pass
        self._exit_by = time.monotonic() + END_GRACE_S

    def close(self) -> None:
        """Kill the program (told ``end``: once it has exited, or its grace is over) and remove its staged
        folder, if any."""
        if self._exit_by is not None:
            self._await_exit(self._exit_by)
            self._exit_by = None
        self._kill()
        self._remove_cleanup()

    def _await_exit(self, deadline: float) -> None:
        """Wait until the program has closed its stdout and stderr (it exited), or ``deadline``; keep what it
        writes on stderr meanwhile (stdout after ``end`` is ignored)."""
        proc = self._proc
        if proc is None:
            return
        poller = select.poll()  # both pipes: one closed already reports at once
        pipes = {proc.stdout.fileno(), proc.stderr.fileno()}
        for fd in pipes:
            poller.register(fd, select.POLLIN)
        err_fd = proc.stderr.fileno()
        while pipes:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            for fd, _event in poller.poll(remaining * 1000):
                try:
                    chunk = os.read(fd, 65536)
                except BlockingIOError:
                    continue
                except OSError:
                    chunk = b""
                if not chunk:
                    pipes.discard(fd)
                    poller.unregister(fd)
                elif fd == err_fd:
                    self._keep_stderr(chunk)

    def stderr_tail(self) -> str:
        """The last ``stderr_tail_bytes`` the program wrote on stderr (what is still in the pipe included), as text
        any database stores."""
        if self._proc is not None:  # what it wrote before its last answer may still be in the pipe
            self._drain_stderr(self._proc, self.limits.stderr_bytes - self._stderr_total)
        # NUL as U+FFFD, as undecodable bytes are: PostgreSQL's text and jsonb cannot hold it
        return bytes(self._tail).decode("utf-8", "replace").replace("\x00", "\ufffd")

    def __del__(self) -> None:  # a last resort; play_match always calls close()
        try:
            self.close()
        except Exception:
            pass

    # --- process ------------------------------------------------------------------------------
    def _command(self, python_config_fd: int | None = None,
                 seccomp_fd: int | None = None) -> tuple[list[str], dict[str, Any]]:
        """The host's command (bwrap and the launcher, or the launcher alone when trusted) and the launcher's
        configuration; ``python_config_fd`` (for a sandboxed Python bot) and ``seccomp_fd`` as in
        ``_bwrap_argv``."""
        lim = self.limits
        python = _python()
        executable = executable_path(self.command)
        interpreter = None if executable else interpreter_path(self.command[0])
        memory = lim.memory_mb * 1024 * 1024
        address_space = memory + (lim.reserve_mb * 1024 * 1024 if self.command[0] == "node" else 0)
        rlimits = {"RLIMIT_AS": address_space, "RLIMIT_DATA": memory,
                   "RLIMIT_CPU": [lim.cpu_s, lim.cpu_s + 1],  # SIGXCPU first
                   "RLIMIT_FSIZE": lim.file_mb * 1024 * 1024, "RLIMIT_CORE": 0}
        if self.trusted:
            bot_dir, sdk = self.package_dir, str(SDK_DIR)
            cmd = [python, "-I", "-S", str(LAUNCHER)]
            uid = None
        else:
            bot_dir, sdk = "/bot", "/arena/sdk:/arena/lib" if orjson_dir() else "/arena/sdk"
            cmd = _bwrap_argv(bwrap_path(), self.package_dir, lim, interpreter, python_config_fd, seccomp_fd) + [
                "--", python, "-I", "-S", "/arena/launcher.py"]
            if python_config_fd is not None:
                interpreter = BOT_PYTHON
            rlimits.update({"RLIMIT_NPROC": lim.processes, "RLIMIT_NOFILE": lim.open_files})
            uid = 0 if os.geteuid() == 0 else None  # filled in with the bwrap pid once known
        env = {"PATH": "/usr/bin:/bin", "HOME": "/tmp" if not self.trusted else os.environ.get("HOME", "/tmp"),
               "TMPDIR": "/tmp", "LANG": "C.UTF-8", "PYTHONPATH": sdk, "PYTHONDONTWRITEBYTECODE": "1",
               "PYTHONNOUSERSITE": "1", "PYTHONIOENCODING": "utf-8", "NODE_PATH": sdk.split(":")[0],
               "ARENA_PROTOCOL": str(protocol.PROTOCOL_VERSION)}
        if executable:
            argv = [os.path.join(bot_dir, executable), *self.command[1:]]
        else:
            argv = [interpreter, os.path.join(bot_dir, self.command[1]), *self.command[2:]]
        config = {"uid": uid, "rlimits": rlimits, "cwd": bot_dir, "argv": argv, "env": env}
        return cmd, config

    def _launch(self) -> None:
        """Start the program and wait for its ``ready``."""
        self._spawn()
        self._await_ready()

    def _spawn(self) -> None:
        """Start the program and write it its configuration and ``start`` (as much as its stdin takes now);
        ``_await_ready`` writes the rest and reads the answer."""
        self._kill()
        self._exit_by = None
        config_fd = seccomp_fd = None
        if not self.trusted and not executable_path(self.command) and self.command[0] == "python3":
            config_fd = _readable(bare_python_config())
        if not self.trusted and seccomp.supported():
            seccomp_fd = _readable(seccomp.no_new_user_namespaces())
        passed = tuple(fd for fd in (config_fd, seccomp_fd) if fd is not None)
        group = None
        try:
            if not self.trusted:
                group = self._new_cgroup()
            cmd, config = self._command(config_fd, seccomp_fd)
            self._buf.clear()
            proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    start_new_session=True, close_fds=True, env={"PATH": "/usr/bin:/bin"}
                                    if not self.trusted else None, pass_fds=passed)
        except OSError as exc:
            if group is not None:
                group.remove()
            raise BotFault("crash", f"cannot start the bot: {exc}") from None
        finally:
            for fd in passed:
                os.close(fd)
        self._proc = proc
        if group is not None:
            # Before the configuration is written: the launcher waits for it, so no bot code has run yet.
            self._cgroup = group
            try:
                group.adopt(proc.pid)
            except OSError as exc:  # pragma: no cover - root moves any process; what moved stays bounded
                cgroup.log.warning("cannot move bot %s into its cgroup %s: %s", self.name, group.name, exc)
        self._in_fd, self._out_fd = proc.stdin.fileno(), proc.stdout.fileno()
        for stream in (proc.stdout, proc.stderr):
            os.set_blocking(stream.fileno(), False)
        self._poller = select.poll()  # registered once per process: each decision only polls
        self._poller.register(proc.stdout.fileno(), select.POLLIN)
        self._poller.register(proc.stderr.fileno(), select.POLLIN)
        os.set_blocking(proc.stdin.fileno(), False)
        if config["uid"] is not None:
            config["uid"] = UID_BASE + proc.pid
            self.uids.append(config["uid"])
        assert self._start_msg is not None, "start() before act()"
        data = protocol.encode(config) + protocol.encode(self._start_msg)
        sent = self._send(data)
        self._starting = memoryview(data)[sent:], time.monotonic() + self.limits.start_ms / 1000

    def _new_cgroup(self) -> cgroup.BotCgroup | None:
        """A cgroup for the program about to start, or None where the host makes none (rlimits only, as ever)."""
        lim = self.limits
        try:
            return cgroup.BotCgroup.create(lim.total_memory_mb, lim.processes, lim.cpus)
        except OSError as exc:  # pragma: no cover - the probe made one; the rlimits still bound each process
            cgroup.log.warning("cannot create a cgroup for bot %s: %s", self.name, exc)
            return None

    def _memory_note(self) -> str:
        """After a kill: what the killed program's cgroup says, if its processes together ran out of memory."""
        if not self._killed_stats.get("oom_kills"):
            return ""
        return f"; the bot's processes together used more than {self.limits.total_memory_mb} MiB (killed)"

    def _await_ready(self) -> None:
        """The rest of a start: the program's ``ready``, or ``BotFault``."""
        view, deadline = self._starting
        self._starting = None
        line = self._receive(view, deadline, self.limits.start_ms, "start")
        try:
            ready = protocol.parse_ready(line)
        except protocol.ProtocolError as exc:
            self._kill()
            raise BotFault(exc.kind, exc.detail, self.stderr_tail()) from None
        # a fresh encoder per process: its first decision is sent whole
        self._delta = protocol.DeltaEncoder() if "delta" in ready.get("features", ()) else None

    def _kill(self) -> None:
        proc, self._proc = self._proc, None
        group, self._cgroup = self._cgroup, None
        self._poller = None
        self._delta = None
        self._starting = None
        if proc is None:
            return
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        except PermissionError:
            proc.kill()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL does not take this long
            proc.kill()
            proc.wait()
        self._killed_stats = {}
        if group is not None:  # what is left of the tree (bwrap is reaped; its pid namespace is dying) goes
            self._killed_stats = group.remove()
            self.cgroup_stats.append(self._killed_stats)
        self._drain_stderr(proc)
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            try:
                stream.close()
            except OSError:
                pass

    def _remove_cleanup(self) -> None:
        if self._cleanup:
            shutil.rmtree(self._cleanup, ignore_errors=True)
            self._cleanup = None

    def _drain_stderr(self, proc: subprocess.Popen, budget: int = 1 << 62) -> None:
        try:
            while budget > 0:
                chunk = os.read(proc.stderr.fileno(), 65536)
                if not chunk:
                    return
                budget -= len(chunk)
                self._keep_stderr(chunk)
        except (BlockingIOError, OSError, ValueError):
            return

    def _keep_stderr(self, chunk: bytes) -> None:
        self._stderr_total += len(chunk)
        self._tail += chunk
        keep = self.limits.stderr_tail_bytes
        if len(self._tail) > keep:
            del self._tail[:-keep]

    # --- I/O ----------------------------------------------------------------------------------
    def _check_silent(self) -> None:
        """Output nobody asked for (a second answer, a stray print) breaks the protocol."""
        if not self._buf:  # a poll with no wait: cheaper than a read that fails
            events = self._poller.poll(0)
            if not events or (len(events) == 1 and events[0][0] != self._out_fd):
                return  # nothing on stdout (stderr is the program's to write)
        try:
            chunk = os.read(self._out_fd, 65536)
        except BlockingIOError:
            chunk = None
        if chunk is None and not self._buf:
            return
        if chunk == b"" and not self._buf:
            return self._crashed("decision")  # raises
        self._kill()
        raise BotFault("protocol", "wrote on stdout when no answer was asked for "
                                   "(print to stderr; one answer line per request)", self.stderr_tail())

    def _write_all(self, data: bytes, deadline: float) -> None:
        fd = self._proc.stdin.fileno()
        view = memoryview(data)
        while view:
            try:
                n = os.write(fd, view)
                view = view[n:]
                continue
            except BlockingIOError:
                pass
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError
            select.select([], [fd], [], remaining)

    def _exchange(self, data: bytes, limit_ms: int, what: str) -> bytes:
        """Send ``data`` and return the next line from stdout, within ``limit_ms``."""
        deadline = time.monotonic() + limit_ms / 1000
        sent = self._send(data)
        if sent == len(data) and not self._buf:  # the usual case: the answer comes alone, in one piece
            out_fd = self._out_fd
            events = self._poller.poll(limit_ms)
            if len(events) == 1 and events[0][0] == out_fd:
                try:
                    chunk = os.read(out_fd, 65536)
                except BlockingIOError:
                    chunk = b""
                if chunk and chunk.find(b"\n") == len(chunk) - 1:
                    return chunk[:-1]
                # anything else is the general loop's (at EOF it reads the empty pipe again and reports the crash)
                self._buf += chunk
                line = self._line(what)
                if line is not None:
                    return line
        return self._receive(memoryview(data)[sent:], deadline, limit_ms, what)

    def _send(self, data: bytes) -> int:
        """Write what of ``data`` the program's stdin takes now (usually all: it fits into the pipe); return how
        many bytes that was (all of them if the program is gone: its stdout's EOF tells how)."""
        try:
            return os.write(self._in_fd, data)
        except BlockingIOError:
            return 0
        except BrokenPipeError:
            return len(data)

    def _receive(self, view: memoryview, deadline: float, limit_ms: int, what: str) -> bytes:
        """Write the rest of a message (``view``) and return the next line from stdout, by ``deadline``."""
        proc = self._proc
        out_fd, err_fd, in_fd = proc.stdout.fileno(), proc.stderr.fileno(), proc.stdin.fileno()
        poller = self._poller
        if not view:
            return self._await_line(poller, out_fd, err_fd, in_fd, view, deadline, limit_ms, what)
        poller.register(in_fd, select.POLLOUT)
        try:
            return self._await_line(poller, out_fd, err_fd, in_fd, view, deadline, limit_ms, what)
        finally:
            if self._poller is poller:  # still the same process: leave only stdout and stderr registered
                try:
                    poller.unregister(in_fd)
                except KeyError:
                    pass

    def _await_line(self, poller: Any, out_fd: int, err_fd: int, in_fd: int, view: memoryview, deadline: float,
                    limit_ms: int, what: str) -> bytes:
        """Write the rest of ``view`` as stdin takes it and return the next stdout line (see ``_exchange``)."""
        buf = self._buf
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self._kill()
                raise BotFault("timeout", f"no answer to {what} within {limit_ms} ms{self._memory_note()}",
                               self.stderr_tail())
            try:
                events = poller.poll(remaining * 1000)
            except InterruptedError:  # pragma: no cover
                continue
            for fd, event in events:
                if fd == out_fd:
                    try:
                        chunk = os.read(out_fd, 65536)
                    except BlockingIOError:
                        continue
                    if not chunk:
                        self._crashed(what)
                    buf += chunk
                    line = self._line(what)
                    if line is not None:
                        return line
                elif fd == err_fd:
                    try:
                        chunk = os.read(err_fd, 65536)
                    except BlockingIOError:
                        continue
                    if not chunk:  # stderr closed: stop watching it (for the rest of this process)
                        try:
                            poller.unregister(err_fd)
                        except KeyError:
                            pass
                        continue
                    self._keep_stderr(chunk)
                    if self._stderr_total > self.limits.stderr_bytes:
                        self._kill()
                        raise BotFault("protocol", f"wrote more than {self.limits.stderr_bytes} bytes on stderr "
                                                   "(output limit); killed", self.stderr_tail())
                elif fd == in_fd:
                    if event & (select.POLLERR | select.POLLHUP):
                        poller.unregister(in_fd)
                        view = view[:0]
                        continue
                    try:
                        view = view[os.write(in_fd, view):]
                    except BlockingIOError:
                        continue
                    except BrokenPipeError:
                        view = view[:0]
                    if not view:
                        poller.unregister(in_fd)

    def _line(self, what: str) -> bytes | None:
        """The answer line if stdout's buffer holds it whole (``BotFault`` if more follows it, or if the buffer
        has outgrown any answer line)."""
        buf = self._buf
        newline = buf.find(b"\n")
        if newline >= 0:
            line = bytes(buf[:newline])
            del buf[:newline + 1]
            if buf:  # more than one line in answer to one request
                self._kill()
                raise BotFault("protocol", f"wrote more than one line in answer to {what} "
                                           "(print diagnostics to stderr; one answer line per request)", self.stderr_tail())
            return line
        if len(buf) > protocol.MAX_ANSWER_BYTES:
            self._kill()
            raise BotFault("garbage", f"answer line longer than {protocol.MAX_ANSWER_BYTES} bytes",
                           self.stderr_tail())
        return None

    def _crashed(self, what: str) -> None:
        """The program closed its stdout: wait for its exit status and raise the crash fault."""
        proc = self._proc
        try:
            code = proc.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            code = None
        self._kill()
        if code is not None and code > 128 and not self.trusted:
            code = 128 - code  # bwrap reports a child killed by signal N as 128 + N
        if code is None:
            how = "closed its stdout"
        elif code < 0:
            how = f"was killed by signal {signal.Signals(-code).name}" if -code in signal.valid_signals() \
                else f"was killed by signal {-code}"
            how += {signal.SIGXCPU: " (CPU time limit)", signal.SIGKILL: " (a limit, or it killed itself)",
                    signal.SIGXFSZ: " (file size limit)"}.get(-code, "")
        else:
            how = f"exited with status {code}"
        raise BotFault("crash", f"the bot {how} instead of answering {what}{self._memory_note()}", self.stderr_tail())
