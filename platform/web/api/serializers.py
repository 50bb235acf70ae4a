from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from infra.text import control_character
from bots.models import Bot, BotVersion
from engines.games import GAME_IDS
from ratings.models import Rating
from tournaments.results.bot_record import MatchRow
from tournaments.models import Match, MatchSeat, Tournament


def is_owner(context: dict, owner_id: int) -> bool:
    """Whether the request of a serializer's context comes from the owner of a bot (``owner_id``)."""
    user = getattr(context.get("request"), "user", None)
    return bool(user is not None and user.is_authenticated and user.pk == owner_id)


def plain_line(value: str) -> None:
    """Refuse a name shown to everyone (a tournament's, a schedule's) that holds a control character, as a bot's
    description does (``infra.text.control_character``)."""
    bad = control_character(value)
    if bad is not None:
        raise serializers.ValidationError(f"holds the control character {bad}: a name is one line of plain text")


class BoundedListField(serializers.ListField):
    """A ListField that refuses a list longer than ``max_length`` before validating its items.

    DRF checks the length only after every item: 800,000 bad items made 800,000 messages (a 57 MB reply)."""

    def to_internal_value(self, data):
        if isinstance(data, list) and self.max_length is not None and len(data) > self.max_length:
            self.fail("max_length", max_length=self.max_length)
        return super().to_internal_value(data)


class RegressionSerializer(serializers.Serializer):
    """The regression gate: the version against the bot's previous valid version (the baseline) in duplicate
    series during validation. Places are 1-based; a negative difference: the new version places better."""

    baseline = serializers.IntegerField(help_text="the baseline version's id")
    baseline_number = serializers.IntegerField()
    table = serializers.ListField(child=serializers.CharField(), help_text="the seats in their first order")
    seats = serializers.IntegerField()
    series = serializers.IntegerField(help_text="duplicate series: one seed, one game per seat rotation")
    games = serializers.IntegerField()
    matches = serializers.ListField(child=serializers.IntegerField(), help_text="the gate's validation matches")
    average_place = serializers.FloatField()
    baseline_average_place = serializers.FloatField()
    difference = serializers.FloatField(help_text="average place minus the baseline's (negative: better)")
    differences = serializers.ListField(child=serializers.FloatField(), help_text="the difference per series")
    ci95 = serializers.ListField(child=serializers.FloatField(), allow_null=True, min_length=2, max_length=2,
                                 help_text="95% confidence interval of the difference (Student's t over the "
                                           "series); null under 2 series")
    verdict = serializers.ChoiceField(choices=["better", "worse", "no clear difference"],
                                      help_text="informational: a worse result does not block the version")


class BotVersionSerializer(serializers.ModelSerializer):
    """A version of a bot. Its status (pending, valid, invalid) is public; why (the validation's findings,
    which quote what the bot printed), its regression gate and its package (file name, size, hash) are its
    owner's only: ``null`` for everyone else."""

    label = serializers.CharField(read_only=True)
    status_detail = serializers.SerializerMethodField()
    original_name = serializers.SerializerMethodField()
    size = serializers.SerializerMethodField()
    sha256 = serializers.SerializerMethodField()
    regression = serializers.SerializerMethodField()

    class Meta:
        model = BotVersion
        fields = ["id", "number", "label", "kind", "status", "status_detail", "original_name", "size", "sha256",
                  "regression", "created_at"]

    @extend_schema_field(RegressionSerializer(allow_null=True))
    def get_regression(self, obj: BotVersion) -> dict | None:
        return obj.regression if self._own(obj) else None

    def _own(self, obj: BotVersion) -> bool:
        return is_owner(self.context, obj.bot.owner_id)

    def get_status_detail(self, obj: BotVersion) -> str | None:
        return obj.status_detail if self._own(obj) else None

    def get_original_name(self, obj: BotVersion) -> str | None:
        return obj.original_name if self._own(obj) else None

    def get_size(self, obj: BotVersion) -> int | None:
        return obj.size if self._own(obj) else None

    def get_sha256(self, obj: BotVersion) -> str | None:
        return obj.sha256 if self._own(obj) else None


class BotSerializer(serializers.ModelSerializer):
    owner = serializers.CharField(source="owner.username", read_only=True)
    versions = BotVersionSerializer(many=True, read_only=True)

    class Meta:
        model = Bot
        fields = ["id", "owner", "game", "name", "description", "accepts_challenges", "created_at", "versions"]


