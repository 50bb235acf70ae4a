from django.urls import include, path
from rest_framework.authtoken.views import obtain_auth_token
from rest_framework.routers import DefaultRouter

from web.api import views

router = DefaultRouter()
router.register("bots", views.BotViewSet, basename="bot")
router.register("tournaments", views.TournamentViewSet, basename="tournament")
router.register("matches", views.MatchViewSet, basename="match")

urlpatterns = [
    path("games/", views.games, name="api-games"),
    path("leaderboards/<str:game>/", views.game_leaderboard, name="api-leaderboard"),
    path("token/", obtain_auth_token, name="api-token"),
    path("", include(router.urls)),
]
