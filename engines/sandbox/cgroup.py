"""A cgroup per sandboxed bot: bounds on the whole process tree of one bot program, where the host allows.

The sandbox's rlimits bound each process (``RLIMIT_DATA``/``RLIMIT_AS``) and the bot's process count
(``RLIMIT_NPROC``), not their sum: 32 processes of 500 MiB each are 16 GiB of the host's memory, and 32
spinning threads take every core. Where this process can create cgroups, each sandboxed bot process tree
(bubblewrap and all it starts) gets one of its own, with

- memory: ``total_memory_mb`` for the whole tree, swap included (v1 ``memory.limit_in_bytes`` and
  ``memory.memsw.limit_in_bytes``; v2 ``memory.max``, ``memory.swap.max`` 0 and ``memory.oom.group``, so
  that the kernel kills the whole bot at once); over it, the kernel's OOM killer kills within the bot only;
- pids: ``processes`` tasks (processes and threads, bubblewrap's two included: ``pids.max``);
- cpu: ``cpus`` cores' worth of time (v1 ``cpu.cfs_quota_us``/``cpu.cfs_period_us``; v2 ``cpu.max``);

each only where its controller is available. cgroup v2 (the unified hierarchy at ``CGROUP_ROOT``, or at
``CGROUP_ROOT/unified`` beside v1 ones) is used under this process's own cgroup (``0::/path`` of
/proc/self/cgroup) where ``cgroup.subtree_control`` has the controllers or they can be enabled there (not
in a cgroup that holds processes: the kernel refuses), else under its parent when systemd delegated that
to us (``Delegate=`` and ``DelegateSubgroup=``: the parent carries the ``trusted.delegate`` xattr); cgroup
v1 uses the separate memory, pids and cpu hierarchies, each under this process's own path in it. The kind
with more of the three controllers wins (v2 on a tie).

A bot's cgroup is created before its bubblewrap starts and bubblewrap's tree is moved into it before the
launcher inside reads its configuration (no bot code has run yet), top down: each process is moved before
its children are read, and whatever it forks afterwards is born inside. It is removed (what is left in it
killed) when the runner kills the program. Names are ``arena-bot-<pid>-<n>``; at first use, those of dead
processes (a worker killed by SIGKILL) are removed. Nothing here runs per decision.

Where cgroups cannot be made (not root and nothing delegated, no controllers, no cgroupfs), bots run as before,
bounded per process only: ``problem()`` says why, ``status()`` what is bounded here or why nothing is
(``python -c "from engines.sandbox import cgroup; print(cgroup.status())"``). Standard library only.
"""
from __future__ import annotations

import atexit
import errno
import functools
import itertools
import logging
import os
import re
import signal
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)

#: where the cgroup hierarchies are mounted (tests point it at an empty folder: no cgroups there)
CGROUP_ROOT = "/sys/fs/cgroup"
PREFIX = "arena-bot-"
CONTROLLERS = ("memory", "pids", "cpu")
CPU_PERIOD_US = 100_000
#: a bot's cgroup, or a probe's: ``arena-bot-<pid of the process that made it>-<n>``
_NAME = re.compile(r"arena-bot-(\d+)-[A-Za-z0-9_-]+")
#: the control file whose presence shows a controller works in a new cgroup, per kind
_LIMIT_FILE = {"v1": {"memory": "memory.limit_in_bytes", "pids": "pids.max", "cpu": "cpu.cfs_quota_us"},
               "v2": {"memory": "memory.max", "pids": "pids.max", "cpu": "cpu.max"}}
#: after SIGKILL, the processes leave their cgroup as they exit: rmdir answers EBUSY until then
_RMDIR_DELAYS_S = (0, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2)

_counter = itertools.count()
_lock = threading.Lock()
_pending: list[tuple[str, str]] = []  # (directory, name) of cgroups whose removal failed: tried again later
_live: dict[str, "BotCgroup"] = {}  # this process's bot cgroups not removed yet, by name: removed at exit


