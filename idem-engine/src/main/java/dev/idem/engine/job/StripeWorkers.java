package dev.idem.engine.job;

import dev.idem.core.filter.MembershipFilter;
import dev.idem.core.filter.StripedFingerprintSet;
import dev.idem.engine.records.RecordBatch;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Decides a batch's records on several threads: thread {@code t} of {@code n} adds the fingerprints
 * of the stripes in the t-th of n equal ranges to a {@link StripedFingerprintSet}, in input order.
 * All occurrences of a key fall in one stripe, hence on one thread, in the order they were read:
 * each record gets the answer a single thread would give it, for any {@code n}. The calling thread
 * is worker 0; the others are daemon threads of this object.
 */
final class StripeWorkers implements AutoCloseable {

  private final StripedFingerprintSet set;
  private final int workers;
  private final ExecutorService pool;

  /** Per worker, which of its records were new: one array each, no cache line written by two. */
  private final boolean[][] kept;

  StripeWorkers(StripedFingerprintSet set, int workers) {
    if (workers < 2 || workers > set.stripes()) {
      throw new IllegalArgumentException(
          "stripe workers: 2 to " + set.stripes() + " threads, not " + workers);
    }
    this.set = set;
    this.workers = workers;
    this.kept = new boolean[workers][RecordBatch.MAX_RECORDS];
    this.pool =
        Executors.newFixedThreadPool(
            workers - 1,
            r -> {
              Thread t = new Thread(r, "idem-judge");
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * Adds every usable record's fingerprint of {@code batch} to the set; afterwards {@link #kept}
   * says which were new.
   */
  void decide(RecordBatch batch) {
    List<Future<?>> others = new ArrayList<>(workers - 1);
    for (int w = 1; w < workers; w++) {
      int worker = w;
      others.add(pool.submit(() -> decide(batch, worker)));
    }
    decide(batch, 0);
    try {
      for (Future<?> f : others) {
        f.get();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while judging a batch", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      if (e.getCause() instanceof Error err) {
        throw err; // out of memory in a growing stripe: the job reports it as it would its own
      }
      throw new IllegalStateException(e.getCause());
    }
  }

  /** Whether usable record {@code i} of {@code batch}, the batch last decided, was new. */
  boolean kept(RecordBatch batch, int i) {
    return kept[workerOf(batch, i)][i];
  }

  private void decide(RecordBatch b, int worker) {
    long[] fp = b.fingerprints;
    boolean[] mine = kept[worker];
    // a chunk holds about PREFETCH_CHUNK records of this worker: their misses overlap
    int chunk = MembershipFilter.PREFETCH_CHUNK * workers;
    for (int from = 0; from < b.count; from += chunk) {
      int to = Math.min(b.count, from + chunk);
      for (int i = from; i < to; i++) {
        if (mine(b, i, worker)) {
          set.prefetch(fp, i, i + 1);
        }
      }
      for (int i = from; i < to; i++) {
        if (mine(b, i, worker)) {
          mine[i] = set.addIfAbsent(fp[2 * i], fp[2 * i + 1]);
        }
      }
    }
  }

  private boolean mine(RecordBatch b, int i, int worker) {
    return b.kind[i] == RecordBatch.OK && workerOf(b, i) == worker;
  }

  private int workerOf(RecordBatch b, int i) {
    // contiguous ranges of stripes: neighbouring stripe objects, which may share a cache line
    // (their sizes change on every add), belong to the same thread but at range ends
    return set.stripeOf(b.fingerprints[2 * i + 1]) * workers / set.stripes();
  }

  @Override
  public void close() {
    pool.shutdownNow();
  }
}
