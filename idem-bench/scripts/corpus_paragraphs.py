#!/usr/bin/env python3
"""Paragraph dedup of a generated corpus: idem (exact, and a Bloom filter alone) against Polars
and DuckDB doing the same task, with precision and recall against the planted truth.

The corpus: documents of 3 to 12 paragraphs (one per line of the text field); 30 % of paragraphs
are boilerplate from a pool of 500, 15 % repeat an earlier paragraph, the rest are fresh. The rule
every contender applies: the first occurrence of a paragraph (in document order, then paragraph
order) stays, every later one is removed with its line break, and a document left empty (white
space only) is dropped. Each contender runs in its own process under /usr/bin/time (wall, peak
RSS); the kept text of every document is then compared with the truth, paragraph by paragraph.

  python3 idem-bench/scripts/corpus_paragraphs.py --docs 400000 --dir /tmp/corpus-bench
"""
import argparse
import json
import os
import random
import subprocess
import sys

POLARS = r'''
import polars as pl, sys
src, out = sys.argv[1], sys.argv[2]
df = pl.read_ndjson(src).with_row_index("doc")
p = (df.select("doc", pl.col("text").str.split("\n").alias("p"))
       .with_columns(pl.int_ranges(0, pl.col("p").list.len()).alias("k"),
                     pl.col("p").list.len().alias("n"))
       .explode(["p", "k"]))
judged = pl.col("p").str.strip_chars().str.len_chars() > 0
p = p.with_columns((~judged | pl.col("p").is_first_distinct()).alias("keep"))
# a kept paragraph keeps its line break unless it is the document's last
kept = (p.filter("keep")
         .with_columns(pl.when(pl.col("k") < pl.col("n") - 1)
                         .then(pl.col("p") + "\n").otherwise(pl.col("p")).alias("s"))
         .group_by("doc", maintain_order=True).agg(pl.col("s").str.join(""))
         .filter(pl.col("s").str.strip_chars().str.len_chars() > 0))
kept.select(pl.col("doc"), pl.col("s").alias("text")).write_ndjson(out)
'''

DUCKDB = r'''
import duckdb, sys
src, out = sys.argv[1], sys.argv[2]
duckdb.sql(f"""
COPY (
  WITH d AS (SELECT row_number() OVER () - 1 AS doc, text FROM read_json('{src}', format='newline_delimited')),
  p AS (SELECT doc, u.p, u.k, len(string_split(text, chr(10))) AS n
        FROM d, unnest(string_split(text, chr(10))) WITH ORDINALITY AS u(p, k)),
  j AS (SELECT *, trim(p) = '' OR row_number() OVER (PARTITION BY p ORDER BY doc, k) = 1 AS keep FROM p),
  kept AS (SELECT doc, string_agg(CASE WHEN k < n THEN p || chr(10) ELSE p END, '' ORDER BY k) AS text
           FROM j WHERE keep GROUP BY doc)
  SELECT doc, text FROM kept WHERE trim(text) <> '' ORDER BY doc
) TO '{out}' (FORMAT json)
""")
'''


def words(r, n):
    return " ".join("w%d" % r.randrange(200_000) for _ in range(n))


def generate(path, docs, seed=7):
    r = random.Random(seed)
    boiler = ["Boilerplate %d: %s" % (i, words(r, 12)) for i in range(500)]
    earlier = []
    with open(path, "w") as f:
        for d in range(docs):
            ps = []
            for _ in range(r.randint(3, 12)):
                roll = r.random()
                if roll < 0.30:
                    s = r.choice(boiler)
                elif roll < 0.45 and earlier:
                    s = r.choice(earlier)
                else:
                    s = words(r, r.randint(8, 60))
                    if len(earlier) < 200_000:
                        earlier.append(s)
                ps.append(s)
            f.write(json.dumps({"id": d, "text": "\n".join(ps), "meta": {"src": "gen"}}) + "\n")


def truth(path):
    """Per document: the kept paragraphs' indexes (None: dropped); and the removed count."""
    seen = set()
    kept = []
    removed = 0
    with open(path) as f:
        for line in f:
            ps = json.loads(line)["text"].split("\n")
            k = []
            for i, p in enumerate(ps):
                if not p.strip() or p not in seen:
                    seen.add(p)
                    k.append(i)
                else:
                    removed += 1
            kept.append(k if any(ps[i].strip() for i in k) else None)
    return kept, removed


def timed(cmd, log):
    r = subprocess.run(["/usr/bin/time", "-f", "%e %M"] + cmd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    last = r.stderr.strip().splitlines()[-1]
    if r.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), r.stderr))
    secs, kib = last.split()
    print("  %s: %s s, %d MiB" % (log, secs, int(kib) // 1024), flush=True)
    return float(secs), int(kib) // 1024


def score(src, out, key, kept_truth, removed_truth):
    """Precision and recall of the removed paragraphs, from each document's text written."""
    texts = {}
    with open(out) as f:
        for line in f:
            o = json.loads(line)
            texts[o[key]] = o["text"]
    tp = fp = 0
    with open(src) as f:
        for d, line in enumerate(f):
            ps = json.loads(line)["text"].split("\n")
            want = kept_truth[d]
            got = texts.get(d)
            if got is None:
                got_kept = set()
            else:
                got_lines = got.split("\n")
                got_kept, j = set(), 0
                for i, p in enumerate(ps):  # match kept paragraphs in order
                    if j < len(got_lines) and got_lines[j] == p:
                        got_kept.add(i)
                        j += 1
            want_removed = set(range(len(ps))) - set(want or [])
            got_removed = set(range(len(ps))) - got_kept
            tp += len(want_removed & got_removed)
            fp += len(got_removed - want_removed)
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / removed_truth if removed_truth else 1.0
    return precision, recall


def main():
    a = argparse.ArgumentParser()
    a.add_argument("--docs", type=int, default=400_000)
    a.add_argument("--dir", default="/tmp/corpus-bench")
    a.add_argument("--idem", default=os.path.join(os.path.dirname(__file__), "../../bin/idem"))
    a.add_argument("--heap", default="3g")
    args = a.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    src = os.path.join(args.dir, "corpus.jsonl")
    if not os.path.exists(src):
        generate(src, args.docs)
    mib = os.path.getsize(src) / 2**20
    kept_truth, removed = truth(src)
    print("corpus: %d documents, %.0f MiB, %d paragraphs to remove" % (args.docs, mib, removed))
    rows = []
    idem = [args.idem, "dedup", "--content", "text", "--unit", "paragraph", "--memory", args.heap,
            "-q", src]
    for name, extra, out in [("idem exact", [], "idem.jsonl"),
                             ("idem --fpp 0.001", ["--fpp", "0.001"], "idem-filter.jsonl")]:
        o = os.path.join(args.dir, out)
        t, rss = timed(idem[:-1] + extra + ["-o", o, src], name)
        rows.append((name, t, rss) + score(src, o, "id", kept_truth, removed))
    for name, code in [("polars", POLARS), ("duckdb", DUCKDB)]:
        script = os.path.join(args.dir, "bench_" + name + ".py")
        with open(script, "w") as f:
            f.write(code)
        o = os.path.join(args.dir, name + ".jsonl")
        t, rss = timed([sys.executable, script, src, o], name)
        rows.append((name, t, rss) + score(src, o, "doc", kept_truth, removed))
    print("| contender | wall | MiB/s | peak RSS | precision | recall |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, t, rss, p, r in rows:
        print("| %s | %.1f s | %.1f | %d MiB | %.4f | %.4f |" % (name, t, mib / t, rss, p, r))


if __name__ == "__main__":
    main()
