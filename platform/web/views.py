"""Server-rendered pages: leaderboards, tournaments, matches, bots, accounts."""
from __future__ import annotations

import re

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, JsonResponse
from django.urls import reverse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST
from rest_framework.authtoken.models import Token

from bots.models import Bot, BotVersion
from bots.selectors import regression_results, versions_of_owner
from bots.services import UploadError, read_upload, update_bot, upload_version
from engines.games import available_games, get_game
from engines.view import shell_assets
from players.services import revoke_token, rotate_token
from ratings.brackets import brackets_for
from ratings.models import PROVISIONAL_SIGMA
from ratings.selectors import STANDARD, board_size, board_stamp, board_stamps, leaderboard_rows, rating_history
from tournaments.competition import schedule
from tournaments.results import bot_record as bot_selectors
from tournaments.results.bot_record import RECORD_WINDOW, BotRecord
from tournaments.competition.ladder import ladder_queue, ladder_summary
from tournaments.models import Ladder, Match, RecurringSchedule, ScheduledTournament, Tournament
from tournaments.selectors import match_log as stored_log
from tournaments.selectors import (matches_of, with_seats, public_log, tournament_progress, tournament_series, tournament_standings,
                                   visible_matches)
from web.api.accounts import registration_refusal, registration_wait
from web.charts import rating_chart
from web.forms import BotSettingsForm, RegisterForm, UploadForm
from web.viewer import SeatViewRefused, allowed_seat_views, frames_gzip, gzipped_json


class CountedPaginator(Paginator):
    """A paginator told its count (already known: no second COUNT query)."""

    def __init__(self, object_list, per_page, *, count: int):
        super().__init__(object_list, per_page)
        self.__dict__["count"] = count  # fills the cached property


def _game_or_404(game_id: str):
    if game_id not in available_games():
        raise Http404(f"unknown game {game_id}")
    return get_game(game_id)


def home(request):
    stamps = board_stamps(available_games())
    boards = [{"game": get_game(g), "top": leaderboard_rows(g, STANDARD, 0, 3, stamp=stamps[g])["rows"]}
              for g in available_games()]
    recent = Tournament.objects.select_related("created_by")[:8]
    return render(request, "web/home.html", {"boards": boards, "recent": recent})


#: Rows on a page of a leaderboard; the chart shows the first CHART_BOTS of the board.
BOARD_PAGE, CHART_BOTS = 100, 10


def _query_without_page(request) -> str:
    """The request's other query parameters, for the pager's links (``a=1&`` or empty)."""
    query = request.GET.copy()
    query.pop("page", None)
    return query.urlencode() + "&" if query else ""


def game_leaderboard(request, game: str):
    """The public ratings of one rated ruleset of a game (``?ruleset=``, default standard), 100 a page
    (``?page=``), or the bots whose name or owner contains ``?q=`` with their places; ``?players=``: those
    of one player-count bracket (2, 3-4, 5-6)."""
    engine = _game_or_404(game)
    ruleset = request.GET.get("ruleset") or STANDARD
    if ruleset not in engine.rated_presets:
        raise Http404(f"{game} has no rated ruleset {ruleset}")
    brackets = brackets_for(engine.preset_players(ruleset))
    players = request.GET.get("players")
    if players is not None and players not in brackets:
        raise Http404(f"{game} ({ruleset}) has no player-count bracket {players[:40]}")
    # Lenient as the search box is: a NUL (which no name holds, and PostgreSQL refuses: a 500) is dropped.
    search = request.GET.get("q", "").replace("\x00", "").strip()[:64]
    stamp = board_stamp(game, ruleset, players)
    size = (leaderboard_rows(game, ruleset, 0, 1, search=search, stamp=stamp, players=players)["count"]
            if search else board_size(game, ruleset, players, stamp))
    page = Paginator(range(size), BOARD_PAGE).get_page(request.GET.get("page"))
    rows = leaderboard_rows(game, ruleset, page.start_index() - 1 if size else 0, BOARD_PAGE, search=search,
                            stamp=stamp, players=players)["rows"]
    # Rating histories are kept for the overall ratings only.
    top = leaderboard_rows(game, ruleset, 0, CHART_BOTS, history=True, stamp=stamp)["rows"] if players is None else []
    chart = rating_chart([(r["label"], r["history"]) for r in top])
    tournaments = Tournament.objects.filter(game=game, rated=True, ruleset=ruleset)[:10]
    return render(request, "web/leaderboard.html", {
        "engine": engine, "ruleset": ruleset, "rulesets": list(engine.rated_presets),
        "ruleset_options": engine.rated_presets[ruleset], "ruleset_players": engine.preset_players(ruleset),
        "ratings": rows, "page": page, "pager_query": _query_without_page(request), "search": search,
        "chart": chart, "chart_bots": CHART_BOTS, "players": players, "brackets": brackets,
        "provisional_sigma": PROVISIONAL_SIGMA, "tournaments": tournaments})


