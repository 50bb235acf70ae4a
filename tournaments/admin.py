from django.contrib import admin

from tournaments.models import Entry, Match, MatchLog, MatchSeat, Tournament


class EntryInline(admin.TabularInline):
    model = Entry
    extra = 0
    raw_id_fields = ("bot_version",)


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    list_display = ("name", "game", "format", "rated", "ruleset", "seats_per_match", "status", "created_by", "created_at")
    list_filter = ("game", "format", "rated", "status")
    # A tournament's rules and rating are fixed when it is created (its matches copy them).
    readonly_fields = ("ruleset", "planned_matches")
    inlines = [EntryInline]


class MatchSeatInline(admin.TabularInline):
    model = MatchSeat
    extra = 0
    raw_id_fields = ("bot_version",)


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    list_display = ("id", "game", "tournament", "purpose", "status", "attempts", "rated", "ruleset", "finished_at")
    list_filter = ("game", "status", "purpose", "rated")
    raw_id_fields = ("tournament",)
    readonly_fields = ("stored_log",)
    inlines = [MatchSeatInline]

    @admin.display(description="log")
    def stored_log(self, match: Match) -> str:
        """The size of the stored log (the log itself: the match page, the API, the download)."""
        stored = MatchLog.objects.filter(match=match).first()
        return str(stored) if stored else "none yet"
