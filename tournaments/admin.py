from django.contrib import admin

from tournaments.competition.ladder import start_ladder, stop_ladder
from tournaments.models import (Entry, Ladder, Match, MatchLog, MatchSeat, RecurringSchedule, Registration,
                                ScheduledTournament, Tournament)


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


@admin.register(Ladder)
class LadderAdmin(admin.ModelAdmin):
    list_display = ("game", "active", "tournament", "created_at")
    raw_id_fields = ("tournament",)
    actions = ["start", "stop"]

    @admin.action(description="Start (or resume) the selected ladders")
    def start(self, request, queryset):
        for game in queryset.values_list("game", flat=True):
            start_ladder(game)

    @admin.action(description="Stop the selected ladders")
    def stop(self, request, queryset):
        for game in queryset.values_list("game", flat=True):
            stop_ladder(game)


class RegistrationInline(admin.TabularInline):
    model = Registration
    extra = 0
    raw_id_fields = ("bot", "bot_version")


@admin.register(ScheduledTournament)
class ScheduledTournamentAdmin(admin.ModelAdmin):
    list_display = ("name", "game", "starts_at", "status", "rated", "organiser", "tournament")
    list_filter = ("game", "status", "rated")
    raw_id_fields = ("tournament", "recurring", "organiser")
    inlines = [RegistrationInline]


@admin.register(RecurringSchedule)
class RecurringScheduleAdmin(admin.ModelAdmin):
    list_display = ("name", "game", "every", "weekday", "time", "active", "organiser")
    raw_id_fields = ("organiser",)
