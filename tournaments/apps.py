from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = "Tournaments and matches"

    def ready(self) -> None:
        from tournaments import lifecycle  # noqa: F401  (connects the Celery signal receivers)