@dataclass(frozen=True)
class Support:
    """What this host offers: ``kind`` "v1" or "v2" and, per usable controller, the directory under which
    bot cgroups are made (one directory for all three in v2)."""

    kind: str
    bases: dict[str, str]

    @property
    def controllers(self) -> tuple[str, ...]:
        """The usable controllers, in ``CONTROLLERS`` order."""
        return tuple(c for c in CONTROLLERS if c in self.bases)

    def describe(self) -> str:
        """One line for diagnostics: the kind, the controllers and where."""
        where = ", ".join(sorted(set(self.bases.values())))
        return f"cgroup {self.kind}: {', '.join(self.controllers)} (under {where})"


# --- what this host offers ---------------------------------------------------------------------------
def support() -> Support | None:
    """The cgroups usable here, or None (``problem()`` says why). Probed once per process: a test cgroup is
    created and removed in each place, and stale bot cgroups of dead processes are removed."""
    return _probe()[0]


def problem() -> str | None:
    """None when bot cgroups can be made here, else a short reason (bots then run bounded per process only)."""
    return _probe()[1]


@functools.cache
def _probe() -> tuple[Support | None, str | None]:
    if not sys.platform.startswith("linux"):
        return None, "cgroups are Linux's"
    own = _own_cgroups()
    found: list[Support] = []
    reasons: list[str] = []
    for candidate in (_v2_candidate, _v1_candidate):
        sup, why = candidate(CGROUP_ROOT, own)
        if sup is not None:
            sup, why = _tried(sup)
        if sup is not None:
            found.append(sup)
        if why:
            reasons.append(why)
    if not found:
        return None, "; ".join(reasons) or f"no cgroup hierarchy at {CGROUP_ROOT}"
    best = max(found, key=lambda s: len(s.controllers))  # max keeps the first (v2) on a tie
    try:
        sweep_stale(best)
    except OSError as exc:  # pragma: no cover - a sweep that fails leaves stale cgroups, nothing worse
        log.warning("sweeping stale bot cgroups: %s", exc)
    return best, None


def _own_cgroups() -> dict[str, str]:
    """This process's cgroup per v1 controller (``memory``...), and its v2 cgroup under the key ``""``."""
    own: dict[str, str] = {}
    try:
        with open("/proc/self/cgroup") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return own
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        hierarchy, controllers, path = parts
        if hierarchy == "0" and controllers == "":
            own[""] = path
        else:
            for controller in controllers.split(","):
                own[controller] = path
    return own


def _read(path: str) -> str:
    with open(path) as fh:
        return fh.read()


def _write(path: str, value: str) -> None:
    with open(path, "w") as fh:
        fh.write(value)


def _join(mount: str, path: str) -> str:
    return os.path.normpath(os.path.join(mount, path.lstrip("/")))


def _v2_candidate(root: str, own: dict[str, str]) -> tuple[Support | None, str | None]:
    """The v2 place for bot cgroups: this process's cgroup, else its parent if delegated to us."""
    mount = next((m for m in (root, os.path.join(root, "unified"))
                  if os.path.exists(os.path.join(m, "cgroup.controllers"))), None)
    if mount is None:
        return None, None  # no v2 hierarchy: v1's reason says enough
    if "" not in own:
        return None, "cgroup v2: this process is in none of its cgroups"
    base = _join(mount, own[""])
    controllers, why = _v2_enable(base)
    if not controllers and base != mount:
        parent = os.path.dirname(base)
        if _delegated(parent):
            controllers, why_parent = _v2_enable(parent)
            if controllers:
                base = parent
            else:
                why += f"; its delegated parent: {why_parent}"
    if not controllers:
        return None, f"cgroup v2 at {base}: {why}"
    return Support("v2", {c: base for c in controllers}), None


