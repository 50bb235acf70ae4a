"""Settings of the arena, from environment variables only.

Embedded default (no variables set): SQLite in ./var and Celery's filesystem transport, so a fresh clone
runs with no server. Production: DATABASE_URL (PostgreSQL) and CELERY_BROKER_URL (Redis).
"""
from __future__ import annotations

import os
from pathlib import Path

import dj_database_url

BASE_DIR = Path(__file__).resolve().parents[2]
DATA_DIR = Path(os.environ.get("ARENA_DATA_DIR", BASE_DIR / "var")).resolve()
DATA_DIR.mkdir(parents=True, exist_ok=True)


def env_bool(name: str, default: bool = False) -> bool:
    return os.environ.get(name, str(default)).strip().lower() in {"1", "true", "yes", "on"}


SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "dev-only-insecure-key-change-me-in-production")
DEBUG = env_bool("DJANGO_DEBUG", True)
ALLOWED_HOSTS = [h for h in os.environ.get("DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost,testserver").split(",") if h]
CSRF_TRUSTED_ORIGINS = [o for o in os.environ.get("DJANGO_CSRF_TRUSTED_ORIGINS", "").split(",") if o]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "rest_framework",
    "rest_framework.authtoken",
    "players",
    "bots",
    "tournaments",
    "ratings",
    "web",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "arena.urls"
WSGI_APPLICATION = "arena.wsgi.application"
ASGI_APPLICATION = "arena.asgi.application"
AUTH_USER_MODEL = "players.Player"
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "web.context.games",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL", f"sqlite:///{DATA_DIR / 'arena.sqlite3'}"), conn_max_age=60
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Several worker processes write at once: WAL lets readers go on, IMMEDIATE transactions take the
    # write lock up front (no deadlocking upgrade), and the busy timeout waits instead of failing.
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 30,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA busy_timeout=30000;",
    }
    DATABASES["default"]["TEST"] = {"NAME": str(DATA_DIR / "test-arena.sqlite3")}
elif DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # A database host that vanishes (link cut, failover) must surface as an error within seconds, not
    # after the kernel's TCP timeouts (minutes): leases are renewed every few seconds and retried.
    DATABASES["default"].setdefault("OPTIONS", {}).update({
        "connect_timeout": 5, "keepalives": 1, "keepalives_idle": 5, "keepalives_interval": 2,
        "keepalives_count": 3, "tcp_user_timeout": 8000,
    })

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
STATIC_URL = "static/"
STATIC_ROOT = DATA_DIR / "static"
MEDIA_ROOT = Path(os.environ.get("ARENA_MEDIA_ROOT", DATA_DIR / "media"))

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.LimitOffsetPagination",
    "PAGE_SIZE": 50,
    "EXCEPTION_HANDLER": "web.api.errors.exception_handler",
}

# --- Celery ---------------------------------------------------------------------------------------
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "filesystem://")
BROKER_DIR = DATA_DIR / "broker"
if CELERY_BROKER_URL.startswith("filesystem"):
    for sub in ("queue", "processed", "control"):
        (BROKER_DIR / sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(BROKER_DIR / "queue"),
        "data_folder_out": str(BROKER_DIR / "queue"),
        "processed_folder": str(BROKER_DIR / "processed"),
        "control_folder": str(BROKER_DIR / "control"),
        "store_processed": False,
        "polling_interval": 0.2,
    }
else:
    # Longer than the longest match, so Redis does not hand a running match to a second worker.
    # The reconciler re-rings a match whose message was lost within seconds, so a late redelivery
    # after the visibility timeout only finds nothing to claim. Short socket timeouts and keepalives
    # let a worker notice a vanished broker host (link cut, restart) and reconnect.
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "visibility_timeout": int(os.environ.get("ARENA_VISIBILITY_TIMEOUT", 3600)),
        "socket_connect_timeout": 5, "socket_keepalive": True, "health_check_interval": 10,
    }
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("ARENA_QUEUE", "arena")
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# The match reconciler runs in the beat process itself (tournaments.lifecycle), every
# ARENA_RECONCILE_SECONDS: a task on the match queue would wait behind the backlog it must repair.
CELERY_BEAT_SCHEDULE = {
    "reconcile-validations": {"task": "tournaments.tasks.reconcile_validations", "schedule": 30.0},
}

# --- The arena itself -----------------------------------------------------------------------------
ARENA = {
    # Recovery (deploy/SCALING.md has the bounds). A running match's worker renews its lease every
    # HEARTBEAT seconds; a lease not renewed for LEASE seconds (a dead worker) is handed out again.
    # LEASE must outlast a database outage of 10 s plus one heartbeat interval.
    "MATCH_LEASE_SECONDS": int(os.environ.get("ARENA_MATCH_LEASE_SECONDS", 20)),
    "HEARTBEAT_SECONDS": float(os.environ.get("ARENA_HEARTBEAT_SECONDS", 3)),
    # The reconciler's period (it runs inside `celery beat`).
    "RECONCILE_SECONDS": float(os.environ.get("ARENA_RECONCILE_SECONDS", 3)),
    # A queued match rung this long ago and not waiting in the broker's queue is rung again (a lost
    # message: empty broker restart, a worker killed between receiving and claiming).
    "RERING_AFTER_SECONDS": int(os.environ.get("ARENA_RERING_AFTER_SECONDS", 10)),
    # Without a look into the broker's queue (brokers other than Redis and the filesystem), and for
    # pending bot validations: enqueue again after this long.
    "REQUEUE_AFTER_SECONDS": int(os.environ.get("ARENA_REQUEUE_AFTER_SECONDS", 300)),
    # SIGTERM on a worker: its match may go on this long, then it is handed back to the queue.
    "STOP_GRACE_SECONDS": float(os.environ.get("ARENA_STOP_GRACE_SECONDS", 8)),
    # Matches a ladder keeps queued or running at once.
    "LADDER_PARALLEL": int(os.environ.get("ARENA_LADDER_PARALLEL", 4)),
    "MAX_FAULTS": int(os.environ.get("ARENA_MAX_FAULTS", 3)),
    "MOVE_MS": int(os.environ.get("ARENA_MOVE_MS", 2000)),
    "MATCH_MS": int(os.environ.get("ARENA_MATCH_MS", 120_000)),
    "UPLOAD_MAX_BYTES": int(os.environ.get("ARENA_UPLOAD_MAX_BYTES", 1_000_000)),
    "VALIDATION_MATCHES": int(os.environ.get("ARENA_VALIDATION_MATCHES", 2)),
    # Work one player may queue (staff and the platform's own commands are not bound): matches in one
    # tournament, and matches still to play over all their running tournaments.
    "MAX_MATCHES_PER_TOURNAMENT": int(os.environ.get("ARENA_MAX_MATCHES_PER_TOURNAMENT", 1000)),
    "MAX_QUEUED_MATCHES_PER_USER": int(os.environ.get("ARENA_MAX_QUEUED_MATCHES_PER_USER", 2000)),
    # A trusted run lets uploaded code run without bubblewrap: never in production.
    "TRUSTED_BOTS": env_bool("ARENA_TRUSTED_BOTS", False),
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("ARENA_LOG_LEVEL", "WARNING")},
}
