"""The package checker: uploaded bytes -> a validated bot package, or a clear error.

A bot package is a single ``.py`` file (stored as ``main.py``), a single ``.js`` file (stored as
``main.js``), or a ``.zip`` holding ``main.py`` or ``main.js`` at its top (a zip of one folder holding
it is accepted too: the folder is stripped) or a manifest ``bot.json`` naming the command::

    {"main": "src/mybot.py"}                            (run by python3; a .js file by node)
    {"command": ["python3", "src/mybot.py", "--fast"]}  an interpreter the workers provide + a file
    {"command": ["node", "dist/bot.js"]}
    {"command": ["./bot", "--depth", "3"]}              the bot's own Linux x86-64 executable (ELF)

The protocol is JSON lines, so any language works: through an interpreter the workers provide
(``INTERPRETERS``) or compiled to a static executable. Everything runs in the same sandbox.
Everything is checked in memory before anything is written; ``BotPackage.store`` writes into a
fresh temporary folder and renames it into place, so an error never leaves half a package behind.
"""
from __future__ import annotations

import contextlib
import contextvars
import io
import json
import lzma
import os
import posixpath
import select
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

MANIFEST = "bot.json"
ENTRY = "main.py"
#: the default entries of a package without a manifest, and the interpreter that runs each
DEFAULT_ENTRIES = {"main.py": "python3", "main.js": "node"}
#: the interpreters the workers provide (as a command may name them) -> their name in the sandbox
INTERPRETERS = {"python": "python3", "python3": "python3", "node": "node", "nodejs": "node"}
#: the files each interpreter runs
SCRIPT_SUFFIXES = {"python3": (".py",), "node": (".js", ".mjs", ".cjs")}
_IGNORED_PREFIXES = ("__MACOSX/",)
_IGNORED_NAMES = (".DS_Store", "Thumbs.db")
#: the upload kinds, by the suffix of the uploaded file's name (in this order: the first that ends it)
UPLOAD_SUFFIXES = (".py", ".js", ".zip")
# What zipfile raises on a damaged or unusual archive: its own errors, and its decompressors' (zlib's and lzma's
# are no OSError nor ValueError), and NotImplementedError for a version or method it cannot read.
_ZIP_ERRORS = (zipfile.BadZipFile, OSError, EOFError, NotImplementedError, RuntimeError, ValueError, zlib.error,
               lzma.LZMAError)


class PackageError(ValueError):
    """An upload that is not a valid bot package; the message says what is wrong."""


@dataclass(frozen=True)
class PackageLimits:
    """Limits on an upload (bytes as sent, and after unpacking)."""

    max_upload_bytes: int = 5 * 1024 * 1024
    max_py_bytes: int = 1024 * 1024  # a single .py file (alone or in a zip): compiling costs memory by its size
    max_python_bytes: int = 2 * 1024 * 1024  # all .py files of a package: each is compiled at upload
    max_total_bytes: int = 20 * 1024 * 1024  # all files unpacked
    max_file_bytes: int = 10 * 1024 * 1024
    max_files: int = 200
    # Unpacked/compressed size of a member from ``ratio_from_bytes`` on, and of the whole archive once it
    # unpacks to more than ``ratio_total_from_bytes``: more looks like a zip bomb. Smaller files cost nothing.
    max_ratio: int = 200
    ratio_from_bytes: int = 64 * 1024
    ratio_total_from_bytes: int = 1024 * 1024
    max_depth: int = 16
    max_name_bytes: int = 255  # one file or folder name (UTF-8): Linux's NAME_MAX, past it nothing unpacks
    max_path_bytes: int = 1024  # a whole path, well below PATH_MAX (4096) with the worker's folder before it
    max_command_items: int = 64  # bot.json "command": the program and its arguments
    max_command_bytes: int = 4096  # their total length (UTF-8); the sandbox launcher's configuration is bounded
    # Compiling a package's Python (in a child process): CPU seconds and memory for all its files together. Some
    # sources cost far more than their size: 1 MB of f-string fields took 90 s and 300 MB, 100,000 keyword
    # arguments 130 s. A real package's 2 MiB of Python compiles in a few seconds.
    max_compile_cpu_s: int = 10
    max_compile_memory_bytes: int = 1024 * 1024 * 1024


