"""The documentation site's pages (docs/, built by scripts/build-docs) say what the code does.

- Each page's ```python blocks run as written, in order, in one namespace per page (a reader lands on one page),
  with TRUNK_API_TOKEN and TRUNK_BASE_URL pointing at a sandbox serving "acme". A block preceded by
  `<!-- docs-test: skip (why) -->` does not run; there are few, and each says why.
- Every Python block of the README and the docs pastes into a Python prompt (no blank line inside an indented
  body); the checker itself is tested on blocks that do and do not paste.
- The command-line guide's block marked "runs as written" runs in bash against the sandbox.
- The reference tables cover every Client option and every sandbox fault; the CLI reference renders every
  command of the parser.
"""

from __future__ import annotations

import importlib.util
import inspect
import re
from pathlib import Path

import pytest

from trunk_api import Client, Sandbox
from trunk_api.cli import build_parser

from doc_blocks import ROOT, SKIP_MARKER, cli_block, paste_problems, python_blocks, run_cli_block, run_python

DOCS = ROOT / "docs"
PAGES = sorted(path.relative_to(DOCS).as_posix() for path in DOCS.rglob("*.md"))
PAGES_WITH_PYTHON = [page for page in PAGES if python_blocks((DOCS / page).read_text(encoding="utf-8"))]


def page_text(page: str) -> str:
    """The page as the site shows it: with the tables the option rows make (docs/hooks/option_tables.py)."""
    spec = importlib.util.spec_from_file_location("option_tables", DOCS / "hooks" / "option_tables.py")
    assert spec is not None and spec.loader is not None
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    return str(hook.on_page_markdown((DOCS / page).read_text(encoding="utf-8"), None, None, None))


def test_the_pages_the_issue_asks_for_are_there():
    for page in ("index.md", "getting-started.md", "guides/notebooks.md", "guides/automation.md", "guides/async.md",
                 "guides/cli.md", "guides/cpp.md", "sandbox.md", "errors.md", "security.md", "performance.md", "configuration.md",
                 "reference/python.md", "reference/cli.md", "changelog.md", "development.md"):
        assert page in PAGES, page
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8").split("\nnav:\n", 1)[1]
    for page in PAGES:
        assert f": {page}\n" in nav, f"{page} is not in mkdocs.yml's nav"
    assert ": install.md\n" in nav and "(install.md)" in page_text("getting-started.md")


def test_most_pages_show_running_code():
    assert len(PAGES_WITH_PYTHON) >= 7


#: What a page's blocks print, in part: proof that they did what the prose around them says.
PROMISED = {
    "guides/notebooks.md": ["PRs", "common failures across the top 20", "'flaky'", "True True True",
                             "5 windows"],
    "guides/automation.md": ["paused", "pull requests queued", "\nmerged\n", "page 0 of"],
    "guides/async.md": ["test cases fetched concurrently", "failing tests in", "details in the order asked",
                        "failed: {1: 'NotFoundError'}", "gave up after 0.2 s", "running"],
    "errors.md": ["404", "concurrency"],
    "sandbox.md": ["answers of 503", "rate limited; retry after"],
    "performance.md": ["[1] True"],
    "getting-started.md": ["<TestIterator iter_failing_tests(repo='github.com/acme/storefront'",
                           "tests failed in the last 24 hours"],
    "configuration.md": ["Client(base_url="],
    "guides/webhook-bot.md": ["re-submitted: [5, 7, 9, 11, 13, 14, 16, 20]",
                              "merged on the second try: [9, 11, 13, 14]", "failed again, left alone: [5, 7, 16, 20]"],
}


@pytest.mark.parametrize("page", PAGES_WITH_PYTHON)
def test_python_blocks_run_in_order_in_one_namespace_per_page(page: str, acme: Sandbox, capsys) -> None:
    _, left_running = run_python(python_blocks(page_text(page)), f"docs/{page}")
    out = capsys.readouterr().out
    assert acme.token not in out
    for part in PROMISED.get(page, []):
        assert part in out, part
    assert left_running == [], "the page leaves a sandbox running: stop it in its last block"


