"""Start local worker processes (one per core by default) and the reconciler's scheduler, supervised."""
import os

from django.core.management.base import BaseCommand

from tournaments.running.supervisor import Supervisor, platform_children


class Command(BaseCommand):
    help = ("Run N local Celery worker processes (default: one per core) and the scheduler until Ctrl-C or "
            "SIGTERM; a worker that dies is restarted. `manage.py serve` runs the site beside them.")

    def add_arguments(self, parser):
        parser.add_argument("-n", "--workers", type=int, default=os.cpu_count() or 1)
        parser.add_argument("--no-beat", action="store_true", help="do not run the reconciler's scheduler")
        parser.add_argument("--grace", type=float, default=15.0,
                            help="seconds a stopping worker may take to finish its match before it is killed")

    def handle(self, *args, workers, no_beat, grace, **options):
        supervisor = Supervisor(platform_children(workers, beat=not no_beat), grace_s=grace,
                                say=lambda text: self.stdout.write(text))
        self.stdout.write(f"{workers} worker process(es) started; Ctrl-C stops them")
        supervisor.run()
