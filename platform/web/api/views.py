"""The REST API: read everything; create tournaments (and upload bots) with a token."""
from __future__ import annotations

import re
from urllib.parse import urlencode

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from drf_spectacular.views import SpectacularSwaggerView
from rest_framework import generics, mixins, permissions, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound, ParseError, PermissionDenied, ValidationError
from rest_framework.parsers import MultiPartParser
from rest_framework.response import Response

from bots.models import Bot, BotVersion
from bots.selectors import BotNotFound, resolve_version
from bots.services import read_upload, update_bot, upload_version
from engines.games import available_games, get_game
from ratings.selectors import HISTORY_POINTS, STANDARD, leaderboard, leaderboard_rows
from tournaments.results.bot_record import BotRecord
from tournaments.models import Match, Tournament
from tournaments.selectors import (MATCH_FIELDS, entry_labels, match_log, public_log, tournament_progress,
                                   tournament_series, tournament_standings, visible_matches, with_seats)
from tournaments.services import create_tournament, stop_tournament
from web.api import serializers as s
from web.api.pagination import KeysetPage, LeaderboardPage
from web.api.params import query_bool, query_int, query_text
from web.api.parsers import JSONBodyParser
from web.api.stats import BRACKETS, query_bracket
from web.viewer import SeatViewRefused, frames_gzip, gzipped_json

#: A database id in a URL or a body: plain ASCII digits, few enough for any integer column.
ID_RE = re.compile(r"[0-9]{1,18}")
ID_PATTERN = ID_RE.pattern

GAME_PARAM = OpenApiParameter("game", str, enum=list(available_games()), description="only this game")

def game_info(game_id: str) -> dict:
    game = get_game(game_id)
    return {"id": game.id, "name": game.name, "min_players": game.min_players, "max_players": game.max_players,
            "options": game.default_options, "options_schema": game.options_schema(),
            "rated_rulesets": {name: {"options": overrides, "players": list(game.preset_players(name))}
                               for name, overrides in game.rated_presets.items()}}

def check_game(game_id: str) -> str:
    if game_id not in available_games():
        raise NotFound(f"unknown game {game_id!r}; games: {', '.join(available_games())}")
    return game_id

def game_filter(request) -> str | None:
    """The ``?game=`` filter: a known game id, or a 400 naming the games."""
    game = request.query_params.get("game")
    if game is not None and game not in available_games():
        raise ValidationError({"game": [f"unknown game {game[:40]!r}; games: {', '.join(available_games())}"]})
    return game

def choice_filter(request, name: str, choices) -> str | None:
    value = request.query_params.get(name)
    if value is not None and value not in choices.values:
        raise ValidationError({name: [f"unknown {name} {value[:40]!r}; one of: {', '.join(choices.values)}"]})
    return value


class DocsView(SpectacularSwaggerView):
    """The Swagger UI page of the schema."""

    def options(self, request, *args, **kwargs) -> HttpResponse:
        """The allowed methods, no body: DRF's answer (the view's metadata) has no HTML template here (a 500)."""
        return HttpResponse(headers={"Allow": ", ".join(self.allowed_methods)})


class GameList(generics.ListAPIView):
    """The games: player counts, options with their defaults and as a JSON Schema, rated rulesets."""

    permission_classes = [permissions.AllowAny]
    serializer_class = s.GameSerializer

    def get_queryset(self):
        return [game_info(g) for g in available_games()]


@extend_schema_view(get=extend_schema(parameters=[
    OpenApiParameter("game", str, OpenApiParameter.PATH, enum=list(available_games())),
    OpenApiParameter("ruleset", str, description="a rated ruleset of the game (default standard; see games/)"),
    OpenApiParameter("players", str, enum=BRACKETS, description="the ratings from one player-count bracket's "
                                                                "matches only (default: all matches)"),
    OpenApiParameter("search", {"type": "string", "maxLength": 64},
                     description="only bots whose name or owner contains this (their places on the whole board)"),
    OpenApiParameter("history", bool, description=f"add each bot's rating after its matches (overall ratings only; "
                                                  f"at most {HISTORY_POINTS} evenly spaced points, first and last "
                                                  f"kept)")]))
