"""Start, stop or show the platform's rated ladders (the scheduler in `serve` / `celery beat` keeps them playing)."""
from django.core.management.base import BaseCommand, CommandError

from engines.games import available_games
from tournaments.competition import ladder
from tournaments.models import Ladder
from tournaments.selectors import tournament_progress
from tournaments.services import TournamentError


class Command(BaseCommand):
    help = "Start or stop the rated ladder of some games (default: every game), or show the ladders."

    def add_arguments(self, parser):
        parser.add_argument("action", choices=["start", "stop", "status"])
        parser.add_argument("--game", action="append", choices=available_games(), help="this game (repeatable)")

    def handle(self, *args, action, game, **options):
        games = game or available_games()
        for g in games:
            try:
                if action == "start":
                    ladder.start_ladder(g)
                elif action == "stop":
                    ladder.stop_ladder(g)
            except TournamentError as exc:
                raise CommandError(str(exc)) from None
        for lad in Ladder.objects.filter(game__in=games).select_related("tournament"):
            progress = tournament_progress(lad.tournament)
            weights = ", ".join(f"{s}: {w:g}" for s, w in ladder.ladder_weights(lad.game).items())
            self.stdout.write(f"{lad.game}: {'running' if lad.active else 'stopped'}, tournament "
                              f"{lad.tournament_id}, {progress['finished']} matches played, "
                              f"{len(ladder.active_versions(lad.game))} bots; table weights {weights}")
