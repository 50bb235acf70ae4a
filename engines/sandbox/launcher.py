"""Runs first inside the sandbox (standard library only; started as ``python -I -S launcher.py``).

Reads one JSON line of configuration from stdin, byte by byte so that nothing after it is
consumed: ``{"uid": int|null, "rlimits": {"RLIMIT_CPU": [soft, hard], "RLIMIT_AS": n, ...}, "cwd": path, "argv": [...],
"env": {...}}``. Drops to ``uid`` (when the host runs as root: a uid of its own per bot, so that
RLIMIT_NPROC is enforced and counts this bot's processes only), sets the resource limits and
execs the bot. Everything after the configuration line on stdin belongs to the bot.
"""
import json
import os
import resource
import sys


def read_config() -> dict:
    """The configuration line from stdin, read byte by byte so that none of the bot's input is consumed."""
    data = bytearray()
    while not data.endswith(b"\n"):
        chunk = os.read(0, 1)
        if not chunk:
            sys.exit("launcher: no configuration on stdin")
        data += chunk
        if len(data) > 1 << 16:
            sys.exit("launcher: configuration too long")
    return json.loads(data)


def main() -> None:
    """Drop to the configured uid (if any), set the resource limits, change directory and exec the bot."""
    config = read_config()
    uid = config.get("uid")
    if uid is not None:
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)  # from root: drops every capability as well
        if os.getuid() != uid or os.geteuid() != uid:
            sys.exit("launcher: could not drop privileges")
    for name, value in config.get("rlimits", {}).items():
        soft, hard = value if isinstance(value, list) else (value, value)
        resource.setrlimit(getattr(resource, name), (soft, hard))
    os.chdir(config["cwd"])
    argv = config["argv"]
    os.execve(argv[0], argv, config["env"])


if __name__ == "__main__":
    main()