class Leaderboard(generics.ListAPIView):
    """The public TrueSkill ratings of one rated ruleset of a game (``?ruleset=``, default standard), best
    conservative estimate (mu - 3 sigma) first. The page names the ruleset, its options and player counts."""

    permission_classes = [permissions.AllowAny]
    serializer_class = s.LeaderboardRowSerializer
    pagination_class = LeaderboardPage

    def ruleset(self) -> str:
        game = check_game(self.kwargs["game"])
        ruleset = self.request.query_params.get("ruleset", STANDARD)  # given, it must be valid: "" is not standard
        rulesets = get_game(game).rated_presets
        if ruleset not in rulesets:
            raise NotFound(f"{game} has no rated ruleset {ruleset[:40]!r}; rated rulesets: {', '.join(rulesets)}")
        return ruleset

    def get_queryset(self):
        game = get_game(check_game(self.kwargs["game"]))
        return leaderboard(game.id, self.ruleset(), query_bracket(self.request, game, self.ruleset()))

    def list(self, request, *args, **kwargs):
        game, ruleset = get_game(check_game(self.kwargs["game"])), self.ruleset()
        search = query_text(request, "search", 64)
        bracket = query_bracket(request, game, ruleset)
        with_history = query_bool(request, "history") and bracket is None
        offset, limit = self.paginator.page_of(request, 0)
        # Plain rows, cached until a rating of the board changes: no serializer per row.
        board = leaderboard_rows(game.id, ruleset, offset, limit, search=search, history=with_history,
                                 players=bracket)
        self.paginator.count = board["count"]
        fields = self.serializer_class.Meta.fields
        rows = [{k: row.get(k) for k in fields} for row in board["rows"]]
        self.paginator.header = {"game": game.id, "ruleset": ruleset,
                                 "options": game.options(game.rated_presets[ruleset]),
                                 "players": list(game.preset_players(ruleset)), "bracket": bracket or "all"}
        return self.paginator.get_paginated_response(rows)

