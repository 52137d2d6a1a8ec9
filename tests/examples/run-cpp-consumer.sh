#!/usr/bin/env bash
# Proves that a separate CMake project can use the installed C++ library:
#   1. builds trunk-api (Release) and installs it to a fresh temporary prefix (cmake --install),
#   2. configures and builds examples/cpp from scratch against that prefix (find_package(trunk_api CONFIG)),
#   3. starts the installed trunk-sandbox on a free loopback port and runs the example against it,
#   4. checks the output and the exit codes (0 with the right token, 3 with a wrong one), stops the sandbox.
# It does the same for the C++ example of the documentation (docs/guides/cpp.md, its ```cmake and ```cpp
# blocks), so that block runs as written too.
# The library build directory (build/consumer, or $TRUNK_CONSUMER_BUILD_DIR) is reused between runs; the
# install prefix and the example's build directory are new every time.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
guide="$root/docs/guides/cpp.md"  # the page whose C++ example is built and run below
build="${TRUNK_CONSUMER_BUILD_DIR:-$root/build/consumer}"
jobs="${TRUNK_CONSUMER_JOBS:-2}"

work="$(mktemp -d "${TMPDIR:-/tmp}/trunk-consumer.XXXXXX")"
prefix="$work/prefix"
sandbox_pid=""
cleanup() {
  if [ -n "$sandbox_pid" ] && kill -0 "$sandbox_pid" 2>/dev/null; then
    kill -TERM "$sandbox_pid" 2>/dev/null || true
    wait "$sandbox_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

# Runs a command quietly; on failure shows what it printed (compiler errors go to stdout with Ninja).
quiet() {
  if ! "$@" >"$work/step.log" 2>&1; then
    echo "failed: $*" >&2
    tail -n 60 "$work/step.log" >&2
    return 1
  fi
}

generator=()
if command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi

echo "== library: configure, build and install to a temporary prefix"
if [ ! -f "$build/CMakeCache.txt" ]; then
  quiet cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DTRUNK_INSTALL=ON -DTRUNK_BUILD_TESTS=OFF -DTRUNK_BUILD_SANDBOX=ON -DTRUNK_BUILD_PYTHON=OFF
fi
quiet cmake --build "$build" -j "$jobs"
quiet cmake --install "$build" --prefix "$prefix"
test -f "$prefix/lib/cmake/trunk_api/trunk_apiConfig.cmake" || test -f "$prefix/lib64/cmake/trunk_api/trunk_apiConfig.cmake" \
  || { echo "no trunk_apiConfig.cmake under $prefix" >&2; exit 1; }
test -x "$prefix/bin/trunk-sandbox" || { echo "trunk-sandbox was not installed to $prefix/bin" >&2; exit 1; }

echo "== example: configure and build examples/cpp against the installed package only"
# The example sees nothing of the source tree: only the prefix.
quiet cmake -S "$root/examples/cpp" -B "$work/example" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix"
quiet cmake --build "$work/example" -j "$jobs"

echo "== docs/guides/cpp.md: build its C++ example (the \`\`\`cmake and \`\`\`cpp blocks) the same way"
mkdir -p "$work/guide-src"
extract_block() {  # prints the first fenced block of the guide whose info string is $1
  awk -v lang="$1" '$0 == "```" lang { inside = 1; next } inside && $0 == "```" { exit } inside { print }' "$guide"
}
{
  echo "cmake_minimum_required(VERSION 3.20)"
  echo "project(guide_example LANGUAGES CXX)"
  extract_block cmake
} >"$work/guide-src/CMakeLists.txt"
extract_block cpp >"$work/guide-src/main.cpp"
grep -q "find_package(trunk_api CONFIG REQUIRED)" "$work/guide-src/CMakeLists.txt" \
  || { echo "docs/guides/cpp.md has no cmake block with find_package(trunk_api ...)" >&2; exit 1; }
grep -q "int main" "$work/guide-src/main.cpp" || { echo "docs/guides/cpp.md has no cpp block with main()" >&2; exit 1; }
quiet cmake -S "$work/guide-src" -B "$work/guide-build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix"
quiet cmake --build "$work/guide-build" -j "$jobs"
guide_program="$(find "$work/guide-build" -maxdepth 1 -type f -perm -u+x | head -n 1)"
[ -n "$guide_program" ] || { echo "the guide's example did not produce a program" >&2; exit 1; }

echo "== run: start the installed trunk-sandbox and list failing tests with the example"
# Organization "acme", as in the guide's example.
"$prefix/bin/trunk-sandbox" --port 0 --tests 400 --seed 7 --org acme >"$work/sandbox.out" 2>"$work/sandbox.err" &
sandbox_pid=$!
for _ in $(seq 1 100); do
  grep -q '^repo: ' "$work/sandbox.out" 2>/dev/null && break
  kill -0 "$sandbox_pid" 2>/dev/null || { echo "trunk-sandbox exited early:" >&2; cat "$work/sandbox.err" >&2; exit 1; }
  sleep 0.1
done
url="$(sed -n 's/^trunk-sandbox listening on //p' "$work/sandbox.out")"
token="$(sed -n 's/^token: //p' "$work/sandbox.out")"
org="$(sed -n 's/^org_url_slug: //p' "$work/sandbox.out")"
repo="$(sed -n 's/^repo: //p' "$work/sandbox.out" | head -n 1)"
[ -n "$url" ] && [ -n "$token" ] && [ -n "$org" ] && [ -n "$repo" ] \
  || { echo "could not read the sandbox's address, token, org and repo" >&2; exit 1; }
echo "sandbox at $url, repo $repo, org $org"

set +e
TRUNK_BASE_URL="$url" TRUNK_API_TOKEN="$token" "$work/example/failing-tests" "$repo" "$org" 24 >"$work/run.out" 2>"$work/run.err"
status=$?
set -e
cat "$work/run.out"
if [ "$status" -ne 0 ]; then
  echo "failing-tests exited $status:" >&2
  cat "$work/run.err" >&2
  exit 1
fi
count="$(sed -n 's/^\([0-9][0-9]*\) failing tests\{0,1\}$/\1/p' "$work/run.out")"
rows="$(($(wc -l <"$work/run.out") - 3))"  # minus the heading, the column titles and the count line
[ -n "$count" ] && [ "$count" -gt 0 ] || { echo "expected at least one failing test" >&2; exit 1; }
[ "$rows" -eq "$count" ] || { echo "printed $rows rows but counted $count" >&2; exit 1; }
grep -Eq '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' "$work/run.out" \
  || { echo "no test id in the output" >&2; exit 1; }

echo "== run: a wrong token must give exit code 3 and a message without the token"
set +e
TRUNK_BASE_URL="$url" TRUNK_API_TOKEN="wrong-token-for-the-example" "$work/example/failing-tests" "$repo" "$org" \
  >"$work/wrong.out" 2>"$work/wrong.err"
status=$?
set -e
[ "$status" -eq 3 ] || { echo "wrong token: expected exit 3, got $status" >&2; cat "$work/wrong.err" >&2; exit 1; }
if grep -q "wrong-token-for-the-example" "$work/wrong.out" "$work/wrong.err"; then
  echo "the token leaked into the output" >&2
  exit 1
fi

echo "== run: the C++ example of docs/guides/cpp.md"
TRUNK_BASE_URL="$url" TRUNK_API_TOKEN="$token" "$guide_program" >"$work/guide.out" 2>"$work/guide.err" \
  || { echo "the guide's example failed:" >&2; cat "$work/guide.err" >&2; exit 1; }
guide_lines="$(wc -l <"$work/guide.out")"
[ "$guide_lines" -gt 0 ] || { echo "the guide's example printed nothing" >&2; exit 1; }
echo "the guide's example printed $guide_lines failing tests"

kill -TERM "$sandbox_pid"
wait "$sandbox_pid"
sandbox_pid=""
echo "C++ consumer OK: $count failing tests listed through the installed package"
