"""A new game needs no database migration, and docs/authors.md's "Add a game" names every step it needs; the
diagram of docs/architecture.md draws the real layout."""
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_models_match_the_migrations(tmp_path):
    """`makemigrations --check` finds nothing to do: game ids are not frozen into migrations as choices."""
    env = {**os.environ, "DJANGO_DEBUG": "1", "DATABASE_URL": f"sqlite:///{tmp_path / 'check.sqlite3'}"}
    proc = subprocess.run([sys.executable, "manage.py", "makemigrations", "--check", "--dry-run"], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "No changes detected" in proc.stdout


def test_no_model_field_lists_the_game_ids():
    """A game id is checked by the services against engines.games, never by a model's choices."""
    from engines.games import GAME_IDS

    offenders = []
    for models in [*ROOT.glob("platform/*/models.py"), *ROOT.glob("*/models.py")]:
        text = models.read_text()
        if any(f'"{game}"' in text or f"'{game}'" in text for game in GAME_IDS) or "GAME_IDS" in text:
            offenders.append(str(models.relative_to(ROOT)))
    assert offenders == []


def _add_a_game_section() -> str:
    authors = (ROOT / "docs" / "authors.md").read_text()
    return authors.split("## Add a game", 1)[1].split("\n## ", 1)[0]


def test_the_authors_doc_lists_every_step_of_a_new_game():
    section = _add_a_game_section()
    for step in ["data.py", "rules.py", "fields.py", "bots.py", "view.py", "view.js", "__init__.py",
                 "engines/games.py", "engines/view/games.py", "engines/sdk/starters/", ".py", ".js",
                 "python -m engines.docgen", "docs/bot-protocol.md", "docs/games/", "tests/engines/",
                 "no database migration"]:
        assert step in section, f"docs/authors.md 'Add a game' does not mention {step!r}"
    # every path it names exists for the games we have (port_royal stands in for <game_id>)
    for path in re.findall(r"`((?:engines|docs|tests)/[^`<> ]+)`", section):
        assert (ROOT / path).exists(), f"docs/authors.md 'Add a game' names {path}, which does not exist"
    for pattern in re.findall(r"`((?:engines|docs|tests)/[^` ]*<game_id>[^` ]*)`", section):
        path = pattern.replace("<game_id>", "port_royal")
        assert (ROOT / path).exists() or list(ROOT.glob(path.replace("<name>", "*"))), path


def test_the_architecture_diagram_shows_the_real_layout():
    architecture = (ROOT / "docs" / "architecture.md").read_text()
    diagram = architecture.split("## The components", 1)[1].split("```", 2)[1]
    for app in ("tournaments", "ratings"):
        assert (ROOT / app / "apps.py").exists() and not (ROOT / "platform" / app).exists()
        assert f"{app}/" in diagram
    # every package of platform/ and every sub-package of tournaments/ is drawn
    for package in [*(ROOT / "platform").glob("*/__init__.py"), *(ROOT / "tournaments").glob("*/__init__.py")]:
        if package.parent.name not in ("migrations", "management"):
            assert f"{package.parent.name}/" in diagram, package.parent
    # tournaments/ and ratings/ are drawn outside the platform/ box, at the top level
    platform_box = diagram.split("platform/", 1)[1].split("+--", 1)[0]
    assert "tournaments/" not in platform_box and "ratings/" not in platform_box
