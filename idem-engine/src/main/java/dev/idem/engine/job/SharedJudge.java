package dev.idem.engine.job;

import dev.idem.core.filter.FingerprintSet;
import dev.idem.core.shared.SharedSeenSet;
import dev.idem.core.shared.SharedTag;
import dev.idem.engine.DedupStats;
import dev.idem.engine.Verdict;
import dev.idem.engine.records.RecordBatch;
import dev.idem.engine.store.StateStore;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * "Ever seen" across workers: every key a worker has not met goes to a {@link SharedSeenSet} (one
 * pipelined call per batch); a key this worker has met before is a duplicate without a call, from a
 * local set of keys known to be marked. That local set is the only local tier that is safe here: a
 * local Bloom filter could not say "certainly new" for keys other workers marked.
 *
 * <p>The tag of a record is the worker's id and the record's position (input file and line), so a
 * resumed worker recognises its own marks of records whose output the crash discarded.
 */
final class SharedJudge implements Judge {

  /** Keys remembered as marked before the local set is cleared (about 32 MiB). */
  static final int LOCAL_KEYS = 1 << 20;

  private final SharedSeenSet shared;
  private final SharedTag worker;
  private FingerprintSet local = FingerprintSet.withExpectedSize(LOCAL_KEYS);
  private final Verdict[] verdicts = new Verdict[RecordBatch.MAX_RECORDS];
  private final int[] asked = new int[RecordBatch.MAX_RECORDS];
  private final long[] fps = new long[2 * RecordBatch.MAX_RECORDS];
  private final byte[][] tags = new byte[RecordBatch.MAX_RECORDS][SharedTag.BYTES];
  private final byte[][] previous = new byte[RecordBatch.MAX_RECORDS][];
  private long kept;
  private long duplicates;
  private long sharedLookups;
  private long localHits;

  SharedJudge(SharedSeenSet shared, String worker) {
    this.shared = shared;
    this.worker = new SharedTag(worker);
  }

  /**
   * What a job stopped by a shared set that forgot leaves behind, for the job's message: the set
   * threw before any answer decided after the loss reached the outputs.
   *
   * @param state the job's state directory, or {@code null}
   */
  static String afterLoss(Path state) {
    String nothingWritten = "idem stopped before writing any record decided after the loss";
    if (state == null) {
      return nothingWritten
          + "; the output so far has no repeats, but a job without --state "
          + "cannot resume.";
    }
    return nothingWritten
        + "; the last checkpoint in "
        + state
        + " is intact: restore "
        + "the server's data (from a replica or backup) and rerun the same command to resume. "
        + "If the data is lost for good, the keys emitted before cannot be told from new ones: "
        + "start every worker over with new --state directories and a new ?prefix= "
        + "(docs/SCALING.md).";
  }

  @Override
  public void prepare(RecordBatch b) throws IOException {
    int n = 0;
    for (int i = 0; i < b.count; i++) {
      if (b.kind[i] != RecordBatch.OK) {
        continue;
      }
      long hi = b.fingerprints[2 * i];
      long lo = b.fingerprints[2 * i + 1];
      if (!shared.marksExpire() && local.contains(hi, lo)) {
        verdicts[i] = Verdict.DUPLICATE;
        localHits++;
        continue;
      }
      asked[n] = i;
      fps[2 * n] = hi;
      fps[2 * n + 1] = lo;
      worker.write(b.fileIndex[i], b.line[i], tags[n]);
      n++;
    }
    if (n == 0) {
      return;
    }
    shared.markAll(fps, n, tags, previous);
    sharedLookups += n;
    if (local.size() + n > LOCAL_KEYS) {
      local = FingerprintSet.withExpectedSize(LOCAL_KEYS);
    }
    for (int j = 0; j < n; j++) {
      boolean mine = previous[j] == null || Arrays.equals(previous[j], tags[j]);
      verdicts[asked[j]] = mine ? Verdict.KEPT : Verdict.DUPLICATE;
      local.addIfAbsent(fps[2 * j], fps[2 * j + 1]);
    }
  }

  @Override
  public Verdict judge(RecordBatch batch, int i) {
    Verdict v = verdicts[i];
    if (v == Verdict.KEPT) {
      kept++;
    } else {
      duplicates++;
    }
    return v;
  }

  /** The marks are in the shared set already: a checkpoint has nothing to add. */
  @Override
  public void checkpoint(long sequence, StateStore.Commit commit, boolean complete) {}

  /**
   * Shared lookups are the exact-tier lookups, one for every new key (no filter spares them); local
   * hits are the recent tier's.
   */
  @Override
  public DedupStats stats() {
    return new DedupStats(kept + duplicates, kept, duplicates, sharedLookups, kept, localHits);
  }

  @Override
  public void close() {
    shared.close();
  }
}
