"""Scheduled tournaments in the API: announce one (or a recurring one), register bots, see what is coming."""
from __future__ import annotations

import functools
from datetime import date, datetime, time, timezone as dt_timezone

from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.response import Response

from bots.models import Bot
from engines.games import GAME_IDS
from tournaments.competition import ladder
from tournaments.competition import schedule
from tournaments.models import Ladder, RecurringSchedule, ScheduledTournament, Tournament
from web.api.serializers import plain_line
from web.api.views import GAME_PARAM, ID_PATTERN, TournamentViewSet, choice_filter, game_filter


class ShapeSerializer(serializers.Serializer):
    """What the tournament will be (the fields of POST /api/tournaments/ but its bots)."""

    name = serializers.CharField(max_length=120, validators=[plain_line])
    game = serializers.ChoiceField(choices=GAME_IDS)
    seats = serializers.IntegerField(min_value=1, max_value=8)
    games_per_pairing = serializers.IntegerField(min_value=1, max_value=1000, default=1)
    format = serializers.ChoiceField(choices=Tournament.Format.choices, default="round_robin")
    rounds = serializers.IntegerField(min_value=0, max_value=100, default=0, help_text="Swiss: 0 = automatic")
    max_matches = serializers.IntegerField(min_value=0, max_value=1_000_000, default=0,
                                           help_text="ladder: matches to play")
    options = serializers.DictField(default=dict)
    duplicate = serializers.BooleanField(default=False, help_text="round robin only: duplicate series (games per "
                                                                  "pairing a multiple of seats)")
    rated = serializers.BooleanField(default=False, help_text="staff only: a rated tournament under a rated ruleset")


class ScheduleCreateSerializer(ShapeSerializer):
    starts_at = serializers.DateTimeField(help_text="when it starts (ISO 8601; UTC if no offset)")
    registration_opens_at = serializers.DateTimeField(required=False, help_text="default: now")
    registration_closes_at = serializers.DateTimeField(required=False, help_text="default: the start")


class RegistrationSerializer(serializers.Serializer):
    bot = serializers.IntegerField(source="bot_id")
    bot_version = serializers.IntegerField(source="bot_version_id")
    label = serializers.CharField(source="bot_version.label")
    author = serializers.CharField(source="bot.owner.username")
    registered_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class ScheduledSerializer(serializers.ModelSerializer):
    organiser = serializers.CharField(source="organiser.username", default=None, read_only=True, allow_null=True)
    registration_open = serializers.SerializerMethodField()
    registrations = RegistrationSerializer(many=True, read_only=True)
    tournament = serializers.IntegerField(source="tournament_id", read_only=True, allow_null=True,
                                          help_text="once started: the tournament, with its standings")
    recurring = serializers.IntegerField(source="recurring_id", read_only=True, allow_null=True)

    class Meta:
        model = ScheduledTournament
        fields = ["id", "name", "game", "format", "seats", "games_per_pairing", "rounds", "max_matches", "options",
                  "duplicate", "rated", "organiser", "starts_at", "registration_opens_at", "registration_closes_at",
                  "registration_open", "status", "note", "tournament", "recurring", "registrations", "created_at"]

    def get_registration_open(self, obj) -> bool:
        return schedule.registration_open(obj)


class BotEntrySerializer(serializers.Serializer):
    bot_version = serializers.CharField(max_length=200, help_text="your bot's version: an id or owner/name[@N]")


class WithdrawSerializer(serializers.Serializer):
    bot = serializers.IntegerField(min_value=1, max_value=10**18 - 1, help_text="the id of your bot")


class UtcTimeField(serializers.TimeField):
    """A time of day in UTC. DRF's TimeField drops an offset ("10:00+05:00" read as 10:00 UTC, five hours
    late); here an offset is applied, so the time is the same moment in UTC ("Z" or none: already UTC)."""

    def to_internal_value(self, value) -> time:
        if isinstance(value, str):
            try:
                parsed = time.fromisoformat(value.strip())
            except ValueError:
                parsed = None
            if parsed is not None and parsed.tzinfo is not None:
                moment = datetime.combine(date(2000, 1, 3), parsed)  # a fixed offset: any day gives the same time
                return moment.astimezone(dt_timezone.utc).time().replace(tzinfo=None)
        return super().to_internal_value(value)


