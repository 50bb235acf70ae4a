"""A large, consistent data set for measuring the site at scale (``manage.py seedscale``).

Players, bots and versions spread over the games; rated tournaments of one game whose finished matches
carry seats, a real engine log, rating changes and ratings. A small pool of real matches is played
with the built-in bots and their logs and outcomes are reused across the seeded matches (each seeded
match takes its pool match's seed and options, so its log replays to its stored outcome).

Rows go in with PostgreSQL's COPY (psycopg) or batched INSERTs elsewhere (SQLite), with explicit ids,
in batches each committed on its own. Rating chains are consistent (each change starts where the
previous one of its rating ended; a rating ends at its last change, ``games`` = its changes; the game's
lock row holds the last sequence); by default the update is a cheap stand-in for TrueSkill (about 1 µs
a seat instead of 0.5 ms a match), ``trueskill=True`` applies the real one.
"""
from __future__ import annotations

import json
import random
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Callable, Iterable, Sequence

from django.db import DatabaseError, connection, transaction
from django.db.models import JSONField

from bots.models import Bot, BotVersion
from bots.services import register_builtin_bots
from engines.games import available_games, builtin_bots, get_game
from engines.logcodec import encode_log
from engines.match import play_match
from engines.players import make_bot
from players.models import Player
from ratings import free_for_all
from ratings.brackets import bracket_of
from ratings.models import BracketRating, GameLock, Rating, RatingChange
from ratings.services import environment
from tournaments.models import Entry, Match, MatchLog, MatchSeat, Tournament

STANDARD = "standard"


@dataclass
class PoolMatch:
    """A real match played by built-in bots: what every seeded match that reuses it stores."""

    seed: int
    options: dict
    log_blob: bytes  # the stored form (engines.logcodec)
    num_moves: int
    ranks: list[int]
    scores: list[float]


def play_pool(game: str, seats: int, size: int, seed: int = 1) -> list[PoolMatch]:
    """Play ``size`` real matches of ``game`` with the built-in bots (seats drawn from them)."""
    rng = random.Random(seed)
    names = sorted(builtin_bots(game))
    pool = []
    for k in range(size):
        match_seed = rng.randrange(2**31)
        specs = [rng.choice(names) for _ in range(seats)]
        bots = [make_bot(spec, game, seed=match_seed * 10 + s) for s, spec in enumerate(specs)]
        played = play_match(game, bots, match_seed)
        log = played.to_dict()
        pool.append(PoolMatch(match_seed, log["options"], encode_log(played),
                              len(log["moves"]), list(log["outcome"]["ranks"]), list(log["outcome"]["scores"])))
    return pool


