"""Fault drills on real worker processes, run as their own process; prints one JSON line of figures.

    python tests/integration/faults.py --backend postgres-redis --size 6 --long 60
    python tests/integration/faults.py --backend embedded --size 6 --long 60

postgres-redis starts its own PostgreSQL (initdb in a temporary folder) and Redis on free ports, since
the drills stop and restart them; embedded uses SQLite and the filesystem broker under ARENA_DATA_DIR.
Default recovery settings throughout (20 s lease, 3 s heartbeat and reconciler, 10 s re-ring).

The drills, one after the other, while a long match (a sandboxed slow bot, ``--long`` seconds) plays:
  claim    a consumer takes a match's message and is SIGKILLed before it claims the match;
  kill     a worker is SIGKILLed in the middle of a match;
  broker   the broker comes back empty (Redis killed and restarted; the filesystem queue wiped);
  database PostgreSQL is stopped (immediate) for 10 s and started again (postgres-redis only);
  sigterm  a worker gets SIGTERM in the middle of a match longer than its stop grace.
Recovery of a drill: from the fault to the moment its stranded matches are claimed again.
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "platform"), str(HERE)]
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")

from hosts import OwnPostgres, OwnRedis  # noqa: E402

SLOW_BOT = '''"""Plays random legal moves, slowly: {seconds} s of thinking in all, then instantly."""
import random
import time

import arena_bot

START = time.monotonic()


def act(observation, legal_actions):
    if time.monotonic() - START < {seconds}:
        time.sleep(0.6)
    return random.randrange(len(legal_actions))


arena_bot.run(act)
'''


def receive_and_die() -> None:
    """Take one message off the arena queue like a worker does (unacknowledged), say which match, die."""
    import django

    django.setup()
    from arena.celery import app

    with app.connection_for_read() as conn:
        queue = conn.SimpleQueue(app.conf.task_default_queue, no_ack=False)
        message = queue.get(block=True, timeout=30)
        assert message.headers["task"] == "tournaments.tasks.run_matches"
        print(*message.decode()[0][0], flush=True)
        os.kill(os.getpid(), signal.SIGKILL)


class Drill:
    def __init__(self, backend: str, size: int, long_s: int, pg: OwnPostgres | None, redis: OwnRedis | None):
        from bots.services import register_builtin_bots
        from django.core.management import call_command

        self.backend, self.size, self.long_s, self.pg, self.redis = backend, size, long_s, pg, redis
        call_command("migrate", verbosity=0, interactive=False)
        self.builtin = {v.builtin_name: v for v in register_builtin_bots(["port_royal"])}
        self.procs: dict[str, subprocess.Popen] = {}
        self.started = 0
        self.figures: dict = {"backend": backend, "size": size, "long_s": long_s, "faults": {}}

    # --- set-up -------------------------------------------------------------------------------------
    def slow_version(self, seconds: int):
        from bots.models import Bot, BotVersion
        from django.core.files.base import ContentFile
        from players.models import Player

        owner, _ = Player.objects.get_or_create(username="drill")
        bot = Bot.objects.create(owner=owner, game="port_royal", name=f"slow{seconds}-{uuid.uuid4().hex[:6]}")
        version = BotVersion(bot=bot, number=1, kind=BotVersion.Kind.UPLOAD, original_name="slow.py",
                             status=BotVersion.Status.VALID)
        version.package.save(f"drill/{bot.name}.py", ContentFile(SLOW_BOT.format(seconds=seconds).encode()),
                             save=False)
        version.save()
        return version

    def tournament(self, name: str, versions: list, games: int = 1):
        from django.db import transaction
        from tournaments import services

        with transaction.atomic():  # enqueued when this commits
            return services.create_tournament(name=name, game="port_royal", seats=2, games_per_pairing=games,
                                              seed=len(name), bot_versions=versions, rated=True)

    def start_workers(self, count: int) -> None:
        from tournaments.running.workers import start_workers

        for _ in range(count):
            self.started += 1
            name = f"drill{self.started}"
            self.procs[f"{name}-1"] = start_workers(1, name=name)[0]

    def start_beat(self) -> None:
        from tournaments.running.workers import start_workers

        self.procs["beat"] = start_workers(0, name="drill", beat=True)[0]

    def worker_of(self, match) -> tuple[str, subprocess.Popen]:
        name = match.worker.split("@")[0]
        return name, self.procs[name]

    def wait(self, what: str, condition, timeout: float = 150.0):
        deadline = time.monotonic() + timeout
        while True:
            found = condition()
            if found:
                return found
            if time.monotonic() > deadline:
                raise SystemExit(f"timed out waiting for {what}")
            time.sleep(0.6)

    def running(self, match_id: int, for_s: float):
        from django.utils import timezone
        from tournaments.models import Match

        def check():
            m = Match.objects.filter(pk=match_id, status=Match.Status.RUNNING).first()
            return m if m and m.started_at and (timezone.now() - m.started_at).total_seconds() >= for_s else None
        return check

    def done(self, tournament):
        return lambda: not tournament.matches.exclude(status__in=["finished", "failed"]).exists()

    def record(self, fault: str, **figures) -> None:
        self.figures["faults"][fault] = figures
        print(f"{fault}: {figures}", file=sys.stderr, flush=True)

    @staticmethod
    def claims_after(tournament, t_fault: float) -> list[float]:
        """Seconds from the fault to each claim made after it (a match's last claim)."""
        return sorted(round(m.started_at.timestamp() - t_fault, 1) for m in tournament.matches.all()
                      if m.started_at and m.started_at.timestamp() >= t_fault)

    # --- the drills ---------------------------------------------------------------------------------
    def run(self) -> dict:
        from tournaments.models import Match

        b = self.builtin
        # claim: no worker runs yet, so the consumer is sure to get the message first.
        t_claim = self.tournament("claim", [b["random"], b["heuristic"]])
        proc = subprocess.run([sys.executable, __file__, "--receive-and-die"], capture_output=True, text=True,
                              timeout=60, env=os.environ)
        t_fault = time.time()
        assert proc.returncode == -signal.SIGKILL, proc.stderr[-2000:]
        victim = t_claim.matches.get()
        assert int(proc.stdout.split()[0]) == victim.pk
        self.start_beat()
        self.start_workers(3)
        long_t = self.tournament("long", [self.slow_version(self.long_s), b["random"]])
        self.wait("the claim drill", self.done(t_claim))
        victim.refresh_from_db()
        self.record("claim", recovered_s=round(victim.started_at.timestamp() - t_fault, 1),
                    attempts=victim.attempts, note="includes starting the workers")

        # kill: SIGKILL the worker of a 15 s match, 3 s into it; a replacement worker starts.
        kill_t = self.tournament("kill", [self.slow_version(15), b["random"]])
        victim = self.wait("the kill victim to run", self.running(kill_t.matches.get().pk, 3))
        name, proc = self.worker_of(victim)
        t_fault = time.time()
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        self.start_workers(1)
        self.wait("the kill drill", self.done(kill_t))
        victim.refresh_from_db()
        self.record("kill", recovered_s=round(victim.started_at.timestamp() - t_fault, 1),
                    attempts=victim.attempts, killed=name, retaken_by=victim.worker.split("@")[0])

        # broker: every queued message is lost at once.
        broker_t = self.tournament("broker", [b["random"], b["heuristic"]], games=self.size)
        t_fault = time.time()
        self.empty_broker()
        queued_at_fault = broker_t.matches.filter(status=Match.Status.QUEUED).count()
        self.wait("the broker drill", self.done(broker_t))
        claims = self.claims_after(broker_t, t_fault)
        self.record("broker", recovered_s=claims[-1] if claims else None, first_claim_s=claims[0] if claims else None,
                    stranded=queued_at_fault, how="Redis killed and restarted empty" if self.redis
                    else "filesystem queue wiped")

        if self.pg is not None:  # database: 10 s away while a 20 s match runs and others wait
            slow_t = self.tournament("database-slow", [self.slow_version(20), b["random"]])
            slow_id = slow_t.matches.get().pk
            self.wait("the slow match to run", self.running(slow_id, 2))
            # 3 s matches, so that some are running and some queued when the database goes away.
            db_t = self.tournament("database", [self.slow_version(3), b["random"]], games=self.size)
            self.wait("the database drill's matches to run", lambda: db_t.matches.filter(status="running").exists())
            t_fault = time.time()
            self.pg.stop()
            time.sleep(10)
            self.pg.start()
            t_back = time.time()
            from django.db import connection

            connection.close()
            self.wait("the database drill", lambda: self.done(db_t)() and self.done(slow_t)())
            slow = Match.objects.get(pk=slow_id)
            claims = self.claims_after(db_t, t_fault)
            self.record("database", outage_s=round(t_back - t_fault, 1),
                        recovered_s=claims[-1] if claims else round(t_back - t_fault, 1),
                        stranded=len(claims), retried=sum(m.attempts > 1 for m in db_t.matches.all()),
                        running_match_attempts=slow.attempts,
                        running_match_stored_s=round(slow.finished_at.timestamp() - t_fault, 1))

        # sigterm: a 30 s match on a worker told to stop: handed back after the grace, run elsewhere.
        term_t = self.tournament("sigterm", [self.slow_version(30), b["random"]])
        victim = self.wait("the sigterm victim to run", self.running(term_t.matches.get().pk, 2))
        name, proc = self.worker_of(victim)
        t_fault = time.time()
        proc.send_signal(signal.SIGTERM)
        proc.wait(60)
        exited = time.time() - t_fault
        self.start_workers(1)
        self.wait("the sigterm drill", self.done(term_t))
        victim.refresh_from_db()
        self.record("sigterm", recovered_s=round(victim.started_at.timestamp() - t_fault, 1),
                    worker_exit_s=round(exited, 1), exit_code=proc.returncode, attempts=victim.attempts)

        self.wait("the long match", self.done(long_t), timeout=self.long_s + 120)
        long_match = long_t.matches.get()
        self.figures["long_match"] = {"seconds": round((long_match.finished_at - long_match.started_at)
                                                       .total_seconds(), 1), "attempts": long_match.attempts}
        return self.figures

    def empty_broker(self) -> None:
        if self.redis is not None:
            self.redis.kill()
            self.redis.start()
        else:
            from arena.celery import app

            folder = Path(app.conf.broker_transport_options["data_folder_in"])
            for f in folder.glob(f"*.{app.conf.task_default_queue}.msg"):
                f.unlink(missing_ok=True)

    def stop(self) -> None:
        from tournaments.running.workers import stop_workers

        stop_workers([p for p in self.procs.values()])

def invariants() -> dict:
    """0 lost, 0 rated twice, every rating chain intact, leaderboards equal to their chains."""
    from django.db import connection
    from ratings.models import Rating, RatingChange
    from tournaments.models import Match

    connection.close()
    matches = list(Match.objects.filter(purpose=Match.Purpose.TOURNAMENT))
    changes = {}
    for c in RatingChange.objects.order_by("rating_id", "sequence"):
        changes.setdefault(c.rating_id, []).append(c)
    per_match = {}
    for chs in changes.values():
        for c in chs:
            per_match[c.match_id] = per_match.get(c.match_id, 0) + 1
    seats = {m.pk: m.seats.count() for m in matches}
    chains_ok = all(
        all((b.mu_before, b.sigma_before) == (a.mu_after, a.sigma_after) for a, b in zip(chs, chs[1:]))
        for chs in changes.values())
    board_ok = all(r.games == len(changes.get(r.pk, [])) and (
        not changes.get(r.pk) or (r.mu, r.sigma) == (changes[r.pk][-1].mu_after, changes[r.pk][-1].sigma_after))
        for r in Rating.objects.all())
    return {
        "matches": len(matches),
        "lost": sum(m.status != Match.Status.FINISHED for m in matches),
        "rated_twice": sum(per_match.get(m.pk, 0) > seats[m.pk] for m in matches),
        "unrated": sum(not m.rated or per_match.get(m.pk, 0) != seats[m.pk] for m in matches),
        "chains_ok": chains_ok,
        "leaderboard_ok": board_ok,
        "database": connection.vendor,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--backend", choices=["postgres-redis", "embedded"], default="embedded")
    parser.add_argument("--size", type=int, default=6, help="short matches per drill")
    parser.add_argument("--long", type=int, default=60, help="seconds of the long match")
    parser.add_argument("--receive-and-die", action="store_true")
    args = parser.parse_args()
    if args.receive_and_die:
        return receive_and_die()
    pg = redis = None
    os.environ.setdefault("ARENA_QUEUE", f"arena-drill-{uuid.uuid4().hex[:8]}")
    try:
        if args.backend == "postgres-redis":
            pg, redis = OwnPostgres(), OwnRedis()
            pg.start()
            redis.start()
            os.environ.update(DATABASE_URL=pg.url.rsplit("/", 1)[0] + "/postgres", CELERY_BROKER_URL=redis.url)
        else:
            os.environ.pop("DATABASE_URL", None)
            os.environ.pop("CELERY_BROKER_URL", None)
        import django

        django.setup()
        drill = Drill(args.backend, args.size, args.long, pg, redis)
        try:
            figures = drill.run()
        finally:
            drill.stop()
        figures["invariants"] = invariants()
    finally:
        for server in (redis, pg):
            if server is not None:
                server.close()
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
