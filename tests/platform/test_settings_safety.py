"""Safe by default: DEBUG only when asked for, no start without a secret key (unless DEBUG), and the deploy/
configuration passes `manage.py check --deploy` with no warning. Each case runs manage.py in a fresh process
with a clean environment (only what the case sets)."""
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"


def deploy_env() -> dict[str, str]:
    """The variables of deploy/arena.env (KEY=VALUE lines, # comments)."""
    pairs = {}
    for line in (DEPLOY / "arena.env").read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            key, _, value = line.partition("=")
            pairs[key.strip()] = value.strip()
    return pairs


def manage(tmp_path, *args: str, **env: str) -> subprocess.CompletedProcess:
    clean = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path),
             "ARENA_DATA_DIR": str(tmp_path / "data"), **env}
    return subprocess.run([sys.executable, str(ROOT / "manage.py"), *args], env=clean, capture_output=True,
                          text=True, timeout=120, cwd=tmp_path)


PRINT_DEBUG = ["shell", "-c", "from django.conf import settings; print('DEBUG', settings.DEBUG)"]
STRONG_KEY = secrets.token_urlsafe(50)


def test_debug_is_off_unless_asked_for(tmp_path):
    assert "DEBUG False" in manage(tmp_path, *PRINT_DEBUG, DJANGO_SECRET_KEY=STRONG_KEY).stdout
    assert "DEBUG True" in manage(tmp_path, *PRINT_DEBUG, DJANGO_DEBUG="1").stdout


@pytest.mark.parametrize("env", [{}, {"DJANGO_DEBUG": "0"}, {"DJANGO_SECRET_KEY": ""}])
def test_without_a_secret_key_the_site_refuses_to_start(tmp_path, env):
    result = manage(tmp_path, "check", **env)
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr and "DJANGO_SECRET_KEY is not set" in result.stderr
    assert "DJANGO_DEBUG=1" in result.stderr  # the message says how to run locally


def test_debug_runs_without_a_key_for_local_development(tmp_path):
    result = manage(tmp_path, "check", DJANGO_DEBUG="1")
    assert result.returncode == 0, result.stderr


def test_the_deploy_configuration_passes_check_deploy(tmp_path):
    result = manage(tmp_path, "check", "--deploy", "--fail-level", "WARNING", **deploy_env(),
                    DJANGO_SECRET_KEY=STRONG_KEY, DJANGO_ALLOWED_HOSTS="arena.example.org")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_check_deploy_fails_without_the_deploy_settings(tmp_path):
    """The check above can fail: a key alone is not a deployment (no HTTPS redirect, cookies, HSTS)."""
    result = manage(tmp_path, "check", "--deploy", "--fail-level", "WARNING", DJANGO_SECRET_KEY=STRONG_KEY)
    assert result.returncode != 0
    assert "SECURE_SSL_REDIRECT" in result.stderr + result.stdout


def test_compose_and_kubernetes_use_the_deploy_settings():
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    assert compose["x-arena"]["env_file"] == ["arena.env"]
    assert all(compose["services"][name].get("env_file") == ["arena.env"]
               for name in ("web", "worker", "scheduler", "migrate"))
    kustomization = yaml.safe_load((DEPLOY / "kustomization.yaml").read_text())
    assert kustomization["configMapGenerator"] == [{"name": "arena-settings", "envs": ["arena.env"]}]
    for document in yaml.safe_load_all((DEPLOY / "k8s" / "arena.yaml").read_text()):
        if document["kind"] == "Deployment":
            for container in document["spec"]["template"]["spec"]["containers"]:
                assert {"configMapRef": {"name": "arena-settings"}} in container["envFrom"]
