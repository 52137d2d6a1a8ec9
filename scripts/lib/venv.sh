# The project's Python environment, sourced by the scripts that run or install Python (bash).
#
# Everything Python goes into a virtual environment, .venv at the repository root: Debian 12 and Ubuntu 23.04+
# refuse `pip install` into their own Python (PEP 668, "externally-managed-environment"), and the dev tools
# have no business in a system interpreter anyway. The venv is made from $TRUNK_PYTHON, or else `python3`:
#
#   TRUNK_PYTHON=/usr/bin/python3 scripts/demo     # the distribution's Python
#   . .venv/bin/activate                           # afterwards, to use trunk_api and trunk-api yourself
#
#   trunk_venv                   makes .venv when missing (installing python3.X-venv on Debian/Ubuntu when
#                                venv cannot bootstrap pip), upgrades its pip when older than the scripts need,
#                                and activates it for the rest of the script and the programs it starts
#   trunk_requirements SET...    installs requirement sets of pyproject.toml (scripts/lib/requirements.py)
#   trunk_build_backend          what building the package needs from Python: its headers (python3.X-dev) and
#                                the build backend; sets TRUNK_PY_BUILD_DIR, the build directory that
#                                scripts/install-package and scripts/build-wheel share, and trunk_build_jobs:
#                                as many compilers as cores

trunk_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
trunk_venv_dir="$trunk_root/.venv"
# pip 23.1 brought -C, the short form of --config-settings that the scripts pass (Debian 12 ships 23.0.1). An older
# pip is upgraded to the newest.
trunk_min_pip="23.1"

trunk_say() { echo "venv: $*" >&2; }

# The interpreter asked for: $TRUNK_PYTHON, or python3. Prints its real path (the executable behind a pyenv shim
# or a symlink), which is what the venv records to notice a change of $TRUNK_PYTHON.
trunk_base_python() {
  local wanted="${TRUNK_PYTHON:-python3}"
  if ! command -v "$wanted" >/dev/null 2>&1; then
    trunk_say "no interpreter '$wanted': install python3 (apt-get install python3) or set TRUNK_PYTHON"
    return 1
  fi
  "$wanted" -c 'import os, sys; print(os.path.realpath(sys.executable))'
}

# Debian and Ubuntu split their Python: venv's pip bootstrap (ensurepip) is in python3.X-venv, the headers in
# python3.X-dev. Installs python3.X-$1 for a distribution interpreter; for another one, says what is missing.
trunk_distribution_package() {
  local python="$1" part="$2" why="$3" version package
  version="$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
  package="python$version-$part"
  if command -v dpkg >/dev/null 2>&1 && dpkg -S "$(realpath "$python")" >/dev/null 2>&1; then
    trunk_say "$why: installing $package"
    "$trunk_root/scripts/install-system-deps" --only "$package"
  else
    trunk_say "$why, and $python is not a Debian/Ubuntu package: install its $part part, or set TRUNK_PYTHON"
    return 1
  fi
}

trunk_make_venv() {
  local base
  base="$(trunk_base_python)" || return 1
  if ! "$base" -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then
    trunk_say "$base is Python $("$base" -c 'import platform; print(platform.python_version())'); trunk_api needs 3.10 or newer: set TRUNK_PYTHON"
    return 1
  fi
  if ! "$base" -c 'import ensurepip, venv' 2>/dev/null; then
    trunk_distribution_package "$base" venv "$base cannot make a virtual environment with pip (no ensurepip)" \
      || return 1
  fi
  trunk_say "making $trunk_venv_dir from $base"
  rm -rf "$trunk_venv_dir"
  "$base" -m venv "$trunk_venv_dir" || return 1
  echo "$base" >"$trunk_venv_dir/trunk-base-python"
}

# The interpreter .venv was made from (as recorded by trunk_make_venv; for a .venv made by hand, as it says).
trunk_venv_base() {
  cat "$trunk_venv_dir/trunk-base-python" 2>/dev/null \
    || "$trunk_venv_dir/bin/python" -c 'import os, sys; print(os.path.realpath(sys._base_executable))'
}

trunk_venv() {
  local python="$trunk_venv_dir/bin/python"
  if [ ! -x "$python" ] || ! "$python" -c '' 2>/dev/null; then
    trunk_make_venv || return 1  # missing, or its interpreter is gone (a removed pyenv version)
  elif [ -n "${TRUNK_PYTHON:-}" ] && [ "$(trunk_base_python)" != "$(trunk_venv_base)" ]; then
    trunk_base_python >/dev/null || return 1
    trunk_say "TRUNK_PYTHON=$TRUNK_PYTHON is not the interpreter .venv was made from: making it again"
    trunk_make_venv || return 1
  fi
  export VIRTUAL_ENV="$trunk_venv_dir"
  export PATH="$trunk_venv_dir/bin:$PATH"
  unset PYTHONHOME
  hash -r
  if ! python -c "import sys, pip
sys.exit(tuple(map(int, pip.__version__.split('.')[:2])) < tuple(map(int, '$trunk_min_pip'.split('.'))))" 2>/dev/null; then
    trunk_say "upgrading pip inside .venv (it has $(python -m pip --version 2>/dev/null | cut -d' ' -f2))"
    python -m pip install --quiet --disable-pip-version-check --upgrade "pip>=$trunk_min_pip" || return 1
  fi
}

trunk_requirements() {
  local requirements
  requirements="$(python "$trunk_root/scripts/lib/requirements.py" "$@")" || return 1
  mapfile -t requirements <<<"$requirements"
  python -m pip install --quiet --disable-pip-version-check "${requirements[@]}"
}

# Whether the interpreter $1 has its headers (Python.h), which building the extension needs.
trunk_has_python_headers() {
  "$1" -c 'import os, sys, sysconfig
sys.exit(not os.path.exists(os.path.join(sysconfig.get_path("include"), "Python.h")))' 2>/dev/null
}

trunk_build_backend() {
  if ! trunk_has_python_headers python; then
    trunk_distribution_package "$(trunk_venv_base)" dev "no Python.h to build the extension against" || return 1
  fi
  trunk_requirements build-system || return 1
  export TRUNK_PY_BUILD_DIR="${TRUNK_PY_BUILD_DIR:-$trunk_root/build/py}"
  trunk_build_jobs
}

# ON in CI (CI=true), where a compiler warning fails the build, else OFF: the value of TRUNK_WARNINGS_AS_ERRORS for
# every build of the scripts. The Python build directory caches it, so scripts/test and scripts/build-wheel must
# pass the same value, or whichever runs second recompiles everything.
trunk_warnings_as_errors() {
  if [ "${CI:-}" = "true" ]; then echo ON; else echo OFF; fi
}

# scikit-build-core runs `cmake --build` without -j, and Ninja alone starts cores + 2 compilers: as many as cores,
# like the other builds of the scripts.
trunk_build_jobs() {
  export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}"
}