def tournament_list(request):
    page = Paginator(Tournament.objects.select_related("created_by"), 25).get_page(request.GET.get("page"))
    return render(request, "web/tournament_list.html", {"page": page})


def schedule_page(request):
    """What is coming: the running ladders, scheduled tournaments (with their entrants), recurring schedules,
    and the latest that started, with links to their results. A logged-in author enters their bots here
    (and sees their entries and results)."""
    upcoming = list(schedule.upcoming().prefetch_related("registrations__bot_version__bot__owner"))
    now = timezone.now()
    mine, entries = {}, []
    if request.user.is_authenticated:
        valid = (BotVersion.objects.filter(bot__owner=request.user, status=BotVersion.Status.VALID)
                 .select_related("bot__owner").order_by("bot__name", "-number"))
        for t in upcoming:
            t.open_now = schedule.registration_open(t, now)
            t.mine = [r for r in t.registrations.all() if r.bot_version.bot.owner_id == request.user.pk]
            mine[t.pk] = [v for v in valid if v.bot.game == t.game]
        entries = schedule.entries_of(request.user)
    for t in upcoming:
        t.choices = mine.get(t.pk, [])
    return render(request, "web/schedule.html", {
        "ladders": [_ladder_line(x) for x in Ladder.objects.filter(active=True).select_related("tournament")],
        "upcoming": upcoming, "entries": entries,
        "recurring": RecurringSchedule.objects.filter(active=True).select_related("organiser"),
        "recent": schedule.recent(), "now": now,
    })


def _ladder_line(lad: Ladder) -> dict:
    summary = ladder_summary(lad)
    tables = ", ".join(f"{t['players']}p ({t['ruleset']}) ×{t['weight']:g}" for t in summary["tables"] if t["reachable"])
    return summary | {"name": lad.tournament.name, "tables_text": tables or "none yet (too few authors)"}


@login_required
@require_POST
def schedule_register(request, pk: int):
    """An author enters a bot version (or changes the version of an entered bot), or withdraws a bot."""
    scheduled = get_object_or_404(ScheduledTournament, pk=pk)
    try:
        if "withdraw" in request.POST:
            bot = get_object_or_404(Bot, pk=_post_id(request, "withdraw"))
            schedule.withdraw(scheduled, bot, request.user)
            messages.success(request, f"{bot.name} withdrawn from {scheduled.name}.")
        else:
            version = get_object_or_404(BotVersion.objects.select_related("bot__owner"), pk=_post_id(request, "version"))
            schedule.register(scheduled, version, request.user)
            messages.success(request, f"{version.label} entered in {scheduled.name}.")
    except (schedule.ScheduleError, schedule.NotAllowed) as exc:
        messages.error(request, str(exc))
    return redirect("schedule")


def _post_id(request, name: str) -> int:
    raw = request.POST.get(name, "")
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 18):
        raise Http404(f"bad {name}")
    return int(raw)


