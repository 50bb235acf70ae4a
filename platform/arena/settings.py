"""Settings of the arena, from environment variables only.

Embedded default (no variables set): SQLite in ./var and Celery's filesystem transport, so a fresh clone
runs with no server. Production: DATABASE_URL (PostgreSQL) and CELERY_BROKER_URL (Redis).
"""
from __future__ import annotations

import json
import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from csp.constants import NONCE, NONE, SELF, UNSAFE_INLINE
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parents[2]
DATA_DIR = Path(os.environ.get("ARENA_DATA_DIR", BASE_DIR / "var")).resolve()
DATA_DIR.mkdir(parents=True, exist_ok=True)


def env_bool(name: str, default: bool = False) -> bool:
    return os.environ.get(name, str(default)).strip().lower() in {"1", "true", "yes", "on"}


def env_json_object(name: str) -> dict:
    """A JSON object from the environment ({} when unset); a clear error at start for anything else."""
    try:
        value = json.loads(os.environ.get(name) or "{}")
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name} is not valid JSON: {exc}") from None
    if not isinstance(value, dict):
        raise ImproperlyConfigured(f"{name} must be a JSON object")
    return value


# Safe by default: DEBUG only when asked for, and no site without a secret key unless it is a DEBUG one.
DEBUG = env_bool("DJANGO_DEBUG", False)
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "DJANGO_SECRET_KEY is not set. Set it to a long random string (python -c \"import secrets; "
            "print(secrets.token_urlsafe(50))\"), or set DJANGO_DEBUG=1 for local development."
        )
    SECRET_KEY = "dev-only-insecure-key-debug-mode"
ALLOWED_HOSTS = [h for h in os.environ.get("DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost,testserver").split(",") if h]
CSRF_TRUSTED_ORIGINS = [o for o in os.environ.get("DJANGO_CSRF_TRUSTED_ORIGINS", "").split(",") if o]

# HTTPS: off by default (plain-HTTP development and tests); deploy/arena.env turns all of it on.
SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT")
if env_bool("DJANGO_BEHIND_TLS_PROXY"):
    # The proxy in front terminates TLS and says so; it must strip this header from clients' requests.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = env_bool("DJANGO_SECURE_COOKIES")
# Database sessions; a cookie that cannot be a session key is no session (see arena/sessions.py).
SESSION_ENGINE = "arena.sessions"
SECURE_HSTS_SECONDS = int(os.environ.get("DJANGO_SECURE_HSTS_SECONDS", 0))
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS")
SECURE_HSTS_PRELOAD = env_bool("DJANGO_SECURE_HSTS_PRELOAD")
X_FRAME_OPTIONS = "DENY"

# Content-Security-Policy (django-csp): the pages load scripts, style sheets, images and fetch() only from this
# site. Inline scripts run only with the request's nonce (match.html: {{ request.csp_nonce }}); the nonce appears
# in the header only on responses whose template used it. connect-src (the viewer's fetch of frames.json) and
# font-src fall back to default-src. /api/docs/ relaxes script-src on that view alone (web/api/urls.py). With DEBUG,
# django-csp leaves Django's debug 404/500 pages (inline script) without the header.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF, NONCE],
        # 'unsafe-inline' for styles: the templates, the chart SVGs (web/charts.py) and the match viewer's
        # generated HTML use style="..." attributes, which a nonce cannot cover; match.html's <style> carries the
        # viewer's CSS. (With a nonce in style-src, browsers would ignore 'unsafe-inline': so no nonce here.)
        "style-src": [SELF, UNSAFE_INLINE],
        "img-src": [SELF, "data:"],  # data: the favicon in base.html, Swagger UI's icons (its CSS)
        "object-src": [NONE],
        "base-uri": [NONE],
        "frame-ancestors": [NONE],  # as X_FRAME_OPTIONS, for browsers that read only CSP
        "form-action": [SELF],
    },
}

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
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "csp",  # django-csp: its system checks (outdated CSP_* settings)
    "axes",
    "players",
    "bots",
    "tournaments",
    "ratings",
    "web",
]

MIDDLEWARE = [
    # Outermost: whatever Django answers under /api/ (404, 500, 400 of a bad Host) becomes the API's JSON error.
    "web.api.errors.ApiErrorMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # After WhiteNoise (static files need no policy), before everything that may answer a page (405s, 429s).
    "csp.middleware.CSPMiddleware",
    # A method no page serves (TRACE, PROPFIND...) is a 405 outside /api/; the pages would answer it with a 200.
    "arena.middleware.PageMethodsMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # Django's, but a missing trailing slash on a POST (PUT, PATCH, DELETE) is a 308 that keeps the body.
    "arena.middleware.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last: turns a locked-out login (too many failures) into 429 with Retry-After.
    "axes.middleware.AxesMiddleware",
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
    # Connections are kept (CONN_MAX_AGE above) as on PostgreSQL: opening one and setting it up costs a
    # worker ~2 ms a match. Pages are read through a memory map: a connection's page cache is dropped
    # whenever another worker has written, and refilling it from the map is cheaper than by read().
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 30,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA busy_timeout=30000; "
                        "PRAGMA mmap_size=268435456;",
    }
    DATABASES["default"]["TEST"] = {"NAME": str(DATA_DIR / "test-arena.sqlite3")}
