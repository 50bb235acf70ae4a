"""Tournaments, their entries, and the matches (with seats) they expand into."""
from __future__ import annotations

from django.conf import settings
from django.db import models

from bots.models import BotVersion


class Tournament(models.Model):
    class Format(models.TextChoices):
        ROUND_ROBIN = "round_robin", "round robin"
        SWISS = "swiss", "Swiss"
        KNOCKOUT = "knockout", "knockout"
        LADDER = "ladder", "continuous ladder"

    class Status(models.TextChoices):
        RUNNING = "running", "running"
        FINISHED = "finished", "finished"

    name = models.CharField(max_length=120)
    game = models.CharField(max_length=32, db_index=True)
    format = models.CharField(max_length=16, choices=Format.choices, default=Format.ROUND_ROBIN)
    seats_per_match = models.PositiveSmallIntegerField()
    games_per_pairing = models.PositiveIntegerField(default=1)
    # Swiss: rounds to play. Ladder: matches to play (0: until stopped). Unused by the other formats.
    rounds = models.PositiveIntegerField(default=0)
    max_matches = models.PositiveIntegerField(default=0)
    # Multi-round formats: per round, the groups of entry (bot version) ids and the byes.
    plan = models.JSONField(default=dict, blank=True)
    options = models.JSONField(default=dict, blank=True)
    seed = models.BigIntegerField(default=0)
    # Duplicate (round robin): each pairing's games are series, one game per seat rotation on one seed.
    duplicate = models.BooleanField(default=False)
    # Rated: organised by the platform or staff under a rated ruleset; its matches move the public
    # ratings. Every other tournament is friendly: played, logged and shown, never rated.
    rated = models.BooleanField(default=False, db_index=True)
    # The rated ruleset (a preset the game declares) its options and seats are; blank: custom rules.
    ruleset = models.CharField(max_length=64, blank=True)
    # Matches the tournament will play in all (a ladder: its max_matches; 0 when unbounded).
    planned_matches = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.RUNNING, db_index=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="tournaments")
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    entries = models.ManyToManyField(BotVersion, through="Entry", related_name="tournaments")

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.game})"

    @property
    def rated_display(self) -> str:
        """How the tournament counts, in words: shown on its page and in the API."""
        return f"rated ({self.ruleset})" if self.rated else "friendly (not rated)"


class Entry(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entry_set")
    bot_version = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="entries")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["tournament", "bot_version"], name="entry_unique")]


class Match(models.Model):
    """One game between bot versions; run by one idempotent Celery task that takes its id."""

    class Status(models.TextChoices):
        QUEUED = "queued", "queued"
        RUNNING = "running", "running"
        FINISHED = "finished", "finished"
        FAILED = "failed", "failed"  # the engine itself raised: kept with its error, never rated

    #: the statuses of a match that is over
    DONE = (Status.FINISHED, Status.FAILED)

    class Purpose(models.TextChoices):
        TOURNAMENT = "tournament", "tournament"
        VALIDATION = "validation", "validation"

    # Not indexed alone: the (tournament, status) index below serves it; every index is written at every
    # status change of a match (PostgreSQL writes all of a row's indexes when an indexed column changes).
    tournament = models.ForeignKey(Tournament, null=True, blank=True, on_delete=models.CASCADE,
                                   related_name="matches", db_index=False)
    purpose = models.CharField(max_length=16, choices=Purpose.choices, default=Purpose.TOURNAMENT)
    game = models.CharField(max_length=32, db_index=True)
    options = models.JSONField(default=dict, blank=True)
    seed = models.BigIntegerField()
    round = models.PositiveIntegerField(default=1)
    group = models.PositiveIntegerField(default=0)  # which group of its round (Swiss, knockout)
    # Duplicate series (of a duplicate tournament, or a regression gate): the matches of one series share
    # their seed and rotate the seats. None: not part of a series.
    series = models.PositiveIntegerField(null=True, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)  # (status, lease_until)
    lease_token = models.CharField(max_length=36, blank=True)
    lease_until = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    enqueued_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    worker = models.CharField(max_length=200, blank=True)
    num_moves = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    # Set when the match moved the ratings of ``ruleset`` (once, when it was stored).
    rated = models.BooleanField(default=False)
    ruleset = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        verbose_name_plural = "matches"
        indexes = [models.Index(fields=["status", "lease_until"]), models.Index(fields=["tournament", "status"])]

    def __str__(self) -> str:
        return f"match {self.pk} ({self.game})"

    @property
    def done(self) -> bool:
        return self.status in self.DONE

    @property
    def revealed_seed(self) -> int | None:
        """The seed once the match is over, else None: it fixes every deal of the match."""
        return self.seed if self.done else None


class MatchLog(models.Model):
    """A finished match's log in its compact stored form (``engines.logcodec``: each move as its index
    in the legal list, compressed; Port Royal ~0.3 kB). Kept out of the match row, which lists and the
    pipeline read and write all the time; read it with ``tournaments.selectors.match_log``."""

    match = models.OneToOneField(Match, primary_key=True, on_delete=models.CASCADE, related_name="stored_log")
    data = models.BinaryField()

    def __str__(self) -> str:
        return f"log of match {self.match_id} ({len(self.data)} bytes)"


