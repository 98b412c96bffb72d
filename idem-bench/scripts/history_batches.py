#!/usr/bin/env python3
"""A batch against a growing history: idem dedup --history against an anti-join in DuckDB (a
persistent table with a primary key) and in Polars (the history as Parquet files), batch after
batch. Each batch holds 65 % keys new to the history, 30 % keys of earlier batches and 5 % repeats
of its own; every tool's output for every batch is checked, byte for byte, against the generator's
own reference (the records of keys no earlier batch and no earlier record had, in input order).

    python3 idem-bench/scripts/history_batches.py --batches 10 --lines 1000000 --dir /tmp/hb

Prints one line per tool and batch (wall seconds, peak RSS from GNU time) and a table at the end.
"""
import argparse
import os
import random
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
IDEM = os.path.join(HERE, "..", "..", "bin", "idem")


def key(c):
    # an invertible mix of c, so keys look random but the c-th new key is known
    x = (c * 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
    return "https://example.org/item/%016x/%d" % (x, c % 97)


def generate(d, batches, lines, seed):
    rng = random.Random(seed)
    next_new = 0
    for b in range(batches):
        first_of_batch = next_new
        with open(os.path.join(d, "batch-%02d.txt" % b), "w") as f, open(
            os.path.join(d, "expected-%02d.txt" % b), "w"
        ) as e:
            for _ in range(lines):
                x = rng.random()
                if x < 0.30 and first_of_batch > 0:
                    c = rng.randrange(first_of_batch)  # a key of an earlier batch
                elif x < 0.35 and next_new > first_of_batch:
                    c = rng.randrange(first_of_batch, next_new)  # a repeat within the batch
                else:
                    c = next_new
                    next_new += 1
                    e.write(key(c) + "\n")
                f.write(key(c) + "\n")
    return next_new


def timed(cmd):
    t = time.monotonic()
    p = subprocess.run(
        ["/usr/bin/time", "-f", "%M"] + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    wall = time.monotonic() - t
    if p.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), p.stderr))
    rss_kib = int(p.stderr.strip().splitlines()[-1])
    return wall, rss_kib / 1024


DUCKDB = r"""
import duckdb, sys
db, batch, out = sys.argv[1:4]
con = duckdb.connect(db)
con.execute("CREATE TABLE IF NOT EXISTS history(k VARCHAR PRIMARY KEY)")
con.execute("CREATE TEMP TABLE b AS SELECT * FROM read_csv(?, columns={'k': 'VARCHAR'}, header=false, delim='\t', quote='', escape='')", [batch])
con.execute("CREATE TEMP TABLE n AS SELECT k, min(rowid) AS r FROM b ANTI JOIN history USING (k) GROUP BY k")
con.execute("COPY (SELECT k FROM n ORDER BY r) TO '%s' (HEADER false, QUOTE '', DELIMITER '\t')" % out)
con.execute("INSERT INTO history SELECT k FROM n")
con.close()
"""

POLARS = r"""
import polars as pl, sys, os, glob
hist, batch, out, name = sys.argv[1:5]
b = pl.read_csv(batch, has_header=False, new_columns=['k'], separator='\t', quote_char=None).with_row_index('r')
first = b.unique(subset='k', keep='first', maintain_order=True)
files = sorted(glob.glob(os.path.join(hist, '*.parquet')))
if files:
    first = first.lazy().join(pl.scan_parquet(files), on='k', how='anti').collect()
new = first.sort('r').select('k')
new.write_csv(out, include_header=False, quote_style='never')
new.write_parquet(os.path.join(hist, name + '.parquet'))
"""


def main():
    a = argparse.ArgumentParser()
    a.add_argument("--batches", type=int, default=10)
    a.add_argument("--lines", type=int, default=1_000_000)
    a.add_argument("--dir", default="/tmp/history-bench")
    a.add_argument("--tools", default="idem,duckdb,polars")
    a.add_argument("--idem-args", default="--expected 10000000")
    a.add_argument("--seed", type=int, default=20261207)
    o = a.parse_args()
    shutil.rmtree(o.dir, ignore_errors=True)
    os.makedirs(o.dir)
    distinct = generate(o.dir, o.batches, o.lines, o.seed)
    print("generated %d batches of %d lines, %d distinct keys" % (o.batches, o.lines, distinct), flush=True)
    for s, body in (("duckdb_batch.py", DUCKDB), ("polars_batch.py", POLARS)):
        with open(os.path.join(o.dir, s), "w") as f:
            f.write(body)
    os.makedirs(os.path.join(o.dir, "polars-history"))
    rows = {}
    for b in range(o.batches):
        batch = os.path.join(o.dir, "batch-%02d.txt" % b)
        for tool in o.tools.split(","):
            out = os.path.join(o.dir, "%s-out-%02d.txt" % (tool, b))
            if tool == "idem":
                cmd = [IDEM, "dedup", "--whole-line", "--history", os.path.join(o.dir, "idem-history"),
                       "-o", out, "-q"] + o.idem_args.split() + [batch]
            elif tool == "duckdb":
                cmd = [sys.executable, os.path.join(o.dir, "duckdb_batch.py"),
                       os.path.join(o.dir, "history.duckdb"), batch, out]
            else:
                cmd = [sys.executable, os.path.join(o.dir, "polars_batch.py"),
                       os.path.join(o.dir, "polars-history"), batch, out, "%02d" % b]
            wall, rss = timed(cmd)
            with open(out, "rb") as f1, open(os.path.join(o.dir, "expected-%02d.txt" % b), "rb") as f2:
                ok = f1.read() == f2.read()
            rows.setdefault(tool, []).append((wall, rss, ok))
            print("%-7s batch %2d  %7.2f s  %6.0f MiB  %s" % (tool, b, wall, rss, "ok" if ok else "WRONG"), flush=True)
            os.remove(out)
    print()
    print("| batch | " + " | ".join("%s wall / RSS" % t for t in rows) + " |")
    print("|---:|" + "---:|" * len(rows))
    for b in range(o.batches):
        print("| %d | " % (b + 1) + " | ".join(
            "%.2f s / %.0f MiB%s" % (r[b][0], r[b][1], "" if r[b][2] else " WRONG") for r in rows.values()) + " |")


if __name__ == "__main__":
    main()
