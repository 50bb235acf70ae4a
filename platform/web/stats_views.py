"""Pages of a game's statistics and of its rankings under the other rating models."""
from __future__ import annotations

import re

from django.http import Http404
from django.shortcuts import render

from ratings.brackets import brackets_for
from ratings.selectors import STANDARD, model_comparison
from tournaments.results.statistics import DEFAULT_TOP, MAX_TOP, cached_game_statistics
from tournaments.models import Tournament
from web.stat_charts import head_to_head_grid, histogram_chart, rank_scatter, seat_chart
from web.views import _game_or_404


ID_RE = re.compile(r"[0-9]{1,18}")  # a database id: ASCII digits only


def _choice(request, name: str, choices, default=None):
    """A query parameter that must be one of ``choices`` when given (a 404 otherwise, as for ``?ruleset=``)."""
    value = request.GET.get(name)
    if value is None:
        return default
    if value not in choices:
        raise Http404(f"no {name} {value[:40]!r}")
    return value


def game_stats(request, game: str):
    """Head-to-head of the best rated bots, results by seat, score distributions, match lengths: over the
    game's rated matches (``?ruleset=``), or one tournament's (``?tournament=``); ``?top=`` bots in the matrix."""
    engine = _game_or_404(game)
    ruleset = _choice(request, "ruleset", engine.rated_presets)
    tournament = None
    if "tournament" in request.GET:
        raw = request.GET["tournament"]
        tournament = Tournament.objects.filter(pk=int(raw), game=game).first() if ID_RE.fullmatch(raw) else None
        if tournament is None:
            raise Http404(f"no {engine.name} tournament {raw[:40]!r}")
    top = int(_choice(request, "top", [str(n) for n in range(1, MAX_TOP + 1)], str(DEFAULT_TOP)))
    stats = cached_game_statistics(game, ruleset, tournament.pk if tournament else None, top)
    return render(request, "web/stats.html", {
        "engine": engine, "ruleset": ruleset, "rulesets": list(engine.rated_presets), "tournament": tournament,
        "top": top, "stats": stats, "h2h": head_to_head_grid(stats["head_to_head"]),
        "seat_chart": seat_chart(stats["seats"]),
        "score_chart": histogram_chart([("every seat", stats["scores"]["bins"]),
                                        ("winners", stats["scores"]["winner_bins"])],
                                       "score"),
        "length_chart": histogram_chart([("matches", stats["lengths"]["bins"])], "moves per match"),
    })


def game_compare(request, game: str):
    """The live TrueSkill ranking beside the rankings recomputed under openskill and Elo (``recompute_ratings``),
    with each model's rank correlation to the live one."""
    engine = _game_or_404(game)
    ruleset = _choice(request, "ruleset", engine.rated_presets, STANDARD)
    players = _choice(request, "players", brackets_for(engine.preset_players(ruleset)))
    comparison = model_comparison(game, ruleset, players)
    return render(request, "web/compare.html", {
        "engine": engine, "ruleset": ruleset, "rulesets": list(engine.rated_presets), "players": players,
        "brackets": brackets_for(engine.preset_players(ruleset)), "comparison": comparison,
        "rows": [{**row, "cells": [row["places"][m] for m in comparison["models"]]} for row in comparison["rows"]],
        "scatter": rank_scatter(comparison),
    })
