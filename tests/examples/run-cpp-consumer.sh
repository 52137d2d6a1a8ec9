#!/usr/bin/env bash
# Proves that a separate CMake project can use the installed C++ library:
#   1. builds trunk-api (Release) and installs it to a fresh temporary prefix (cmake --install),
#   2. configures and builds examples/cpp from scratch against that prefix (find_package(trunk_api CONFIG)),
#   3. starts the installed trunk-sandbox on a free loopback port and runs the example against it,
#   4. checks the output and the exit codes (0 with the right token, 3 with a wrong one), stops the sandbox.
# The library build directory (build/consumer, or $TRUNK_CONSUMER_BUILD_DIR) is reused between runs; the
# install prefix and the example's build directory are new every time.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
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

generator=()
if command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi

echo "== library: configure, build and install to a temporary prefix"
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DTRUNK_INSTALL=ON -DTRUNK_BUILD_TESTS=OFF -DTRUNK_BUILD_SANDBOX=ON -DTRUNK_BUILD_PYTHON=OFF >/dev/null
fi
cmake --build "$build" -j "$jobs" >/dev/null
cmake --install "$build" --prefix "$prefix" >/dev/null
test -f "$prefix/lib/cmake/trunk_api/trunk_apiConfig.cmake" || test -f "$prefix/lib64/cmake/trunk_api/trunk_apiConfig.cmake" \
  || { echo "no trunk_apiConfig.cmake under $prefix" >&2; exit 1; }
test -x "$prefix/bin/trunk-sandbox" || { echo "trunk-sandbox was not installed to $prefix/bin" >&2; exit 1; }

echo "== example: configure and build examples/cpp against the installed package only"
# The example sees nothing of the source tree: only the prefix.
cmake -S "$root/examples/cpp" -B "$work/example" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/example" -j "$jobs" >/dev/null

echo "== run: start the installed trunk-sandbox and list failing tests with the example"
"$prefix/bin/trunk-sandbox" --port 0 --tests 400 --seed 7 >"$work/sandbox.out" 2>"$work/sandbox.err" &
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

kill -TERM "$sandbox_pid"
wait "$sandbox_pid"
sandbox_pid=""
echo "C++ consumer OK: $count failing tests listed through the installed package"
