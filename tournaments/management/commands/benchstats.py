"""Time the statistics, the exports and a rating replay on the database's rated matches, or on synthetic ones.

``--synthetic N`` adds N rated matches (2-5 seats among ``--bots`` bot versions) inside a transaction that
is rolled back at the end: the database is left as it was.
"""
import random
import time

from django.core.management.base import BaseCommand
from django.db import connection, transaction

from engines.games import GAME_IDS
from tournaments.results.export import export
from tournaments.results.recompute import replay
from tournaments.results.statistics import head_to_head, match_lengths, score_distribution, seat_results


class Rollback(Exception):
    pass


class Command(BaseCommand):
    help = "Time statistics, exports and replays (optionally on synthetic matches, rolled back afterwards)."

    def add_arguments(self, parser):
        parser.add_argument("--game", default="port_royal", choices=GAME_IDS)
        parser.add_argument("--synthetic", type=int, default=0, help="add this many synthetic rated matches")
        parser.add_argument("--bots", type=int, default=40)
        parser.add_argument("--keep", action="store_true", help="commit the synthetic matches (a scratch database!)")

    def handle(self, *args, game, synthetic, bots, keep=False, **options):
        try:
            with transaction.atomic():
                if synthetic:
                    started = time.perf_counter()
                    self._seed(game, synthetic, bots)
                    if connection.vendor == "postgresql":  # planner statistics, as autovacuum keeps them
                        with connection.cursor() as cursor:
                            cursor.execute("ANALYZE")
                    self.stdout.write(f"seeded {synthetic} matches in {time.perf_counter() - started:.1f} s")
                self._time(game)
                if not keep:
                    raise Rollback
        except Rollback:
            pass

    def _time(self, game):
        def timed(name, fn):
            started, cpu = time.perf_counter(), time.process_time()
            result = fn()
            self.stdout.write(f"{name:<24} {time.perf_counter() - started:8.3f} s wall {time.process_time() - cpu:8.3f} s "
                              f"cpu (this process)  {result}")

        timed("head_to_head (top 10)", lambda: f'{len(head_to_head(game)["cells"])} cells')
        timed("seat_results", lambda: f"{len(seat_results(game))} rows")
        timed("score_distribution", lambda: f'{score_distribution(game)["seats"]} seats')
        timed("match_lengths", lambda: f'{match_lengths(game)["matches"]} matches')
        timed("export matches jsonl", lambda: f'{sum(len(c) for c in export("matches", "jsonl", game)):,} bytes')
        timed("export matches csv", lambda: f'{sum(len(c) for c in export("matches", "csv", game)):,} bytes')
        timed("replay trueskill", lambda: f'{len(replay(game, "trueskill"))} ratings')
        timed("replay openskill", lambda: f'{len(replay(game, "openskill"))} ratings')
        timed("replay elo", lambda: f'{len(replay(game, "elo"))} ratings')

    def _seed(self, game, n, bots):
        from bots.models import Bot, BotVersion
        from players.services import system_player
        from ratings.models import GameLock, Rating, RatingChange
        from tournaments.models import Match, MatchSeat

        rng = random.Random(1)
        owner = system_player()
        versions = [BotVersion.objects.create(bot=Bot.objects.create(owner=owner, game=game, name=f"bench-{i}"),
                                              number=1, kind="builtin", builtin_name="random", status="valid")
                    for i in range(bots)]
        ratings = {v.pk: Rating.objects.create(bot_version=v, game=game, ruleset="standard", mu=25, sigma=8.3,
                                               games=1) for v in versions}
        lock, _ = GameLock.objects.get_or_create(game=game)
        sequence = lock.sequence
        for start in range(0, n, 2000):
            matches = Match.objects.bulk_create([
                Match(game=game, seed=i, status=Match.Status.FINISHED, rated=True, ruleset="standard",
                      num_moves=rng.randint(40, 400)) for i in range(start, min(n, start + 2000))])
            seats, changes = [], []
            for match in matches:
                sequence += 1
                table = rng.sample(versions, rng.randint(2, 5))
                for seat, version in enumerate(table):
                    rank = rng.randrange(len(table))
                    seats.append(MatchSeat(match=match, seat=seat, bot_version=version, rank=rank,
                                           score=rng.randint(0, 20)))
                    changes.append(RatingChange(rating=ratings[version.pk], match=match, sequence=sequence, rank=rank,
                                                mu_before=25, sigma_before=8, mu_after=25, sigma_after=8))
            MatchSeat.objects.bulk_create(seats)
            RatingChange.objects.bulk_create(changes)
