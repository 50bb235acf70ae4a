from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from players.models import Player


@admin.register(Player)
class PlayerAdmin(UserAdmin):
    fieldsets = UserAdmin.fieldsets + (("Arena", {"fields": ("bio",)}),)
    list_display = ("username", "email", "is_staff", "date_joined")
