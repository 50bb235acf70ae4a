"""A tournament on real worker processes, run as its own process with the environment it is given
(DATABASE_URL, CELERY_BROKER_URL, ARENA_DATA_DIR, ARENA_QUEUE). Prints one JSON line of findings.

It adds the accidents that production must survive: every match's message is delivered twice, and one
match is claimed by a worker that then "dies" (its lease runs out), so the reconciler must recover it.
"""
import json
import os
import sys
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "platform")]
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import transaction  # noqa: E402
from django.utils import timezone  # noqa: E402

from arena.celery import app  # noqa: E402
from bots.services import register_builtin_bots  # noqa: E402
from ratings.models import Rating, RatingChange  # noqa: E402
from tournaments import services  # noqa: E402
from tournaments.running import pipeline  # noqa: E402
from tournaments.models import Match  # noqa: E402
from tournaments.running.workers import logs_dir, start_workers, stop_workers  # noqa: E402


def main(workers: int, games: int) -> dict:
    call_command("migrate", verbosity=0, interactive=False)
    procs = start_workers(workers, name="it")
    try:
        deadline, heard = time.monotonic() + 60, set()
        while len(heard) < workers:
            heard.update(name for reply in app.control.ping(timeout=0.5) or [] for name in reply)
            if time.monotonic() > deadline or any(p.poll() is not None for p in procs):
                logs = "".join(log.read_text()[-1500:] for log in sorted(logs_dir().glob("it-*.log")))
                raise SystemExit(f"workers did not come up (heard {sorted(heard)}):\n{logs}")
        versions = {v.builtin_name: v for v in register_builtin_bots(["port_royal"])}
        with transaction.atomic():  # the matches are enqueued when this commits
            tournament = services.create_tournament(
                name="integration", game="port_royal", seats=2, games_per_pairing=games, seed=5,
                bot_versions=[versions["random"], versions["heuristic"]], rated=True)
            ids = list(tournament.matches.order_by("pk").values_list("pk", flat=True))
            # A worker claimed the first match and died: its lease ran out.
            assert pipeline.claim_match(ids[0], "dead-worker")
            Match.objects.filter(pk=ids[0]).update(lease_until=timezone.now() - timedelta(seconds=1))
        services.enqueue_matches(ids)  # every doorbell rings a second time
        deadline = time.monotonic() + 180
        while tournament.matches.exclude(status__in=["finished", "failed"]).exists():
            pipeline.reconcile_matches()
            if time.monotonic() > deadline:
                break
            time.sleep(0.5)
    finally:
        stop_workers(procs)
    matches = list(Match.objects.filter(tournament=tournament))
    chains_ok = all(
        all(b.mu_before == a.mu_after for a, b in zip(chs, chs[1:]))
        for chs in ([*RatingChange.objects.filter(rating=r).order_by("sequence")] for r in Rating.objects.all())
    )
    return {
        "matches": len(matches),
        "statuses": sorted({m.status for m in matches}),
        "rated": sum(m.rated for m in matches),
        "rating_changes": RatingChange.objects.filter(match__tournament=tournament).count(),
        "games_rated": sorted(Rating.objects.values_list("games", flat=True)),
        "workers": sorted({m.worker.split("@")[0] for m in matches}),
        "recovered_attempts": Match.objects.get(pk=ids[0]).attempts,
        "chains_ok": chains_ok,
        "database": django.db.connection.vendor,
        "broker": app.conf.broker_url.split(":")[0],
    }


if __name__ == "__main__":
    print(json.dumps(main(int(sys.argv[1]), int(sys.argv[2]))))
