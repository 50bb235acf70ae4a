"""Export every rated match (or the ratings) as JSON lines or CSV, streamed to a file or stdout."""
from django.core.management.base import BaseCommand, CommandError

from engines.games import GAME_IDS
from tournaments.results.export import FORMATS, export
from ratings.models import ModelRating


class Command(BaseCommand):
    help = "Export the rated matches (match, game, options, seats, places, scores) or the ratings."

    def add_arguments(self, parser):
        parser.add_argument("--game", choices=GAME_IDS, help="only this game (default: every game)")
        parser.add_argument("--ruleset", help="only this rated ruleset")
        parser.add_argument("--format", default="jsonl", choices=FORMATS)
        parser.add_argument("--what", default="matches", choices=["matches", "ratings"])
        parser.add_argument("--model", choices=ModelRating.Model.values,
                            help="--what ratings: the ratings recompute_ratings computed under this model")
        parser.add_argument("--output", "-o", default="-", help="a file (default: standard output)")

    def handle(self, *args, game=None, ruleset=None, format="jsonl", what="matches", output="-", model=None,
               **options):
        if model and what != "ratings":
            raise CommandError("--model goes with --what ratings")
        chunks = export(what, format, game, ruleset, model)
        if output == "-":
            for chunk in chunks:
                self.stdout.write(chunk, ending="")
            return
        with open(output, "w", encoding="utf-8", newline="") as out:
            out.writelines(chunks)