class SeatSerializer(serializers.ModelSerializer):
    """A seat of a match. Fault counts are public; the faults' details and the tail of the bot's stderr
    (both may quote what the bot printed) are its owner's only: ``null`` for everyone else."""

    bot_version = serializers.IntegerField(source="bot_version_id")
    label = serializers.CharField(source="bot_version.label")
    place = serializers.SerializerMethodField(help_text="1 = first (a tie shares the better place); null until "
                                                        "the match is finished")
    fault_log = serializers.SerializerMethodField()
    stderr_tail = serializers.SerializerMethodField()

    class Meta:
        model = MatchSeat
        fields = ["seat", "bot_version", "label", "place", "score", "faults", "forfeited", "fault_log", "stderr_tail"]

    def get_place(self, seat: MatchSeat) -> int | None:
        return None if seat.rank is None else seat.rank + 1  # the engine's rank is 0-based

    def get_fault_log(self, obj: MatchSeat) -> list[dict] | None:
        return obj.fault_log if is_owner(self.context, obj.bot_version.bot.owner_id) else None

    def get_stderr_tail(self, obj: MatchSeat) -> str | None:
        return obj.stderr_tail if is_owner(self.context, obj.bot_version.bot.owner_id) else None

    def to_representation(self, seat: dict) -> dict:
        # A seat as tournaments.selectors.with_seats reads it (values, the owner-only fields already None for
        # others), written out: DRF's field-by-field walk over model objects was most of a list's time.
        # tests/platform/test_api.py checks this equals DRF's own representation of the model.
        score = seat["score"]
        return {"seat": seat["seat"], "bot_version": seat["bot_version"], "label": seat["label"],
                "place": seat["place"], "score": None if score is None else float(score),
                "faults": seat["faults"], "forfeited": seat["forfeited"],
                "fault_log": seat["fault_log"], "stderr_tail": seat["stderr_tail"]}


class MatchSerializer(serializers.ModelSerializer):
    seats = SeatSerializer(many=True, read_only=True)
    seed = serializers.IntegerField(source="revealed_seed", read_only=True, allow_null=True,
                                    help_text="the seed that fixed every deal; null until the match is over")
    series = serializers.IntegerField(read_only=True, allow_null=True,
                                      help_text="duplicate series (one seed, every seat rotation) the match belongs "
                                                "to; null: none")

    class Meta:
        model = Match
        fields = ["id", "tournament", "purpose", "game", "options", "seed", "series", "status", "attempts",
                  "num_moves", "rated", "ruleset", "created_at", "started_at", "finished_at", "seats"]

    def to_representation(self, match: dict) -> dict:
        # A match as tournaments.selectors.with_seats reads it (MATCH_FIELDS as values, with its seats): the
        # same fields and values as DRF's walk over the model (tested), without the model objects.
        moment = self.fields["created_at"].to_representation
        seat = self.fields["seats"].child.to_representation
        started, finished = match["started_at"], match["finished_at"]
        return {"id": match["id"], "tournament": match["tournament_id"], "purpose": match["purpose"],
                "game": match["game"], "options": match["options"],
                "seed": match["seed"] if match["status"] in Match.DONE else None, "series": match["series"],
                "status": match["status"], "attempts": match["attempts"], "num_moves": match["num_moves"],
                "rated": match["rated"], "ruleset": match["ruleset"], "created_at": moment(match["created_at"]),
                "started_at": started and moment(started), "finished_at": finished and moment(finished),
                "seats": [seat(one) for one in match["seats"]]}


class EntrySerializer(serializers.Serializer):
    bot_version = serializers.IntegerField()
    label = serializers.CharField()


class TournamentSerializer(serializers.ModelSerializer):
    created_by = serializers.CharField(source="created_by.username", default=None, read_only=True, allow_null=True)
    entries = serializers.SerializerMethodField()
    rated_display = serializers.CharField(read_only=True, help_text='"rated (<ruleset>)" or "friendly (not rated)"')

    class Meta:
        model = Tournament
        fields = ["id", "name", "game", "format", "seats_per_match", "games_per_pairing", "rounds", "max_matches",
                  "planned_matches", "options", "seed", "duplicate", "rated", "ruleset", "rated_display", "status",
                  "created_by",
                  "created_at", "finished_at", "entries", "plan"]

    @extend_schema_field(EntrySerializer(many=True))
    def get_entries(self, obj):
        # The list prefetches the entries with their bots (one query a page, not one a tournament).
        if hasattr(obj, "entry_labels"):  # a list reads every entry of its page at once
            return obj.entry_labels
        return [{"bot_version": e.bot_version_id, "label": e.bot_version.label}
                for e in obj.entry_set.select_related("bot_version__bot__owner")]


class TournamentCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=120, validators=[plain_line])
    game = serializers.ChoiceField(choices=GAME_IDS)
    bots = BoundedListField(child=serializers.CharField(max_length=200), min_length=1, max_length=64,
                            help_text="bot versions: ids, built-in names, or owner/name[@N]")
    seats = serializers.IntegerField(min_value=1, max_value=8)
    games_per_pairing = serializers.IntegerField(min_value=1, max_value=1000, default=1)
    format = serializers.ChoiceField(choices=[f.value for f in Tournament.Format], default="round_robin")
    rounds = serializers.IntegerField(min_value=0, max_value=100, default=0, help_text="Swiss: 0 = automatic")
    max_matches = serializers.IntegerField(min_value=0, max_value=1_000_000, default=0,
                                           help_text="ladder: matches to play (0 = until stopped: staff only)")
    options = serializers.DictField(default=dict)
    seed = serializers.IntegerField(min_value=0, max_value=2**31, required=False,
                                    help_text="friendly tournaments: the matches' seeds follow from it (default 0), "
                                              "so the tournament can be played again; a rated one's matches get "
                                              "secret random seeds, each shown once its match is over")
    rated = serializers.BooleanField(default=False, help_text="staff only: a rated tournament under a rated ruleset "
                                                              "of the game; every other tournament is friendly")
    duplicate = serializers.BooleanField(default=False, help_text="round robin only: each pairing's games are "
                                                                  "series of one game per seat rotation on one seed "
                                                                  "(games_per_pairing a multiple of seats)")

    def validate(self, data: dict) -> dict:
        if data.get("rated") and "seed" in data:
            raise serializers.ValidationError({"seed": "a rated tournament's matches get secret random seeds: leave "
                                                       "seed out (a known seed would tell the bots every deal)"})
        data.setdefault("seed", 0)
        return data


class RatingSerializer(serializers.ModelSerializer):
    bot_version = serializers.IntegerField(source="bot_version_id")
    label = serializers.CharField(source="bot_version.label")
    conservative = serializers.FloatField()

    class Meta:
        model = Rating
        fields = ["bot_version", "label", "ruleset", "mu", "sigma", "conservative", "games"]


class BotUploadSerializer(serializers.Serializer):
    game = serializers.ChoiceField(choices=GAME_IDS)
    name = serializers.CharField(max_length=64)
    description = serializers.CharField(max_length=300, required=False, allow_blank=True)
    file = serializers.FileField(allow_empty_file=True)
    accepts_challenges = serializers.BooleanField(required=False, allow_null=True, default=None,
                                                  help_text="let other players enter the bot in their friendly "
                                                            "tournaments (omitted: unchanged; a new bot: false)")


class BotSettingsSerializer(serializers.Serializer):
    """What a bot's owner may change after upload (PATCH /api/bots/{id}/)."""

    accepts_challenges = serializers.BooleanField(required=False)
    description = serializers.CharField(max_length=300, required=False, allow_blank=True)


# --- Shapes of responses built in the views (the schema names them; the views fill them) ---------------------
class RulesetSerializer(serializers.Serializer):
    options = serializers.DictField(help_text="overrides of the defaults")
    players = serializers.ListField(child=serializers.IntegerField())


class GameSerializer(serializers.Serializer):
    id = serializers.CharField()
    name = serializers.CharField()
    min_players = serializers.IntegerField()
    max_players = serializers.IntegerField()
    options = serializers.DictField(help_text="every option the game accepts, with its default")
    options_schema = serializers.DictField(help_text="the options as a JSON Schema object: what a tournament's "
                                                     "`options` may hold")
    rated_rulesets = serializers.DictField(child=RulesetSerializer(),
                                           help_text="the rated rulesets by name: option overrides, player counts")


class LeaderboardRowSerializer(RatingSerializer):
    place = serializers.IntegerField(read_only=True, help_text="1 = best")
    uncertainty = serializers.FloatField(read_only=True, help_text="3 sigma: the skill is very probably mu ± this")
    provisional = serializers.BooleanField(read_only=True, help_text="sigma above 2.5: too few games yet")
    history = serializers.ListField(child=serializers.DictField(), read_only=True, allow_null=True,
                                    help_text="with ?history=1: the rating after each match; else null")

    class Meta(RatingSerializer.Meta):
        fields = ["place", *RatingSerializer.Meta.fields, "uncertainty", "provisional", "history"]