class MatchSeat(models.Model):
    # Neither key is indexed alone: seat_unique and seat_version_newest_match begin with them.
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats", db_index=False)
    seat = models.PositiveSmallIntegerField()
    bot_version = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="seats", db_index=False)
    rank = models.PositiveSmallIntegerField(null=True, blank=True)
    score = models.FloatField(null=True, blank=True)
    faults = models.PositiveIntegerField(default=0)
    forfeited = models.BooleanField(default=False)
    # Shown to the bot's owner only (may contain anything the bot printed).
    stderr_tail = models.TextField(blank=True)
    fault_log = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["match", "seat"]
        constraints = [models.UniqueConstraint(fields=["match", "seat"], name="seat_unique")]
        # A bot's matches, newest first (its page, /api/bots/{id}/matches/): an index range, not a sort.
        indexes = [models.Index(fields=["bot_version", "-match"], name="seat_version_newest_match")]

    def __str__(self) -> str:
        return f"{self.match} seat {self.seat}"


class WorkerBeat(models.Model):
    """A worker process's heartbeat: written by the worker every few seconds, read by the health views."""

    class State(models.TextChoices):
        IDLE = "idle", "idle"
        RUNNING = "running", "running a match"
        STOPPING = "stopping", "stopping"
        STOPPED = "stopped", "stopped"

    name = models.CharField(max_length=200, unique=True)  # the Celery node name, e.g. arena-1@host
    host = models.CharField(max_length=200, blank=True)
    pid = models.PositiveIntegerField(default=0)
    state = models.CharField(max_length=16, choices=State.choices, default=State.IDLE)
    match_id = models.BigIntegerField(null=True, blank=True)  # the match it is running, if any
    started_at = models.DateTimeField()
    last_seen = models.DateTimeField(db_index=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return f"worker {self.name} ({self.state})"


class Ladder(models.Model):
    """The platform's rated ladder of one game (``tournaments.competition.ladder``): a rated ladder tournament,
    organised by the platform, whose field is every active bot of the game (each bot's newest valid
    version) and whose matches are made continuously by the matchmaker at a configured rate."""

    game = models.CharField(max_length=32, unique=True)
    tournament = models.ForeignKey(Tournament, on_delete=models.PROTECT, related_name="ladders")
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game"]

    def __str__(self) -> str:
        return f"{self.game} ladder ({'running' if self.active else 'stopped'})"


class TournamentShape(models.Model):
    """What a scheduled tournament will be: its game, format, seats and options, rated or friendly."""

    name = models.CharField(max_length=120)
    game = models.CharField(max_length=32, db_index=True)
    format = models.CharField(max_length=16, choices=Tournament.Format.choices, default=Tournament.Format.ROUND_ROBIN)
    seats = models.PositiveSmallIntegerField()
    games_per_pairing = models.PositiveIntegerField(default=1)
    rounds = models.PositiveIntegerField(default=0)
    max_matches = models.PositiveIntegerField(default=0)
    options = models.JSONField(default=dict, blank=True)
    duplicate = models.BooleanField(default=False)  # duplicate series (round robin only)
    rated = models.BooleanField(default=False)
    # None: the platform itself. Rated ones are organised by staff (or the platform) only.
    organiser = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                  related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        abstract = True


class RecurringSchedule(TournamentShape):
    """A tournament that comes back: every day, or every week on ``weekday``, at ``time`` (UTC). The
    scheduler keeps its next occurrence scheduled, with registration open ``registration_hours`` before."""

    class Every(models.TextChoices):
        DAY = "day", "every day"
        WEEK = "week", "every week"

    every = models.CharField(max_length=8, choices=Every.choices, default=Every.WEEK)
    weekday = models.PositiveSmallIntegerField(null=True, blank=True)  # 0 = Monday (weekly only)
    time = models.TimeField()  # UTC
    registration_hours = models.PositiveIntegerField(default=24)
    active = models.BooleanField(default=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.name} ({self.get_every_display()})"

    def get_weekday_name(self) -> str:
        return "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()[self.weekday or 0]


class ScheduledTournament(TournamentShape):
    """A tournament announced for ``starts_at``: authors register their bots (one version each,
    changeable) between ``registration_opens_at`` and ``registration_closes_at``; at ``starts_at`` the
    scheduler creates the tournament with the registered versions."""

    class Status(models.TextChoices):
        SCHEDULED = "scheduled", "scheduled"
        STARTED = "started", "started"
        NOT_STARTED = "not_started", "not started"  # too few entrants, or refused at start: see note
        CANCELLED = "cancelled", "cancelled"

    registration_opens_at = models.DateTimeField()
    registration_closes_at = models.DateTimeField()
    starts_at = models.DateTimeField(db_index=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.SCHEDULED, db_index=True)
    note = models.CharField(max_length=300, blank=True)
    tournament = models.OneToOneField(Tournament, null=True, blank=True, on_delete=models.SET_NULL,
                                      related_name="scheduled")
    recurring = models.ForeignKey(RecurringSchedule, null=True, blank=True, on_delete=models.SET_NULL,
                                  related_name="occurrences")

    class Meta:
        ordering = ["starts_at", "id"]
        constraints = [models.UniqueConstraint(fields=["recurring", "starts_at"], name="one_occurrence_per_start")]

    def __str__(self) -> str:
        return f"{self.name} ({self.game}) at {self.starts_at:%Y-%m-%d %H:%M} UTC"


class Registration(models.Model):
    """A bot entered in a scheduled tournament, with the version that will play (changeable until the
    registration closes)."""

    scheduled = models.ForeignKey(ScheduledTournament, on_delete=models.CASCADE, related_name="registrations")
    bot_version = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="registrations")
    bot = models.ForeignKey("bots.Bot", on_delete=models.CASCADE, related_name="registrations")
    registered_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["registered_at", "id"]
        constraints = [models.UniqueConstraint(fields=["scheduled", "bot"], name="one_registration_per_bot")]
