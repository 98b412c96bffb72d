#!/usr/bin/env bash
# The CLI restart benchmark (docs/BENCHMARKS.md, "Restart"): `idem dedup --whole-line --state` over
# KEYS distinct 16-hex-digit lines (10 % of the lines repeat one), killed (SIGKILL) once its output
# passes 70 %, then restarted REPS times from a copy of the killed state. Per restart it prints the
# milliseconds from spawn to the first output byte past the checkpoint's length (what the resume cut
# the output back to) and the restore_* parts of --stats-json, and checks the output against an
# uninterrupted run's line count and a sorted-unique count of the input.
#   idem-bench/scripts/cli-restart.sh ROOT KEYS WORK [HEAP] [REPS] [RESTART_HEAP]
# ROOT holds bin/idem (and lib/idem.jar for another build); HEAP (of the run killed) and
# RESTART_HEAP (of the restarts, HEAP if not given) are fixed and pre-touched, unless PRETOUCH=0
# (the restarts' heap then only capped: a restart's start is what is measured, and pre-touching
# gigabytes is part of it). RESTART_ONLY=1 restarts again from the killed state of an earlier call
# with the same WORK.
set -euo pipefail
root="$1" keys="$2" work="$3" heap="${4:-6g}" reps="${5:-3}" restart_heap="${6:-${4:-6g}}"
probe="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/RestartProbe.java"
export IDEM_JAVA_OPTS="-Xms$heap -Xmx$heap -XX:+AlwaysPreTouch"
mkdir -p "$work"
input="$work/keys-$keys.txt"
if [[ ! -f "$input" ]]; then
  java -Xmx256m "$probe" keys "$keys" 10 >"$input.tmp" && mv "$input.tmp" "$input"
fi
final=$((keys * 17)) # every distinct key once, 16 hex digits and a newline
run="$work/run" killed="$work/killed"
cmd=("$root/bin/idem" dedup --whole-line --state "$run/state" -o "$run/out.txt" --stats-json "$run/stats.json" "$input")
if [[ "${RESTART_ONLY:-}" != 1 ]]; then
  rm -rf "$run" "$killed" && mkdir -p "$run"
  start=$(date +%s.%N)
  java -Xmx64m "$probe" kill "$run/out.txt" $((final * 7 / 10)) -- "${cmd[@]}"
  echo "load to the kill: $(echo "$(date +%s.%N) - $start" | bc) s"
  cp -a "$run" "$killed"
fi
du -sh "$killed"/state/* | sed 's/^/  /'
if [[ "${PRETOUCH:-1}" == 0 ]]; then
  export IDEM_JAVA_OPTS="-Xmx$restart_heap"
else
  export IDEM_JAVA_OPTS="-Xms$restart_heap -Xmx$restart_heap -XX:+AlwaysPreTouch"
fi
for rep in $(seq 1 "$reps"); do
  # the copy is written back before the restart, as a killed job's own snapshots were (fsynced):
  # a map's first touch of a page still being written back waits for it
  rm -rf "$run" && cp -a "$killed" "$run" && sync
  cut=$(IDEM_JAVA_OPTS= "$root/bin/idem" inspect --json "$run/state" | python3 -c 'import json,sys; print(json.load(sys.stdin)["checkpoint"]["output_bytes"])')
  first=$(java -Xmx64m "$probe" first "$run/out.txt" "$cut" -- "${cmd[@]}" | grep first_new_byte_millis)
  size=$(stat -c %s "$run/out.txt")
  [[ "$size" == "$final" ]] || { echo "rep $rep: output $size bytes, expected $final" >&2; exit 1; }
  echo "rep $rep: $first $(python3 -c '
import json,sys
d=json.load(open(sys.argv[1]))
print(" ".join(f"{k}={v}" for k,v in d.items() if k.startswith("restore") or k in ("journal_replayed","filter_rebuilt","first_record_millis","elapsed_millis")))' "$run/stats.json")"
done
