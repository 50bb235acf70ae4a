"""The architecture holds: engines know nothing of Django, platform/ shadows nothing, the project stands alone."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_python(code: str) -> str:
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def test_platform_is_a_folder_not_a_package_and_the_stdlib_module_wins():
    assert not (ROOT / "platform" / "__init__.py").exists()
    assert run_python("import platform; print(platform.system())") in {"Linux", "Darwin", "Windows"}


def test_engines_import_nothing_of_django():
    code = (
        "import importlib, pkgutil, sys, engines\n"
        "for m in pkgutil.walk_packages(engines.__path__, 'engines.'):\n"
        "    if not m.name.endswith('__main__'): importlib.import_module(m.name)\n"
        "print(sorted(k for k in sys.modules if k == 'django' or k.startswith('django.')))"
    )
    assert run_python(code) == "[]"


# Spelled in pieces so that this file does not find itself.
NEEDLES = ["../" + "shared", "/shared/" + "rules", "/shared/" + "seeds"]


def test_nothing_reads_the_shared_folder():
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True).stdout.split()
    offenders = []
    for name in tracked:
        path = ROOT / name
        if path.suffix in {".py", ".sh", ".toml", ".cfg", ".ini"} or name in {"Makefile", ".ci/run"}:
            text = path.read_text(errors="replace")
            if any(needle in text for needle in NEEDLES):
                offenders.append(name)
    assert offenders == []


def _imports(path: Path) -> set[str]:
    """Every module a Python file imports (at any depth: lazy imports count too)."""
    import ast

    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_the_bots_app_does_not_depend_on_tournaments():
    """Tournaments depend on bot versions; validation lives on the matches' side, so imports flow one way."""
    offenders = {str(p.relative_to(ROOT)): sorted(m for m in _imports(p) if m.split(".")[0] == "tournaments")
                 for p in (ROOT / "platform" / "bots").rglob("*.py")}
    assert {k: v for k, v in offenders.items() if v} == {}


def test_the_bot_interface_does_not_import_the_sandbox():
    """engines.bots is below engines.sandbox (which runs programs as Bots); engines.players joins them."""
    assert not {m for m in _imports(ROOT / "engines" / "bots.py") if m.startswith("engines.sandbox")}
    assert "engines.bots" in _imports(ROOT / "engines" / "sandbox" / "runner.py")


def _module_graph(package: Path, prefix: str) -> dict[str, set[str]]:
    """The imports between the modules of a package (dotted names below ``prefix``; lazy imports count)."""
    import ast

    modules = {}
    for path in package.rglob("*.py"):
        if "migrations" in path.parts:
            continue
        parts = path.relative_to(package.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        modules[name] = path
    graph = {}
    for name, path in modules.items():
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and node.module.startswith(prefix):
                found.add(node.module)
                found.update(f"{node.module}.{alias.name}" for alias in node.names)
            elif isinstance(node, ast.Import):
                found.update(a.name for a in node.names if a.name.startswith(prefix))
        graph[name] = found & set(modules)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    cycles = []

    def visit(name, path):
        for other in sorted(graph[name]):
            if other in path:
                cycles.append(path[path.index(other):] + [other])
            else:
                visit(other, path + [other])

    for name in sorted(graph):
        visit(name, [name])
    return cycles


def test_the_tournaments_modules_import_one_way():
    """No import cycle inside tournaments/ (lazy imports count): the doorbell at the bottom, the services above
    it, the stages above them, the tasks on top (the lower layers ring the doorbell by task name)."""
    graph = _module_graph(ROOT / "tournaments", "tournaments")
    graph = {name: found - {"tournaments"} for name, found in graph.items() if name != "tournaments"}
    assert _cycles(graph) == []
    assert not {name for name, found in graph.items() if "tournaments.tasks" in found and name != "tournaments"}


def test_each_stage_of_tournaments_imports_only_what_its_docstring_allows():
    """results/ counts what was played and never reaches into competition/ or running/; competition/ never
    imports running/ (it reaches the doorbell only through services); only running/ starts the others."""
    graph = _module_graph(ROOT / "tournaments", "tournaments")
    stage = lambda module: module.split(".")[1] if module.count(".") else ""  # noqa: E731
    offenders = {name: sorted(m for m in found if (stage(name), stage(m)) in {
        ("results", "competition"), ("results", "running"), ("competition", "running"), ("benchmarks", "running")})
        for name, found in graph.items()}
    assert {k: v for k, v in offenders.items() if v} == {}
    # The app's public faces stay at its top.
    assert {"tournaments.models", "tournaments.services", "tournaments.selectors", "tournaments.tasks"} <= set(graph)


APPS = [ROOT / "tournaments", ROOT / "ratings", ROOT / "platform" / "bots", ROOT / "platform" / "players",
        ROOT / "platform" / "web", ROOT / "platform" / "infra"]


def test_no_app_imports_the_project_package():
    """platform/arena is the Django project only (settings, urls, ASGI/WSGI, the Celery app): the apps share
    infrastructure through ``infra`` and their tasks are shared_tasks."""
    offenders = {str(p.relative_to(ROOT)): sorted(m for m in _imports(p) if m.split(".")[0] == "arena")
                 for app in APPS for p in app.rglob("*.py")}
    assert {k: v for k, v in offenders.items() if v} == {}


def test_the_shared_infrastructure_imports_no_app():
    apps = {"tournaments", "ratings", "bots", "players", "web", "arena", "engines"}
    offenders = {str(p.relative_to(ROOT)): sorted(m for m in _imports(p) if m.split(".")[0] in apps)
                 for p in (ROOT / "platform" / "infra").rglob("*.py")}
    assert {k: v for k, v in offenders.items() if v} == {}


def test_every_package_says_what_lives_there():
    """A docstring at the top of each package of the project (migrations and management folders aside)."""
    missing = []
    for init in ROOT.glob("**/__init__.py"):
        relative = init.relative_to(ROOT)
        skipped = {"migrations", "management", "commands"} & set(relative.parts)
        if relative.parts[0] in {".venv", "var", "tests", "node_modules"} or skipped:
            continue
        import ast

        if not ast.get_docstring(ast.parse(init.read_text())):
            missing.append(str(relative))
    assert sorted(missing) == []
