"""Platform throughput: matches/s from enqueue to stored and rated, on N worker processes. Not a test."""
import json
import time

from django.conf import settings
from django.core.management.base import BaseCommand

from bots.services import register_builtin_bots
from engines.bench import bench_game
from tournaments.models import Match
from tournaments.selectors import tournament_progress
from tournaments.services import create_tournament
from tournaments.workers import start_workers, stop_workers


class Command(BaseCommand):
    help = ("Measure platform throughput: a round robin of built-in bots (random vs heuristic) on local workers, "
            "from enqueue to stored and rated; prints one JSON line.")

    def add_arguments(self, parser):
        parser.add_argument("--game", default="port_royal")
        parser.add_argument("--matches", type=int, default=60)
        parser.add_argument("--workers", type=int, default=2)

    def handle(self, *args, game, matches, workers, **options):
        versions = {v.builtin_name: v for v in register_builtin_bots([game])}
        procs = start_workers(workers, name="bench")
        try:
            time.sleep(3)  # let the workers connect before the clock starts
            started = time.perf_counter()
            tournament = create_tournament(name=f"benchmark {game}", game=game, seats=2, games_per_pairing=matches,
                                           bot_versions=[versions["random"], versions["heuristic"]], seed=99,
                                           rated=True)
            while tournament_progress(tournament)["done"] < matches:
                time.sleep(0.05)
            elapsed = time.perf_counter() - started
        finally:
            stop_workers(procs)
        finished = Match.objects.filter(tournament=tournament)
        moves = sum(finished.values_list("num_moves", flat=True))
        play_ms = sum(ms for log in finished.values_list("log", flat=True) for _, _, ms in log["moves"])
        engine = bench_game(game, num_players=2, games=20)
        print(json.dumps({
            "game": game, "matches": matches, "workers": workers,
            "database": settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1],
            "broker": settings.CELERY_BROKER_URL.split(":")[0],
            "seconds": round(elapsed, 2), "matches_per_s": round(matches / elapsed, 2),
            "moves": moves, "bot_think_ms": play_ms,
            "engine_only_games_per_s_one_core": engine["games_per_s"],
        }))