elif DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # A database host that vanishes (link cut, failover) must surface as an error within seconds, not
    # after the kernel's TCP timeouts (minutes): leases are renewed every few seconds and retried.
    DATABASES["default"].setdefault("OPTIONS", {}).update({
        "connect_timeout": 5, "keepalives": 1, "keepalives_idle": 5, "keepalives_interval": 2,
        "keepalives_count": 3, "tcp_user_timeout": 8000,
    })

AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",  # refuses logins of a locked-out (username, address) first
    "django.contrib.auth.backends.ModelBackend",
]
# Failed logins (the login page, /admin/, /api/token/): after AXES_FAILURE_LIMIT failures of one username from
# one address, that pair waits out the cool-off (429 + Retry-After). Counted in the database: every web
# process sees the same count.
AXES_FAILURE_LIMIT = int(os.environ.get("ARENA_LOGIN_FAILURE_LIMIT", 5))
AXES_COOLOFF_TIME = timedelta(seconds=int(os.environ.get("ARENA_LOGIN_COOLOFF_SECONDS", 900)))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "web.api.accounts.lockout_response"
AXES_VERBOSE = False
if env_bool("DJANGO_BEHIND_TLS_PROXY"):
    AXES_IPWARE_PROXY_COUNT = 1
    AXES_IPWARE_META_PRECEDENCE_ORDER = ["HTTP_X_FORWARDED_FOR", "REMOTE_ADDR"]

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
STATIC_ROOT.mkdir(exist_ok=True)  # WhiteNoise serves from it (filled by collectstatic)
# WhiteNoise serves the collected static files (the site's CSS, the API docs' Swagger UI) from the web process
# (the image runs collectstatic; without DEBUG, run it once before serving). In DEBUG it serves them from the
# apps. (Finding them in the apps without DEBUG too would cost every test client ~70 ms.)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
MEDIA_ROOT = Path(os.environ.get("ARENA_MEDIA_ROOT", DATA_DIR / "media"))

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_PAGINATION_CLASS": "web.api.pagination.Page",
    "PAGE_SIZE": 50,
    "EXCEPTION_HANDLER": "web.api.errors.exception_handler",
    # JSON in and out (the docs are at /api/docs/), bounded in size and nesting. The upload is multipart; the
    # account endpoints also take forms.
    "DEFAULT_RENDERER_CLASSES": ["web.api.renderers.JSONRenderer"],  # DRF's, written by orjson
    "DEFAULT_PARSER_CLASSES": ["web.api.parsers.JSONBodyParser"],
    "DEFAULT_SCHEMA_CLASS": "web.api.schema.ArenaAutoSchema",
}
# A request body other than uploaded files (JSON, form fields) is refused past this size.
DATA_UPLOAD_MAX_MEMORY_SIZE = int(os.environ.get("ARENA_MAX_BODY_BYTES", 2_621_440))

SPECTACULAR_SETTINGS = {
    "TITLE": "Bot Arena API",
    "DESCRIPTION": "Bots, tournaments, matches and TrueSkill leaderboards of five board games. Reads are public; "
                   "writes need `Authorization: Token <key>`. Every error is `{\"error\": code, \"detail\": text}`.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",  # served from our own static files: no CDN
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "validatorUrl": None},  # no badge from an online validator
    "COMPONENT_SPLIT_REQUEST": True,
    "ENUM_NAME_OVERRIDES": {
        "BotVersionStatus": "bots.models.BotVersion.Status",
        "MatchStatus": "tournaments.models.Match.Status",
        "TournamentStatus": "tournaments.models.Tournament.Status",
        "TournamentFormat": "tournaments.models.Tournament.Format",
        "ScheduledTournamentStatus": "tournaments.models.ScheduledTournament.Status",
    },
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
        # An idle worker looks for a doorbell this often, so a match rung then starts within it; looking
        # 20 times a second costs an idle worker ~0.4% of a core (docs/architecture.md).
        "polling_interval": max(0.01, float(os.environ.get("ARENA_BROKER_POLL_SECONDS", 0.05))),
    }
    CELERY_BROKER_TRANSPORT = "infra.broker:Transport"  # kombu's, taking from a kept listing (infra/broker.py)
