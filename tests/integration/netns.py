"""One tournament across three "hosts" built from network namespaces on this machine; prints one JSON line.

    python tests/integration/netns.py --matches 10 --cut 30      (as root)

    db host   (namespace <p>-db): its own PostgreSQL and Redis, and `celery beat` (the reconciler)
    worker host 1 (<p>-w1): one worker, reaching the db host only over veth 10.77.1.2 <-> 10.77.1.1
    worker host 2 (<p>-w2): two workers, reaching the db host only over veth 10.77.2.2 <-> 10.77.2.1
    this script (the root namespace) reaches the db host over 10.77.0.1 <-> 10.77.0.2.

Mid-tournament, while worker host 1 plays a match, its link is cut (`ip link set ... down` on the db
host's end) for ``--cut`` seconds, then restored. Default recovery settings (20 s lease). A cut longer
than the lease: host 2 takes the stranded match over; host 1's late result is refused. The namespaces,
links and servers are removed in any case.
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

from faults import SLOW_BOT, invariants  # noqa: E402
from hosts import OwnPostgres, OwnRedis, free_port  # noqa: E402

DB_ROOT, ROOT_DB = "10.77.0.2", "10.77.0.1"
DB_W = {1: "10.77.1.1", 2: "10.77.2.1"}
W_DB = {1: "10.77.1.2", 2: "10.77.2.2"}


def ip(*args: str, ns: str | None = None) -> None:
    cmd = (["ip", "netns", "exec", ns, "ip"] if ns else ["ip"]) + list(args)
    subprocess.run(cmd, check=True, capture_output=True)


class Network:
    """The namespaces and veth links; ``close`` removes them (deleting a namespace deletes its links)."""

    def __init__(self, tag: str):
        self.tag = tag
        self.db, self.w = f"{tag}-db", {1: f"{tag}-w1", 2: f"{tag}-w2"}
        self.namespaces: list[str] = []
        self.root_link = f"{tag}r"

    def build(self) -> None:
        for ns in (self.db, *self.w.values()):
            ip("netns", "add", ns)
            self.namespaces.append(ns)
            ip("link", "set", "lo", "up", ns=ns)
        # this script <-> db host
        ip("link", "add", self.root_link, "type", "veth", "peer", "name", f"{self.tag}d0")
        ip("link", "set", f"{self.tag}d0", "netns", self.db)
        ip("addr", "add", f"{ROOT_DB}/30", "dev", self.root_link)
        ip("link", "set", self.root_link, "up")
        ip("addr", "add", f"{DB_ROOT}/30", "dev", f"{self.tag}d0", ns=self.db)
        ip("link", "set", f"{self.tag}d0", "up", ns=self.db)
        # db host <-> worker host i
        for i, ns in self.w.items():
            db_end, w_end = self.db_end(i), f"{self.tag}w{i}"
            ip("link", "add", db_end, "type", "veth", "peer", "name", w_end)
            ip("link", "set", db_end, "netns", self.db)
            ip("link", "set", w_end, "netns", ns)
            ip("addr", "add", f"{DB_W[i]}/30", "dev", db_end, ns=self.db)
            ip("addr", "add", f"{W_DB[i]}/30", "dev", w_end, ns=ns)
            ip("link", "set", db_end, "up", ns=self.db)
            ip("link", "set", w_end, "up", ns=ns)

    def db_end(self, i: int) -> str:
        return f"{self.tag}d{i}"

    def cut(self, i: int) -> None:
        ip("link", "set", self.db_end(i), "down", ns=self.db)

    def restore(self, i: int) -> None:
        ip("link", "set", self.db_end(i), "up", ns=self.db)

    def close(self) -> None:
        subprocess.run(["ip", "link", "del", self.root_link], capture_output=True)
        for ns in self.namespaces:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def in_namespace(ns: str, command: list[str], env: dict, log: Path) -> subprocess.Popen:
    """A process (a Celery worker or beat) inside namespace ``ns`` with its own environment."""
    with open(log, "ab") as out:
        return subprocess.Popen(["ip", "netns", "exec", ns, *command], cwd=ROOT, env=env, start_new_session=True,
                                stdout=out, stderr=subprocess.STDOUT)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--matches", type=int, default=10, help="slow matches of the tournament")
    parser.add_argument("--cut", type=float, default=30.0, help="seconds the link of worker host 1 stays cut")
    args = parser.parse_args()
    tag = f"ar{os.getpid() % 100000}"
    net = Network(tag)
    pg = redis = None
    procs: list[subprocess.Popen] = []
    figures: dict = {"matches": args.matches, "cut_s": args.cut}
    try:
        net.build()
        listen = [DB_ROOT, DB_W[1], DB_W[2]]
        prefix = ["ip", "netns", "exec", net.db]
        pg = OwnPostgres(host=DB_ROOT, port=free_port(), prefix=prefix, listen=listen)
        pg.start()
        redis = OwnRedis(host=DB_ROOT, port=free_port(), prefix=prefix, listen=listen)
        redis.start()
        queue = f"arena-netns-{uuid.uuid4().hex[:8]}"

        def env_via(address: str) -> dict:
            env = dict(os.environ, ARENA_QUEUE=queue, DATABASE_URL=f"postgresql://postgres@{address}:{pg.port}/postgres",
                       CELERY_BROKER_URL=f"redis://{address}:{redis.port}/0")
            env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(ROOT / "platform")])
            return env

        os.environ.update(env_via(DB_ROOT))
        import django

        django.setup()
        from bots.models import Bot, BotVersion
        from bots.services import register_builtin_bots
        from django.conf import settings
        from django.core.files.base import ContentFile
        from django.core.management import call_command
        from django.db import transaction
        from players.models import Player
        from tournaments import services
        from tournaments.models import Match
        from tournaments.running.workers import beat_command, worker_command

        call_command("migrate", verbosity=0, interactive=False)
        logs = Path(settings.DATA_DIR) / "logs"
        logs.mkdir(parents=True, exist_ok=True)
        procs.append(in_namespace(net.db, beat_command(), env_via(DB_ROOT), logs / "beat.log"))
        # One worker on host 1, two on host 2 (one of them is free to take over host 1's match).
        for i, n in ((1, 1), (2, 1), (2, 2)):
            procs.append(in_namespace(net.w[i], worker_command(f"host{i}-{n}"), env_via(DB_W[i]),
                                      logs / f"host{i}-{n}.log"))
        owner, _ = Player.objects.get_or_create(username="netns")
        bot = Bot.objects.create(owner=owner, game="port_royal", name="slow")
        slow = BotVersion(bot=bot, number=1, kind=BotVersion.Kind.UPLOAD, original_name="slow.py",
                          status=BotVersion.Status.VALID)
        slow.package.save("netns/slow.py", ContentFile(SLOW_BOT.format(seconds=6).encode()), save=False)
        slow.save()
        builtin = {v.builtin_name: v for v in register_builtin_bots(["port_royal"])}
        with transaction.atomic():
            tournament = services.create_tournament(
                name="netns", game="port_royal", seats=2, games_per_pairing=args.matches, seed=9,
                bot_versions=[slow, builtin["heuristic"]], rated=True)

        def wait(what, condition, timeout=240.0):
            deadline = time.monotonic() + timeout
            while not (found := condition()):
                if time.monotonic() > deadline:
                    raise SystemExit(f"timed out waiting for {what}")
                time.sleep(0.2)
            return found

        # Cut while host 1 plays its second match (it has stored one: both hosts served the tournament).
        victim = wait("host 1 to play its second match", lambda: tournament.matches.filter(
            status=Match.Status.FINISHED, worker__startswith="host1-").exists() and Match.objects.filter(
            tournament=tournament, status=Match.Status.RUNNING, worker__startswith="host1-").first())
        time.sleep(1)
        token = victim.lease_token
        t_cut = time.time()
        net.cut(1)
        freed_s = None  # when the stranded match was free again (lease expired, back in the queue)
        while time.time() < t_cut + args.cut:
            if freed_s is None and not Match.objects.filter(pk=victim.pk, lease_token=token).exists():
                freed_s = round(time.time() - t_cut, 1)
            time.sleep(0.2)
        net.restore(1)
        t_restored = time.time()
        wait("the tournament", lambda: not tournament.matches.exclude(status="finished").exists())
        victim.refresh_from_db()
        figures["freed_s"] = freed_s
        matches = list(tournament.matches.all())
        figures.update({
            "victim": victim.pk,
            "victim_attempts": victim.attempts,
            "victim_finished_by": victim.worker.split("@")[0],
            "recovered_s": round(victim.started_at.timestamp() - t_cut, 1) if victim.attempts > 1 else None,
            "restored_after_s": round(t_restored - t_cut, 1),
            "matches_per_host": {h: sum(m.worker.startswith(h + "-") for m in matches) for h in ("host1", "host2")},
        })
        figures["invariants"] = invariants()
        # Host 1 comes back: its worker reports again, and its late result was refused, not stored.
        from datetime import datetime, timezone
        from tournaments.models import WorkerBeat

        back = datetime.fromtimestamp(t_restored, timezone.utc)
        wait("host 1 to report again", lambda: WorkerBeat.objects.filter(
            name__startswith="host1-", last_seen__gt=back, state=WorkerBeat.State.IDLE).exists(), timeout=90)
        figures["host1_back_s"] = round(time.time() - t_restored, 1)
        figures["host1_lease_lost"] = "lease lost" in (logs / "host1-1.log").read_text(errors="replace")
    finally:
        for p in procs:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
        for p in procs:
            try:
                p.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
        for server in (redis, pg):
            if server is not None:
                server.close()
        net.close()
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
