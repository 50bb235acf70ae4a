"""Replay the rated history under another rating model into its own table (ModelRating)."""
from django.core.management.base import BaseCommand

from engines.games import GAME_IDS
from ratings.recompute import RATERS, recompute


class Command(BaseCommand):
    help = ("Replay every rated match, in the order it was rated, under a rating model (trueskill, openskill, "
            "elo) into ModelRating: overall and per player-count bracket. The live ratings are not touched.")

    def add_arguments(self, parser):
        parser.add_argument("--model", required=True, choices=list(RATERS))
        parser.add_argument("--game", choices=GAME_IDS, help="only this game (default: every game)")

    def handle(self, *args, model, game=None, **options):
        for g in [game] if game else GAME_IDS:
            rows = recompute(g, model)
            self.stdout.write(f"{g}: {rows} {model} ratings")
