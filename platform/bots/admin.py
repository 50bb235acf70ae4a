from django.contrib import admin

from bots.models import Bot, BotVersion


class BotVersionInline(admin.TabularInline):
    model = BotVersion
    extra = 0
    readonly_fields = ("number", "kind", "builtin_name", "package", "sha256", "size", "status", "status_detail",
                       "created_at")
    can_delete = False


@admin.register(Bot)
class BotAdmin(admin.ModelAdmin):
    list_display = ("name", "game", "owner", "accepts_challenges", "created_at")
    list_filter = ("game", "accepts_challenges")
    search_fields = ("name", "owner__username")
    inlines = [BotVersionInline]


@admin.register(BotVersion)
class BotVersionAdmin(admin.ModelAdmin):
    list_display = ("__str__", "kind", "status", "size", "created_at")
    list_filter = ("kind", "status", "bot__game")
    readonly_fields = ("sha256", "size", "created_at")
