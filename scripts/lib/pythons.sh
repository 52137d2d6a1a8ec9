# The CPython versions the wheels are built for, and where to find each on this machine (bash, sourced by
# scripts/build-wheel and scripts/check-wheel).
#
#   trunk_wheel_versions       the minor versions a wheel is built for, read from pyproject.toml's one
#                              declaration of them, [tool.cibuildwheel] build (cp310-* -> 3.10)
#   trunk_find_python X.Y      prints the path of a working CPython X.Y with its headers, or returns 1 and prints
#                              why not on stderr. Looks, in order, at $TRUNK_PYTHON_X_Y (e.g. TRUNK_PYTHON_3_12),
#                              pythonX.Y on PATH, pyenv's versions, /usr/bin/pythonX.Y; a pyenv shim counts only
#                              when it runs (pyenv answers for the versions it has activated)

# trunk_has_python_headers: the one check of a Python's headers, shared with the project's venv.
. "$(dirname "${BASH_SOURCE[0]}")/venv.sh"

trunk_wheel_versions() {
  local root
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
  python3 - "$root/pyproject.toml" <<'PY'
import re, sys
try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: pip's vendored copy
    from pip._vendor import tomli as tomllib
with open(sys.argv[1], "rb") as f:
    build = tomllib.load(f)["tool"]["cibuildwheel"]["build"]
for pattern in [build] if isinstance(build, str) else build:
    for word in pattern.split():
        if m := re.fullmatch(r"cp3(\d+)-\*", word):
            print("3." + m.group(1))
PY
}

# Prints the interpreter's X.Y, or nothing when it does not run.
trunk_python_version() {
  "$1" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null
}

trunk_find_python() {
  local version="$1" variable candidate candidates=() pyenv_root
  variable="TRUNK_PYTHON_${version//./_}"
  if [ -n "${!variable:-}" ]; then candidates+=("${!variable}"); fi
  if command -v "python$version" >/dev/null 2>&1; then candidates+=("$(command -v "python$version")"); fi
  pyenv_root="$(pyenv root 2>/dev/null || echo "${PYENV_ROOT:-$HOME/.pyenv}")"
  # The newest patch release first (sort -V), only final releases (3.12.1, not 3.12.0rc1 or 3.12-dev).
  while IFS= read -r candidate; do candidates+=("$candidate"); done < <(
    find "$pyenv_root/versions" -maxdepth 3 -path "*/versions/$version.*/bin/python$version" 2>/dev/null \
      | grep -E "/versions/$version\.[0-9]+/bin/" | sort -rV)
  candidates+=("/usr/bin/python$version")
  for candidate in "${candidates[@]}"; do
    [ -x "$candidate" ] || continue
    if [ "$(trunk_python_version "$candidate")" != "$version" ]; then continue; fi
    if ! trunk_has_python_headers "$candidate"; then
      echo "python$version at $candidate has no headers (Debian/Ubuntu: apt-get install python$version-dev)" >&2
      continue
    fi
    if ! "$candidate" -c 'import ensurepip, venv' 2>/dev/null; then
      echo "python$version at $candidate cannot make a virtual environment (Debian/Ubuntu: python$version-venv)" >&2
      continue
    fi
    "$candidate" -c 'import os, sys; print(os.path.realpath(sys.executable))'
    return 0
  done
  echo "no CPython $version on this machine (looked at \$$variable, python$version on PATH, $pyenv_root/versions, /usr/bin)" >&2
  return 1
}
