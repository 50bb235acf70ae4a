"""The API of a game's statistics, of the rating models compared, and the open results (streamed exports)."""
from __future__ import annotations

from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import permissions, serializers
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.response import Response
from rest_framework.views import APIView

from engines.games import available_games, get_game
from ratings.brackets import brackets_for
from tournaments.results.export import export
from ratings.models import ModelRating
from ratings.selectors import STANDARD, model_comparison
from tournaments.results.statistics import DEFAULT_TOP, MAX_TOP, cached_game_statistics
from tournaments.models import Tournament
from web.api.params import query_int

GAME_PATH = OpenApiParameter("game", str, OpenApiParameter.PATH, enum=list(available_games()))
ALL_RULESETS = sorted({name for g in available_games() for name in get_game(g).rated_presets})
RULESET_PARAM = OpenApiParameter("ruleset", str, enum=ALL_RULESETS,
                                 description="one rated ruleset of the game (see games/); default: every one")
BRACKETS = ["2", "3-4", "5-6"]


def _game(game: str):
    if game not in available_games():
        raise NotFound(f"unknown game {game[:40]!r}; games: {', '.join(available_games())}")
    return get_game(game)


def query_ruleset(request, engine, default: str | None = None) -> str | None:
    """``?ruleset=``: one of the game's rated rulesets, or a 400 naming them."""
    ruleset = request.query_params.get("ruleset")
    if ruleset is None:
        return default
    if ruleset not in engine.rated_presets:
        raise ValidationError({"ruleset": [f"{engine.id} has no rated ruleset {ruleset[:40]!r}; rated rulesets: "
                                           f"{', '.join(engine.rated_presets)}"]})
    return ruleset


def query_bracket(request, engine, ruleset: str) -> str | None:
    """``?players=``: a player-count bracket (2, 3-4, 5-6) the ruleset is played at, or a 400."""
    players = request.query_params.get("players")
    if players is None:
        return None
    brackets = brackets_for(engine.preset_players(ruleset))
    if players not in brackets:
        raise ValidationError({"players": [f"{engine.id} ({ruleset}) has no player-count bracket {players[:40]!r};"
                                           f" brackets: {', '.join(brackets)}"]})
    return players


class BinSerializer(serializers.Serializer):
    low = serializers.FloatField()
    high = serializers.FloatField(help_text="exclusive (the last bin also holds its upper edge)")
    count = serializers.IntegerField()


class H2HBotSerializer(serializers.Serializer):
    bot_version = serializers.IntegerField()
    label = serializers.CharField()


class H2HCellSerializer(serializers.Serializer):
    a = serializers.IntegerField(help_text="bot version")
    b = serializers.IntegerField(help_text="bot version")
    matches = serializers.IntegerField(help_text="matches a and b played together")
    above = serializers.IntegerField(help_text="matches where a placed above b")
    below = serializers.IntegerField()
    ties = serializers.IntegerField()


class H2HSerializer(serializers.Serializer):
    bots = H2HBotSerializer(many=True, help_text="the best rated bots, leaderboard order")
    cells = H2HCellSerializer(many=True)


class SeatRowSerializer(serializers.Serializer):
    players = serializers.IntegerField(help_text="table size")
    seat = serializers.IntegerField(help_text="0 = the first player")
    matches = serializers.IntegerField()
    average_place = serializers.FloatField(help_text="1 = first")
    win_rate = serializers.FloatField(help_text="share of first places, ties included")


class ScoresSerializer(serializers.Serializer):
    seats = serializers.IntegerField()
    mean = serializers.FloatField(allow_null=True)
    bins = BinSerializer(many=True, help_text="every seat's final score")
    winner_bins = BinSerializer(many=True, help_text="the winners' scores, on the same bins")


class LengthsSerializer(serializers.Serializer):
    matches = serializers.IntegerField()
    mean = serializers.FloatField(allow_null=True)
    median = serializers.IntegerField(allow_null=True)
    bins = BinSerializer(many=True, help_text="moves per match")


class GameStatsSerializer(serializers.Serializer):
    game = serializers.CharField()
    ruleset = serializers.CharField(allow_null=True)
    tournament = serializers.IntegerField(allow_null=True)
    head_to_head = H2HSerializer()
    seats = SeatRowSerializer(many=True)
    scores = ScoresSerializer()
    lengths = LengthsSerializer()
    as_of = serializers.DateTimeField(help_text="when these were counted (rated statistics: every ARENA_STATS_SECONDS)")


