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


def test_the_tournaments_modules_import_one_way():
    """No import cycle inside tournaments/ (lazy imports count): the doorbell and the leases at the bottom,
    the services above them, the tasks on top (the lower layers ring the doorbell by task name)."""
    package = ROOT / "tournaments"
    modules = {p.stem for p in package.glob("*.py") if p.stem != "__init__"}
    graph = {}
    for name in modules:
        import ast

        found = set()
        for node in ast.walk(ast.parse((package / f"{name}.py").read_text())):
            if isinstance(node, ast.ImportFrom) and node.module == "tournaments":
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("tournaments."):
                found.add(node.module.split(".")[1])
            elif isinstance(node, ast.Import):
                found.update(a.name.split(".")[1] for a in node.names if a.name.startswith("tournaments."))
        graph[name] = found & modules
    cycles = []

    def visit(name, path):
        for other in graph[name]:
            if other in path:
                cycles.append(path[path.index(other):] + [other])
            else:
                visit(other, path + [other])

    for name in sorted(modules):
        visit(name, [name])
    assert cycles == []
    assert "tasks" not in set().union(*(graph[m] for m in modules if m != "tasks"))
