package dev.idem.engine.neardup;

import dev.idem.engine.records.RecordBatch;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Shingles and signs the documents of a batch on several threads: the costly part of judging (one
 * mix per shingle and permutation), with no order in it. The clustering then takes the results in
 * input order on one thread, so the decisions are the same for any number of threads.
 *
 * <p>Each thread has its own {@link Shingler}; the {@link MinHasher} is immutable and shared. The
 * signatures go into one flat array per batch, reused from batch to batch.
 */
final class BatchSigner implements AutoCloseable {

  private final int threads;
  private final ExecutorService pool;
  private final Shingler[] shinglers;
  private final MinHasher hasher;
  private final int numPerm;

  /** The shingle sets of the documents signed in the last batch, by record index. */
  private long[][] shingles = new long[RecordBatch.MAX_RECORDS][];

  /** Their signatures: record i's at {@code i * numPerm}. */
  private long[] signatures;

  BatchSigner(int threads, MinHasher hasher, NearDupSpec spec) {
    this.threads = Math.max(1, threads);
    this.hasher = hasher;
    this.numPerm = hasher.numPerm();
    this.shinglers = new Shingler[this.threads];
    for (int t = 0; t < this.threads; t++) {
      shinglers[t] = new Shingler(spec.tokenizer(), spec.ngram(), spec.normalization());
    }
    this.pool =
        this.threads == 1
            ? null
            : Executors.newFixedThreadPool(
                this.threads,
                r -> {
                  Thread t = new Thread(r, "idem-near-dup-sign");
                  t.setDaemon(true);
                  return t;
                });
    this.signatures = new long[RecordBatch.MAX_RECORDS * numPerm];
  }

  /** Shingles and signs the records {@code which[0..count)} of {@code batch} (their content). */
  void sign(RecordBatch batch, int[] which, int count) throws InterruptedException {
    if (shingles.length < batch.count) {
      shingles = new long[batch.count][];
    }
    if (signatures.length < (long) batch.count * numPerm) {
      signatures = new long[batch.count * numPerm];
    }
    if (pool == null || count < 2 * threads) {
      signRange(0, batch, which, 0, count);
      return;
    }
    List<Future<?>> parts = new ArrayList<>(threads);
    for (int t = 0; t < threads; t++) {
      int from = (int) ((long) count * t / threads);
      int to = (int) ((long) count * (t + 1) / threads);
      int thread = t;
      parts.add(pool.submit(() -> signRange(thread, batch, which, from, to)));
    }
    for (Future<?> f : parts) {
      try {
        f.get();
      } catch (ExecutionException e) {
        if (e.getCause() instanceof RuntimeException r) {
          throw r;
        }
        throw new IllegalStateException(e.getCause());
      }
    }
  }

  private void signRange(int thread, RecordBatch batch, int[] which, int from, int to) {
    long[] signature = new long[numPerm];
    for (int k = from; k < to; k++) {
      int i = which[k];
      // malformed UTF-8 reads as U+FFFD: such a document still has shingles
      long[] set = shinglers[thread].shingles(new String(batch.keys[i], StandardCharsets.UTF_8));
      shingles[i] = set;
      hasher.signature(set, signature);
      System.arraycopy(signature, 0, signatures, i * numPerm, numPerm);
    }
  }

  /** Record i's shingle set, from the last {@link #sign}. */
  long[] shingles(int i) {
    return shingles[i];
  }

  /** The array holding record i's signature at {@link #offset}. */
  long[] signatures() {
    return signatures;
  }

  int offset(int i) {
    return i * numPerm;
  }

  @Override
  public void close() {
    if (pool != null) {
      pool.shutdownNow();
    }
  }
}
