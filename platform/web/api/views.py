"""The REST API: read everything; create tournaments (and upload bots) with a token."""
from __future__ import annotations

from django.shortcuts import get_object_or_404
from rest_framework import mixins, permissions, status, viewsets
from rest_framework.decorators import action, api_view, permission_classes
from rest_framework.exceptions import NotFound, ParseError, PermissionDenied
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.response import Response

from bots.models import Bot, BotVersion
from bots.selectors import BotNotFound, resolve_version
from bots.services import read_upload, update_bot, upload_version
from engines.games import available_games, get_game
from ratings.selectors import STANDARD, leaderboard, rating_history
from tournaments.models import Tournament
from tournaments.selectors import public_log, tournament_progress, tournament_standings, visible_matches
from tournaments.services import create_tournament, stop_tournament
from web.api import serializers as s
from web.viewer import SeatViewRefused, frames_gzip, gzipped_json

def game_info(game_id: str) -> dict:
    game = get_game(game_id)
    return {"id": game.id, "name": game.name, "min_players": game.min_players, "max_players": game.max_players,
            "options": game.default_options,
            "rated_rulesets": {name: {"options": overrides, "players": list(game.preset_players(name))}
                               for name, overrides in game.rated_presets.items()}}

def check_game(game_id: str) -> str:
    if game_id not in available_games():
        raise NotFound(f"unknown game {game_id!r}; games: {', '.join(available_games())}")
    return game_id

@api_view(["GET"])
@permission_classes([permissions.AllowAny])
def games(request):
    return Response([game_info(g) for g in available_games()])

@api_view(["GET"])
@permission_classes([permissions.AllowAny])
def game_leaderboard(request, game: str):
    """The public ratings of one rated ruleset of a game (``?ruleset=``, default standard)."""
    check_game(game)
    ruleset = request.query_params.get("ruleset") or STANDARD
    rulesets = get_game(game).rated_presets
    if ruleset not in rulesets:
        raise NotFound(f"{game} has no rated ruleset {ruleset!r}; rated rulesets: {', '.join(rulesets)}")
    rows = []
    for place, rating in enumerate(leaderboard(game, ruleset), 1):
        row = s.RatingSerializer(rating).data
        row["place"] = place
        if request.query_params.get("history"):
            row["history"] = rating_history(rating)
        rows.append(row)
    return Response({"game": game, "ruleset": ruleset, "options": get_game(game).options(rulesets[ruleset]),
                     "players": list(get_game(game).preset_players(ruleset)), "ratings": rows})

class BotViewSet(mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    """Bots and versions. POST (multipart: game, name, file, description, accepts_challenges) uploads a new
    version; PATCH (accepts_challenges, description) changes the owner's bot."""

    serializer_class = s.BotSerializer
    parser_classes = [MultiPartParser, FormParser, JSONParser]

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

    def partial_update(self, request, *args, **kwargs):
        bot = self.get_object()
        if bot.owner_id != request.user.pk:
            raise PermissionDenied("only the bot's owner may change it")
        form = s.BotSettingsSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        update_bot(bot, **form.validated_data)
        return Response(s.BotSerializer(bot, context=self.get_serializer_context()).data)

    def get_queryset(self):
        qs = Bot.objects.select_related("owner").prefetch_related("versions__bot__owner").order_by("id")
        game = self.request.query_params.get("game")
        if game:
            qs = qs.filter(game=check_game(game))
        return qs

class TournamentViewSet(mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    queryset = Tournament.objects.select_related("created_by").order_by("-id")

    def get_serializer_class(self):
        return s.TournamentCreateSerializer if self.action == "create" else s.TournamentSerializer

    def get_queryset(self):
        qs = super().get_queryset()
        game = self.request.query_params.get("game")
        return qs.filter(game=check_game(game)) if game else qs

    def create(self, request, *args, **kwargs):
        data = s.TournamentCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        versions = [self._version(v["game"], spec) for spec in v["bots"]]
        tournament = create_tournament(name=v["name"], game=v["game"], bot_versions=versions, seats=v["seats"],
                                       games_per_pairing=v["games_per_pairing"], options=v["options"],
                                       seed=v["seed"], format=v["format"], rounds=v["rounds"],
                                       max_matches=v["max_matches"], created_by=request.user, rated=v["rated"])
        return Response(s.TournamentSerializer(tournament, context=self.get_serializer_context()).data,
                        status=status.HTTP_201_CREATED)

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
        if spec.isdigit():
            version = BotVersion.objects.select_related("bot__owner").filter(pk=int(spec)).first()
            if version is None:
                raise BotNotFound(f"no bot version {spec}")
            return version
        return resolve_version(game, spec)

    def retrieve(self, request, *args, **kwargs):
        tournament = self.get_object()
        data = s.TournamentSerializer(tournament).data
        data["progress"] = tournament_progress(tournament)
        data["standings"] = [
            {k: row[k] for k in ("label", "mu", "sigma", "conservative", "games", "matches", "wins", "average_place")}
            | {"bot_version": row["bot_version"].pk}
            for row in tournament_standings(tournament)
        ]
        return Response(data)

class MatchViewSet(viewsets.ReadOnlyModelViewSet):
    serializer_class = s.MatchSerializer

    def get_queryset(self):
        qs = visible_matches(self.request.user).prefetch_related("seats__bot_version__bot__owner").order_by("-id")
        params = self.request.query_params
        if params.get("tournament"):
            if not params["tournament"].isdigit():
                raise NotFound("tournament must be an id")
            qs = qs.filter(tournament_id=int(params["tournament"]))
        if params.get("game"):
            qs = qs.filter(game=check_game(params["game"]))
        if params.get("status"):
            qs = qs.filter(status=params["status"])
        return qs

    @action(detail=True, methods=["get"])
    def log(self, request, pk=None):
        match = get_object_or_404(visible_matches(request.user), pk=pk)
        if match.log is None:
            raise NotFound(f"match {match.pk} is {match.status}: it has no log yet")
        return Response(public_log(match.log))

    @action(detail=True, methods=["get"])
    def frames(self, request, pk=None):
        """The match viewer's data; ``?seat=K``: seat K's view (its bot's owner, staff, or any visitor
        where the game's seat views are public)."""
        match = get_object_or_404(visible_matches(request.user), pk=pk)
        seat = request.query_params.get("seat")
        if seat is not None and not seat.isdigit():
            raise ParseError("seat must be a seat number")
        try:
            body = frames_gzip(match, None if seat is None else int(seat), request.user)
        except SeatViewRefused as exc:
            raise PermissionDenied(str(exc)) from None
        except LookupError as exc:
            raise NotFound(str(exc)) from None
        except ValueError as exc:
            raise ParseError(str(exc)) from None
        return gzipped_json(request, body)