def test_every_promise_is_about_a_page_with_code():
    assert set(PROMISED) <= set(PAGES_WITH_PYTHON)


def test_skipped_blocks_are_rare_and_say_why():
    markers = [line for page in PAGES for line in page_text(page).splitlines() if line.startswith(SKIP_MARKER)]
    assert len(markers) <= 2
    for line in markers:
        assert re.match(r"^<!-- docs-test: skip \(.+\) -->$", line), line


# ---- pasting into a Python prompt --------------------------------------------------------------------------------

def all_python_blocks() -> list[tuple[str, int, str]]:
    found = []
    for name, text in [("README.md", (ROOT / "README.md").read_text(encoding="utf-8"))] + [
            (f"docs/{page}", page_text(page)) for page in PAGES]:
        for number, source in enumerate(python_blocks(text), 1):
            found.append((name, number, source))
    return found


def test_every_python_block_pastes_into_a_python_prompt():
    checked = all_python_blocks()
    assert len(checked) >= 20
    for name, number, source in checked:
        assert paste_problems(source) == [], f"{name}, python block {number}"


@pytest.mark.parametrize(("source", "pastes"), [
    ("with open('f') as f:\n    a = 1\n    b = 2\n", True),
    ("with open('f') as f:\n    a = 1\n\n    b = 2\n", False),  # the README's old Sandbox block
    ("for x in y:\n    print(x)\n\nprint('done')\n", True),
    ("for x in y:\n    print(x)\nprint('done')\n", False),  # the prompt wants a blank line after a body
    ("try:\n    f()\nexcept ValueError:\n    pass\n", True),
    ("try:\n    f()\n\nexcept ValueError:\n    pass\n", False),
    ("x = f(1,\n\n      2)\n", True),  # inside brackets a blank line is harmless
    ("a = 1\n\nb = 2\n", True),
    ('def f():\n    """One.\n\n    Two."""\n    return 1\n', True),  # nor inside a string
    ("if a:\n    b()\n\nelse:\n    c()\n", False),
])
def test_the_paste_check_finds_what_a_prompt_refuses(source: str, pastes: bool) -> None:
    assert (paste_problems(source) == []) is pastes


# ---- the command-line guide ----------------------------------------------------------------------------------------

def test_the_command_line_guide_runs_as_written(acme: Sandbox) -> None:
    block = cli_block(page_text("guides/cli.md"))
    assert block.count("trunk-api ") >= 6
    result = run_cli_block(block)
    assert result.returncode == 0, result.stderr
    assert acme.token not in result.stdout + result.stderr
    assert Path("failing.csv").read_text().startswith("id,name,")
    assert "most common failures" not in result.stdout  # `test` off a terminal prints JSON...
    assert '"most_common_failures"' in result.stdout  # ...with the test's failures
    assert "state:" in result.stdout and "required_statuses:" in result.stdout  # the last queue command's table
    queue_bodies = [r.body for r in acme.requests if r.path == "/v1/updateQueue"]
    assert [body.get("state") for body in queue_bodies] == ["paused", None, "running"]
    assert queue_bodies[1]["requiredStatuses"] == ["ci/build", "ci/test"] and queue_bodies[1]["batch"] is True


# ---- reference tables and generated references -------------------------------------------------------------------

def test_configuration_table_lists_every_client_option():
    text = page_text("configuration.md")
    for name in inspect.signature(Client.__init__).parameters:
        if name != "self":
            assert f"| `{name}` |" in text, name
    for variable in ("TRUNK_API_TOKEN", "TRUNK_API_KEY", "TRUNK_BASE_URL"):
        assert variable in text


def test_sandbox_table_lists_every_fault_option():
    text = page_text("sandbox.md")
    for name in ("latency_ms", "jitter_ms", "error_rate", "rate_limit", "drop_rate", "truncate_rate", "fault_seed"):
        assert f"`{name}`" in text, name