class RecurringCreateSerializer(ShapeSerializer):
    name = serializers.CharField(max_length=schedule.OCCURRENCE_NAME_MAX, validators=[plain_line],
                                 help_text="each occurrence is named this plus its date")
    every = serializers.ChoiceField(choices=RecurringSchedule.Every.choices, default="week")
    weekday = serializers.IntegerField(min_value=0, max_value=6, required=False, allow_null=True,
                                       help_text="weekly: 0 = Monday ... 6 = Sunday")
    time = UtcTimeField(help_text="start time, UTC (HH:MM; an offset such as +02:00 is converted to UTC)")
    registration_hours = serializers.IntegerField(min_value=1, max_value=24 * 28, default=24,
                                                  help_text="registration opens this long before each start")


class RecurringSerializer(serializers.ModelSerializer):
    organiser = serializers.CharField(source="organiser.username", default=None, read_only=True, allow_null=True)
    next = serializers.SerializerMethodField(help_text="its next occurrence still to start, if any")
    time = serializers.TimeField(format="%H:%M:%SZ", read_only=True, help_text="start time, UTC")

    class Meta:
        model = RecurringSchedule
        fields = ["id", "name", "game", "format", "seats", "games_per_pairing", "rounds", "max_matches", "options",
                  "duplicate", "rated", "organiser", "every", "weekday", "time", "registration_hours", "active", "next", "created_at"]

    def get_next(self, obj) -> int | None:
        upcoming = obj.occurrences.filter(status=ScheduledTournament.Status.SCHEDULED).order_by("starts_at").first()
        return upcoming.pk if upcoming else None


