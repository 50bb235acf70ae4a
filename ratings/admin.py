from django.contrib import admin

from ratings.models import BracketRating, ModelRating, Rating, RatingChange


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin):
    list_display = ("bot_version", "game", "ruleset", "mu", "sigma", "games", "updated_at")
    list_filter = ("game", "ruleset")


@admin.register(RatingChange)
class RatingChangeAdmin(admin.ModelAdmin):
    list_display = ("rating", "match", "sequence", "rank", "mu_before", "mu_after")
    raw_id_fields = ("rating", "match")


@admin.register(BracketRating)
class BracketRatingAdmin(admin.ModelAdmin):
    list_display = ("bot_version", "game", "ruleset", "bracket", "mu", "sigma", "games", "updated_at")
    list_filter = ("game", "ruleset", "bracket")


@admin.register(ModelRating)
class ModelRatingAdmin(admin.ModelAdmin):
    list_display = ("bot_version", "model", "game", "ruleset", "bracket", "mu", "sigma", "games", "computed_at")
    list_filter = ("model", "game", "ruleset", "bracket")
