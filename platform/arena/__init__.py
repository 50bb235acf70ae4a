"""The Django project of the bot arena: settings, URLs, the Celery app."""
from arena.celery import app as celery_app

__all__ = ("celery_app",)
