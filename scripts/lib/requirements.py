"""Prints Python requirements, one per line, from pyproject.toml, the one list of the project's Python
requirements. Each argument names a set:

    build-system   the build backend ([build-system] requires): the scripts build without isolation, so that
                   the build directory (build/py) is reused from one install to the next
    NAME           an extra of [project.optional-dependencies] (pandas, notebooks, bench, test), whose own
                   mentions of trunk-api[...] are expanded, or else a [dependency-groups] group (wheel)

    python3 scripts/lib/requirements.py build-system test    # what scripts/install-python-deps installs

Runs on the project's minimum Python (3.10, which has no tomllib: pip's vendored tomli reads the file then).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    from pip._vendor import tomli as tomllib  # type: ignore[no-redef]

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"
SELF = re.compile(r"^trunk-api\[(?P<extras>[^\]]+)\]$")


def requirements(name: str, data: dict, seen: set[str]) -> list[str]:
    if name in seen:
        return []
    seen.add(name)
    if name == "build-system":
        return list(data["build-system"]["requires"])
    extras = data["project"].get("optional-dependencies", {})
    groups = data.get("dependency-groups", {})
    if name in extras:
        entries = extras[name]
    elif name in groups:
        entries = groups[name]
    else:
        known = ", ".join(["build-system", *extras, *groups])
        raise SystemExit(f"requirements.py: no requirement set {name!r} in pyproject.toml (known: {known})")
    found: list[str] = []
    for entry in entries:
        own = SELF.match(entry) if isinstance(entry, str) else None
        if own:
            for extra in own.group("extras").split(","):
                found += requirements(extra.strip(), data, seen)
        elif isinstance(entry, dict):  # {include-group = "..."}
            found += requirements(entry["include-group"], data, seen)
        else:
            found.append(entry)
    return found


def main(names: list[str]) -> int:
    if not names:
        raise SystemExit(__doc__)
    data = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))
    seen: set[str] = set()
    printed: list[str] = []
    for name in names:
        for requirement in requirements(name, data, seen):
            if requirement not in printed:
                printed.append(requirement)
    print("\n".join(printed))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