def _not_allowed(func):
    """schedule.NotAllowed -> 403 in the API's shape."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except schedule.NotAllowed as exc:
            raise PermissionDenied(str(exc)) from None
    return wrapper


@extend_schema_view(list=extend_schema(parameters=[
    GAME_PARAM,
    OpenApiParameter("status", str, enum=ScheduledTournament.Status.values,
                     description="only these (default: every status; `scheduled`: what is coming)")]))
class ScheduleViewSet(mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    """Scheduled tournaments, soonest first. POST announces one (staff only for a rated one); authors
    register their bots while registration is open; the scheduler starts it on time with the
    registered versions, and ``tournament`` then names it (its page and API show the standings)."""

    serializer_class = ScheduledSerializer
    lookup_value_regex = ID_PATTERN

    def get_queryset(self):
        qs = (ScheduledTournament.objects.select_related("organiser")
              .prefetch_related("registrations__bot__owner", "registrations__bot_version__bot__owner")
              .order_by("starts_at", "id"))
        game = game_filter(self.request) if self.action == "list" else None
        if game:
            qs = qs.filter(game=game)
        wanted = choice_filter(self.request, "status", ScheduledTournament.Status) if self.action == "list" else None
        return qs.filter(status=wanted) if wanted else qs

    @extend_schema(request=ScheduleCreateSerializer, responses={201: ScheduledSerializer})
    def create(self, request, *args, **kwargs):
        form = ScheduleCreateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        scheduled = schedule.schedule_tournament(organiser=request.user, **form.validated_data)
        return Response(ScheduledSerializer(scheduled).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=BotEntrySerializer, responses={200: RegistrationSerializer})
    @action(detail=True, methods=["post"])
    @_not_allowed
    def register(self, request, pk=None):
        """Enter your bot with this version, or change the version it enters with (while registration is open)."""
        scheduled = self.get_object()
        form = BotEntrySerializer(data=request.data)
        form.is_valid(raise_exception=True)
        version = TournamentViewSet._version(scheduled.game, form.validated_data["bot_version"])
        registration = schedule.register(scheduled, version, request.user)
        return Response(RegistrationSerializer(registration).data)

    @extend_schema(request=WithdrawSerializer, responses={200: ScheduledSerializer})
    @action(detail=True, methods=["post"])
    @_not_allowed
    def withdraw(self, request, pk=None):
        """Take your bot out again (while registration is open)."""
        scheduled = self.get_object()
        form = WithdrawSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        bot = Bot.objects.filter(pk=form.validated_data["bot"]).first()
        if bot is None or not schedule.withdraw(scheduled, bot, request.user):
            raise serializers.ValidationError({"bot": ["that bot is not entered"]})
        return Response(ScheduledSerializer(self.get_object()).data)

    @extend_schema(request=None, responses={200: ScheduledSerializer})
    @action(detail=True, methods=["post"])
    @_not_allowed
    def cancel(self, request, pk=None):
        """Cancel it before it starts (its organiser or staff)."""
        return Response(ScheduledSerializer(schedule.cancel(self.get_object(), request.user)).data)


class RecurringViewSet(mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    """Recurring schedules ("every Friday 18:00 UTC, Port Royal cup"): the scheduler keeps the next
    occurrence announced (see /api/schedules/), registration open ``registration_hours`` before it."""

    serializer_class = RecurringSerializer
    lookup_value_regex = ID_PATTERN

    def get_queryset(self):
        return RecurringSchedule.objects.select_related("organiser").order_by("id")

    @extend_schema(request=RecurringCreateSerializer, responses={201: RecurringSerializer})
    def create(self, request, *args, **kwargs):
        form = RecurringCreateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        recurring = schedule.create_recurring(organiser=request.user, **form.validated_data)
        return Response(RecurringSerializer(recurring).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses={200: RecurringSerializer})
    @action(detail=True, methods=["post"])
    @_not_allowed
    def stop(self, request, pk=None):
        """No more occurrences (its organiser or staff); one already announced stays until cancelled."""
        recurring = self.get_object()
        schedule.stop_recurring(recurring, request.user)
        recurring.refresh_from_db()
        return Response(RecurringSerializer(recurring).data)


class LadderTableSerializer(serializers.Serializer):
    players = serializers.IntegerField()
    ruleset = serializers.CharField(help_text="the rated ruleset tables of this size are played and rated under")
    weight = serializers.FloatField(help_text="how often this size is played, relative to the others")
    reachable = serializers.BooleanField(help_text="whether the field has authors enough to fill it")


class LadderSerializer(serializers.Serializer):
    game = serializers.CharField()
    running = serializers.BooleanField()
    tournament = serializers.IntegerField(help_text="the ladder's rated tournament (its matches and standings)")
    bots = serializers.IntegerField(help_text="active bots: each bot's newest valid version")
    tables = LadderTableSerializer(many=True)
    matches = serializers.IntegerField()
    patience = serializers.IntegerField(help_text="ladder matches a bot may wait before it is seeded first")
    bound = serializers.IntegerField(help_text="a free bot sits in at least one of any `bound` consecutive ladder matches")
    matches_per_minute = serializers.IntegerField()
    max_concurrent = serializers.IntegerField()
    recent_pace = serializers.FloatField(help_text="matches made per minute over the last ten minutes")


class LadderViewSet(viewsets.ReadOnlyModelViewSet):
    """The platform's rated ladders, one per game: their table sizes and weights, field, bound and pace.
    ``{game}``: one ladder."""

    serializer_class = LadderSerializer
    lookup_field = "game"
    lookup_value_regex = "[a-z_]{1,32}"

    def get_queryset(self):
        return Ladder.objects.select_related("tournament").order_by("game")

    def list(self, request, *args, **kwargs):
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(LadderSerializer([ladder.ladder_summary(x) for x in page], many=True).data)

    def retrieve(self, request, *args, **kwargs):
        lad = self.get_queryset().filter(game=kwargs["game"]).first()
        if lad is None:
            raise NotFound(f"no ladder for {kwargs['game'][:40]!r}; ladders: "
                           f"{', '.join(self.get_queryset().values_list('game', flat=True)) or 'none'}")
        return Response(LadderSerializer(ladder.ladder_summary(lad)).data)