DEFAULT_LIMITS = PackageLimits()


@dataclass
class BotPackage:
    """A validated bot: its files (relative POSIX path -> bytes) and the command that runs it.

    ``command`` is ``[interpreter, script, *args]`` (an interpreter of ``INTERPRETERS``, canonical name)
    or ``["./path/to/executable", *args]``; paths are relative to the package folder.
    """

    files: dict[str, bytes]
    command: list[str]
    source_name: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def entry(self) -> str:
        """The package file the command runs (a script, or the executable itself)."""
        return executable_path(self.command) or self.command[1]

    @property
    def interpreter(self) -> str | None:
        """``python3`` or ``node``; None for the bot's own executable."""
        return None if executable_path(self.command) else self.command[0]

    @property
    def size(self) -> int:
        """The package's size in bytes: the sum of its files' sizes."""
        return sum(len(data) for data in self.files.values())

    def store(self, dest: str | os.PathLike[str]) -> Path:
        """Write the package into the folder ``dest`` (which must not exist) atomically.

        Files are world-readable (the sandboxed bot runs under its own uid) and read-only.
        On any error nothing remains at ``dest`` nor beside it. An ``OSError`` names the package's file, never
        the host's folders: its message may reach the bot's owner (a version's validation status).
        """
        dest = Path(dest)
        if dest.exists():
            raise FileExistsError(f"{dest} already exists")
        tmp: Path | None = None
        name: str | None = None  # the file being written: what an error names
        try:
            dest.parent.mkdir(parents=True, exist_ok=True)
            tmp = Path(tempfile.mkdtemp(prefix=".incoming-", dir=dest.parent))
            for name, data in self.files.items():
                path = tmp.joinpath(*name.split("/"))
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(data)
                path.chmod(0o555 if name == executable_path(self.command) else 0o444)
            name = None
            for folder, dirs, _files in os.walk(tmp):
                for d in dirs:
                    os.chmod(os.path.join(folder, d), 0o755)
            tmp.chmod(0o755)
            os.rename(tmp, dest)
        except BaseException as exc:
            if tmp is not None:
                shutil.rmtree(tmp, ignore_errors=True)
            if isinstance(exc, OSError):
                reason = exc.strerror or type(exc).__name__
                raise OSError(exc.errno, f"cannot unpack the package: {reason}", name) from exc
            raise
        return dest

    def manifest(self) -> dict:
        """A JSON-native description (for the upload form / API)."""
        return {"entry": self.entry, "command": self.command, "files": sorted(self.files), "bytes": self.size}


def executable_path(command: list[str]) -> str | None:
    """The package path of a command's own executable (``./bot`` -> ``bot``); None for an interpreter."""
    return command[0][2:] if command and command[0].startswith("./") else None


def check_package(data: bytes, filename: str, limits: PackageLimits = DEFAULT_LIMITS, *,
                  compile_python: bool = True) -> BotPackage:
    """Validate an upload: ``data`` as uploaded, ``filename`` as the user named it.

    ``compile_python=False`` is for a package this accepted before (a stored version, loaded at match start):
    the checks of sizes and paths, which protect whoever unpacks it, run again, but compiling its Python
    (the costly part, done once at upload) does not.
    """
    if not isinstance(data, (bytes, bytearray)):
        raise PackageError("the upload is not a file")
    name = os.path.basename(filename.replace("\\", "/")) or "upload"
    kind = upload_suffix(name)
    if len(data) == 0:
        raise PackageError(f"{name} is empty")
    if len(data) > limits.max_upload_bytes:
        raise PackageError(f"{name} is too big: {len(data):,} bytes (the limit is {limits.max_upload_bytes:,})")
    if kind == ".py":
        if len(data) > limits.max_py_bytes:
            raise PackageError(f"{name} is too big: {len(data):,} bytes (a .py file may have {limits.max_py_bytes:,})")
        if compile_python:
            with compiling(limits):
                check_python(bytes(data), name)
        return BotPackage({ENTRY: bytes(data)}, ["python3", ENTRY], name)
    if kind == ".js":
        if len(data) > limits.max_py_bytes:
            raise PackageError(f"{name} is too big: {len(data):,} bytes (a .js file may have {limits.max_py_bytes:,})")
        return BotPackage({"main.js": bytes(data)}, ["node", "main.js"], name)
    if kind == ".zip":
        return _check_zip(bytes(data), name, limits, compile_python)
    raise PackageError(f"{name}: upload a single .py file or a .zip (with main.py, main.js or {MANIFEST}), "
                       "or a single .js file")


