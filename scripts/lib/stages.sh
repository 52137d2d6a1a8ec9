# Stages of .ci/run with their wall times (bash, sourced).
#
# A stage is a command. Each one's wall time is printed when it ends, and the table of every stage, with the total,
# when the run ends (also when a stage fails, so a red run still says where its time went).
#
# Background stages: builds that need nothing from the stages running meanwhile (the sanitizer and fuzz builds) run
# one after the other in a background chain at the lowest CPU priority (nice 19), while the foreground runs the
# stages that leave cores idle (pytest, Schemathesis, the docs: servers, sleeps, one Python thread). The kernel
# hands the chain only the CPU the foreground leaves, so no test waits for a compiler; the chain's own tests run
# later in the foreground, at normal priority, once its build is done (ci_await).
#
#   ci_stage NAME COMMAND...        runs COMMAND now; fails the run when it fails
#   ci_background NAME COMMAND... [-- NAME COMMAND...]...
#                                   starts the chain: each COMMAND after the one before it succeeded, its output
#                                   in build/ci/NAME.log
#   ci_await NAME                   waits for NAME of the chain, prints its log, fails the run when it failed
#
# Times are whole seconds of wall time (bash's SECONDS). A background stage's own time is from its start to its end;
# the table says which stages overlapped the foreground.

ci_dir="${ci_dir:-$PWD/build/ci}"
ci_names=()
ci_seconds=()
ci_notes=()
ci_chain_pid=""
ci_started=$SECONDS

ci_record() {  # NAME SECONDS NOTE
  ci_names+=("$1")
  ci_seconds+=("$2")
  ci_notes+=("$3")
  printf '== ci: %s: %s (%d s)\n' "$1" "$3" "$2"
}

ci_clock() {  # SECONDS -> m:ss
  printf '%d:%02d' $(($1 / 60)) $(($1 % 60))
}

ci_table() {
  local total=$((SECONDS - ci_started)) i
  echo
  echo "== ci: wall time per stage"
  printf '| %-28s | %7s | %s\n' "stage" "m:ss" "result"
  for i in "${!ci_names[@]}"; do
    printf '| %-28s | %7s | %s\n' "${ci_names[$i]}" "$(ci_clock "${ci_seconds[$i]}")" "${ci_notes[$i]}"
  done
  printf '| %-28s | %7s |\n' "total (wall)" "$(ci_clock "$total")"
}

ci_stage() {
  local name="$1" start=$SECONDS status=0
  shift
  echo "== ci: $name: $*"
  "$@" || status=$?
  if [ "$status" -ne 0 ]; then
    ci_record "$name" $((SECONDS - start)) "FAILED (exit $status)"
    return "$status"
  fi
  ci_record "$name" $((SECONDS - start)) "ok"
}

# The chain writes, per stage, NAME.log (its output), then NAME.start and NAME.status (exit code) and NAME.end
# (epoch seconds); a stage whose predecessor failed gets status "skipped".
ci_background() {
  mkdir -p "$ci_dir"
  local steps=("$@")
  # Job control on for this one job: the chain gets a process group of its own, so ci_finish can stop it with
  # every compiler it started.
  set -m
  (
    failed=0
    while [ ${#steps[@]} -gt 0 ]; do
      name="${steps[0]}"
      steps=("${steps[@]:1}")
      command=()
      while [ ${#steps[@]} -gt 0 ] && [ "${steps[0]}" != "--" ]; do
        command+=("${steps[0]}")
        steps=("${steps[@]:1}")
      done
      if [ ${#steps[@]} -gt 0 ]; then steps=("${steps[@]:1}"); fi  # the "--"
      if [ "$failed" -ne 0 ]; then
        echo skipped >"$ci_dir/$name.status"
        continue
      fi
      date +%s >"$ci_dir/$name.start"
      status=0
      nice -n 19 "${command[@]}" </dev/null >"$ci_dir/$name.log" 2>&1 || status=$?
      date +%s >"$ci_dir/$name.end"
      echo "$status" >"$ci_dir/$name.status"
      if [ "$status" -ne 0 ]; then failed=1; fi
    done
  ) &
  ci_chain_pid=$!
  set +m
  echo "== ci: started in the background (nice 19): $(printf '%s\n' "$@" | awk 'NR == 1 || prev == "--" { printf "%s ", $0 } { prev = $0 }')"
}

ci_await() {
  local name="$1" waited=$SECONDS status seconds
  while [ ! -f "$ci_dir/$name.status" ]; do
    if ! kill -0 "$ci_chain_pid" 2>/dev/null && [ ! -f "$ci_dir/$name.status" ]; then
      echo "== ci: the background chain ended without running $name" >&2
      return 1
    fi
    sleep 2
  done
  status="$(cat "$ci_dir/$name.status")"
  echo "== ci: $name (background; waited $((SECONDS - waited)) s for it); its output:"
  cat "$ci_dir/$name.log" 2>/dev/null || true
  if [ "$status" = "skipped" ]; then
    ci_record "$name" 0 "skipped: an earlier background stage failed"
    return 1
  fi
  seconds=$(($(cat "$ci_dir/$name.end") - $(cat "$ci_dir/$name.start")))
  if [ "$status" -ne 0 ]; then
    ci_record "$name" "$seconds" "FAILED (exit $status), in the background"
    return "$status"
  fi
  ci_record "$name" "$seconds" "ok, in the background"
}

# On exit: stop a chain still running (a foreground stage failed), then print the table.
ci_finish() {
  local status=$?
  if [ -n "$ci_chain_pid" ] && kill -0 "$ci_chain_pid" 2>/dev/null; then
    kill -TERM -- "-$ci_chain_pid" 2>/dev/null || true
    wait "$ci_chain_pid" 2>/dev/null || true
  fi
  ci_table
  if [ "$status" -eq 0 ]; then echo "ci: every stage passed"; else echo "ci: FAILED (exit $status)"; fi
  return "$status"
}
trap ci_finish EXIT
