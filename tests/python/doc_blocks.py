"""Reading and running the code blocks of the README and the documentation pages (test_readme.py, test_docs.py).

- python_blocks(): the ```python blocks of a Markdown text, in order, except one preceded by the skip marker
  (`<!-- docs-test: skip (why) -->`, for the rare block that must not run).
- run_python(): runs blocks in order in one namespace, as a reader pasting them into one session would, and
  stops every Sandbox they left running.
- paste_problems(): what goes wrong when a block is pasted into Python's interactive prompt (a blank line inside
  an indented body ends the statement early there), found by feeding it to the standard library's console.
- cli_block() / run_cli_block(): the ```bash block after the "runs as written" marker, run in bash.
"""

from __future__ import annotations

import code
import io
import os
import re
import subprocess
import sys
import sysconfig
import tokenize
from pathlib import Path

from trunk_api import Sandbox

ROOT = Path(__file__).resolve().parents[2]
FENCE = re.compile(r"^```(?P<lang>[a-z]*)\n(?P<body>.*?)^```$", re.MULTILINE | re.DOTALL)
SKIP_MARKER = "<!-- docs-test: skip"
CLI_MARKER = "<!-- The next block runs as written in tests/python/"
CLAUSE = re.compile(r"(else|elif|except|finally)\b")


def blocks(text: str, lang: str) -> list[str]:
    return [m.group("body") for m in FENCE.finditer(text) if m.group("lang") == lang]


def python_blocks(text: str) -> list[str]:
    found = []
    for match in FENCE.finditer(text):
        if match.group("lang") != "python":
            continue
        before = text[:match.start()].rstrip().rsplit("\n", 1)[-1]
        if before.startswith(SKIP_MARKER):
            continue
        found.append(match.group("body"))
    return found


def run_python(sources: list[str], name: str) -> tuple[dict[str, object], list[str]]:
    """The namespace the blocks leave, and the names of the sandboxes they left running (stopped here, so a
    failing page cannot leave a server behind; the caller asserts there were none)."""
    namespace: dict[str, object] = {"__name__": "__docs__"}
    left_running: list[str] = []
    try:
        for number, source in enumerate(sources, 1):
            exec(compile(source, f"{name}, python block {number}", "exec"), namespace)
    finally:
        for key, value in list(namespace.items()):
            if isinstance(value, Sandbox) and value.running:
                left_running.append(key)
                value.stop()
    return namespace, left_running


class _PasteChecker(code.InteractiveConsole):
    """The interactive console, compiling what is pasted line by line but running nothing; records the syntax
    errors the prompt would show."""

    def __init__(self) -> None:
        super().__init__()
        self.problems: list[str] = []
        self.line = 0

    def runcode(self, code_object: object) -> None:  # compiled: that is all a paste needs
        pass

    def showsyntaxerror(self, filename: str | None = None, **kwargs: object) -> None:
        error = sys.exc_info()[1]
        self.problems.append(f"line {self.line}: {error}")


def _blank_line_problems(source: str) -> list[str]:
    """At the prompt a blank line ends the statement being typed, unless it is inside brackets or a string: what
    follows it then may not be an indented line or a clause of the same statement (else, except ...). codeop,
    which the console uses, takes `try:` + blank line as still incomplete, so this rule is checked directly."""
    inside: set[int] = set()  # lines where a blank line does not end anything
    opened: list[int] = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.OP and token.string in "([{":
            opened.append(token.start[0])
        elif token.type == tokenize.OP and token.string in ")]}" and opened:
            inside.update(range(opened.pop() + 1, token.end[0] + 1))
        elif token.start[0] != token.end[0]:  # a string over several lines
            inside.update(range(token.start[0] + 1, token.end[0] + 1))
    lines = source.splitlines()
    problems = []
    for number, line in enumerate(lines, 1):
        if line.strip() or number in inside:
            continue
        following = next((text for text in lines[number:] if text.strip()), None)
        if following is not None and (following[0].isspace() or CLAUSE.match(following)):
            problems.append(f"line {number}: a blank line ends the statement here, before {following.strip()!r}")
    return problems


def paste_problems(source: str) -> list[str]:
    checker = _PasteChecker()
    for checker.line, line in enumerate(source.splitlines(), 1):
        checker.push(line)
    checker.push("")  # the Enter that ends the last statement
    return _blank_line_problems(source) + checker.problems


def cli_block(text: str) -> str:
    start = text.index(CLI_MARKER)
    return next(m.group("body") for m in FENCE.finditer(text, start) if m.group("lang") == "bash")


def run_cli_block(block: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    scripts = [sysconfig.get_path("scripts"), str(Path(sys.executable).parent)]  # where pip put trunk-api
    env["PATH"] = os.pathsep.join(scripts + [env.get("PATH", "")])
    return subprocess.run(["bash", "-euo", "pipefail", "-c", block], env=env, capture_output=True, text=True,
                          timeout=120)