@extend_schema(parameters=[
    GAME_PATH, RULESET_PARAM,
    OpenApiParameter("tournament", {"type": "integer", "minimum": 0, "maximum": 10**18 - 1},
                     description="one tournament's finished matches (rated or not) instead of the rated ones"),
    OpenApiParameter("top", {"type": "integer", "minimum": 1, "maximum": MAX_TOP},
                     description=f"bots in the head-to-head matrix (the best rated; default {DEFAULT_TOP})"),
], responses=GameStatsSerializer)
class GameStats(APIView):
    """A game's statistics over its rated matches (``?ruleset=`` one ruleset; ``?tournament=`` one tournament's
    matches): head to head of the best rated bots, results by seat (first-player advantage), score
    distributions, match lengths."""

    permission_classes = [permissions.AllowAny]

    def get(self, request, game: str):
        engine = _game(game)
        ruleset = query_ruleset(request, engine)
        tournament = query_int(request, "tournament", None, 0, 10**18 - 1)
        if tournament is not None and not Tournament.objects.filter(pk=tournament, game=game).exists():
            raise ValidationError({"tournament": [f"no {game} tournament {tournament}"]})
        top = query_int(request, "top", DEFAULT_TOP, 1, MAX_TOP)
        return Response(GameStatsSerializer(cached_game_statistics(game, ruleset, tournament, top)).data)


class ComparisonRowSerializer(serializers.Serializer):
    bot_version = serializers.IntegerField()
    label = serializers.CharField()
    places = serializers.DictField(child=serializers.IntegerField(allow_null=True),
                                   help_text="place (1 = best) under each model; null: not rated by it")


class ComparisonSerializer(serializers.Serializer):
    game = serializers.CharField()
    ruleset = serializers.CharField()
    players = serializers.CharField(help_text='the player-count bracket, or "all"')
    models = serializers.ListField(child=serializers.CharField(), help_text='"live" (TrueSkill), then each '
                                                                             "recomputed model")
    correlation = serializers.DictField(child=serializers.FloatField(allow_null=True),
                                        help_text="Spearman's rank correlation of each model with the live ranking")
    rows = ComparisonRowSerializer(many=True)


@extend_schema(parameters=[
    GAME_PATH, OpenApiParameter("ruleset", str, enum=ALL_RULESETS, description="a rated ruleset (default standard)"),
    OpenApiParameter("players", str, enum=BRACKETS, description="a player-count bracket (default: all)"),
], responses=ComparisonSerializer)
class ModelComparison(APIView):
    """The live TrueSkill ranking beside the rankings recomputed under other models (``manage.py
    recompute_ratings --model openskill|elo|trueskill``): each bot's place under each, and each model's rank
    correlation with the live one."""

    permission_classes = [permissions.AllowAny]

    def get(self, request, game: str):
        engine = _game(game)
        ruleset = query_ruleset(request, engine, STANDARD)
        players = query_bracket(request, engine, ruleset)
        comparison = model_comparison(game, ruleset, players)
        data = {"game": game, "ruleset": ruleset, "players": players or "all", **comparison}
        return Response(ComparisonSerializer(data).data)


class StreamNegotiation(BaseContentNegotiation):
    """The exports stream their own media type whatever the Accept header says; their errors are JSON."""

    def select_parser(self, request, parsers):
        return parsers[0] if parsers else None

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


MODEL_PARAM = OpenApiParameter("model", str, enum=ModelRating.Model.values,
                               description="the ratings recomputed under this model (default: the live ones)")


def query_model(request) -> str | None:
    """``?model=``: a rating model, or a 400 naming them."""
    model = request.query_params.get("model")
    if model is not None and model not in ModelRating.Model.values:
        raise ValidationError({"model": [f"unknown rating model {model[:40]!r}; models: "
                                         f"{', '.join(ModelRating.Model.values)}"]})
    return model


MEDIA = {"jsonl": "application/x-ndjson", "csv": "text/csv"}


def _export_view(what: str, fmt: str, doc: str):
    class Export(APIView):
        permission_classes = [permissions.AllowAny]
        content_negotiation_class = StreamNegotiation

        @extend_schema(parameters=[GAME_PATH, RULESET_PARAM, *([MODEL_PARAM] if what == "ratings" else [])],
                       description=doc, operation_id=f"export_{what}_{fmt}",
                       responses={(200, MEDIA[fmt]): OpenApiResponse(OpenApiTypes.STR, description=doc)})
        def get(self, request, game: str):
            engine = _game(game)
            ruleset = query_ruleset(request, engine)
            model = query_model(request) if what == "ratings" else None
            response = StreamingHttpResponse(export(what, fmt, game, ruleset, model),
                                             content_type=f"{MEDIA[fmt]}; charset=utf-8")
            response["Content-Disposition"] = f'attachment; filename="{game}-{what}.{fmt}"'
            return response

    Export.__name__ = Export.__qualname__ = f"Export{what.title()}{fmt.title()}"
    Export.__doc__ = doc
    return Export


MATCHES_DOC = ("Every rated match of the game, streamed: match, rating sequence, game, ruleset, options, seats "
               "with bot, place (1 = first) and score.")
RATINGS_DOC = ('The live ratings of the game (``?model=``: those recomputed under a model): overall (players '
               '"all") and per player-count bracket.')
ExportMatchesJsonl = _export_view("matches", "jsonl", MATCHES_DOC + " JSON lines: one match per line.")
ExportMatchesCsv = _export_view("matches", "csv", MATCHES_DOC + " CSV: one row per seat; options as JSON.")
ExportRatingsJsonl = _export_view("ratings", "jsonl", RATINGS_DOC + " JSON lines.")
ExportRatingsCsv = _export_view("ratings", "csv", RATINGS_DOC + " CSV.")