def _v2_enable(base: str) -> tuple[list[str], str]:
    """The controllers of ``CONTROLLERS`` that children of ``base`` get (enabling those available but not
    enabled yet), and why not the others."""
    try:
        available = _read(os.path.join(base, "cgroup.controllers")).split()
        enabled = _read(os.path.join(base, "cgroup.subtree_control")).split()
    except OSError as exc:
        return [], f"cannot read its controllers ({exc.strerror})"
    wanted = [c for c in CONTROLLERS if c in available]
    if not wanted:
        return [], f"none of {', '.join(CONTROLLERS)} is available there"
    why = ""
    for controller in wanted:
        if controller not in enabled:
            try:
                _write(os.path.join(base, "cgroup.subtree_control"), f"+{controller}")
                enabled.append(controller)
            except OSError as exc:
                why = (f"cannot enable {controller} for its children ({exc.strerror}"
                       + (": it holds processes of its own" if exc.errno == errno.EBUSY else "") + ")")
    return [c for c in wanted if c in enabled], why


def _delegated(path: str) -> bool:
    """Whether systemd delegated ``path`` (it marks such cgroups with a ``delegate`` xattr)."""
    for attr in ("trusted.delegate", "user.delegate"):
        try:
            if os.getxattr(path, attr).strip() in (b"1", b"yes", b"true"):
                return True
        except (OSError, AttributeError):
            continue
    return False


def _v1_candidate(root: str, own: dict[str, str]) -> tuple[Support | None, str | None]:
    """The v1 places for bot cgroups: this process's own cgroup in each of the memory, pids, cpu hierarchies."""
    bases: dict[str, str] = {}
    missing: list[str] = []
    for controller in CONTROLLERS:
        mount = os.path.join(root, controller)  # e.g. cpu -> cpu,cpuacct: a link the kernel's layout makes
        if (not os.path.exists(os.path.join(mount, "cgroup.procs"))
                or os.path.exists(os.path.join(mount, "cgroup.controllers"))):
            missing.append(f"no {controller} hierarchy")
        elif controller not in own:
            missing.append(f"this process is in no {controller} cgroup")
        else:
            base = _join(mount, own[controller])
            if os.path.isdir(base):
                bases[controller] = base
            else:  # another cgroup namespace's path
                missing.append(f"{base} is not there")
    if not bases:
        return None, f"cgroup v1 at {root}: " + ", ".join(missing)
    return Support("v1", bases), None


def _tried(sup: Support) -> tuple[Support | None, str | None]:
    """``sup`` with the controllers whose test cgroup worked (created with its limit file, removed)."""
    works: dict[str, str] = {}
    failed: list[str] = []
    for base in sorted(set(sup.bases.values())):
        path = os.path.join(base, f"{PREFIX}{os.getpid()}-probe{next(_counter)}")
        try:
            os.mkdir(path)
        except OSError as exc:
            failed.append(f"cannot create a cgroup in {base} ({exc.strerror})")
            continue
        try:
            for controller, where in sup.bases.items():
                if where != base:
                    continue
                if os.path.exists(os.path.join(path, _LIMIT_FILE[sup.kind][controller])):
                    works[controller] = base
                else:  # e.g. a plain folder, not a cgroupfs
                    failed.append(f"{base} gives no {controller} control")
        finally:
            try:
                os.rmdir(path)
            except OSError as exc:  # pragma: no cover - an empty new cgroup is always removable
                log.warning("cannot remove the probe cgroup %s: %s", path, exc)
    if not works:
        return None, f"cgroup {sup.kind}: " + "; ".join(failed)
    return Support(sup.kind, works), None


