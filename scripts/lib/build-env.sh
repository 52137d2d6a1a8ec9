# The environment of every C++ build the scripts run (bash, sourced): ccache in front of the compiler, when it is
# installed (scripts/install-system-deps installs it), set up so that build trees with the same compiler and flags
# share their objects:
#   - build/py (the wheel, scripts/install-package) and build/cpp (ctest) compile the core library and the sandbox
#     with the same flags (Release), so the second tree takes the first one's objects instead of compiling them;
#   - a second run, or a second clone on the same machine, takes every object of the first (a warm CI run).
# CCACHE_BASEDIR makes the paths inside the checkout relative, so two trees (or two clones) hash alike;
# CCACHE_NOHASHDIR leaves the working directory out of the hash (it only reaches debug information). ccache hashes
# the compiler's name too: CMake alone picks `c++` where scikit-build-core picks `g++` (the name Python was built
# with), so CXX names g++ for both unless you set it. Set CMAKE_CXX_COMPILER_LAUNCHER= (empty) to build without
# ccache; CCACHE_DISABLE=1 also works.

trunk_build_env() {
  local root
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
  export CXX="${CXX:-g++}"
  if command -v ccache >/dev/null 2>&1; then
    export CMAKE_CXX_COMPILER_LAUNCHER="${CMAKE_CXX_COMPILER_LAUNCHER-ccache}"
    export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}"
    export CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-true}"
    # The test suites use precompiled headers (tests/cpp/CMakeLists.txt); ccache caches such compilations only
    # with these relaxations (its manual, "Precompiled headers").
    export CCACHE_SLOPPINESS="${CCACHE_SLOPPINESS:-pch_defines,time_macros,include_file_mtime,include_file_ctime}"
  fi
}
