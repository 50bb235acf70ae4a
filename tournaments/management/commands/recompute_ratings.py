"""Replay the rated history under another rating model into its own table (ModelRating)."""
from django.core.management.base import BaseCommand, CommandError

from engines.games import GAME_IDS
from tournaments.results.recompute import RATERS, recompute
from tournaments.results.recompute import rebuild_brackets as brackets


class Command(BaseCommand):
    help = ("Replay every rated match, in the order it was rated, under a rating model (trueskill, openskill, "
            "elo) into ModelRating: overall and per player-count bracket. The live ratings are not touched.")

    def add_arguments(self, parser):
        parser.add_argument("--model", choices=list(RATERS))
        parser.add_argument("--rebuild-brackets", action="store_true",
                            help="instead: rebuild the live player-count bracket ratings from the rated history "
                                 "(once, for matches rated before brackets existed; holds each game's rating lock)")
        parser.add_argument("--game", choices=GAME_IDS, help="only this game (default: every game)")

    def handle(self, *args, model=None, game=None, rebuild_brackets=False, **options):
        if bool(model) == rebuild_brackets:
            raise CommandError("give either --model or --rebuild-brackets")
        for g in [game] if game else GAME_IDS:
            if rebuild_brackets:
                self.stdout.write(f"{g}: {brackets(g)} live bracket ratings rebuilt")
            else:
                self.stdout.write(f"{g}: {recompute(g, model)} {model} ratings")
