"""Create a tournament, run it on worker processes with a live progress bar, print the leaderboard."""
import json
import os
import sys
import time

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from bots.selectors import BotNotFound, resolve_version
from bots.services import register_builtin_bots
from engines.games import GAME_IDS
from tournaments.models import Tournament
from tournaments.running.pipeline import reconcile_matches
from tournaments.selectors import tournament_progress, tournament_standings
from tournaments.services import TournamentError, create_tournament
from tournaments.running.workers import start_workers, stop_workers


class Command(BaseCommand):
    help = "Run a round-robin tournament on the workers and print its leaderboard."

    def add_arguments(self, parser):
        parser.add_argument("--game", required=True, choices=GAME_IDS)
        parser.add_argument("--bots", nargs="+", required=True,
                            help="built-in bot names (random, heuristic) or owner/name[@version]")
        parser.add_argument("--seats", type=int, required=True, help="seats per match")
        parser.add_argument("--games", type=int, default=1, help="matches per group of bots (seats rotate)")
        parser.add_argument("--format", default="round_robin", choices=[f.value for f in Tournament.Format])
        parser.add_argument("--rounds", type=int, default=0, help="Swiss: rounds (0: automatic)")
        parser.add_argument("--max-matches", type=int, default=0, help="ladder: matches to play (required here)")
        parser.add_argument("--seed", type=int, default=0,
                            help="a friendly tournament's matches' seeds follow from it; a rated one draws them")
        parser.add_argument("--options", default="{}", help="game options as a JSON object")
        parser.add_argument("--name", default="")
        parser.add_argument("--rated", action="store_true",
                            help="a rated tournament (the game's standard or a rated preset's options): its "
                                 "matches move the public leaderboard; without it the tournament is friendly")
        parser.add_argument("--duplicate", action="store_true",
                            help="round robin in duplicate series: each seed played once per seat rotation "
                                 "(--games a multiple of --seats)")
        parser.add_argument("--workers", type=int, default=None,
                            help="local worker processes to start (default: one per core with the embedded "
                                 "broker, none with an external broker whose workers already run)")
        parser.add_argument("--timeout", type=float, default=0, help="give up after this many seconds (0: never)")

    def handle(self, *args, **o):
        try:
            options = json.loads(o["options"])
        except json.JSONDecodeError as exc:
            raise CommandError(f"--options is not JSON: {exc}") from None
        register_builtin_bots([o["game"]])
        if o["format"] == Tournament.Format.LADDER and not o["max_matches"]:
            raise CommandError("a ladder run from the command line needs --max-matches")
        try:
            versions = [resolve_version(o["game"], spec) for spec in o["bots"]]
            tournament = create_tournament(
                name=o["name"] or f"{o['game']} round robin", game=o["game"], bot_versions=versions,
                seats=o["seats"], games_per_pairing=o["games"], options=options, seed=o["seed"],
                format=o["format"], rounds=o["rounds"], max_matches=o["max_matches"], rated=o["rated"],
                duplicate=o["duplicate"])
        except (BotNotFound, TournamentError) as exc:
            raise CommandError(str(exc)) from None
        embedded = settings.CELERY_BROKER_URL.startswith("filesystem")
        count = o["workers"] if o["workers"] is not None else ((os.cpu_count() or 1) if embedded else 0)
        procs = start_workers(count) if count else []
        self.stdout.write(f"tournament {tournament.pk} ({tournament.get_format_display()}, "
                          f"{tournament.rated_display}) on "
                          f"{count or 'the running'} worker(s)")
        try:
            self.wait(tournament, o["timeout"])
        finally:
            stop_workers(procs)
        self.print_leaderboard(tournament)

    def wait(self, tournament: Tournament, timeout: float) -> None:
        started = last_reconcile = time.monotonic()
        while True:
            progress = tournament_progress(tournament)
            self.draw(progress, time.monotonic() - started)
            tournament.refresh_from_db(fields=["status"])
            if tournament.status == Tournament.Status.FINISHED:
                break
            if timeout and time.monotonic() - started > timeout:
                raise CommandError(f"timed out after {timeout:.0f}s with {progress['done']}/{progress['total']} done")
            if time.monotonic() - last_reconcile > settings.ARENA["RECONCILE_SECONDS"]:
                reconcile_matches()
                last_reconcile = time.monotonic()
            time.sleep(0.3)
        self.stdout.write("")
        if progress["failed"]:
            self.stderr.write(f"{progress['failed']} match(es) failed; see their error on the match page")

    def draw(self, p: dict, elapsed: float) -> None:
        width = 30
        filled = int(width * p["done"] / p["total"]) if p["total"] else width
        bar = "#" * filled + "-" * (width - filled)
        line = f"\r[{bar}] {p['done']}/{p['total']} matches  {p['running']} running  {elapsed:5.1f}s"
        if sys.stdout.isatty():
            self.stdout.write(line, ending="")
            self.stdout.flush()
        elif p["done"] >= p["total"] or int(elapsed * 10) % 50 == 0:
            self.stdout.write(line.strip())

    def print_leaderboard(self, tournament: Tournament) -> None:
        rows = tournament_standings(tournament)
        ruleset = tournament.ruleset or "standard"
        self.stdout.write(f"\nLeaderboard, {tournament.game}, {ruleset} ruleset (TrueSkill; sorted by mu - 3*sigma)"
                          + ("" if tournament.rated else "; this friendly tournament did not change it"))
        self.stdout.write(f"{'place':>5}  {'bot':<28} {'mu':>7} {'sigma':>6} {'mu-3s':>7} {'games':>6} {'matches':>7} "
                          f"{'avg place':>9}")
        for i, r in enumerate(rows, 1):
            if r["mu"] is None:
                self.stdout.write(f"{i:>5}  {r['label']:<28} {'-':>7} {'-':>6} {'-':>7} {0:>6} {r['matches']:>7}")
                continue
            avg = f"{r['average_place']:.2f}" if r["average_place"] else "-"
            self.stdout.write(f"{i:>5}  {r['label']:<28} {r['mu']:7.2f} {r['sigma']:6.2f} {r['conservative']:7.2f} "
                              f"{r['games']:>6} {r['matches']:>7} {avg:>9}")
        self.stdout.write("games: rated games of the version in all; matches, avg place: this tournament (1 = first)")
        if tournament.duplicate:
            self.stdout.write("duplicate series won: " + ", ".join(f"{r['label']} {r['series_won']}/{r['series']}"
                                                                   for r in rows))