class Writer:
    """Appends rows to tables: COPY on PostgreSQL, batched INSERTs elsewhere. Values are Python values;
    JSON columns take their text, datetimes are aware (UTC)."""

    def __init__(self):
        self.postgres = connection.vendor == "postgresql"
        if self.postgres:
            with connection.cursor() as cursor:
                cursor.execute("SET synchronous_commit = off")
                # The rows are consistent by construction: skip the per-row foreign key triggers where the
                # role may (a superuser); elsewhere they run, slower.
                try:
                    with transaction.atomic():
                        cursor.execute("SET session_replication_role = replica")
                except DatabaseError:
                    pass

    @staticmethod
    def defaults(model, columns: Sequence[str]) -> tuple[list[str], tuple]:
        """The model's other columns that have a default (fields added after this was written), with it."""
        names, values = [], []
        for f in model._meta.concrete_fields:
            if f.primary_key or f.column in columns:
                continue
            value = f.get_default()
            if value is None:
                continue  # nullable, or no default: the database decides (or refuses, loudly)
            names.append(f.column)
            values.append(json.dumps(value) if isinstance(f, JSONField) else value)
        return names, tuple(values)

    def write(self, model, columns: Sequence[str], rows: Iterable[tuple]) -> int:
        extra_columns, extra = self.defaults(model, columns)
        if extra_columns:
            columns = [*columns, *extra_columns]
            rows = (row + extra for row in rows)
        table = connection.ops.quote_name(model._meta.db_table)
        cols = ", ".join(connection.ops.quote_name(c) for c in columns)
        n = 0
        with connection.cursor() as cursor:
            if self.postgres:
                with cursor.cursor.copy(f"COPY {table} ({cols}) FROM STDIN") as copy:
                    for row in rows:
                        copy.write_row(row)
                        n += 1
            else:
                marks = ", ".join(["%s"] * len(columns))
                batch = []
                for row in rows:
                    batch.append(row)
                    if len(batch) >= 5000:
                        cursor.executemany(f"INSERT INTO {table} ({cols}) VALUES ({marks})", batch)
                        n += len(batch)
                        batch = []
                if batch:
                    cursor.executemany(f"INSERT INTO {table} ({cols}) VALUES ({marks})", batch)
                    n += len(batch)
        return n

    MATCH_COLUMNS = ["id", "tournament_id", "purpose", "game", "options", "seed", "round", "group", "status",
                     "lease_token", "attempts", "enqueued_at", "started_at", "finished_at", "worker", "num_moves",
                     "error", "rated", "ruleset", "created_at"]

    def write_matches(self, rows: list[tuple], pool: list[PoolMatch]) -> None:
        """Matches: each row is MATCH_COLUMNS and the index of its pool match, whose log (in its compact
        stored form, engines.logcodec) it keeps in the match log table (None: no log)."""
        self.write(Match, self.MATCH_COLUMNS, (row[:-1] for row in rows))
        self.write(MatchLog, ["match_id", "data"],
                   ((row[0], pool[row[-1]].log_blob) for row in rows if row[-1] is not None))

    def next_id(self, model) -> int:
        last = model.objects.order_by("-pk").values_list("pk", flat=True).first()
        return (last or 0) + 1

    def reset_sequences(self, models: Sequence) -> None:
        """After explicit ids: the next id PostgreSQL hands out follows the largest (SQLite does this itself)."""
        if not self.postgres:
            return
        with connection.cursor() as cursor:
            for model in models:
                table = model._meta.db_table
                cursor.execute(f"SELECT setval(pg_get_serial_sequence(%s, 'id'), "
                               f"COALESCE((SELECT MAX(id) FROM {connection.ops.quote_name(table)}), 1))", [table])

    def analyze(self) -> None:
        if self.postgres:
            with connection.cursor() as cursor:
                cursor.execute("ANALYZE")


@dataclass
class RatingBook:
    """Ratings as they evolve over the seeded matches, with their ids (new ones numbered from ``next_id``)."""

    next_id: int
    real_trueskill: bool
    by_version: dict[int, list] = field(default_factory=dict)  # version id -> [rating id, mu, sigma, games]

    def rating(self, version_id: int) -> list:
        row = self.by_version.get(version_id)
        if row is None:
            env = environment()
            row = self.by_version[version_id] = [self.next_id, env.mu, env.sigma, 0]
            self.next_id += 1
        return row

    def update(self, version_ids: Sequence[int], ranks: Sequence[int]) -> list[tuple[list, float, float]]:
        """Apply one match; returns per seat (rating row, mu before, sigma before)."""
        rows = [self.rating(v) for v in version_ids]
        before = [(r, r[1], r[2]) for r in rows]
        if self.real_trueskill:
            env = environment()
            for r, after in zip(rows, free_for_all.rate(env, [(r[1], r[2]) for r in rows], ranks)):
                r[1], r[2] = after.mu, after.sigma
        else:
            # The stand-in: a winner gains, a loser loses, in proportion to its uncertainty.
            n = len(rows)
            for r, rank in zip(rows, ranks):
                r[1] += (n - 1 - 2 * rank) / max(n - 1, 1) * r[2] * 0.1
                r[2] = max(r[2] * 0.995, 0.8)
        for r in rows:
            r[3] += 1
        return before


