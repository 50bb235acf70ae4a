"""Load a large data set fast (COPY on PostgreSQL) to measure the site at scale. Not for production data."""
import json

from django.core.management.base import BaseCommand

from tournaments.benchmarks.synthetic import seed_scale


class Command(BaseCommand):
    help = ("Add bot versions over every game and finished, rated matches (seats, real engine logs from a pool of "
            "built-in bot matches, rating changes, ratings) of one game; prints one JSON line with the timings.")

    def add_arguments(self, parser):
        parser.add_argument("--versions", type=int, default=10_000)
        parser.add_argument("--matches", type=int, default=1_000_000)
        parser.add_argument("--tournaments", type=int, default=1000)
        parser.add_argument("--game", default="port_royal")
        parser.add_argument("--seats", type=int, default=4)
        parser.add_argument("--entries", type=int, default=16, help="bot versions per tournament")
        parser.add_argument("--pool", type=int, default=40, help="real matches played and reused")
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--batch", type=int, default=50_000, help="matches per committed batch")
        parser.add_argument("--trueskill", action="store_true",
                            help="apply real TrueSkill updates (~0.5 ms a match) instead of the cheap stand-in")
        parser.add_argument("--no-logs", action="store_true", help="store no match logs")

    def handle(self, *args, **o):
        report = seed_scale(versions=o["versions"], matches=o["matches"], tournaments=o["tournaments"],
                            game=o["game"], seats=o["seats"], entries=o["entries"], pool=o["pool"], seed=o["seed"],
                            batch=o["batch"], trueskill=o["trueskill"], with_logs=not o["no_logs"],
                            progress=lambda msg: self.stderr.write(msg) if o["verbosity"] > 0 else None)
        self.stdout.write(json.dumps(report))