else:
    # No unacknowledged-message bookkeeping in Redis (two transactions per message): the database is the
    # truth and the reconciler re-rings a match whose message was lost (a worker killed after taking it)
    # within seconds, which Redis's redelivery after a visibility timeout would only duplicate. A worker
    # that stops gracefully puts the messages it holds back. Short socket timeouts and keepalives let a
    # worker notice a vanished broker host (link cut, restart) and reconnect.
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "ack_emulation": False,
        "socket_connect_timeout": 5, "socket_keepalive": True, "health_check_interval": 10,
    }
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("ARENA_QUEUE", "arena")
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Celery's Django fixup closes the database connection around every task (a new PostgreSQL connection per
# match: most of a short match's platform cost). Connections follow CONN_MAX_AGE instead: tournaments.running.lifecycle
# closes only unusable or old ones around each task, as Django does around each request.
CELERY_DB_REUSE_MAX = 1_000_000
# The match reconciler runs in the beat process itself (tournaments.running.lifecycle), every
# ARENA_RECONCILE_SECONDS: a task on the match queue would wait behind the backlog it must repair.
CELERY_BEAT_SCHEDULE = {
    "reconcile-validations": {"task": "tournaments.tasks.reconcile_validations", "schedule": 30.0},
}

# --- Cache ----------------------------------------------------------------------------------------
# Leaderboards and rating histories, keyed by a stamp of their ratings (ratings/selectors.py): a rating
# change makes new keys, so no process ever serves a stale board. ARENA_CACHE_URL: redis://... (shared by
# every web process), locmem:// (per process) or dummy:// (none); unset: the Redis broker's server when
# the broker is Redis (production), else files in var/cache (the embedded default).
CACHE_URL = os.environ.get("ARENA_CACHE_URL") or (
    CELERY_BROKER_URL if CELERY_BROKER_URL.startswith(("redis://", "rediss://")) else "")
if CACHE_URL.startswith(("redis://", "rediss://")):
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": CACHE_URL,
                          "KEY_PREFIX": "arena-cache", "TIMEOUT": 3600}}
elif CACHE_URL.startswith(("locmem:", "dummy:")):
    kind = "LocMemCache" if CACHE_URL.startswith("locmem:") else "DummyCache"
    CACHES = {"default": {"BACKEND": f"django.core.cache.backends.{kind.lower().replace('cache', '')}.{kind}"}}
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
                          "LOCATION": str(DATA_DIR / "cache"), "TIMEOUT": 3600,
                          "OPTIONS": {"MAX_ENTRIES": 5000}}}

# Points of one rating's history that leaderboards (?history=1) and charts return at most (evenly spaced).
ARENA_HISTORY_POINTS = int(os.environ.get("ARENA_HISTORY_POINTS", 100))

