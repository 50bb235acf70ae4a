"""Helpers shared by the tests (a module of its own: every test folder may have a conftest)."""
from __future__ import annotations

import io
import os
import socket
import zipfile

import pytest

# Tests that mostly wait on the clock (leases expiring, workers killed and restarted, links cut) run one after
# another on one xdist worker (`make test` passes --dist loadgroup and starts a worker more than the cores), so
# the other workers keep the cores busy meanwhile instead of two of these waiting at once.
ON_THE_CLOCK = pytest.mark.xdist_group("on_the_clock")


def require_services() -> bool:
    """CI sets ARENA_REQUIRE_SERVICES=1: then unreachable services fail tests instead of skipping them."""
    return os.environ.get("ARENA_REQUIRE_SERVICES") == "1"


def reachable(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


def need_services(*services: tuple[str, str, int]) -> None:
    """Skip (or, when required, fail) unless every (name, host, port) answers."""
    down = [f"{name} at {host}:{port}" for name, host, port in services if not reachable(host, port)]
    if down:
        message = "unreachable: " + ", ".join(down)
        if require_services():
            pytest.fail(f"ARENA_REQUIRE_SERVICES=1 but {message}")
        pytest.skip(message + " (set ARENA_REQUIRE_SERVICES=1 to make this a failure)")


def tools_required() -> bool:
    """In CI (and wherever services are required) a missing sandbox or browser fails its tests instead of
    skipping them."""
    return require_services() or os.environ.get("CI") == "true"


CHROMIUM = os.environ.get("ARENA_CHROMIUM", "/usr/bin/chromium")


def browser_problem() -> str | None:
    """Why the browser tests cannot run here (Playwright driving Debian's Chromium), or None."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (pip install -e '.[dev]')"
    if not os.access(CHROMIUM, os.X_OK):
        return f"no Chromium at {CHROMIUM} (deploy/system-deps.sh installs it with apt; ARENA_CHROMIUM names another)"
    return None


def zip_of(members: dict[str, bytes], compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    """A zip of ``members`` with fixed timestamps: the same bytes in every process (test ids built from
    them must agree between xdist workers)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression) as zf:
        for name, data in members.items():
            zf.writestr(zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0)), data, compress_type=compression)
    return buf.getvalue()


def token_client(player):
    """An API client that authenticates as ``player`` with its token."""
    from rest_framework.authtoken.models import Token
    from rest_framework.test import APIClient

    client = APIClient()
    token, _ = Token.objects.get_or_create(user=player)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


def purge_broker_queue() -> None:
    """Empty the configured broker queue (as after a broker restarted empty)."""
    from arena.celery import app

    with app.connection_for_write() as conn:
        conn.default_channel.queue_purge(app.conf.task_default_queue)


# A real uploaded bot that plays legally in 2-player games (so it passes validation) and, in 3-player
# games, answers an index out of range on its 3rd and 5th decisions: two "illegal" faults per match.
FAULTY_BOT = b"""
import arena_bot
calls = 0
players = 2
def start(match):
    global players
    players = match.num_players
def act(observation, legal_actions):
    global calls
    calls += 1
    return 10**6 if players == 3 and calls in (3, 5) else 0
arena_bot.run(act, start=start)
"""


def faulty_bot_tournament(owner, builtins: dict, *, seed: int, games: int):
    """``owner``'s Port Royal bot ``faulty`` (FAULTY_BOT), validated, then a rated 3-seat tournament of
    ``games`` matches against the built-in heuristic and random bots, played in-process.
    Returns (version, tournament)."""
    from bots import services as bot_services
    from tournaments.running import pipeline
    from tournaments import services as tournament_services
    from tournaments.running.validation import validate_version

    version = bot_services.upload_version(owner=owner, game="port_royal", name="faulty", filename="faulty.py",
                                          data=FAULTY_BOT)
    assert validate_version(version.pk) == "valid"
    version.refresh_from_db()
    tournament = tournament_services.create_tournament(
        name="fault cup", game="port_royal", seats=3, seed=seed, games_per_pairing=games, rated=True,
        bot_versions=[version, builtins["heuristic"], builtins["random"]])
    for match in tournament.matches.all():
        assert pipeline.run_match(match.pk) == "finished"
    return version, tournament
