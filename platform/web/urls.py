from django.contrib.auth import views as auth_views
from django.urls import path

from web import stats_views, views

urlpatterns = [
    path("", views.home, name="home"),
    path("games/<str:game>/", views.game_leaderboard, name="leaderboard"),
    path("games/<str:game>/stats/", stats_views.game_stats, name="game-stats"),
    path("games/<str:game>/compare/", stats_views.game_compare, name="compare"),
    path("tournaments/", views.tournament_list, name="tournaments"),
    path("tournaments/<int:pk>/", views.tournament_detail, name="tournament"),
    path("schedule/", views.schedule_page, name="schedule"),
    path("schedule/<int:pk>/register/", views.schedule_register, name="schedule-register"),
    path("matches/<int:pk>/", views.match_detail, name="match"),
    path("matches/<int:pk>/log.json", views.match_log, name="match-log"),
    path("matches/<int:pk>/frames.json", views.match_frames, name="match-frames"),
    path("bots/<int:pk>/", views.bot_detail, name="bot"),
    path("bots/<int:pk>/settings/", views.bot_settings, name="bot-settings"),
    path("me/", views.me, name="me"),
    path("staff/health/", views.staff_health, name="staff-health"),
    path("me/token/rotate/", views.token_rotate, name="token-rotate"),
    path("me/token/revoke/", views.token_revoke, name="token-revoke"),
    path("bots/upload/", views.upload, name="upload"),
    path("accounts/register/", views.register, name="register"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
]