# --- The arena itself -----------------------------------------------------------------------------
ARENA = {
    # Recovery (docs/architecture.md, "Leases and recovery", has the bounds). A running match's worker renews its lease every
    # HEARTBEAT seconds; a lease not renewed for LEASE seconds (a dead worker) is handed out again.
    # LEASE must outlast a database outage of 10 s plus one heartbeat interval.
    "MATCH_LEASE_SECONDS": int(os.environ.get("ARENA_MATCH_LEASE_SECONDS", 20)),
    "HEARTBEAT_SECONDS": float(os.environ.get("ARENA_HEARTBEAT_SECONDS", 3)),
    # The reconciler's period (it runs inside `celery beat`).
    "RECONCILE_SECONDS": float(os.environ.get("ARENA_RECONCILE_SECONDS", 3)),
    # A queued match rung this long ago and not waiting in the broker's queue is rung again (a lost
    # message: empty broker restart, a worker killed between receiving and claiming).
    "RERING_AFTER_SECONDS": int(os.environ.get("ARENA_RERING_AFTER_SECONDS", 10)),
    # A match whose lease expired this many times (claims) is marked failed instead of handed out again: one
    # that kills or stalls every worker that plays it must not hold its tournament or ladder forever.
    "MAX_MATCH_ATTEMPTS": max(1, int(os.environ.get("ARENA_MAX_MATCH_ATTEMPTS", 10))),
    # A batch of matches rung at once (a large round robin, the reconciler after a broker loss) goes out as
    # at least DOORBELLS_SPREAD messages (set it to the number of worker processes or more), each naming up
    # to MATCHES_PER_DOORBELL matches that one worker plays in turn (1: a message per match).
    "MATCHES_PER_DOORBELL": max(1, int(os.environ.get("ARENA_MATCHES_PER_DOORBELL", 10))),
    "DOORBELLS_SPREAD": max(1, int(os.environ.get("ARENA_DOORBELLS_SPREAD", 64))),
    # Without a look into the broker's queue (brokers other than Redis and the filesystem), and for
    # pending bot validations: enqueue again after this long.
    "REQUEUE_AFTER_SECONDS": int(os.environ.get("ARENA_REQUEUE_AFTER_SECONDS", 300)),
    # SIGTERM on a worker: its match may go on this long, then it is handed back to the queue.
    "STOP_GRACE_SECONDS": float(os.environ.get("ARENA_STOP_GRACE_SECONDS", 8)),
    # 1: the match pipeline's commits on PostgreSQL wait for the disk too (~3 ms a match here). By default
    # they do not (synchronous_commit off for those transactions only): a crash of the database server may
    # lose their last fraction of a second, whole and in order, and the recovery plays those matches again.
    "PIPELINE_FLUSH": os.environ.get("ARENA_PIPELINE_FLUSH", "0") == "1",
    # Matches a ladder tournament with a fixed field keeps queued or running at once.
    "LADDER_PARALLEL": int(os.environ.get("ARENA_LADDER_PARALLEL", 4)),
    # The platform's rated ladder of each game (tournaments.competition.ladder): new matches per minute and matches
    # queued or running at once, per game; the mu window of opponents; table-size weights per game as
    # JSON ({"port_royal": {"2": 1, "4": 3}}; missing games: tournaments.competition.ladder.DEFAULT_WEIGHTS).
    "LADDER_MATCHES_PER_MINUTE": int(os.environ.get("ARENA_LADDER_MATCHES_PER_MINUTE", 12)),
    "LADDER_MAX_CONCURRENT": int(os.environ.get("ARENA_LADDER_MAX_CONCURRENT", 2)),
    "LADDER_MU_WINDOW": float(os.environ.get("ARENA_LADDER_MU_WINDOW", 5.0)),
    "LADDER_WEIGHTS": env_json_object("ARENA_LADDER_WEIGHTS"),
    # The scheduler (in the beat process) tops up the ladders and starts scheduled tournaments this often.
    "SCHEDULER_SECONDS": float(os.environ.get("ARENA_SCHEDULER_SECONDS", 5)),
    # How old the rated statistics pages may be: beat recounts them this often (they read every rated match).
    "STATS_SECONDS": float(os.environ.get("ARENA_STATS_SECONDS", 300)),
    "MAX_FAULTS": int(os.environ.get("ARENA_MAX_FAULTS", 3)),
    "MOVE_MS": int(os.environ.get("ARENA_MOVE_MS", 2000)),
    "MATCH_MS": int(os.environ.get("ARENA_MATCH_MS", 120_000)),
    "UPLOAD_MAX_BYTES": int(os.environ.get("ARENA_UPLOAD_MAX_BYTES", 1_000_000)),
    "VALIDATION_MATCHES": int(os.environ.get("ARENA_VALIDATION_MATCHES", 2)),
    # The regression gate: duplicate series (each one game per seat rotation) a new version plays against the
    # bot's previous valid version and the built-ins during validation (0: no gate).
    "REGRESSION_SERIES": int(os.environ.get("ARENA_REGRESSION_SERIES", 3)),
    # Work one player may queue (staff and the platform's own commands are not bound): matches in one
    # tournament, and matches still to play over all their running tournaments.
    "MAX_MATCHES_PER_TOURNAMENT": int(os.environ.get("ARENA_MAX_MATCHES_PER_TOURNAMENT", 1000)),
    "MAX_QUEUED_MATCHES_PER_USER": int(os.environ.get("ARENA_MAX_QUEUED_MATCHES_PER_USER", 2000)),
    # Staff are not bound by those, but a tournament of theirs is created in one request: a ceiling for typos.
    "MAX_MATCHES_PER_STAFF_TOURNAMENT": int(os.environ.get("ARENA_MAX_MATCHES_PER_STAFF_TOURNAMENT", 100_000)),
    # Uploaded versions a player may have waiting for validation (each plays validation matches).
    "MAX_PENDING_VERSIONS_PER_USER": int(os.environ.get("ARENA_MAX_PENDING_VERSIONS_PER_USER", 5)),
    # Scheduled tournaments and recurring schedules a player may have still to come.
    "MAX_SCHEDULED_PER_USER": int(os.environ.get("ARENA_MAX_SCHEDULED_PER_USER", 10)),
    # Accounts one address may register an hour: the bounds above are per player, so many accounts add up.
    "REGISTRATIONS_PER_HOUR": int(os.environ.get("ARENA_REGISTRATIONS_PER_HOUR", 20)),
    # A trusted run lets uploaded code run without bubblewrap: never in production.
    "TRUSTED_BOTS": env_bool("ARENA_TRUSTED_BOTS", False),
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("ARENA_LOG_LEVEL", "WARNING")},
}
