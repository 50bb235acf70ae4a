"""A pytest plugin loaded before Django's settings (``-p arena_env`` in pyproject.toml).

The settings refuse to start without DJANGO_SECRET_KEY unless DJANGO_DEBUG=1; tests run with DEBUG off, as
production does, so they get a key of their own. Set here, in the environment, so that every process the tests
start (xdist workers, Celery workers, scenario scripts) has it too.
"""
import os

os.environ.setdefault("DJANGO_SECRET_KEY", "tests-only-secret-key-never-used-by-a-deployment-0123456789")
# A cache per test process: tests reuse database names and empty the cache between tests, which must not
# reach into another xdist worker's cache (the embedded default, files in var/, is shared by processes).
os.environ.setdefault("ARENA_CACHE_URL", "locmem://")
# A broker queue per test process: tests that empty the queue or read what waits in it must not touch another
# xdist worker's doorbells (the embedded broker's folder, under the shared data folder, holds every queue).
# (An xdist worker inherits the controller's environment, this variable included: it names its own.)
if os.environ.get("PYTEST_XDIST_WORKER") or "ARENA_QUEUE" not in os.environ:
    os.environ["ARENA_QUEUE"] = f"arena-tests-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}"
