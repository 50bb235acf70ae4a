"""The Django project of the bot arena, and only the project: settings, URLs, ASGI/WSGI entry points, the
Celery app, the session engine and the site-wide middleware.

Nothing imports this package but Django and Celery themselves (through ``DJANGO_SETTINGS_MODULE``,
``ROOT_URLCONF`` and ``celery -A arena``): the apps share infrastructure through ``infra``, and their tasks
are ``shared_task``s that find the app set up here.
"""
from arena.celery import app as celery_app

__all__ = ("celery_app",)
