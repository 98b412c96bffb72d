#!/usr/bin/env bash
# The CLI restart benchmark (docs/BENCHMARKS.md, "Restart"): `idem dedup --whole-line --state` over
# KEYS distinct 16-hex-digit lines (10 % of the lines repeat one), killed (SIGKILL) once its output
# passes 70 %, then restarted REPS times from a copy of the killed state. Per restart it prints the
# milliseconds from spawn to the first output byte past the checkpoint's length (what the resume cut
# the output back to) and the restore_* parts of --stats-json, and checks the output against an
# uninterrupted run's line count and a sorted-unique count of the input.
#   idem-bench/scripts/cli-restart.sh ROOT KEYS WORK [HEAP] [REPS]
# ROOT holds bin/idem (and lib/idem.jar for another build); HEAP is fixed and pre-touched.
set -euo pipefail
root="$1" keys="$2" work="$3" heap="${4:-6g}" reps="${5:-3}"
probe="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/RestartProbe.java"
export IDEM_JAVA_OPTS="-Xms$heap -Xmx$heap -XX:+AlwaysPreTouch"
mkdir -p "$work"
input="$work/keys-$keys.txt"
if [[ ! -f "$input" ]]; then
  java -Xmx256m "$probe" keys "$keys" 10 >"$input.tmp" && mv "$input.tmp" "$input"
fi
final=$((keys * 17)) # every distinct key once, 16 hex digits and a newline
run="$work/run" killed="$work/killed"
rm -rf "$run" "$killed" && mkdir -p "$run"
cmd=("$root/bin/idem" dedup --whole-line --state "$run/state" -o "$run/out.txt" --stats-json "$run/stats.json" "$input")
start=$(date +%s.%N)
java -Xmx64m "$probe" kill "$run/out.txt" $((final * 7 / 10)) -- "${cmd[@]}"
echo "load to the kill: $(echo "$(date +%s.%N) - $start" | bc) s"
cp -a "$run" "$killed"
du -sh "$killed"/state/* | sed 's/^/  /'
for rep in $(seq 1 "$reps"); do
  rm -rf "$run" && cp -a "$killed" "$run"
  cut=$("$root/bin/idem" inspect --json "$run/state" | python3 -c 'import json,sys; print(json.load(sys.stdin)["checkpoint"]["output_bytes"])')
  first=$(java -Xmx64m "$probe" first "$run/out.txt" "$cut" -- "${cmd[@]}" | grep first_new_byte_millis)
  size=$(stat -c %s "$run/out.txt")
  [[ "$size" == "$final" ]] || { echo "rep $rep: output $size bytes, expected $final" >&2; exit 1; }
  echo "rep $rep: $first $(python3 -c '
import json,sys
d=json.load(open(sys.argv[1]))
print(" ".join(f"{k}={v}" for k,v in d.items() if k.startswith("restore") or k in ("journal_replayed","filter_rebuilt","first_record_millis","elapsed_millis")))' "$run/stats.json")"
done
