"""Time every page and API endpoint over real HTTP; one JSON line per endpoint. Not a test."""
from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from bots.models import Bot, BotVersion
from players.models import Player
from tournaments.models import Match, Tournament


SLOW_S = 2.0


class _Quiet(WSGIRequestHandler):
    def log_message(self, *args):  # no access log on stderr
        pass


def targets(game: str) -> list[tuple[str, str]]:
    """(name, path) of every page and endpoint, with ids taken from the data: the newest tournament and
    match, the game's built-in random bot. Not the match exports: a stream of every match is not a page."""
    def newest(qs):
        return qs.order_by("-id").values_list("id", flat=True).first()

    tournament = newest(Tournament.objects.filter(game=game))
    match = newest(Match.objects.filter(game=game, status=Match.Status.FINISHED))
    builtin = newest(Bot.objects.filter(game=game, owner__username=Player.SYSTEM_USERNAME, name="random"))
    uploaded = newest(Bot.objects.filter(game=game).exclude(owner__username=Player.SYSTEM_USERNAME))
    named = BotVersion.objects.filter(bot_id=uploaded).select_related("bot").first() if uploaded else None
    paths = [
        ("home", "/"),
        ("leaderboard page", f"/games/{game}/"),
        ("leaderboard page 2", f"/games/{game}/?page=2"),
        ("leaderboard search", f"/games/{game}/?q={named.bot.name if named else 'random'}"),
        ("api leaderboard", f"/api/leaderboards/{game}/"),
        ("api leaderboard history", f"/api/leaderboards/{game}/?history=1"),
        ("api leaderboard offset 1000", f"/api/leaderboards/{game}/?offset=1000"),
        ("tournaments page", "/tournaments/"),
        ("tournaments page 30", "/tournaments/?page=30"),
        ("api tournaments", "/api/tournaments/"),
        ("api matches", "/api/matches/"),
        ("api matches of a game", f"/api/matches/?game={game}&status=finished"),
        ("leaderboard page of a bracket", f"/games/{game}/?players=3-4"),
        ("api leaderboard of a bracket", f"/api/leaderboards/{game}/?players=3-4"),
        ("statistics page", f"/games/{game}/stats/"),
        ("api statistics", f"/api/games/{game}/stats/"),
        ("models compared page", f"/games/{game}/compare/"),
        ("api models compared", f"/api/games/{game}/compare/"),
        ("api ratings export", f"/api/export/{game}/ratings.csv"),
        ("api games", "/api/games/"),
        ("api bots", "/api/bots/"),
        ("api bots of a game", f"/api/bots/?game={game}"),
    ]
    if tournament:
        paths += [("tournament page", f"/tournaments/{tournament}/"),
                  ("tournament page 10", f"/tournaments/{tournament}/?page=10"),
                  ("api tournament", f"/api/tournaments/{tournament}/"),
                  ("api matches of a tournament", f"/api/matches/?tournament={tournament}")]
    if match:
        paths += [("match page", f"/matches/{match}/"), ("match log download", f"/matches/{match}/log.json"),
                  ("api match", f"/api/matches/{match}/"), ("api match log", f"/api/matches/{match}/log/")]
    if builtin:
        paths += [("bot page built-in random", f"/bots/{builtin}/"),
                  ("api bot built-in random", f"/api/bots/{builtin}/"),
                  ("api matches of built-in random", f"/api/bots/{builtin}/matches/")]
    if uploaded:
        paths += [("bot page uploaded", f"/bots/{uploaded}/")]
    return paths


class CpuTimed:
    """The WSGI app, recording the CPU time of the thread that answered the last request (Python's share of
    a request, apart from the database's and what the machine's other load costs)."""

    def __init__(self, app):
        self.app, self.last_cpu = app, 0.0

    def __call__(self, environ, start_response):
        started = time.thread_time()
        body = self.app(environ, start_response)
        try:
            return [b"".join(body)]
        finally:
            if hasattr(body, "close"):
                body.close()
            self.last_cpu = time.thread_time() - started


def fetch(url: str) -> tuple[int, int, float]:
    """(status, body bytes, seconds) of one GET, reading the whole body."""
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(url, timeout=120) as response:
            body, code = response.read(), response.status
    except urllib.error.HTTPError as exc:
        body, code = exc.read(), exc.code
    return code, len(body), time.perf_counter() - started


def percentile(sorted_values: list[float], q: float) -> float:
    """The nearest-rank percentile of already sorted values."""
    index = max(0, min(len(sorted_values) - 1, int(round(q * len(sorted_values) + 0.5)) - 1))
    return sorted_values[index]


class Command(BaseCommand):
    help = ("Time every page and API endpoint over real HTTP (a WSGI server in this process, or --url), sequentially; "
            "prints per endpoint one JSON line: p50/p95/max ms, the first (cold) request, bytes, status, and the "
            "web process's CPU time per request (p50).")

    def add_arguments(self, parser):
        parser.add_argument("--game", default="port_royal")
        parser.add_argument("--requests", type=int, default=20, help="timed requests per endpoint")
        parser.add_argument("--url", default="",
                            help="an already running site (default: serve this one on a free port)")
        parser.add_argument("--only", default="", help="only endpoints whose name contains this")

    def handle(self, *args, game, requests, url, only, **options):
        if settings.DEBUG and not url:
            raise CommandError("DEBUG is on: measure with DJANGO_DEBUG unset (DJANGO_SECRET_KEY set), as in production")
        server = app = None
        if not url:
            from django.core.servers.basehttp import get_internal_wsgi_application

            # settings.WSGI_APPLICATION (loading it freezes this process's start-up objects)
            app = CpuTimed(get_internal_wsgi_application())  # the project's own, as production serves it
            # One server thread answers every request in turn, keeping its database connection (CONN_MAX_AGE),
            # as a web worker process does: a thread per request would pay a new connection each time.
            server = make_server("127.0.0.1", 0, app, server_class=WSGIServer, handler_class=_Quiet)
            threading.Thread(target=server.serve_forever, daemon=True).start()
            url = f"http://127.0.0.1:{server.server_port}"
        try:
            for name, path in targets(game):
                if only and only not in name:
                    continue
                code, size, first = fetch(url + path)
                times, cpu = [], []
                # An endpoint slower than SLOW_S a request is timed 3 times (a before-figure, not a page).
                for _ in range(requests if first < SLOW_S else min(requests, 3)):
                    code, size, seconds = fetch(url + path)
                    times.append(seconds)
                    cpu.append(app.last_cpu if app else 0.0)
                times.sort()
                cpu.sort()
                self.stdout.write(json.dumps({
                    "endpoint": name, "path": path, "status": code, "bytes": size, "requests": len(times),
                    "first_ms": round(first * 1000, 1), "p50_ms": round(percentile(times, 0.5) * 1000, 1),
                    "p95_ms": round(percentile(times, 0.95) * 1000, 1), "max_ms": round(times[-1] * 1000, 1),
                    **({"server_cpu_p50_ms": round(percentile(cpu, 0.5) * 1000, 1)} if app else {})}))
                self.stdout.flush()
        finally:
            if server is not None:
                server.shutdown()