def upload_suffix(filename: str) -> str | None:
    """How ``check_package`` reads an upload of this name: ``.py``, ``.js`` or ``.zip`` (any case; the name alone,
    ``.py``, counts), or None. Whoever stores an upload names the file with it, so that it is read the same again."""
    lower = os.path.basename(filename.replace("\\", "/")).lower()
    return next((suffix for suffix in UPLOAD_SUFFIXES if lower.endswith(suffix)), None)


def package_from_folder(folder: str | os.PathLike[str], limits: PackageLimits = DEFAULT_LIMITS) -> BotPackage:
    """A package from a folder on disk (local runs), under the same checks as a zip."""
    root = Path(folder)
    if not root.is_dir():
        raise PackageError(f"{folder} is not a folder")
    files: dict[str, bytes] = {}
    total = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in ("__pycache__", ".git", ".venv", "venv"))
        for fname in sorted(filenames):
            path = Path(dirpath, fname)
            if path.is_symlink() or not path.is_file() or fname.endswith(".pyc") or fname in _IGNORED_NAMES:
                continue
            rel = path.relative_to(root).as_posix()
            if len(files) >= limits.max_files:
                raise PackageError(f"{folder}: too many files (the limit is {limits.max_files})")
            size = path.stat().st_size
            total += size
            if size > limits.max_file_bytes or total > limits.max_total_bytes:
                raise PackageError(f"{folder}: too big ({rel}: {size:,} bytes, the limit is "
                                   f"{limits.max_file_bytes:,} a file and {limits.max_total_bytes:,} in all)")
            files[rel] = path.read_bytes()
    return _finish(files, root.name, limits)


def check_python(source: bytes, name: str) -> None:
    """PackageError unless ``source`` compiles (it is never run here).

    It is compiled in a child Python (``compiling``: the one of the package being checked, else one of its own
    under the default limits), bounded in CPU time and memory, whose warnings go nowhere: printed, a megabyte of
    ``x is 1`` lines wrote 9 MB on the server's stderr, and under ``-W error`` they refused bots python3 runs.
    """
    compiler = _compiler.get()
    if compiler is None:
        with compiling(DEFAULT_LIMITS):
            return check_python(source, name)
    reply = compiler.compile(source, name)
    if "syntax" in reply:
        lineno, offset, msg, text = reply["syntax"]
        where = f"line {lineno}" + (f", column {offset}" if offset else "")
        text = (text or "").strip()
        raise PackageError(f"{name}: syntax error at {where}: {msg}" + (f": {text[:120]}" if text else ""))
    if "source" in reply:  # null bytes, bad encoding
        raise PackageError(f"{name}: not valid Python source ({reply['source']})")
    if "nested" in reply:
        raise PackageError(f"{name}: too deeply nested to compile")
    if "memory" in reply:
        raise PackageError(f"{name}: needs more than {compiler.memory_bytes // 2**20:,} MiB of memory to compile")


