"""Every game runs on the platform: a tournament of its built-in bots and its SDK starter (uploaded,
validated in the sandbox) is played, rated, and shown on the game's leaderboard page."""
from pathlib import Path

import pytest
from django.test import Client

from bots.services import register_builtin_bots, upload_version
from engines.games import GAME_IDS
from players.models import Player
from ratings.selectors import leaderboard
from tournaments import services
from tournaments.running import pipeline
from tournaments.models import Match
from tournaments.running.validation import validate_version

STARTERS = Path(__file__).resolve().parents[2] / "engines" / "sdk" / "starters"


@pytest.mark.sandbox
@pytest.mark.parametrize("game", GAME_IDS)
def test_a_tournament_of_every_game_reaches_its_leaderboard(game, db):
    builtins = {v.builtin_name: v for v in register_builtin_bots([game])}
    author = Player.objects.create_user("author", password="pw-author-123")
    starter = upload_version(owner=author, game=game, name="starter", filename="starter.py",
                             data=(STARTERS / f"{game}.py").read_bytes())
    assert validate_version(starter.pk) == "valid", starter.status_detail
    starter.refresh_from_db()
    tournament = services.create_tournament(name=f"{game} cup", game=game, seats=3, games_per_pairing=1, seed=2,
                                            rated=True,
                                            bot_versions=[builtins["random"], builtins["heuristic"], starter])
    for match in tournament.matches.all():
        assert pipeline.run_match(match.pk) == "finished"
    assert set(tournament.matches.values_list("status", flat=True)) == {Match.Status.FINISHED}
    assert {r.bot_version_id for r in leaderboard(game)} == {builtins["random"].pk, builtins["heuristic"].pk,
                                                             starter.pk}
    html = Client().get(f"/games/{game}/").content.decode()
    assert "author/starter v1" in html and "heuristic v1" in html
