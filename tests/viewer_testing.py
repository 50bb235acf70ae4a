"""Finished matches for the viewer's tests: one seat is a real uploaded bot (the game's SDK starter,
owned by a given player), played with the built-in bots and stored as the platform stores it."""
from __future__ import annotations

from pathlib import Path

STARTERS = Path(__file__).resolve().parents[1] / "engines" / "sdk" / "starters"


def stored_match(game: str, owner, seed: int = 1):
    """A finished match of ``game``: seat 0 ``owner``'s starter bot, seat 1 heuristic, seat 2 random."""
    from django.core.files.base import ContentFile
    from django.utils import timezone

    from bots.models import Bot, BotVersion
    from bots.services import register_builtin_bots
    from engines.players import make_bot
    from engines.match import play_match
    from tournaments.models import Match, MatchSeat, Tournament
    from tournaments.running.pipeline import save_match_log

    builtins = {v.builtin_name: v for v in register_builtin_bots([game])}
    code = (STARTERS / f"{game}.py").read_bytes()
    bot, _ = Bot.objects.get_or_create(owner=owner, game=game, name="starter")
    mine, _ = BotVersion.objects.get_or_create(
        bot=bot, number=1,
        defaults={"kind": BotVersion.Kind.UPLOAD, "status": BotVersion.Status.VALID, "original_name": "starter.py",
                  "size": len(code), "package": ContentFile(code, name=f"{game}-starter.py")})
    versions = [mine, builtins["heuristic"], builtins["random"]]
    bots = [make_bot(str(STARTERS / f"{game}.py"), game, seed=seed, trusted=True),
            make_bot("heuristic", game, seed=seed + 1), make_bot("random", game, seed=seed + 2)]
    log = play_match(game, bots, seed, seat_names=[v.label for v in versions])
    tournament = Tournament.objects.create(name=f"{game} viewer cup", game=game, seats_per_match=3, seed=seed,
                                           status=Tournament.Status.FINISHED, finished_at=timezone.now())
    match = Match.objects.create(tournament=tournament, game=game, seed=seed, options=log.options,
                                 status=Match.Status.FINISHED, num_moves=len(log.moves),
                                 finished_at=timezone.now())
    save_match_log(match.pk, log.to_dict())
    for seat, version in enumerate(versions):
        MatchSeat.objects.create(match=match, seat=seat, bot_version=version, rank=log.outcome["ranks"][seat],
                                 score=log.outcome["scores"][seat])
    return match