def _cli_reference_hook():
    spec = importlib.util.spec_from_file_location("cli_reference", DOCS / "hooks" / "cli_reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_cli_reference_renders_every_command_from_the_parser():
    hook = _cli_reference_hook()
    parser = build_parser()
    rendered = hook.render(parser)
    paths = [path for path, _ in hook.commands(parser)]
    assert ("queue", "update") in paths and ("pr", "submit") in paths and ("sandbox",) in paths
    for path, command in hook.commands(parser):
        assert f"`{' '.join(('trunk-api', *path))}`" in rendered
        assert command.format_usage().split()[1] in rendered  # each command's own usage line
    assert "--required-status" in rendered and "--since" in rendered  # options derived from the declarations
    page = page_text("reference/cli.md")
    assert hook.MARKER in page
    built = hook.on_page_markdown(page, None, None, None)
    assert hook.MARKER not in built and rendered in built


def test_the_api_reference_documents_the_package():
    page = page_text("reference/python.md")
    assert "::: trunk_api\n" in page
    stubs = (ROOT / "python" / "trunk_api" / "_core" / "models.pyi").read_text(encoding="utf-8")
    assert "class TestHealth(str, enum.Enum):" in stubs  # what mkdocstrings reads for the core's classes


def test_the_api_reference_starts_with_the_three_ways_in_and_shows_the_example_as_code():
    import trunk_api

    assert "members_order: __all__" in page_text("reference/python.md")
    assert trunk_api.__all__[:3] == ["Client", "AsyncClient", "Sandbox"]
    rest = [name for name in trunk_api.__all__[3:] if name != "__version__"]
    assert rest == sorted(rest, key=str.lower)
    assert all(hasattr(trunk_api, name) for name in trunk_api.__all__)
    # A fenced block: mkdocstrings renders it as code (an indented block lost its indent and ran on as prose).
    assert "\n```python\nfrom trunk_api import Client\n" in trunk_api.__doc__


def test_every_citation_of_the_service_reference_names_a_section_it_has():
    page = page_text("reference/service.md")
    anchors = set(re.findall(r"\{#([a-z0-9-]+)\}", page))
    assert {"times", "pagination", "errors", "retries", "queue-settings", "link-ticket"} <= anchors
    cited: dict[str, str] = {}
    for path in [*ROOT.joinpath("cpp").rglob("*.?pp"), *ROOT.joinpath("python").rglob("*.py"),
                 *ROOT.joinpath("tests").rglob("*.?pp"), *ROOT.joinpath("fuzz").rglob("*.?pp"),
                 *ROOT.joinpath("scripts").iterdir()]:
        if path.is_file():
            for anchor in re.findall(r"docs/reference/service\.md#([a-z0-9-]+)", path.read_text(errors="replace")):
                cited[anchor] = str(path.relative_to(ROOT))
    assert len(cited) >= 10
    assert {anchor: where for anchor, where in cited.items() if anchor not in anchors} == {}
    # And nothing cites the notes the repository does not hold.
    for path in [*ROOT.joinpath("cpp").rglob("*"), *ROOT.joinpath("python").rglob("*.py"),
                 *ROOT.joinpath("tests").rglob("*.?pp"), *ROOT.joinpath("fuzz").rglob("*")]:
        if path.is_file() and path.suffix in (".hpp", ".cpp", ".py", ".md", ".dict"):
            text = path.read_text(errors="replace")
            for note in ("interface.md", "service-facts.md", "service-v1-endpoints.md", "merge-queue-behaviour",
                         "service-webhooks"):
                assert note not in text, f"{path.relative_to(ROOT)} cites {note}"


def test_the_readmes_documentation_table_links_every_page_of_the_site():
    import yaml

    def pages(node: object) -> list[str]:
        if isinstance(node, str):
            return [node]
        if isinstance(node, dict):
            return [page for value in node.values() for page in pages(value)]
        if isinstance(node, list):
            return [page for item in node for page in pages(item)]
        return []

    class Loader(yaml.SafeLoader):  # mkdocs.yml's !!python/name tags are not pages: read them as text
        pass

    Loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)
    site = pages(yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=Loader)["nav"])
    assert len(site) > 20
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme[readme.index("## Documentation"):]
    missing = [page for page in site if page != "index.md" and f"(docs/{page})" not in table]
    assert missing == []
