from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = "Tournaments and matches"

    def ready(self) -> None:
        from bots.models import BotVersion
        from bots.signals import version_uploaded
        from tournaments.running.validation import on_version_uploaded

        version_uploaded.connect(on_version_uploaded, sender=BotVersion, dispatch_uid="tournaments.running.validation")
        from tournaments.competition import ladder  # noqa: F401  (the ladder's top-up)
        from tournaments.running import lifecycle  # noqa: F401  (the Celery signal receivers)
