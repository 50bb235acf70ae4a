from csp.constants import SELF, UNSAFE_INLINE
from csp.decorators import csp_replace
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView
from rest_framework.routers import DefaultRouter

from web.api import accounts, schedules, stats, views

router = DefaultRouter()
router.register("bots", views.BotViewSet, basename="bot")
router.register("tournaments", views.TournamentViewSet, basename="tournament")
router.register("matches", views.MatchViewSet, basename="match")
router.register("schedules", schedules.ScheduleViewSet, basename="schedule")
router.register("recurring-schedules", schedules.RecurringViewSet, basename="recurring-schedule")
router.register("ladders", schedules.LadderViewSet, basename="ladder")

urlpatterns = [
    path("games/", views.GameList.as_view(), name="api-games"),
    path("leaderboards/<str:game>/", views.Leaderboard.as_view(), name="api-leaderboard"),
    path("games/<str:game>/stats/", stats.GameStats.as_view(), name="api-game-stats"),
    path("games/<str:game>/compare/", stats.ModelComparison.as_view(), name="api-compare"),
    path("export/<str:game>/matches.jsonl", stats.ExportMatchesJsonl.as_view(), name="api-export-matches-jsonl"),
    path("export/<str:game>/matches.csv", stats.ExportMatchesCsv.as_view(), name="api-export-matches-csv"),
    path("export/<str:game>/ratings.jsonl", stats.ExportRatingsJsonl.as_view(), name="api-export-ratings-jsonl"),
    path("export/<str:game>/ratings.csv", stats.ExportRatingsCsv.as_view(), name="api-export-ratings-csv"),
    path("register/", accounts.RegisterView.as_view(), name="api-register"),
    path("token/", accounts.TokenView.as_view(), name="api-token"),
    path("token/rotate/", accounts.RotateTokenView.as_view(), name="api-token-rotate"),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # Swagger UI starts with an inline <script> that has no nonce and holds the CSRF token (so no fixed hash
    # either): on this page alone script-src allows inline scripts. It shows no user-supplied markup.
    path("docs/", csp_replace({"script-src": [SELF, UNSAFE_INLINE]})(views.DocsView.as_view(url_name="api-schema")),
         name="api-docs"),
    path("", include(router.urls)),
]
