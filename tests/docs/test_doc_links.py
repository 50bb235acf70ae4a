"""The docs hold together: every relative link and anchor in README.md and docs/ resolves, every repository
path and dotted name of our packages they write in code exists, and the README and the architecture stay short
enough to read in one go."""
from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
ARCHITECTURE = ROOT / "docs" / "architecture.md"

FENCE = re.compile(r"^ *(```|~~~).*?^ *\1", re.M | re.S)
CODE_SPAN = re.compile(r"`[^`\n]+`")
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$", re.M)
# A path of this repository written in code: a top-level folder, then no placeholder (<game>, *, {id}).
REPO_PATH = re.compile(r"^(?:engines|platform|tournaments|ratings|deploy|tests|docs)/[\w./-]*$")
# A dotted name in one of our packages (`tournaments.selectors.match_log`), not a file name (`bots.py`).
DOTTED = re.compile(r"^(?:engines|tournaments|ratings|infra|web|bots|players)(?:\.[A-Za-z_]\w*)+$")
FILE_NAME = re.compile(r"\.(?:py|js|md|json|jsonl|csv|yaml|html|css|txt|zip|env)$")


def docs() -> list[Path]:
    return [README, *sorted((ROOT / "docs").rglob("*.md"))]


def without_code(text: str) -> str:
    """The prose: fenced blocks and code spans removed (a link or heading in code is none)."""
    return CODE_SPAN.sub("", FENCE.sub("", text))


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: its text without markup, lower case, punctuation dropped (letters of any
    script, digits, '-' and '_' kept), spaces as hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link: its text
    text = re.sub(r"<[^>]+>", "", text).replace("`", "")
    return re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every anchor of a Markdown file's headings, repeated ones numbered as GitHub numbers them."""
    seen: dict[str, int] = {}
    found = set()
    for heading in HEADING.findall(FENCE.sub("", path.read_text())):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def broken_links(path: Path) -> list[str]:
    broken = []
    for target in LINK.findall(without_code(path.read_text())):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:: not ours to check
            continue
        file_part, _, anchor = target.partition("#")
        linked = (path.parent / file_part).resolve() if file_part else path
        where = f"{path.relative_to(ROOT)}: {target}"
        if ROOT not in linked.parents and linked != ROOT:
            broken.append(f"{where} (outside the repository)")
        elif not linked.exists():
            broken.append(f"{where} (no such file)")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            broken.append(f"{where} (no such heading in {linked.relative_to(ROOT)})")
    return broken


def test_every_relative_link_and_anchor_resolves():
    broken = [problem for path in docs() for problem in broken_links(path)]
    assert broken == []


def test_every_repository_path_named_in_code_exists():
    missing = []
    for path in docs():
        for span in CODE_SPAN.findall(FENCE.sub("", path.read_text())):
            name = span.strip("`").rstrip(".,;:")
            if REPO_PATH.match(name) and not (ROOT / name).exists():
                missing.append(f"{path.relative_to(ROOT)}: {name}")
    assert missing == []


def module_file(parts: list[str]) -> Path | None:
    """The source of the module or package ``parts`` names (packages live at the root or under platform/)."""
    for base in (ROOT, ROOT / "platform"):
        path = base.joinpath(*parts)
        if path.with_suffix(".py").is_file():
            return path.with_suffix(".py")
        if (path / "__init__.py").is_file():
            return path / "__init__.py"
    return None


def top_level_names(source: Path) -> set[str]:
    names = set()
    for node in ast.parse(source.read_text()).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


def unresolved(dotted: str) -> bool:
    """True unless the longest module prefix of ``dotted`` exists and defines the name that follows it (a
    submodule counts)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        source = module_file(parts[:cut])
        if source is not None:
            rest = parts[cut:]
            return bool(rest) and rest[0] not in top_level_names(source)
    return True


def test_every_dotted_name_of_our_packages_exists():
    missing = []
    for path in docs():
        for span in CODE_SPAN.findall(FENCE.sub("", path.read_text())):
            name = span.strip("`")
            if DOTTED.match(name) and not FILE_NAME.search(name) and unresolved(name):
                missing.append(f"{path.relative_to(ROOT)}: {name}")
    assert missing == []


def test_the_readme_and_the_architecture_stay_short():
    assert len(README.read_text().splitlines()) <= 200
    assert len(ARCHITECTURE.read_text().splitlines()) <= 300


def test_the_anchors_follow_github():
    """The slug rules the link check relies on, on headings of the kinds the docs use."""
    assert slug("Your first bot in 5 minutes") == "your-first-bot-in-5-minutes"
    assert slug("Leases and recovery: design and bounds") == "leases-and-recovery-design-and-bounds"
    assert slug("el_capitan (El Capitán)") == "el_capitan-el-capitán"
    assert slug("`deploy/`") == "deploy"
    assert slug("A [link](x.md) in it") == "a-link-in-it"
