"""The main job on the embedded defaults: bots registered and uploaded, tournaments played on workers."""
from datetime import time
from pathlib import Path

from django.core.management import call_command
from django.core.management.base import BaseCommand

from bots.models import BotVersion
from bots.services import register_builtin_bots, upload_version
from engines.games import available_games, get_game
from engines.sandbox import sandbox_problem
from players.models import Player
from tournaments.competition.ladder import start_ladder
from tournaments.models import RecurringSchedule
from tournaments.competition.schedule import create_recurring
from tournaments.management.commands.serve import add_platform_arguments, check_port, serve
from tournaments.services import smallest_table
from tournaments.running.validation import validate_version

STARTERS = Path(__file__).resolve().parents[3] / "engines" / "sdk" / "starters"


class Command(BaseCommand):
    help = ("Register the built-in bots, upload the SDK starter bots as the player 'demo' (validated in the "
            "sandbox), play a Port Royal tournament and a short one of every other game, start the rated ladder "
            "of every game played, then serve the site with its workers and scheduler (as `serve`), which keep "
            "the ladders playing.")

    def add_arguments(self, parser):
        parser.add_argument("--games", type=int, default=8, help="matches per group in the Port Royal tournament")
        parser.add_argument("--other-games", type=int, default=2, help="matches per group in the other games")
        parser.add_argument("--no-serve", action="store_true", help="stop after the demo tournaments")
        add_platform_arguments(parser)

    def handle(self, *args, games, other_games, workers, no_serve, port, host, grace, **options):
        if not no_serve:
            check_port(host, port)  # before the demo tournaments, not after them
        register_builtin_bots()
        uploaded = self.upload_starters()
        played = []
        for game in ["port_royal"] + [g for g in available_games() if g != "port_royal"]:
            engine = get_game(game)
            bots = ["random", "heuristic"] + uploaded.get(game, [])
            seats = min(len(bots), 4, engine.max_players)
            if seats < smallest_table(game):
                self.stdout.write(f"skipping {engine.name}: it needs {smallest_table(game)} bots, "
                                  f"{len(bots)} are available")
                continue
            self.stdout.write(self.style.MIGRATE_HEADING(f"\n{engine.name}: {', '.join(bots)} at {seats} seats"))
            call_command("runtournament", game=game, bots=bots, seats=seats,
                         games=games if game == "port_royal" else other_games, seed=1,
                         name=f"{engine.name} demo", rated=True, workers=workers, stdout=self.stdout,
                         stderr=self.stderr)
            played.append(game)
        for game in played:
            ladder = start_ladder(game, seed=1)
            self.stdout.write(f"{ladder.tournament.name} started (/tournaments/{ladder.tournament_id}/)")
        if not RecurringSchedule.objects.filter(name="Port Royal cup").exists():
            create_recurring(organiser=None, name="Port Royal cup", game="port_royal", seats=4, games_per_pairing=4,
                             rated=True, every="week", weekday=4, time=time(18, 0), registration_hours=72)
        self.stdout.write("Every Friday 18:00 UTC: the Port Royal cup (authors enter their bots on /schedule/)")
        if not no_serve:
            serve(self, port=port, host=host, workers=workers, grace=grace)

    def upload_starters(self) -> dict[str, list[str]]:
        """Upload each starter once (the demo player's bot ``starter``, or ``smart``); returns valid specs."""
        problem = sandbox_problem()
        if problem:
            self.stderr.write(f"uploaded bots are skipped: the sandbox is unavailable ({problem})")
            return {}
        demo, _ = Player.objects.get_or_create(username="demo")
        specs: dict[str, list[str]] = {}
        for path in sorted(STARTERS.glob("*.py")):
            name = "smart" if path.stem.endswith("_smart") else "starter"
            game = path.stem.removesuffix("_smart")
            if game not in available_games():
                continue
            version = BotVersion.objects.filter(bot__owner=demo, bot__game=game, bot__name=name).order_by("-number").first()
            if version is None:
                version = upload_version(owner=demo, game=game, name=name, filename=path.name, data=path.read_bytes(),
                                         description=f"the SDK's {name} bot ({path.name})")
            if version.status == BotVersion.Status.PENDING:
                validate_version(version.pk)
                version.refresh_from_db()
            if version.status == BotVersion.Status.VALID:
                specs.setdefault(game, []).append(f"demo/{name}")
            else:
                self.stderr.write(f"demo/{name} ({game}) is {version.status}: {version.status_detail}")
        return specs
