"""Start local worker processes (one per core by default) and the reconciler's scheduler."""
import os
import time

from django.core.management.base import BaseCommand

from tournaments.workers import start_workers, stop_workers


class Command(BaseCommand):
    help = "Run N local Celery worker processes (default: one per core) until interrupted."

    def add_arguments(self, parser):
        parser.add_argument("-n", "--workers", type=int, default=os.cpu_count() or 1)
        parser.add_argument("--no-beat", action="store_true", help="do not run the reconciler's scheduler")

    def handle(self, *args, workers, no_beat, **options):
        procs = start_workers(workers, beat=not no_beat)
        self.stdout.write(f"{workers} worker process(es) started; Ctrl-C stops them")
        try:
            while all(p.poll() is None for p in procs):
                time.sleep(1)
        except KeyboardInterrupt:
            pass
        finally:
            stop_workers(procs)
