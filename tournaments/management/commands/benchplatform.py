"""Platform throughput and overhead: matches/s from enqueue to stored and rated, on N worker processes,
and what the platform adds to each match beyond the engine's own play. Not a test.

Two rates per run: ``matches_per_s`` over the whole run (creating the tournament and ringing its doorbells
included: this process's work, on the same cores as the workers) and ``steady_matches_per_s``, the
workers' own rate once every match waits in the queue (from the moment the tournament was created to
the last match stored). ``--scaling`` compares one worker with several on both, and beside them the
machine's own scaling at that moment: as many engine-only processes as workers against one (no database,
no broker, no lock), what the cores give to CPU-bound work alone."""
import cProfile
import hashlib
import io
import json
import os
import pstats
import statistics
import subprocess
import sys
import time

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import connection
from django.utils import timezone

from bots.services import register_builtin_bots
from engines.bench import bench_game
from engines.bots import Bot
from engines.logcodec import choices_of
from engines.match import play_match
from engines.players import make_bot
from engines.sandbox.runner import SDK_DIR
from tournaments.models import Match, MatchLog
from tournaments.running.pipeline import run_match
from tournaments.selectors import match_log, tournament_progress
from tournaments.services import create_tournament
from tournaments.running.workers import ROOT, start_workers, stop_workers


class LoggedChoices(Bot):
    """Answers its seat's logged choices in order: an uploaded bot's match played again without the program."""

    def __init__(self, choices: list[int]):
        self.choices = iter(choices)

    def act(self, observation, legal_actions, time_left_ms=None) -> int:
        return next(self.choices)


def _bots_again(match: Match) -> list[Bot]:
    """The bots of a match played again: all built-in, as they were (same seeds: the same moves); with an
    uploaded one among them, every seat by its logged choices (a bench match has no forfeits, whose seats the
    match would not ask)."""
    seats = list(match.seats.select_related("bot_version").order_by("seat"))
    if all(s.bot_version.builtin_name for s in seats):
        return [make_bot(s.bot_version.builtin_name, match.game, seed=match.seed * 10 + s.seat) for s in seats]
    log = match_log(match)
    per_seat: list[list[int]] = [[] for _ in seats]
    for (seat, _action, _ms), index in zip(log["moves"], choices_of(log)):
        per_seat[seat].append(index)
    return [LoggedChoices(choices) for choices in per_seat]


def engine_ms_per_match(matches: list[Match]) -> tuple[float, float]:
    """The engine's own play time of these matches (wall, CPU), played again in this process: built-in bots
    as they were, uploaded ones by their logged choices (the engine's legal lists, observations and moves, no
    program)."""
    plays = [(match, _bots_again(match)) for match in matches]
    wall, cpu = time.perf_counter(), time.process_time()
    for match, bots in plays:
        play_match(match.game, bots, match.seed, match.options)
    count = max(1, len(matches))
    return (time.perf_counter() - wall) * 1000 / count, (time.process_time() - cpu) * 1000 / count


def engine_processes_rate(game: str, count: int, seconds: float, players: int) -> float:
    """Games/s of ``count`` engine-only self-play processes run at once (``python -m engines bench``), summed:
    what the machine's cores give to that many CPU-bound processes, with nothing of the platform."""
    argv = [sys.executable, "-m", "engines", "bench", "--game", game, "--seconds", str(seconds),
            "--players", str(players)]
    procs = [subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, text=True) for _ in range(count)]
    outputs = [proc.communicate(timeout=seconds + 120)[0] for proc in procs]
    return sum(json.loads(out.strip().splitlines()[-1])["games_per_s"] for out in outputs)


def cpu_seconds(pids: list[int]) -> float | None:
    """CPU time (user + system) used so far by these processes (Linux /proc), or None elsewhere."""
    try:
        total = 0
        for pid in pids:
            fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)
        return total / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def runqueue_seconds(pids: list[int]) -> float | None:
    """Time these processes' threads were ready to run but waited for a core (Linux schedstat), or None."""
    try:
        return sum(int(open(f"/proc/{pid}/task/{task}/schedstat").read().split()[1])
                   for pid in pids for task in os.listdir(f"/proc/{pid}/task")) / 1e9
    except (OSError, ValueError, IndexError):
        return None