# The child that compiles: it bounds itself, then answers each source (its length on a line, then its bytes) with
# one JSON line. Started with -I -S (no site, no environment) and -W ignore (its warnings go nowhere).
_COMPILER_CODE = """
import json, resource, sys
cpu, memory = int(sys.argv[1]), int(sys.argv[2])
resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
while True:
    header = sys.stdin.buffer.readline()
    if not header:
        break
    source = sys.stdin.buffer.read(int(header))
    try:
        compile(source, "<upload>", "exec", dont_inherit=True)
        reply = {}
    except SyntaxError as exc:
        reply = {"syntax": [exc.lineno, exc.offset, exc.msg, exc.text]}
    except RecursionError:
        reply = {"nested": True}
    except MemoryError:
        reply = {"memory": True}
    except ValueError as exc:
        reply = {"source": str(exc)}
    sys.stdout.write(json.dumps(reply) + "\\n")
    sys.stdout.flush()
"""


class _Compiler:
    """A child Python compiling the sources of one package, within ``cpu_s`` CPU seconds and ``memory_bytes``
    of address space for all of them (compile() holds the interpreter: only another process can be stopped)."""

    def __init__(self, cpu_s: int, memory_bytes: int):
        self.cpu_s, self.memory_bytes = cpu_s, memory_bytes
        # CPU time is the bound; the wall clock only guards against a child that never runs (a loaded machine)
        self.deadline = time.monotonic() + 5 * cpu_s + 10
        python = os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)
        self.proc = subprocess.Popen([python, "-I", "-S", "-W", "ignore", "-c", _COMPILER_CODE, str(cpu_s),
                                      str(memory_bytes)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, close_fds=True)

    def compile(self, source: bytes, name: str) -> dict:
        """The child's reply for one source; PackageError if the package's budget is spent."""
        proc = self.proc
        try:
            proc.stdin.write(b"%d\n" % len(source) + source)
            proc.stdin.flush()
        except BrokenPipeError:
            pass  # gone already: its exit status says why, below
        remaining = self.deadline - time.monotonic()
        line = b""
        poller = select.poll()  # not select(): a busy server's descriptors may be numbered past FD_SETSIZE
        poller.register(proc.stdout, select.POLLIN)
        if remaining > 0 and poller.poll(remaining * 1000):
            line = proc.stdout.readline()  # the child writes its reply whole, or dies
        if line:
            return json.loads(line)
        self.close()
        if proc.returncode in (-signal.SIGXCPU, -signal.SIGKILL) or remaining <= 0:
            raise PackageError(f"{name}: compiling the package's Python takes more than {self.cpu_s} s of CPU time "
                               "(the limit for all its .py files): split or simplify what costs the compiler most "
                               "(huge literals, calls or f-strings)")
        raise PackageError(f"{name}: the Python compiler stopped on it (exit status {proc.returncode})")

    def close(self) -> None:
        """Stop the child (done or not) and reap it."""
        for stream in (self.proc.stdin, self.proc.stdout):
            with contextlib.suppress(OSError):
                stream.close()
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


_compiler: contextvars.ContextVar[_Compiler | None] = contextvars.ContextVar("package_compiler", default=None)


@contextlib.contextmanager
def compiling(limits: PackageLimits = DEFAULT_LIMITS) -> Iterator[None]:
    """Within it, ``check_python`` compiles in one child process, under the compile limits of ``limits`` for all
    the sources together (one package's)."""
    compiler = _Compiler(limits.max_compile_cpu_s, limits.max_compile_memory_bytes)
    token = _compiler.set(compiler)
    try:
        yield
    finally:
        _compiler.reset(token)
        compiler.close()


def _check_zip(data: bytes, name: str, limits: PackageLimits, compile_python: bool) -> BotPackage:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        raise PackageError(f"{name} is not a zip file") from None
    except _ZIP_ERRORS as exc:
        raise PackageError(f"{name} is not a readable zip file ({exc})") from None
    with archive:
        infos = archive.infolist()
        members = [i for i in infos if not i.filename.startswith(_IGNORED_PREFIXES)
                   and posixpath.basename(i.filename.rstrip("/")) not in _IGNORED_NAMES]
        if len(members) > limits.max_files:
            raise PackageError(f"{name} has too many files: {len(members)} (the limit is {limits.max_files})")
        declared = sum(i.file_size for i in members)
        if declared > limits.max_total_bytes:
            raise PackageError(f"{name} unpacks to {declared:,} bytes (the limit is {limits.max_total_bytes:,})")
        # Many small members can make a bomb no single one is: bound the whole archive's ratio too. The
        # declared sizes hold (zipfile reads no more, and checks the CRC); the upload bounds what is packed.
        packed = min(sum(i.compress_size for i in members), len(data))
        if declared > limits.ratio_total_from_bytes and declared > packed * limits.max_ratio:
            raise PackageError(f"{name} expands {declared // max(packed, 1)}x, to {declared:,} bytes "
                               f"(the limit is {limits.max_ratio}x: looks like a zip bomb)")
        files: dict[str, bytes] = {}
        total = 0
        for info in members:
            path = _safe_member_path(info, name, limits)
            if path is None:  # a folder entry
                continue
            if info.flag_bits & 0x1:
                raise PackageError(f"{name}: {info.filename} is encrypted; upload an unencrypted zip")
            if info.file_size > limits.max_file_bytes:
                raise PackageError(f"{name}: {info.filename} is too big ({info.file_size:,} bytes, "
                                   f"the limit is {limits.max_file_bytes:,})")
            if info.compress_size and info.file_size >= limits.ratio_from_bytes and \
                    info.file_size / info.compress_size > limits.max_ratio:
                raise PackageError(f"{name}: {info.filename} expands {info.file_size // info.compress_size}x "
                                   f"(looks like a zip bomb)")
            if path in files:
                raise PackageError(f"{name}: {info.filename} appears twice")
            # Never trust the declared sizes: read at most one byte past the allowance.
            allowance = min(limits.max_file_bytes, limits.max_total_bytes - total)
            try:
                with archive.open(info) as fh:
                    content = fh.read(allowance + 1)
            except _ZIP_ERRORS as exc:
                raise PackageError(f"{name}: cannot read {info.filename} ({exc})") from None
            if len(content) > allowance:
                raise PackageError(f"{name}: {info.filename} unpacks to more than its declared size "
                                   f"or past the limit of {limits.max_total_bytes:,} bytes (zip bomb?)")
            total += len(content)
            files[path] = content
    return _finish(files, name, limits, compile_python)


def _safe_member_path(info: zipfile.ZipInfo, name: str, limits: PackageLimits) -> str | None:
    raw = info.filename
    mode = info.external_attr >> 16
    if stat.S_ISLNK(mode):
        raise PackageError(f"{name}: {raw} is a symbolic link; links are not allowed")
    if "\\" in raw or "\x00" in raw:
        raise PackageError(f"{name}: {raw!r} is not a valid path inside a zip")
    if raw.startswith("/") or (len(raw) > 1 and raw[1] == ":"):
        raise PackageError(f"{name}: {raw} is an absolute path; paths must stay inside the package")
    parts = [p for p in raw.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise PackageError(f"{name}: {raw} points outside the package ('..' is not allowed)")
    if len(parts) > limits.max_depth:
        raise PackageError(f"{name}: {raw} is nested too deep")
    # No file system could hold it: refused here rather than failing at every match.
    long_part = next((p for p in parts if _utf8_len(p) > limits.max_name_bytes), None)
    if long_part is not None:
        raise PackageError(f"{name}: the name {long_part[:40]}... is too long ({_utf8_len(long_part)} bytes; "
                           f"a file or folder name may have {limits.max_name_bytes})")
    if _utf8_len("/".join(parts)) > limits.max_path_bytes:
        raise PackageError(f"{name}: the path {raw[:40]}... is too long (a path may have {limits.max_path_bytes} "
                           "bytes)")
    if not parts or info.is_dir():  # parts first: is_dir() fails on an empty name
        return None
    return "/".join(parts)


def _utf8_len(text: str) -> int:
    """The length of a name as the file system gets it (a zip may hold any text)."""
    return len(text.encode("utf-8", "surrogatepass"))


def _finish(files: dict[str, bytes], name: str, limits: PackageLimits, compile_python: bool = True) -> BotPackage:
    if not files:
        raise PackageError(f"{name} holds no files")
    _check_file_or_folder(files, name)
    notes: list[str] = []
    entries = (*DEFAULT_ENTRIES, MANIFEST)
    if not any(e in files for e in entries):
        tops = {path.split("/", 1)[0] for path in files}
        if len(tops) == 1 and all("/" in p for p in files):
            top = tops.pop()
            if any(f"{top}/{e}" in files for e in entries):
                files = {p.split("/", 1)[1]: d for p, d in files.items()}
                notes.append(f"used the folder {top}/ as the package")
    if MANIFEST in files:
        command = _read_manifest(files[MANIFEST], name, limits)
    else:
        entry = next((e for e in DEFAULT_ENTRIES if e in files), None)
        if entry is None:
            raise PackageError(f"{name} has no {ENTRY} or main.js (nor a {MANIFEST} naming the command) at its top")
        command = [DEFAULT_ENTRIES[entry], entry]
    executable = executable_path(command)
    entry = executable or command[1]
    if entry not in files:
        raise PackageError(f"{name}: the entry {entry} named in {MANIFEST} is not in the package")
    if executable:
        check_executable(files[executable], f"{name}: {executable}")
    if compile_python:
        _compile_all(files, name, limits)
    return BotPackage(files, command, name, notes)


def _check_file_or_folder(files: dict[str, bytes], name: str) -> None:
    """PackageError if a path is both a file and a folder (``a`` and ``a/b``): it could never be unpacked."""
    folders: set[str] = set()
    for path in files:
        parts = path.split("/")
        folders.update("/".join(parts[:i]) for i in range(1, len(parts)))
    clash = next((path for path in files if path in folders), None)
    if clash is not None:
        raise PackageError(f"{name}: {clash} is both a file and a folder; rename one of them")


def _compile_all(files: dict[str, bytes], name: str, limits: PackageLimits) -> None:
    """Compile every .py file (syntax errors show at upload), within bounds: compiling costs far more
    time and memory than the files' size (a megabyte of one-word lines takes seconds and hundreds of MB)."""
    sources = {path: content for path, content in files.items() if path.endswith(".py")}
    for path, content in sources.items():
        if len(content) > limits.max_py_bytes:
            raise PackageError(f"{name}: {path} is too big: {len(content):,} bytes (a .py file may have "
                               f"{limits.max_py_bytes:,})")
    total = sum(len(content) for content in sources.values())
    if total > limits.max_python_bytes:
        raise PackageError(f"{name} holds {total:,} bytes of Python (.py files; the limit is "
                           f"{limits.max_python_bytes:,}): leave out what the bot does not need, or ship "
                           "large data in other files")
    if not sources:
        return
    with compiling(limits):  # one child for the whole package, bounded for all its files together
        for path, content in sources.items():
            check_python(content, path)


def check_executable(data: bytes, name: str) -> None:
    """PackageError unless ``data`` is a Linux x86-64 ELF executable (what the workers can run)."""
    if data[:2] == b"#!":
        raise PackageError(f"{name} is a script (#!); name its interpreter in the command "
                           f"({', '.join(sorted(set(INTERPRETERS.values())))}), or ship a compiled executable")
    if data[:4] != b"\x7fELF":
        raise PackageError(f"{name} is not an executable: a command's own program must be a Linux x86-64 ELF "
                           "binary (build it static: see docs/bot-protocol.md)")
    if len(data) < 20 or data[4] != 2 or data[5] != 1:
        raise PackageError(f"{name} is not a 64-bit little-endian ELF binary; the workers run Linux x86-64")
    machine = int.from_bytes(data[18:20], "little")
    if machine != 0x3E:
        raise PackageError(f"{name} is built for another processor (ELF machine {machine:#x}); the workers run "
                           "Linux x86-64 (e.g. --target x86_64-unknown-linux-musl, GOARCH=amd64)")
    if int.from_bytes(data[16:18], "little") not in (2, 3):  # ET_EXEC, ET_DYN (PIE)
        raise PackageError(f"{name} is an ELF file but not an executable (an object file or a core dump?)")


def _read_manifest(raw: bytes, name: str, limits: PackageLimits) -> list[str]:
    try:
        manifest = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise PackageError(f"{name}: {MANIFEST} is not valid JSON ({exc})") from None
    except (RecursionError, MemoryError):  # e.g. [[[[...]]]] nested past the parser's stack
        raise PackageError(f"{name}: {MANIFEST} is nested too deeply to read") from None
    if not isinstance(manifest, dict):
        raise PackageError(f'{name}: {MANIFEST} must be an object like {{"main": "main.py"}}')
    if "command" in manifest:
        command = manifest["command"]
        if not (isinstance(command, list) and command and all(isinstance(a, str) and a for a in command)):
            raise PackageError(f'{name}: "command" in {MANIFEST} must be a list like ["python3", "bot.py"], '
                               '["node", "bot.js"] or ["./bot"]')
        _check_command(command, name, limits)
        program = command[0]
        if program.startswith("./"):
            return [f"./{_inside(program[2:], name)}", *command[1:]]
        if program not in INTERPRETERS:
            raise PackageError(f'{name}: the interpreter {program!r} is not provided by the workers; they provide '
                               f'{", ".join(sorted(set(INTERPRETERS.values())))}, or run your own executable '
                               'as ["./bot"] (a static Linux x86-64 binary in the package)')
        if len(command) < 2:
            raise PackageError(f'{name}: "command" names {program} but no file for it to run')
        interpreter, script, args = INTERPRETERS[program], command[1], command[2:]
    elif "main" in manifest:
        if not isinstance(manifest["main"], str):
            raise PackageError(f'{name}: "main" in {MANIFEST} must be a file name')
        script, args = manifest["main"], []
        interpreter = "node" if script.endswith(SCRIPT_SUFFIXES["node"]) else "python3"
    else:
        raise PackageError(f'{name}: {MANIFEST} names no entry ("main" or "command")')
    script = _inside(script, name)
    if not script.endswith(SCRIPT_SUFFIXES[interpreter]):
        raise PackageError(f"{name}: the entry {script!r} must be a {' or '.join(SCRIPT_SUFFIXES[interpreter])} file "
                           f"for {interpreter}")
    return [interpreter, script, *args]


def _check_command(command: list[str], name: str, limits: PackageLimits) -> None:
    """PackageError for a command the sandbox could not start: the launcher gets it as one bounded line
    of configuration, and the kernel's argv ends each argument at a NUL."""
    if len(command) > limits.max_command_items:
        raise PackageError(f'{name}: "command" in {MANIFEST} has {len(command):,} items (the limit is '
                           f"{limits.max_command_items})")
    size = 0
    for arg in command:
        if "\0" in arg:
            raise PackageError(f'{name}: "command" in {MANIFEST} has an argument with a NUL character: {arg!r:.60}')
        try:
            size += len(arg.encode("utf-8"))
        except UnicodeEncodeError:  # JSON allows lone surrogates ("\ud800"); no program can receive them
            raise PackageError(f'{name}: "command" in {MANIFEST} has an argument that is not valid text: '
                               f"{arg!r:.60}") from None
    if size > limits.max_command_bytes:
        raise PackageError(f'{name}: "command" in {MANIFEST} is too long: {size:,} bytes (the limit is '
                           f"{limits.max_command_bytes:,})")


def _inside(path: str, name: str) -> str:
    """A command's path, normalized; PackageError if it leaves the package."""
    clean = posixpath.normpath(path)
    if clean.startswith(("/", "..")) or "\\" in path or clean in (".", ""):
        raise PackageError(f"{name}: {path!r} is not a file inside the package")
    return clean