def seed_scale(*, versions: int, matches: int, tournaments: int = 1000, game: str = "port_royal", seats: int = 4,
               entries: int = 16, pool: int = 40, seed: int = 1, batch: int = 50_000, trueskill: bool = False,
               with_logs: bool = True, progress: Callable[[str], None] = lambda _: None) -> dict:
    """Add ``versions`` bot versions (spread over every game) and ``matches`` finished, rated matches of
    ``game`` in ``tournaments`` rated tournaments; returns what was added and how long each part took."""
    started = time.perf_counter()
    timings: dict[str, float] = {}
    rng = random.Random(seed)
    writer = Writer()
    games = list(available_games())
    now = datetime.now(timezone.utc)

    t = time.perf_counter()
    builtins = [v for v in register_builtin_bots([game])]
    game_pool = play_pool(game, seats, pool, seed)
    timings["pool_s"] = time.perf_counter() - t
    progress(f"played {len(game_pool)} pool matches")

    # Players, bots, versions: two versions a bot, five bots a player.
    t = time.perf_counter()
    n_bots = max(1, versions // 2)
    n_players = max(1, n_bots // 5)
    player0, bot0, version0 = writer.next_id(Player), writer.next_id(Bot), writer.next_id(BotVersion)
    tag = f"s{player0}"
    with transaction.atomic():
        writer.write(Player, ["id", "password", "is_superuser", "username", "first_name", "last_name", "email",
                              "is_staff", "is_active", "date_joined", "bio"],
                     ((player0 + i, "!", False, f"{tag}-player{i}", "", "", "", False, True, now, "")
                      for i in range(n_players)))
        writer.write(Bot, ["id", "owner_id", "game", "name", "description", "accepts_challenges", "created_at"],
                     ((bot0 + i, player0 + i % n_players, games[i % len(games)], f"bot{i}", "", i % 3 == 0, now)
                      for i in range(n_bots)))
        writer.write(BotVersion, ["id", "bot_id", "number", "kind", "builtin_name", "package", "original_name",
                                  "sha256", "size", "status", "status_detail", "created_at"],
                     ((version0 + i, bot0 + i // 2, i % 2 + 1, "upload", "", "", "bot.py", f"{i:064x}", 1000,
                       "valid", "", now) for i in range(n_bots * 2)))
    writer.reset_sequences([Player, Bot, BotVersion])
    game_versions = [version0 + i for i in range(n_bots * 2) if games[(i // 2) % len(games)] == game]
    game_versions += [v.pk for v in builtins]
    timings["bots_s"] = time.perf_counter() - t
    progress(f"{n_players} players, {n_bots} bots, {n_bots * 2} versions")

    # Tournaments and their entries; every built-in enters every tenth tournament.
    t = time.perf_counter()
    tournaments = max(1, min(tournaments, matches or 1))
    tour0, entry0 = writer.next_id(Tournament), writer.next_id(Entry)
    options = json.dumps(get_game(game).options(get_game(game).rated_presets[STANDARD]))
    per_tournament = [matches // tournaments + (1 if k < matches % tournaments else 0) for k in range(tournaments)]
    fields_of = []
    uploaded = [v for v in game_versions if v >= version0]
    for k in range(tournaments):
        chosen = rng.sample(uploaded, min(entries, len(uploaded))) if uploaded else []
        if k % 10 == 0 or len(chosen) < seats:
            chosen += [v.pk for v in builtins]
        fields_of.append(chosen)
    start_at = now - timedelta(seconds=matches + 3600)
    with transaction.atomic():
        writer.write(Tournament, ["id", "name", "game", "format", "seats_per_match", "games_per_pairing", "rounds",
                                  "max_matches", "plan", "options", "seed", "rated", "ruleset", "planned_matches",
                                  "status", "created_at", "finished_at"],
                     ((tour0 + k, f"{tag} scale {k}", game, "round_robin", seats, 1, 0, 0, "{}", options, k,
                       True, STANDARD, per_tournament[k], "finished", start_at, now) for k in range(tournaments)))
        entry_rows = [(tour0 + k, v) for k in range(tournaments) for v in fields_of[k]]
        writer.write(Entry, ["id", "tournament_id", "bot_version_id"],
                     ((entry0 + i, tk, v) for i, (tk, v) in enumerate(entry_rows)))
    writer.reset_sequences([Tournament, Entry])
    timings["tournaments_s"] = time.perf_counter() - t
    progress(f"{tournaments} tournaments, {len(entry_rows)} entries")

    # Matches with their seats and rating changes, in committed batches.
    t = time.perf_counter()
    existing = {r.bot_version_id: [r.pk, r.mu, r.sigma, r.games]
                for r in Rating.objects.filter(ruleset=STANDARD, game=game)}
    book = RatingBook(writer.next_id(Rating), trueskill, dict(existing))
    preexisting = set(existing)
    lock, _ = GameLock.objects.get_or_create(game=game)
    sequence = lock.sequence
    match0, seat0, change0 = writer.next_id(Match), writer.next_id(MatchSeat), writer.next_id(RatingChange)
    plan = [k for k in range(tournaments) for _ in range(per_tournament[k])]
    done = 0
    while done < matches:
        upto = min(matches, done + batch)
        match_rows, seat_rows, change_rows = [], [], []
        for i in range(done, upto):
            k = plan[i]
            pool_index = rng.randrange(len(game_pool))
            pm = game_pool[pool_index]
            table = rng.sample(fields_of[k], seats)
            match_id = match0 + i
            at = start_at + timedelta(seconds=i)
            match_rows.append((match_id, tour0 + k, "tournament", game, json.dumps(pm.options), pm.seed, 1, 0,
                               "finished", "", 1, at, at, at, "seed", pm.num_moves, "", True, STANDARD, at,
                               pool_index if with_logs else None))
            sequence += 1
            before = book.update(table, pm.ranks)
            for s, version in enumerate(table):
                seat_rows.append((seat0 + i * seats + s, match_id, s, version, pm.ranks[s], pm.scores[s], 0, False,
                                  "", "[]"))
                rating, mu0, sigma0 = before[s]
                change_rows.append((change0 + i * seats + s, rating[0], match_id, sequence, pm.ranks[s], mu0, sigma0,
                                    rating[1], rating[2], at))
        with transaction.atomic():
            writer.write_matches(match_rows, game_pool)
            writer.write(MatchSeat, ["id", "match_id", "seat", "bot_version_id", "rank", "score", "faults",
                                     "forfeited", "stderr_tail", "fault_log"], seat_rows)
            # Ratings must exist before their changes; new ones are written here, the rest at the end.
            new = [(rid, v) for v, (rid, *_rest) in book.by_version.items() if v not in existing]
            if new:
                writer.write(Rating, ["id", "bot_version_id", "game", "ruleset", "mu", "sigma", "games", "updated_at"],
                             ((rid, v, game, STANDARD, 25.0, 25.0 / 3, 0, now) for rid, v in new))
                existing.update({v: None for _, v in new})
            writer.write(RatingChange, ["id", "rating_id", "match_id", "sequence", "rank", "mu_before", "sigma_before",
                                        "mu_after", "sigma_after", "created_at"], change_rows)
        done = upto
        progress(f"{done} matches ({time.perf_counter() - t:.0f} s)")
    timings["matches_s"] = time.perf_counter() - t

    # Final ratings and the lock's sequence.
    t = time.perf_counter()
    with transaction.atomic():
        rows = list(book.by_version.items())
        if writer.postgres:
            with connection.cursor() as cursor:
                cursor.execute("CREATE TEMPORARY TABLE seed_rating (id bigint, mu float8, sigma float8, games int) "
                               "ON COMMIT DROP")
                with cursor.cursor.copy("COPY seed_rating (id, mu, sigma, games) FROM STDIN") as copy:
                    for _, (rid, mu, sigma, n) in rows:
                        copy.write_row((rid, mu, sigma, n))
                cursor.execute(f"UPDATE {Rating._meta.db_table} r SET mu = s.mu, sigma = s.sigma, games = s.games, "
                               "updated_at = now() FROM seed_rating s WHERE r.id = s.id")
        else:
            Rating.objects.bulk_update([Rating(pk=rid, mu=mu, sigma=sigma, games=n, updated_at=now)
                                        for _, (rid, mu, sigma, n) in rows],
                                       ["mu", "sigma", "games", "updated_at"], batch_size=500)
        # Every seeded match has the same number of seats: a version rated only here has the same rating in
        # that player-count bracket (versions rated before keep the bracket ratings they had).
        bracket = bracket_of(seats)
        if bracket:
            writer.write(BracketRating, ["bot_version_id", "game", "ruleset", "bracket", "mu", "sigma", "games",
                                         "updated_at"],
                         ((v, game, STANDARD, bracket, mu, sigma, n, now)
                          for v, (_, mu, sigma, n) in rows if v not in preexisting))
        GameLock.objects.filter(game=game).update(sequence=sequence)
    writer.reset_sequences([Match, MatchSeat, Rating, RatingChange, BracketRating])
    writer.analyze()
    timings["ratings_s"] = time.perf_counter() - t
    timings = {k: round(v, 1) for k, v in timings.items()}
    return {"database": connection.vendor, "game": game, "players": n_players, "bots": n_bots,
            "versions": n_bots * 2, "rated_versions": len(book.by_version), "tournaments": tournaments,
            "matches": matches, "seats": matches * seats, "rating_changes": matches * seats, "pool": len(game_pool),
            "seconds": round(time.perf_counter() - started, 1), **timings}