def wait_until_done(tournament, matches: int, started: float) -> int:
    """Poll the tournament's progress until its ``matches`` are done.

    The poll is a query the measured machine runs too, so it sleeps half the time the rest should take at
    the rate so far (between 20 ms and 1 s): a few dozen polls a run instead of fifty a second, while the
    end is still seen within 20 ms. Returns the number of polls.
    """
    polls = 1
    while (done := tournament_progress(tournament)["done"]) < matches:
        rest = (matches - done) * (time.perf_counter() - started) / done if done else 0.0
        time.sleep(min(1.0, max(0.02, rest / 2)))
        polls += 1
    return polls


def database_server_pids(in_process: bool) -> list[int]:
    """PostgreSQL: the server processes (backends) of this database's sessions: this command's own
    (``in_process``) or every other one (the workers'; this database is the benchmark's own). Elsewhere
    none (SQLite runs inside the processes measured)."""
    if connection.vendor != "postgresql":
        return []
    with connection.cursor() as cursor:
        cursor.execute("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND "
                       + ("pid = pg_backend_pid()" if in_process else "pid <> pg_backend_pid()"))
        return [pid for pid, in cursor.fetchall()]


class Command(BaseCommand):
    help = ("Measure platform throughput: a round robin of built-in bots (random vs heuristic) on local workers, "
            "from enqueue to stored and rated, and the platform's overhead per match (wall time per match and "
            "worker, less the engine's own play time); prints one JSON line. --in-process runs the matches in "
            "this process instead (no broker), --profile prints where that time goes.")

    def add_arguments(self, parser):
        parser.add_argument("--game", default="port_royal")
        parser.add_argument("--matches", type=int, default=60)
        parser.add_argument("--workers", type=int, default=2)
        parser.add_argument("--seats", type=int, default=2)
        parser.add_argument("--in-process", action="store_true",
                            help="run_match in this process, one after the other (the pipeline without the broker)")
        parser.add_argument("--profile", action="store_true", help="with --in-process: cProfile's top functions")
        parser.add_argument("--scaling", type=int, default=0, metavar="ROUNDS",
                            help="ROUNDS runs of one worker and of --workers in turn; then a line with the ratios of "
                                 "their matches/s, pair by pair, and the median, for the whole runs and for the "
                                 "workers' steady state")
        parser.add_argument("--machine-seconds", type=float, default=3.0, metavar="S",
                            help="with --scaling: after each pair, S seconds of one engine-only process and S of "
                                 "--workers at once, the machine's own ratio (0: not measured)")
        parser.add_argument("--uploaded", action="store_true",
                            help="the entrants are uploads of the game's Python starter (engines/sdk/starters), one "
                                 "bot each of a bench player, validated as any upload is before the clock starts: "
                                 "every match runs its bots in the sandbox")
        parser.add_argument("--rate-only", action="store_true",
                            help="time rate_match alone on this database's rated versions (e.g. seedscale's million "
                                 "matches): --matches finished matches of --seats rated versions, each rated in its "
                                 "own transaction")

    def handle(self, *args, game, matches, workers, seats, in_process, profile, rate_only, scaling, machine_seconds,
               uploaded, **options):
        if rate_only:
            print(json.dumps(bench_rate_match(game, matches, seats)))
            return
        versions = {v.builtin_name: v for v in register_builtin_bots([game])}
        # One version per seat (a version enters a tournament once): beyond two, more built-in versions.
        if uploaded:
            entrants = uploaded_starters(game, max(seats, 2))
        elif seats <= 2:
            entrants = [versions["random"], versions["heuristic"]]
        else:
            entrants = _extra_versions(game, versions, seats)
        if not scaling:
            print(json.dumps(self.throughput(game, matches, workers, seats, entrants, in_process, profile)))
            return
        if workers < 2:
            raise CommandError("--scaling compares one worker with --workers: give --workers 2 or more")
        # One worker, then --workers, in turn: each pair sees the same machine load.
        runs: dict[int, list[dict]] = {1: [], workers: []}
        machine: list[float] = []  # per round: engine-only processes, --workers of them at once against one
        for _ in range(scaling):
            for count in (1, workers):
                line = self.throughput(game, matches, count, seats, entrants)
                runs[count].append(line)
                print(json.dumps(line), flush=True)
            if machine_seconds > 0:
                one = engine_processes_rate(game, 1, machine_seconds, seats)
                many = engine_processes_rate(game, workers, machine_seconds, seats)
                machine.append(round(many / one, 2))
                print(json.dumps({"machine": f"{workers} engine processes / 1", "game": game,
                                  "seconds": machine_seconds, "games_per_s_one": round(one, 1),
                                  f"games_per_s_{workers}": round(many, 1), "ratio": machine[-1]}), flush=True)

        def ratios(rate: str) -> list[float]:
            return sorted(round(many[rate] / one[rate], 2) for one, many in zip(runs[1], runs[workers])
                          if one[rate] and many[rate])

        whole, steady = ratios("matches_per_s"), ratios("steady_matches_per_s")
        print(json.dumps({"scaling": f"{workers} workers / 1", "game": game, "matches": matches,
                          "database": line["database"], "broker": line["broker"],
                          # the whole runs: this process creating the tournament competes for the same cores
                          "ratios": whole, "median_ratio": round(statistics.median(whole), 2),
                          # the workers once every match is enqueued
                          "steady_ratios": steady, "steady_median_ratio": round(statistics.median(steady), 2) if steady else None,
                          "goal_ratio": 1.8,
                          # what the cores gave CPU-bound work alone in the same rounds (the ceiling of the above)
                          "machine_ratios": sorted(machine),
                          "machine_median_ratio": round(statistics.median(machine), 2) if machine else None}))

    def throughput(self, game: str, matches: int, workers: int, seats: int, entrants: list, in_process: bool = False,
                   profile: bool = False) -> dict:
        """One run: a rated round robin of ``matches`` between ``entrants`` on ``workers`` fresh worker processes
        (or in this process), from enqueue to stored and rated; the JSON line's fields."""
        profiler = cProfile.Profile() if profile else None
        procs = [] if in_process else start_workers(workers, name="bench")
        try:
            if procs:  # warm up: the workers connect and import what a match needs before the clock starts
                warm = create_tournament(name=f"benchmark {game} warm-up", game=game, seats=seats,
                                         games_per_pairing=4 * workers, bot_versions=entrants, seed=98, rated=True)
                while tournament_progress(warm)["done"] < 4 * workers:
                    time.sleep(0.05)
            servers = {pid: cpu_seconds([pid]) for pid in database_server_pids(in_process)}
            started, cpu_started = time.perf_counter(), time.process_time()
            workers_cpu = cpu_seconds([p.pid for p in procs])
            workers_runqueue = runqueue_seconds([p.pid for p in procs])
            tournament = create_tournament(name=f"benchmark {game}", game=game, seats=seats,
                                           games_per_pairing=matches, bot_versions=entrants,
                                           seed=99, rated=True)
            # Every match is in the database and its doorbell rung (on commit, inside create_tournament).
            enqueued, enqueue_seconds = timezone.now(), time.perf_counter() - started
            polls = 0
            if in_process:
                ids = list(tournament.matches.order_by("id").values_list("pk", flat=True))
                if profiler:
                    profiler.enable()
                for match_id in ids:
                    run_match(match_id, "bench")
                if profiler:
                    profiler.disable()
            else:
                polls = wait_until_done(tournament, matches, started)
            elapsed = time.perf_counter() - started
            # Sessions opened meanwhile (a worker's first match, a renewal) count whole; ended ones are missed.
            server_after = {pid: cpu_seconds([pid]) for pid in database_server_pids(in_process)}
            server_cpu = (sum(cpu - (servers.get(pid) or 0.0) for pid, cpu in server_after.items() if cpu is not None)
                          if server_after else None)
            runqueue = None
            if in_process:
                cpu = time.process_time() - cpu_started
            else:
                after = cpu_seconds([p.pid for p in procs])
                cpu = None if after is None or workers_cpu is None else after - workers_cpu
                waited = runqueue_seconds([p.pid for p in procs])
                runqueue = None if waited is None or workers_runqueue is None else waited - workers_runqueue
        finally:
            stop_workers(procs)
        finished = list(Match.objects.filter(tournament=tournament))
        # The steady window: from the tournament's creation to the last match stored (a match under way at its
        # start counts whole: at most one per worker). The workers stamp finished_at with this machine's clock.
        after = [m.finished_at for m in finished if m.finished_at is not None and m.finished_at > enqueued]
        window = (max(after) - enqueued).total_seconds() if after else 0.0
        moves = sum(m.num_moves for m in finished)
        stored = list(MatchLog.objects.filter(match__tournament=tournament).values_list("data", flat=True))
        engine_ms, engine_cpu_ms = engine_ms_per_match(finished)
        parallel = 1 if in_process else workers
        wall_ms = elapsed * 1000 * parallel / matches  # per match, per worker
        line = {
            "game": game, "matches": matches, "seats": seats, "workers": 0 if in_process else workers,
            "database": settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1],
            "broker": "none (in process)" if in_process else settings.CELERY_BROKER_URL.split(":")[0],
            "seconds": round(elapsed, 2), "progress_polls": polls, "matches_per_s": round(matches / elapsed, 2),
            "enqueue_seconds": round(enqueue_seconds, 3), "steady_matches": len(after),
            "steady_matches_per_s": round(len(after) / window, 2) if window > 0 else None,
            "moves": moves, "wall_ms_per_match_per_worker": round(wall_ms, 2),
            "engine_ms_per_match": round(engine_ms, 2),
            "overhead_ms_per_match": round(wall_ms - engine_ms, 2),
            # CPU of this process (--in-process) or of the workers, less the engine's: robust to a busy machine.
            "cpu_ms_per_match": None if cpu is None else round(cpu * 1000 / matches, 2),
            "engine_cpu_ms_per_match": round(engine_cpu_ms, 2),
            "overhead_cpu_ms_per_match": None if cpu is None else round(cpu * 1000 / matches - engine_cpu_ms, 2),
            # Where the workers' wall time went besides their CPU: ready but waiting for a core (other processes:
            # this one enqueueing, the database server, a neighbour), and the rest (the write lock, the broker,
            # the disk, a worker idle at the end).
            "runqueue_ms_per_match": None if runqueue is None else round(runqueue * 1000 / matches, 2),
            "blocked_ms_per_match": (None if cpu is None or runqueue is None
                                     else round(wall_ms - (cpu + runqueue) * 1000 / matches, 2)),
            # The database server's CPU for these sessions (PostgreSQL): parsing, planning, running the statements.
            "db_server_cpu_ms_per_match": None if server_cpu is None else round(server_cpu * 1000 / matches, 2),
            "stored_log_bytes_avg": round(sum(len(d) for d in stored) / max(1, len(stored)), 1),
            "engine_only_games_per_s_one_core": bench_game(game, num_players=seats, games=20)["games_per_s"],
        }
        if profiler:
            out = io.StringIO()
            pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(40)
            self.stderr.write(out.getvalue())
        return line