def tournament_detail(request, pk: int):
    tournament = get_object_or_404(Tournament, pk=pk)
    progress = tournament_progress(tournament)
    page = CountedPaginator(matches_of(tournament), 50, count=progress["total"]).get_page(request.GET.get("page"))
    standings = tournament_standings(tournament)
    matches = with_seats(page.object_list, {row["bot_version"].pk: row["label"] for row in standings})
    champion = tournament.plan.get("champion") if tournament.plan else None
    return render(request, "web/tournament.html", {
        "tournament": tournament, "champion": BotVersion.objects.filter(pk=champion).first() if champion else None,
        "engine": get_game(tournament.game), "progress": progress,
        "percent": int(100 * progress["done"] / progress["total"]) if progress["total"] else 100,
        "standings": standings, "page": page, "matches": matches, "series": tournament_series(tournament),
    })


def match_detail(request, pk: int):
    match = get_object_or_404(visible_matches(request.user).select_related("tournament"), pk=pk)
    engine = get_game(match.game)
    seats = list(match.seats.select_related("bot_version__bot__owner").order_by("seat"))
    # A bot's faults are public (the viewer marks them); its stderr is shown to its owner only.
    own_seats = [s for s in seats if request.user.is_authenticated and s.bot_version.bot.owner_id == request.user.pk]
    ranked = sorted(seats, key=lambda s: (s.rank if s.rank is not None else 99, s.seat))
    viewer = None
    if match.status == Match.Status.FINISHED:
        viewer = {"assets": shell_assets(match.game),
                  "config": {"framesUrl": reverse("match-frames", args=[match.pk]),
                             "allowedSeats": allowed_seat_views(match, request.user)}}
    # An engine error's traceback names the server's files (and a bot's package): for staff only.
    return render(request, "web/match.html", {"match": match, "engine": engine, "seats": ranked,
                                              "own_seats": own_seats, "viewer": viewer,
                                              "show_error": request.user.is_staff})


def match_frames(request, pk: int):
    """The viewer's data of a finished match (``?seat=K``: that seat's view, if the requester may see it)."""
    match = get_object_or_404(visible_matches(request.user), pk=pk)
    seat = request.GET.get("seat")
    if seat is not None and not seat.isdigit():
        return JsonResponse({"error": "invalid", "detail": "seat must be a seat number"}, status=400)
    try:
        body = frames_gzip(match, None if seat is None else int(seat), request.user)
    except SeatViewRefused as exc:
        return JsonResponse({"error": "forbidden", "detail": str(exc)}, status=403)
    except LookupError as exc:
        return JsonResponse({"error": "not_found", "detail": str(exc)}, status=404)
    except ValueError as exc:
        return JsonResponse({"error": "invalid", "detail": str(exc)}, status=400)
    return gzipped_json(request, body)


def match_log(request, pk: int):
    match = get_object_or_404(visible_matches(request.user), pk=pk)
    stored = stored_log(match)
    if stored is None:
        raise Http404(f"match {pk} has no log yet")
    response = JsonResponse(public_log(stored))
    response["Content-Disposition"] = f'attachment; filename="match-{pk}.json"'
    return response


#: Rating-history charts on a bot's page: its newest versions' ratings, each over its latest matches.
BOT_CHART_RATINGS, BOT_CHART_POINTS = 8, 200
#: Seats of the bot per page of its recent matches.
BOT_PAGE_SEATS = 20


