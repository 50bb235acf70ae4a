"""The whole platform in one command: the site, the workers and the scheduler, until Ctrl-C or SIGTERM."""
import os
import socket
import sys

from django.core.management.base import BaseCommand, CommandError

from tournaments.running.supervisor import Supervisor, platform_children


def add_platform_arguments(parser) -> None:
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT") or 8000),
                        help="the site's port (default: $PORT, else 8000)")
    parser.add_argument("--host", default=os.environ.get("HOST") or "127.0.0.1")
    parser.add_argument("-n", "--workers", type=int, default=os.cpu_count() or 1,
                        help="worker processes (default: one per core)")
    parser.add_argument("--grace", type=float, default=15.0,
                        help="seconds a stopping worker may take to finish its match before it is killed")


def check_port(host: str, port: int) -> None:
    """CommandError if the site could not listen there (a taken port would only make it restart in a loop)."""
    try:
        with socket.create_server((host, port)):
            pass
    except OSError as exc:
        raise CommandError(f"cannot serve on {host}:{port} ({exc.strerror}); choose another port: "
                           f"PORT={port + 1} make serve, or --port") from None


def serve(command: BaseCommand, *, port: int, host: str, workers: int, grace: float) -> None:
    """Run the site (Django's server, without its auto-reloader), ``workers`` workers and the scheduler."""
    check_port(host, port)
    site = [sys.executable, "manage.py", "runserver", "--noreload", "--insecure", f"{host}:{port}"]
    supervisor = Supervisor(platform_children(workers, site=site), grace_s=grace,
                            say=lambda text: command.stdout.write(text))
    command.stdout.write(f"Open http://{host}:{port}/ ; {workers} worker(s) and the scheduler run beside it; "
                         "Ctrl-C stops everything")
    supervisor.run()


class Command(BaseCommand):
    help = ("Run the site, N worker processes and the reconciler's scheduler together; a process that dies is "
            "restarted; Ctrl-C or SIGTERM stops them all.")

    def add_arguments(self, parser):
        add_platform_arguments(parser)

    def handle(self, *args, port, host, workers, grace, **options):
        serve(self, port=port, host=host, workers=workers, grace=grace)