# --- one bot's cgroup --------------------------------------------------------------------------------
class BotCgroup:
    """The cgroup of one bot program's process tree (one directory in v2, one per hierarchy in v1)."""

    def __init__(self, sup: Support, name: str):
        self.kind = sup.kind
        self.name = name
        self.dirs = {c: os.path.join(base, name) for c, base in sup.bases.items()}  # controller -> its cgroup
        self.bounded: list[str] = []  # what was bounded, for diagnostics: "memory 1024 MiB", ...
        self.memory_mb: int | None = None
        self.removed = False
        self.owner = os.getpid()  # a forked child (a worker pool's) must not remove its parent's cgroups

    @classmethod
    def create(cls, memory_mb: int, processes: int, cpus: float) -> "BotCgroup | None":
        """A new bot cgroup with these bounds (those <= 0 unbounded), or None when cgroups are not usable
        here. ``OSError`` if making it failed (it is then removed again)."""
        sup = support()
        if sup is None:
            return None
        if _pending:
            _retry_pending()
        cg = cls(sup, f"{PREFIX}{os.getpid()}-{next(_counter)}")
        made: list[str] = []
        try:
            for path in cg.paths():
                os.mkdir(path)
                made.append(path)
            cg._limit(memory_mb, processes, cpus)
        except OSError:
            for path in made:
                _remove_dir(path, cg.name)
            cg.removed = True
            raise
        _live[cg.name] = cg
        return cg

    def paths(self) -> list[str]:
        """Its directories, one per hierarchy."""
        return sorted(set(self.dirs.values()))

    def _limit(self, memory_mb: int, processes: int, cpus: float) -> None:
        v2 = self.kind == "v2"
        if "memory" in self.dirs and memory_mb > 0:
            d, size = self.dirs["memory"], str(memory_mb * 1024 * 1024)
            if v2:
                _write(os.path.join(d, "memory.max"), size)
                for name, value in (("memory.swap.max", "0"), ("memory.oom.group", "1")):
                    if os.path.exists(os.path.join(d, name)):  # no swap accounting, older kernels
                        _write(os.path.join(d, name), value)
            else:  # memory first: memsw may never be below it
                _write(os.path.join(d, "memory.limit_in_bytes"), size)
                if os.path.exists(os.path.join(d, "memory.memsw.limit_in_bytes")):  # swap accounting on
                    _write(os.path.join(d, "memory.memsw.limit_in_bytes"), size)
            self.memory_mb = memory_mb
            self.bounded.append(f"memory {memory_mb} MiB")
        if "pids" in self.dirs and processes > 0:
            _write(os.path.join(self.dirs["pids"], "pids.max"), str(processes))
            self.bounded.append(f"{processes} processes")
        if "cpu" in self.dirs and cpus > 0:
            quota = max(int(cpus * CPU_PERIOD_US), 1000)
            if v2:
                _write(os.path.join(self.dirs["cpu"], "cpu.max"), f"{quota} {CPU_PERIOD_US}")
            else:
                _write(os.path.join(self.dirs["cpu"], "cpu.cfs_period_us"), str(CPU_PERIOD_US))
                _write(os.path.join(self.dirs["cpu"], "cpu.cfs_quota_us"), str(quota))
            self.bounded.append(f"{cpus:g} CPU")

    def adopt(self, pid: int) -> int:
        """Move process ``pid`` and all its descendants into this cgroup, top down: each process is moved
        (into every hierarchy) before its children are read, so that whatever it forks meanwhile is born
        inside. Returns how many were moved (none if ``pid`` is gone). ``OSError`` if a move fails.

        The first move after a quiet while waits for an RCU grace period in the kernel (~10 ms here, v1): the
        sandbox's own start (bubblewrap, the launcher's Python) goes on meanwhile, so a bot's start does not
        take longer."""
        procs = [os.path.join(path, "cgroup.procs") for path in self.paths()]
        moved: set[int] = set()
        level = [pid]
        while level:
            for p in level:
                try:
                    for f in procs:
                        _write(f, str(p))
                except ProcessLookupError:  # exited meanwhile (its children were reparented to its init)
                    continue
                moved.add(p)
            level = [c for c in _children(level) if c not in moved]
        return len(moved)

    def oom_kills(self) -> int:
        """How many of its processes the kernel's OOM killer killed for its memory bound (v1 kernels older than
        4.13, without ``oom_kill``: how many times it reached the bound)."""
        if "memory" not in self.dirs:
            return 0
        d = self.dirs["memory"]
        try:
            if self.kind == "v2":
                return _keyed(_read(os.path.join(d, "memory.events"))).get("oom_kill", 0)
            counts = _keyed(_read(os.path.join(d, "memory.oom_control")))
            if "oom_kill" in counts:
                return counts["oom_kill"]
            return int(_read(os.path.join(d, "memory.failcnt")))
        except (OSError, ValueError):
            return 0

    def stats(self) -> dict[str, Any]:
        """Its counters, where the kernel has them: ``oom_kills``, ``memory_peak`` (bytes), ``pids_peak``,
        ``pids_refused`` (forks refused at ``pids.max``), ``cpu_throttled`` (periods), ``cpu_throttled_us``."""
        out: dict[str, Any] = {"kind": self.kind, "name": self.name, "bounded": list(self.bounded),
                               "oom_kills": self.oom_kills()}
        v2 = self.kind == "v2"
        if "memory" in self.dirs:
            value = _number(os.path.join(self.dirs["memory"], "memory.peak" if v2 else "memory.max_usage_in_bytes"))
            if value is not None:
                out["memory_peak"] = value
        if "pids" in self.dirs:
            value = _number(os.path.join(self.dirs["pids"], "pids.peak"))
            if value is not None:
                out["pids_peak"] = value
            try:
                out["pids_refused"] = _keyed(_read(os.path.join(self.dirs["pids"], "pids.events"))).get("max", 0)
            except OSError:
                pass
        if "cpu" in self.dirs:
            try:
                cpu = _keyed(_read(os.path.join(self.dirs["cpu"], "cpu.stat")))
            except OSError:
                cpu = {}
            if "nr_throttled" in cpu:
                out["cpu_throttled"] = cpu["nr_throttled"]
            if "throttled_usec" in cpu:
                out["cpu_throttled_us"] = cpu["throttled_usec"]
            elif "throttled_time" in cpu:  # v1: nanoseconds
                out["cpu_throttled_us"] = cpu["throttled_time"] // 1000
        return out

    def remove(self) -> dict[str, Any]:
        """Kill what is left in it and remove it (a few short retries while the killed exit; what still
        cannot be removed is tried again at the next cgroup's creation and at exit). Returns its last
        ``stats()``; a second call returns {}."""
        if self.removed or self.owner != os.getpid():
            return {}
        self.removed = True
        _live.pop(self.name, None)
        try:
            stats = self.stats()
        except OSError:  # pragma: no cover
            stats = {}
        for path in self.paths():
            if not _remove_dir(path, self.name):
                with _lock:
                    _pending.append((path, self.name))
                log.warning("bot cgroup %s still busy; removal retried later", path)
        return stats


