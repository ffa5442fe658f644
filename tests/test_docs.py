"""The project's own documents: every link of README.md and docs/ leads somewhere a clone has, the
rule book names tests that exist, and docs/protocol.md's example runs."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _anchors(path: Path) -> set[str]:
    """The anchors GitHub gives the headings of a Markdown file."""
    found = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            found.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return found


def test_every_link_leads_to_a_file_of_the_repository() -> None:
    for document in DOCUMENTS:
        text = document.read_text(encoding="utf-8")
        assert "../shared" not in text and "PROTOCOL.md" not in text, document.name
        for target in LINK.findall(text):
            if target.startswith(("http://", "https://", "mailto:")):
                continue
            file, _, anchor = target.partition("#")
            path = (document.parent / file).resolve() if file else document
            assert path.is_file() and ROOT in path.parents, (document.name, target)
            if anchor:
                assert anchor in _anchors(path), (document.name, target)


def test_the_rule_book_cites_its_source_but_links_only_what_a_clone_has() -> None:
    for document in DOCUMENTS:
        for line in document.read_text(encoding="utf-8").splitlines():
            if "RULES.md" in line:
                assert document.name == "rules.md" and "RULES.md §" in line, (document.name, line)


def test_every_test_the_rule_book_names_exists() -> None:
    rules = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    named = set(re.findall(r"\b(test_\w+)\b", rules))
    assert len(named) > 40
    defined = {
        name
        for path in (ROOT / "tests").rglob("test_*.py")
        for name in re.findall(r"^def (test_\w+)", path.read_text(encoding="utf-8"), re.MULTILINE)
    }
    files = {path.stem for path in (ROOT / "tests").rglob("test_*.py")}
    assert named - defined - files == set()


def test_the_quick_start_is_its_two_commands() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("## Quick start", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    assert block.splitlines() == [
        "python3 -m venv .venv && .venv/bin/pip install -q -e '.[dev]' && .venv/bin/ginrummy serve",
        "python3 -m venv .venv && .venv/bin/pip install -q -e '.[dev]' && .venv/bin/python -m pytest",
    ]


def test_the_protocol_documents_example_runs() -> None:
    result = doctest.testfile(str(ROOT / "docs" / "protocol.md"), module_relative=False)
    assert result.attempted >= 2 and result.failed == 0
