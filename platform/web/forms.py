from django import forms
from django.contrib.auth.forms import UserCreationForm

from bots.services import UploadError, check_description
from engines.games import available_games, get_game

from players.models import Player
from players.services import username_problem


class RegisterForm(UserCreationForm):
    class Meta(UserCreationForm.Meta):
        model = Player
        fields = ("username", "email")

    def clean_username(self) -> str:
        username = super().clean_username()  # None: Django's own case check has already said why
        problem = username and username_problem(username)
        if problem:
            raise forms.ValidationError(problem)
        return username


class UploadForm(forms.Form):
    game = forms.ChoiceField(choices=[])
    name = forms.SlugField(max_length=64, help_text="lower-case letters, digits, - and _; a new upload under an "
                                                     "existing name becomes its next version")
    description = forms.CharField(max_length=300, required=False)
    file = forms.FileField(help_text="a single .py or .js file, or a .zip with main.py or main.js, or with a bot.json "
                                     'naming the command: {"command": ["node", "bot.js"]}, or ["./bot"] for your '
                                     "own static Linux x86-64 executable")
    accepts_challenges = forms.BooleanField(
        required=False, label="Accept challenges",
        help_text="other players may enter this bot in their friendly tournaments (you can change this on the "
                  "bot's page)")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["game"].choices = [(g, get_game(g).name) for g in available_games()]

    def clean_description(self) -> str:
        """The upload's own check (``bots.services.check_description``), said under the description's field."""
        description = self.cleaned_data["description"]
        try:
            check_description(description)
        except UploadError as exc:
            raise forms.ValidationError(str(exc)) from None
        return description


class BotSettingsForm(forms.Form):
    """What the owner changes on the bot's page."""

    accepts_challenges = forms.BooleanField(required=False, label="Accept challenges")