def _keyed(text: str) -> dict[str, int]:
    """``key value`` lines (memory.events, cpu.stat, memory.oom_control...) as a dict of ints."""
    out: dict[str, int] = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].lstrip("-").isdigit():
            out[parts[0]] = int(parts[1])
    return out


def _number(path: str) -> int | None:
    try:
        return int(_read(path).split()[0])
    except (OSError, ValueError, IndexError):
        return None


# --- process trees -----------------------------------------------------------------------------------
_HAS_CHILDREN_FILE = os.path.exists(f"/proc/{os.getpid()}/task/{os.getpid()}/children")


def _children(pids: list[int]) -> list[int]:
    """The children of ``pids`` (their threads' ``children`` files; where the kernel has none, from the
    parent pid of every process in /proc)."""
    if _HAS_CHILDREN_FILE:
        found: list[int] = []
        for pid in pids:
            try:
                tids = os.listdir(f"/proc/{pid}/task")
            except OSError:
                continue
            for tid in tids:
                try:
                    found += [int(c) for c in _read(f"/proc/{pid}/task/{tid}/children").split()]
                except (OSError, ValueError):
                    continue
        return found
    wanted = set(pids)
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            ppid = int(_read(f"/proc/{entry}/stat").rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if ppid in wanted:
            found.append(int(entry))
    return found


def _in_cgroup(pid: int, name: str) -> bool:
    """Whether process ``pid`` is in a cgroup called ``name`` (in any hierarchy)."""
    try:
        lines = _read(f"/proc/{pid}/cgroup").splitlines()
    except OSError:
        return False
    return any(line.rstrip().endswith("/" + name) for line in lines)


def _kill(pid: int, name: str) -> None:
    """SIGKILL ``pid`` if it is still in cgroup ``name``: through a pidfd, so that a pid reused by another
    process after the check is never signalled."""
    fd = None
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    except (AttributeError, OSError):  # Python or kernel without pidfds: the check narrows the race only
        fd = None
    try:
        if not _in_cgroup(pid, name):
            return
        if fd is not None:
            signal.pidfd_send_signal(fd, signal.SIGKILL)
        else:
            os.kill(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    finally:
        if fd is not None:
            os.close(fd)


def _kill_all(path: str, name: str) -> None:
    kill_file = os.path.join(path, "cgroup.kill")
    if os.path.exists(kill_file):  # v2 (Linux 5.14): the kernel kills all, forks racing it included
        try:
            _write(kill_file, "1")
        except OSError:
            pass
    try:
        pids = [int(p) for p in _read(os.path.join(path, "cgroup.procs")).split()]
    except (OSError, ValueError):
        return
    for pid in pids:
        if pid > 0:  # 0: a process of another pid namespace, not ours to see nor to kill
            _kill(pid, name)


def _remove_dir(path: str, name: str) -> bool:
    """Kill what is in cgroup ``path`` (called ``name``) and remove it; False if it is still busy."""
    for delay in _RMDIR_DELAYS_S:
        if delay:
            time.sleep(delay)
        try:
            os.rmdir(path)
            return True
        except FileNotFoundError:
            return True
        except OSError as exc:
            if exc.errno != errno.EBUSY:
                log.warning("cannot remove bot cgroup %s: %s", path, exc)
                return False
        _kill_all(path, name)
    return False


def _retry_pending() -> None:
    with _lock:
        pending = list(_pending)
        _pending.clear()
    for path, name in pending:
        match = _NAME.fullmatch(name)
        if match and int(match.group(1)) != os.getpid():
            continue  # a forked child's copy of its parent's list: the parent's to remove
        if not _remove_dir(path, name):
            with _lock:
                _pending.append((path, name))


def _at_exit() -> None:
    """The bot cgroups this process still has (bots never closed: their sandboxes die with it) go too."""
    for group in list(_live.values()):
        group.remove()
    _retry_pending()


atexit.register(_at_exit)


def process_alive(pid: int) -> bool:
    """Whether process ``pid`` exists (any owner): what names ``arena-bot-<pid>-*`` things its own."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep_stale(sup: Support | None = None) -> list[str]:
    """Remove the bot cgroups (``arena-bot-<pid>-*``) left by processes that are gone (a worker killed by
    SIGKILL), killing what is still in them; returns the paths removed. Those of live processes are theirs."""
    sup = sup if sup is not None else support()
    if sup is None:
        return []
    removed = []
    for base in sorted(set(sup.bases.values())):
        try:
            entries = os.listdir(base)
        except OSError:
            continue
        for entry in entries:
            match = _NAME.fullmatch(entry)
            if match is None:
                continue
            pid = int(match.group(1))
            if pid == os.getpid() or process_alive(pid):
                continue
            path = os.path.join(base, entry)
            if os.path.isdir(path) and _remove_dir(path, entry):
                removed.append(path)
    return removed


def leftovers(pid: int | None = None) -> list[str]:
    """The bot cgroups of process ``pid`` (default: this one) that exist now, in every place we make them."""
    sup = support()
    if sup is None:
        return []
    prefix = f"{PREFIX}{os.getpid() if pid is None else pid}-"
    found = []
    for base in sorted(set(sup.bases.values())):
        try:
            found += [os.path.join(base, e) for e in os.listdir(base) if e.startswith(prefix)]
        except OSError:
            continue
    return found


def status() -> str:
    """One line for diagnostics: what bot cgroups bound here, or why there are none."""
    sup = support()
    if sup is None:
        return f"no bot cgroups (sandboxed bots are bounded per process only): {problem()}"
    return sup.describe()