def bot_detail(request, pk: int):
    """A bot: its versions and their ratings, rating history, recent matches with places (``?before=`` a
    match id: older ones), faults linked to their move, and head-to-head against its frequent opponents."""
    bot = get_object_or_404(Bot.objects.select_related("owner"), pk=pk)
    versions = list(bot.versions.prefetch_related("ratings").order_by("-number"))
    is_owner = request.user.is_authenticated and request.user.pk == bot.owner_id
    before = request.GET.get("before")
    if before is not None and not re.fullmatch(r"[0-9]{1,18}", before):
        raise Http404("before must be a match id")
    record = BotRecord(bot, request.user, version_ids=[v.pk for v in versions])
    recent, older = record.recent_matches(before=None if before is None else int(before), limit=BOT_PAGE_SEATS)
    rated = [(v, r) for v in versions for r in v.ratings.all() if r.games][:BOT_CHART_RATINGS]
    chart = rating_chart([(f"v{v.number} ({r.ruleset})", rating_history(r, last=BOT_CHART_POINTS)) for v, r in rated])
    settings_form = BotSettingsForm(initial={"accepts_challenges": bot.accepts_challenges}) if is_owner else None
    counted = record.counted_record()
    return render(request, "web/bot.html", {
        "bot": bot, "versions": versions, "is_owner": is_owner, "settings_form": settings_form, "chart": chart,
        "recent": recent, "older": older, "paged": before is not None,
        "faults": counted["faults"], "head_to_head": counted["head_to_head"], "record_at": counted["at"],
        "record_seconds": bot_selectors.RECORD_SECONDS,
        "record_window": RECORD_WINDOW, "chart_points": BOT_CHART_POINTS,
        "regression": regression_results(versions, request.user), "ladder_queue": ladder_queue(bot)})


@login_required
@require_POST
def bot_settings(request, pk: int):
    """The owner changes the bot's settings (whether it accepts challenges)."""
    bot = get_object_or_404(Bot, pk=pk, owner=request.user)
    form = BotSettingsForm(request.POST)
    if form.is_valid():
        update_bot(bot, accepts_challenges=form.cleaned_data["accepts_challenges"])
        messages.success(request, f"{bot.name} {'accepts' if bot.accepts_challenges else 'does not accept'} "
                                  "challenges now.")
    return redirect("bot", pk=bot.pk)


def register(request):
    """The registration page; new accounts from one address are bounded as in the API (429 past the bound)."""
    form = RegisterForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        wait = registration_wait(request)
        if wait is not None:
            form.add_error(None, registration_refusal(wait))
            response = render(request, "registration/register.html", {"form": form}, status=429)
            response["Retry-After"] = str(wait)
            return response
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, f"Welcome, {user.username}. Upload your first bot below.")
        return redirect("me")
    return render(request, "registration/register.html", {"form": form})


@login_required
@never_cache  # the page shows the API token: no browser or proxy may keep a copy (back button, shared cache)
def me(request):
    """The player's own page: their API token and every version of their bots with its status."""
    token = Token.objects.filter(user=request.user).first()
    return render(request, "web/me.html", {"versions": versions_of_owner(request.user),
                                           "token": token.key if token else None})


@login_required
@require_POST
def token_rotate(request):
    """A new API token (the old one stops working); CSRF-protected like every POST form."""
    rotate_token(request.user)
    messages.success(request, "Your API token is new; the old one no longer works.")
    return redirect("me")


@login_required
@require_POST
def token_revoke(request):
    revoke_token(request.user)
    messages.success(request, "Your API token is revoked; create a new one when you need it.")
    return redirect("me")


@login_required
def upload(request):
    form = UploadForm(request.POST or None, request.FILES or None, initial={"game": request.GET.get("game")})
    if request.method == "POST" and form.is_valid():
        d = form.cleaned_data
        try:
            version = upload_version(owner=request.user, game=d["game"], name=d["name"], filename=d["file"].name,
                                     data=read_upload(d["file"]), description=d["description"],
                                     accepts_challenges=d["accepts_challenges"] or None)
        except UploadError as exc:
            form.add_error("file", str(exc))
        else:
            messages.success(request, f"{version.label} uploaded; it plays its validation matches now.")
            return redirect("bot", pk=version.bot_id)
    return render(request, "web/upload.html", {"form": form})


def staff_health(request):
    """Queued, running and stalled matches, leases and worker heartbeats; staff only (404 otherwise)."""
    if not request.user.is_staff:
        raise Http404("no such page")
    from tournaments.running.health import snapshot

    return render(request, "web/staff_health.html", {"health": snapshot()})
