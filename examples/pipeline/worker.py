#!/usr/bin/env python3
"""A pipeline worker on `idem serve` that may be killed at any moment, and its server too.

It computes features for a stream of documents, skips a document whose id it has already done,
and writes one line per new document. Every batch it makes its output durable and then commits
its marks with the output's position as the token, in one IDEM.COMMIT. On start (and whenever
the server went away) it asks IDEM.LASTTOKEN, which also takes the key space back to that commit,
cuts its output back to the token and goes on from there: nothing is skipped, nothing repeated.

    pip install redis        # or: apt-get install python3-redis
    idem serve --state st --port 7379 &
    python3 examples/pipeline/worker.py --port 7379 --output features.tsv --docs 100000

The documents are generated (document i has the id doc-<n>, and three in ten ids repeat an
earlier one, as a redelivering queue would), the same stream as PipelineWorker.java's.
"""

import argparse
import hashlib
import os
import sys
import time

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

MASK = (1 << 64) - 1


def mix(x):
    """MurmurHash3's 64-bit finaliser, on the two's-complement bits Java uses."""
    x &= MASK
    x = ((x ^ (x >> 33)) * 0xFF51AFD7ED558CCD) & MASK
    x = ((x ^ (x >> 33)) * 0xC4CEB9FE1A85EC53) & MASK
    return x ^ (x >> 33)


def signed(x):
    return x - (1 << 64) if x >= 1 << 63 else x


def id_of(i):
    """Document i's id: 3 in 10 repeat an earlier document's."""
    h = signed(mix(i))
    return signed(mix(h)) % i if h % 10 < 3 and i > 0 else i


def features(doc_id):
    """The "features": any deterministic function of the document."""
    return hashlib.blake2b(doc_id.encode(), digest_size=8).hexdigest()


def connect(port, deadline):
    """A client, once the server answers (it may be starting, or restarting after a crash)."""
    while True:
        try:
            # no retries by the client: redis-py resends a command on a new connection after the
            # server went away, and an IDEM.COMMIT resent to a restarted server would commit a
            # token whose marks died with the old one; this worker resumes from LASTTOKEN instead
            r = redis.Redis(port=port, socket_timeout=30, retry=Retry(NoBackoff(), 0))
            r.ping()
            return r
        except redis.ConnectionError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def run(args):
    r = connect(args.port, time.monotonic() + args.wait)
    # where the last commit left the input and the output; nothing after it happened
    token = r.execute_command("IDEM.LASTTOKEN", args.key)
    start, offset = map(int, token.split(b":")) if token else (0, 0)
    with open(args.output, "ab") as f:
        pass
    with open(args.output, "r+b") as out:
        out.truncate(offset)
        out.seek(offset)
        i = start
        while i < args.docs:
            end = min(i + args.batch, args.docs)
            ids = ["doc-%d" % id_of(j) for j in range(i, end)]
            new = r.execute_command("IDEM.FIRSTSEEN", args.key, *ids)
            for doc_id, fresh in zip(ids, new):
                if fresh:
                    out.write(("%s\t%s\n" % (doc_id, features(doc_id))).encode())
            out.flush()
            os.fsync(out.fileno())  # the output first: a commit never names bytes not on disk
            r.execute_command("IDEM.COMMIT", args.key, "%d:%d" % (end, out.tell()))
            i = end
    return start


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--port", type=int, default=6379)
    p.add_argument("--key", default="worker")
    p.add_argument("--output", required=True)
    p.add_argument("--docs", type=int, default=100000)
    p.add_argument("--batch", type=int, default=500)
    p.add_argument("--wait", type=float, default=60, help="seconds to wait for the server")
    args = p.parse_args()
    while True:
        try:
            start = run(args)
            print("done: documents %d to %d" % (start, args.docs), file=sys.stderr)
            return
        except redis.ConnectionError as e:
            # the server went away (killed, restarting): start over from its last commit
            print("server gone (%s); resuming from the last commit" % e, file=sys.stderr)
            time.sleep(0.1)


if __name__ == "__main__":
    main()