@extend_schema_view(list=extend_schema(parameters=[GAME_PARAM]))
class BotViewSet(mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    """Bots and versions. POST (multipart: game, name, file, description, accepts_challenges) uploads a new
    version; PATCH (accepts_challenges, description) changes the owner's bot."""

    serializer_class = s.BotSerializer
    lookup_value_regex = ID_PATTERN

    def get_parsers(self):
        # The upload is multipart; the owner's changes (PATCH) are JSON.
        if getattr(self, "request", None) is not None and self.request.method == "PATCH":
            return [JSONBodyParser()]
        return [MultiPartParser()]

    @extend_schema(request={"multipart/form-data": s.BotUploadSerializer},
                   responses={201: s.UploadedVersionSerializer})
    def create(self, request, *args, **kwargs):
        form = s.BotUploadSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        v = form.validated_data
        version = upload_version(owner=request.user, game=v["game"], name=v["name"], filename=v["file"].name,
                                 data=read_upload(v["file"]), description=v.get("description", ""),
                                 accepts_challenges=v["accepts_challenges"])
        data = s.BotVersionSerializer(version, context=self.get_serializer_context()).data
        data["bot"] = version.bot_id
        return Response(data, status=status.HTTP_201_CREATED)

    @extend_schema(request={"application/json": s.BotSettingsSerializer}, responses=s.BotSerializer)
    def partial_update(self, request, *args, **kwargs):
        bot = self.get_object()
        if bot.owner_id != request.user.pk:
            raise PermissionDenied("only the bot's owner may change it")
        form = s.BotSettingsSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        update_bot(bot, **form.validated_data)
        return Response(s.BotSerializer(bot, context=self.get_serializer_context()).data)

    @extend_schema(responses=s.BotMatchPageSerializer, parameters=[
        OpenApiParameter("before", {"type": "integer", "minimum": 1, "maximum": 10**18 - 1},
                         description="only matches older than this match id (the `next` page names it)"),
        OpenApiParameter("limit", {"type": "integer", "minimum": 1, "maximum": 200},
                         description="seats per page (default 50; a page never splits a match)")])
    @action(detail=True, methods=["get"], pagination_class=None)
    def matches(self, request, pk=None):
        """The bot's seats in its matches, newest first, with places and the other seats (its owner also
        sees its validation matches and the faults' details). Pages by match id (`next`: the older ones),
        so every page is as fast as the first however many matches the bot has played."""
        bot = self.get_object()
        before = query_int(request, "before", None, 1, 10**18 - 1)
        limit = query_int(request, "limit", 50, 1, 200)
        rows, following = BotRecord(bot, request.user).recent_matches(before=before, limit=limit)
        next_url = None
        if following is not None:
            next_url = request.build_absolute_uri(f"{request.path}?{urlencode({'before': following, 'limit': limit})}")
        results = s.BotMatchSerializer(rows, many=True, context=self.get_serializer_context()).data
        return Response({"next": next_url, "results": results})

    def get_queryset(self):
        qs = Bot.objects.select_related("owner").prefetch_related("versions__bot__owner").order_by("id")
        game = game_filter(self.request)
        return qs.filter(game=game) if game else qs

@extend_schema_view(list=extend_schema(parameters=[GAME_PARAM]))
class TournamentViewSet(mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    queryset = Tournament.objects.select_related("created_by").order_by("-id")
    lookup_value_regex = ID_PATTERN
    pagination_class = KeysetPage

    def list(self, request, *args, **kwargs):
        page = self.paginate_queryset(self.get_queryset())
        labels = entry_labels([t.pk for t in page])  # the page's entries in one query, as values
        for tournament in page:
            tournament.entry_labels = labels.get(tournament.pk, [])
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    def get_serializer_class(self):
        return s.TournamentCreateSerializer if self.action == "create" else s.TournamentSerializer

    def get_queryset(self):
        qs = super().get_queryset()
        game = game_filter(self.request)
        return qs.filter(game=game) if game else qs

    @extend_schema(request=s.TournamentCreateSerializer, responses={201: s.TournamentSerializer})
    def create(self, request, *args, **kwargs):
        data = s.TournamentCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        versions = [self._version(v["game"], spec) for spec in v["bots"]]
        tournament = create_tournament(name=v["name"], game=v["game"], bot_versions=versions, seats=v["seats"],
                                       games_per_pairing=v["games_per_pairing"], options=v["options"],
                                       seed=v["seed"], format=v["format"], rounds=v["rounds"],
                                       max_matches=v["max_matches"], created_by=request.user, rated=v["rated"],
                                       duplicate=v["duplicate"])
        return Response(s.TournamentSerializer(tournament, context=self.get_serializer_context()).data,
                        status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses=s.TournamentSerializer)
    @action(detail=True, methods=["post"])
    def stop(self, request, pk=None):
        """Stop a running tournament (its creator or staff): queued matches are dropped."""
        tournament = self.get_object()
        if not (request.user.is_staff or tournament.created_by_id == request.user.pk):
            raise PermissionDenied("only the tournament's creator may stop it")
        stop_tournament(tournament)
        tournament.refresh_from_db()
        return Response(s.TournamentSerializer(tournament).data)

    @staticmethod
    def _version(game: str, spec: str) -> BotVersion:
        if ID_RE.fullmatch(spec):
            version = BotVersion.objects.select_related("bot__owner").filter(pk=int(spec)).first()
            if version is None:
                raise BotNotFound(f"no bot version {spec}")
            return version
        return resolve_version(game, spec)

    @extend_schema(responses=s.TournamentDetailSerializer)
    def retrieve(self, request, *args, **kwargs):
        tournament = self.get_object()
        data = s.TournamentSerializer(tournament).data
        data["progress"] = tournament_progress(tournament)
        data["standings"] = [
            {k: row[k] for k in ("label", "mu", "sigma", "conservative", "games", "matches", "wins", "average_place")}
            | {"bot_version": row["bot_version"].pk, "series": row.get("series"), "series_won": row.get("series_won")}
            for row in tournament_standings(tournament)
        ]
        data["series"] = tournament_series(tournament)
        return Response(data)

@extend_schema_view(list=extend_schema(parameters=[
    GAME_PARAM,
    OpenApiParameter("tournament", {"type": "integer", "minimum": 0, "maximum": 10**18 - 1},
                     description="only this tournament's matches"),
    OpenApiParameter("status", str, enum=Match.Status.values, description="only matches in this state"),
]))
class MatchViewSet(viewsets.ReadOnlyModelViewSet):
    serializer_class = s.MatchSerializer
    lookup_value_regex = ID_PATTERN
    pagination_class = KeysetPage

    def get_queryset(self):
        # The log is in its own table (tournaments.selectors.match_log): lists and the match never read it.
        qs = visible_matches(self.request.user).order_by("-id")
        if self.action != "list":
            return qs
        tournament = query_int(self.request, "tournament", None, 0)
        if tournament is not None:
            qs = qs.filter(tournament_id=tournament)
        game = game_filter(self.request)
        if game:
            qs = qs.filter(game=game)
        match_status = choice_filter(self.request, "status", Match.Status)
        if match_status:
            qs = qs.filter(status=match_status)
        return qs

    def list(self, request, *args, **kwargs):
        # Values, not model objects: a page of 50 matches and 200 seats as objects (and their prefetch
        # caches, which Python's collector then scans) was most of the list's time at a million matches.
        page = self.paginate_queryset(self.get_queryset().values(*MATCH_FIELDS))
        rows = with_seats(page, viewer=request.user)
        return self.get_paginated_response(self.get_serializer(rows, many=True).data)

    def retrieve(self, request, *args, **kwargs):
        match = self.get_object()
        row = with_seats([{name: getattr(match, name) for name in MATCH_FIELDS}], viewer=request.user)[0]
        return Response(self.get_serializer(row).data)

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    @action(detail=True, methods=["get"])
    def log(self, request, pk=None):
        match = self.get_object()
        stored = match_log(match)
        if stored is None:
            raise NotFound(f"match {match.pk} is {match.status}: it has no log yet")
        return Response(public_log(stored))

    @extend_schema(responses={200: OpenApiTypes.OBJECT}, parameters=[
        OpenApiParameter("seat", {"type": "integer", "minimum": 0, "maximum": 99},
                         description="that seat's view (its bot's owner, staff, or games whose seat views are public)")])
    @action(detail=True, methods=["get"])
    def frames(self, request, pk=None):
        """The match viewer's data; ``?seat=K``: seat K's view (its bot's owner, staff, or any visitor
        where the game's seat views are public)."""
        match = self.get_object()
        seat = query_int(request, "seat", None, 0, 99)
        try:
            body = frames_gzip(match, seat, request.user)
        except SeatViewRefused as exc:
            raise PermissionDenied(str(exc)) from None
        except LookupError as exc:
            raise NotFound(str(exc)) from None
        except ValueError as exc:
            raise ParseError(str(exc)) from None
        return gzipped_json(request, body)