class UploadedVersionSerializer(BotVersionSerializer):
    bot = serializers.IntegerField(source="bot_id", read_only=True)

    class Meta(BotVersionSerializer.Meta):
        fields = [*BotVersionSerializer.Meta.fields, "bot"]


class ProgressSerializer(serializers.Serializer):
    total = serializers.IntegerField()
    finished = serializers.IntegerField()
    failed = serializers.IntegerField()
    running = serializers.IntegerField()
    done = serializers.IntegerField()


class StandingSerializer(serializers.Serializer):
    bot_version = serializers.IntegerField()
    label = serializers.CharField()
    mu = serializers.FloatField(allow_null=True)
    sigma = serializers.FloatField(allow_null=True)
    conservative = serializers.FloatField(allow_null=True)
    games = serializers.IntegerField()
    matches = serializers.IntegerField()
    wins = serializers.IntegerField()
    average_place = serializers.FloatField(allow_null=True, help_text="1 = first")
    series = serializers.IntegerField(allow_null=True, help_text="duplicate: complete series played; else null")
    series_won = serializers.IntegerField(allow_null=True, help_text="duplicate: series with the best average place "
                                                                     "(shared on a tie); else null")


class SeriesPlacesSerializer(serializers.Serializer):
    bot_version = serializers.IntegerField()
    label = serializers.CharField()
    places = serializers.ListField(child=serializers.IntegerField(), help_text="one per seat held, 1 = first")
    place_sum = serializers.IntegerField()
    average_place = serializers.FloatField()
    won = serializers.BooleanField()


class SeriesSerializer(serializers.Serializer):
    series = serializers.IntegerField()
    seed = serializers.IntegerField()
    bots = SeriesPlacesSerializer(many=True)


class TournamentDetailSerializer(TournamentSerializer):
    progress = ProgressSerializer(read_only=True)
    standings = StandingSerializer(many=True, read_only=True)
    series = SeriesSerializer(many=True, read_only=True, help_text="duplicate: every complete series; else empty")

    class Meta(TournamentSerializer.Meta):
        fields = [*TournamentSerializer.Meta.fields, "progress", "standings", "series"]


class OpponentSeatSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    bot_version = serializers.IntegerField()
    label = serializers.CharField()
    place = serializers.IntegerField(allow_null=True, help_text="1 = first; null until the match is finished")


class BotMatchSerializer(serializers.Serializer):
    """A seat of the bot in one of its matches (newest first), with the match and the other seats. Fault
    counts are public; the faults' details are the owner's only (``null`` for everyone else)."""

    match = serializers.IntegerField()
    tournament = serializers.IntegerField(allow_null=True)
    purpose = serializers.CharField()
    status = serializers.CharField()
    rated = serializers.BooleanField()
    finished_at = serializers.DateTimeField(allow_null=True)
    seat = serializers.IntegerField()
    bot_version = serializers.IntegerField()
    label = serializers.CharField()
    place = serializers.IntegerField(allow_null=True, help_text="1 = first (a tie shares the better place); null "
                                                                "until the match is finished")
    faults = serializers.IntegerField()
    forfeited = serializers.BooleanField()
    fault_log = serializers.ListField(child=serializers.DictField(), allow_null=True)
    opponents = OpponentSeatSerializer(many=True)

    def to_representation(self, row: MatchRow) -> dict:
        # A tournaments.results.bot_record.MatchRow (values; the details of faults already None but for the
        # viewer's own seats), written out as the fields above say.
        match, seat, finished = row.match, row.seat, row.match["finished_at"]
        return {"match": match["id"], "tournament": match["tournament_id"], "purpose": match["purpose"],
                "status": match["status"], "rated": match["rated"],
                "finished_at": finished and self.fields["finished_at"].to_representation(finished),
                "seat": seat["seat"], "bot_version": seat["bot_version"], "label": seat["label"],
                "place": seat["place"], "faults": seat["faults"], "forfeited": seat["forfeited"],
                "fault_log": seat["fault_log"],
                "opponents": [{"seat": other["seat"], "bot_version": other["bot_version"], "label": other["label"],
                               "place": other["place"]} for other in row.opponents]}


class BotMatchPageSerializer(serializers.Serializer):
    next = serializers.URLField(allow_null=True, help_text="the page of older matches; null on the last page")
    results = BotMatchSerializer(many=True)
