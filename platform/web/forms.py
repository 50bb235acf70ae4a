from django.contrib.auth.forms import UserCreationForm

from players.models import Player


class RegisterForm(UserCreationForm):
    class Meta(UserCreationForm.Meta):
        model = Player
        fields = ("username", "email")