def bench_rate_match(game: str, matches: int, seats: int) -> dict:
    """``rate_match`` alone: ``matches`` finished matches of ``seats`` versions drawn from the game's rated
    versions of its largest ruleset (seeded, deterministic), each rated in its own transaction, as the store
    does. Returns the times per match (wall and CPU, p50 and mean) and the database's size."""
    import random

    from django.db import transaction
    from django.db.models import Count

    from ratings.models import Rating, RatingChange
    from ratings.services import rate_match
    from tournaments.models import MatchSeat

    ruleset = (Rating.objects.filter(game=game).values("ruleset").annotate(n=Count("id")).order_by("-n")
               .values_list("ruleset", flat=True).first()) or "standard"
    versions = list(Rating.objects.filter(game=game, ruleset=ruleset).values_list("bot_version_id", flat=True))
    if len(versions) < seats:
        raise SystemExit(f"--rate-only needs at least {seats} rated versions of {game} (run seedscale first)")
    draw = random.Random(7)
    created = Match.objects.bulk_create([Match(game=game, seed=i, status=Match.Status.FINISHED, num_moves=1)
                                         for i in range(matches)])
    if created and created[0].pk is None:
        created = list(Match.objects.order_by("-id")[:matches])
    MatchSeat.objects.bulk_create([MatchSeat(match=m, seat=s, bot_version_id=v, rank=r)
                                   for m in created for s, (v, r) in
                                   enumerate(zip(draw.sample(versions, seats), draw.sample(range(seats), seats)))])
    walls, cpus, commits = [], [], []
    for match in created:
        with transaction.atomic():
            wall, cpu = time.perf_counter(), time.process_time()
            rate_match(match, ruleset)
            walls.append((time.perf_counter() - wall) * 1000)
            cpus.append((time.process_time() - cpu) * 1000)
            committed = time.perf_counter()
        commits.append((time.perf_counter() - committed) * 1000)  # the transaction's, not rate_match's
    walls.sort(), cpus.sort(), commits.sort()
    return {"game": game, "ruleset": ruleset, "seats": seats, "rated_matches": matches,
            "database": settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1],
            "rating_changes_in_db": RatingChange.objects.count(), "rated_versions": len(versions),
            "rate_ms_p50": round(walls[len(walls) // 2], 2), "rate_ms_mean": round(sum(walls) / len(walls), 2),
            "rate_ms_p95": round(walls[int(len(walls) * 0.95)], 2),
            "rate_cpu_ms_p50": round(cpus[len(cpus) // 2], 2), "rate_cpu_ms_mean": round(sum(cpus) / len(cpus), 2),
            "commit_ms_p50": round(commits[len(commits) // 2], 2)}


def uploaded_starters(game: str, count: int) -> list:
    """``count`` valid uploaded versions of the game's Python starter, each the version of a bot of its own
    (a version enters a tournament once) of the player ``bench-uploader``: uploaded with ``upload_version`` and
    validated with ``validate_version`` in this process, as a worker would, the first time; reused after."""
    from django.contrib.auth import get_user_model

    from bots.models import BotVersion
    from bots.services import upload_version
    from tournaments.running.validation import validate_version

    data = (SDK_DIR / "starters" / f"{game}.py").read_bytes()
    owner, _ = get_user_model().objects.get_or_create(username="bench-uploader")
    found = []
    for i in range(count):
        name = f"starter-{i + 1}"
        version = (BotVersion.objects.filter(bot__owner=owner, bot__game=game, bot__name=name,
                                             sha256=hashlib.sha256(data).hexdigest(), status=BotVersion.Status.VALID)
                   .order_by("-number").first())
        if version is None:
            version = upload_version(owner=owner, game=game, name=name, filename=f"{game}.py", data=data)
            validate_version(version.pk)
            version.refresh_from_db()
            if version.status != BotVersion.Status.VALID:
                raise CommandError(f"the {game} starter did not validate: {version.status_detail}")
        found.append(version)
    return found


def _extra_versions(game, versions, seats):
    """``seats`` distinct built-in versions (random and heuristic alternately) for a rated round robin."""
    from bots.models import Bot, BotVersion
    from players.services import system_player

    owner = system_player()
    found = []
    for i in range(seats):
        name = ("random", "heuristic")[i % 2]
        if i < 2:
            found.append(versions[name])
            continue
        bot, _ = Bot.objects.get_or_create(owner=owner, game=game, name=f"bench-{name}-{i}")
        version, _ = BotVersion.objects.get_or_create(bot=bot, number=1, defaults={
            "kind": BotVersion.Kind.BUILTIN, "builtin_name": name, "status": BotVersion.Status.VALID})
        found.append(version)
    return found
