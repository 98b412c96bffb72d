package dev.idem.engine.job;

import com.github.benmanes.caffeine.cache.Caffeine;
import dev.idem.core.ByteSize;
import dev.idem.core.Fingerprinter;
import dev.idem.core.filter.FilterSnapshot;
import dev.idem.core.filter.FilterType;
import dev.idem.core.filter.MembershipFilter;
import dev.idem.engine.DedupMode;
import dev.idem.engine.DedupStats;
import dev.idem.engine.Deduplicator;
import dev.idem.engine.KeyMode;
import dev.idem.engine.record.KeyExtractor;
import dev.idem.engine.record.KeySpec;
import dev.idem.engine.store.ExactStore;
import dev.idem.engine.store.MemoryStore;
import dev.idem.engine.store.PendingKeys;
import dev.idem.engine.store.RocksDbStore;
import dev.idem.engine.store.StateStore;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The dedup job: reads records in input order, writes the first occurrence of each key, and, with
 * a state directory, survives any crash with exactly-once output.
 *
 * <p>Checkpoint {@code c} (DESIGN.md): (1) flush and fsync the outputs and note their lengths;
 * (2) note the input position; (3) now and then, write a filter snapshot for {@code c}; (4) in one
 * synced RocksDB batch, write the keys kept since the last checkpoint into {@code seen} and (if no
 * snapshot was taken) {@code journal}, and the checkpoint record. Resume reads the checkpoint,
 * cuts the outputs back to their noted lengths, restores the filter (snapshot + journal) and the
 * exact tier, and reads on from the noted position: records after the checkpoint are processed
 * again, against tiers that hold exactly the keys kept before it, so they are kept or dropped as
 * they were — output equals that of an uninterrupted run.
 */
public final class DedupJob {

  /** Hears about a running job (progress, warnings). Called on the job's thread. */
  public interface Listener {
    default void started(JobResult restored) {}

    default void progress(long rawBytesDone, long rawBytesTotal, long records, long kept) {}

    default void warning(String message) {}
  }

  private static final long PROGRESS_MILLIS = 500;

  private final DedupJobSpec spec;
  private final InputStream stdin;
  private final OutputStream stdout;
  private final Listener listener;
  private final List<String> warnings = new ArrayList<>();

  private DedupJob(DedupJobSpec spec, InputStream stdin, OutputStream stdout, Listener listener) {
    this.spec = spec;
    this.stdin = stdin;
    this.stdout = stdout;
    this.listener = listener;
  }

  /**
   * Runs a job to the end of its inputs.
   *
   * @throws BadRecordException for a bad record under the fail policy (after a checkpoint)
   * @throws JobException when the job cannot start as asked
   * @throws IOException for unreadable inputs or unwritable outputs
   */
  public static JobResult run(DedupJobSpec spec, InputStream stdin, OutputStream stdout,
      Listener listener) throws IOException {
    return new DedupJob(spec, stdin, stdout, listener).run();
  }

  private JobResult run() throws IOException {
    long started = System.nanoTime();
    if (spec.state() != null && spec.output() == null) {
      throw new JobException("--state needs -o FILE: standard output cannot be cut back to a "
          + "checkpoint, so a resumed job could repeat records");
    }
    List<InputFile> inputs = InputFile.expand(spec.inputs());
    if (spec.state() != null && inputs.stream().anyMatch(InputFile::isStdin)) {
      throw new JobException("standard input cannot be resumed: with --state, give files");
    }
    Fingerprinter fingerprinter = Fingerprinter.xxh3().withSeed(spec.seed())
        .withNormalizer(spec.normalizer());
    long capacity = spec.expectedKeys() > 0 ? spec.expectedKeys()
        : InputEstimate.distinctKeysUpperBound(inputs, spec.format());
    FilterType filterType = spec.filterType() != null ? spec.filterType()
        : spec.expectedKeys() > 0 ? FilterType.BLOCKED : FilterType.SCALABLE;
    boolean fullKeys = spec.keyMode() == KeyMode.FULL_KEY;
    String exactStore = spec.mode() == DedupMode.APPROXIMATE ? "none"
        : chooseMemory(capacity, fullKeys) ? "memory" : "rocksdb";
    Manifest manifest = new Manifest(Manifest.FORMAT_VERSION, Instant.now().toString(), inputs,
        spec.format().displayName(), spec.key().describe(), spec.header(),
        spec.normalizer().spec(), spec.mode().name(), spec.keyMode().name(), exactStore,
        filterType.displayName(), capacity, spec.expectedKeys(), spec.fpp(), spec.seed(),
        spec.maxRecordBytes(), spec.output() == null ? null : spec.output().toAbsolutePath()
            .toString(), spec.dropped() == null ? null : spec.dropped().toAbsolutePath()
            .toString());
    KeyExtractor extractor;
    try {
      extractor = KeyExtractor.of(spec.key(), spec.format());
    } catch (IllegalArgumentException e) {
      throw new JobException(e.getMessage());
    }

    StateDirectory dir = null;
    StateStore store = null;
    Path ephemeral = null;
    Checkpoint cp = Checkpoint.START;
    Tiers tiers;
    try {
      if (spec.state() != null) {
        dir = StateDirectory.open(spec.state());
        Manifest existing = dir.readManifest();
        if (existing == null) {
          requireEmpty(dir);
          dir.writeManifest(manifest);
        } else {
          if (spec.exactStore() == DedupJobSpec.ExactStoreChoice.AUTO) {
            manifest = manifest.withExactStore(existing.exactStore()); // auto keeps the choice
          }
          List<String> differences = existing.differencesFrom(manifest);
          if (!differences.isEmpty()) {
            throw new JobException("this command differs from the job in " + spec.state()
                + ":\n  " + String.join("\n  ", differences)
                + "\nrun the original command to resume it, or use a new --state directory");
          }
          manifest = existing;
        }
        store = StateStore.open(dir.storeDirectory(), spec.rocksDbCacheBytes(), fullKeys);
        byte[] saved = store.meta("checkpoint");
        if (saved != null) {
          cp = Json.read(saved, Checkpoint.class);
        }
        if (cp.complete()) {
          return result(cp, true, cp.sequence() > 0, cp.records(), "none", manifest, null, 0,
              0, started, 0, false);
        }
        tiers = Tiers.restore(dir, store, cp, manifest, fingerprinter, capacity);
        dir.deleteSnapshotsExcept(cp.snapshotSequence());
      } else {
        MembershipFilter filter = Tiers.newFilter(filterType.displayName(), capacity, spec.fpp(),
            spec.expectedKeys());
        ExactStore exact = null;
        if (spec.mode() == DedupMode.EXACT) {
          if (exactStore.equals("memory")) {
            exact = MemoryStore.create(capacity, fullKeys, false);
          } else {
            ephemeral = Files.createTempDirectory("idem-dedup-");
            store = StateStore.open(ephemeral, spec.rocksDbCacheBytes(), fullKeys);
            exact = RocksDbStore.selfFlushing(store, fullKeys, 100_000);
          }
        }
        tiers = Tiers.fresh(filter, exact);
      }
      warnings.addAll(tiers.warnings);
      tiers.warnings.forEach(listener::warning);
      return process(inputs, manifest, fingerprinter, extractor, dir, store, cp, tiers,
          started);
    } finally {
      if (store != null) {
        store.close();
      }
      if (dir != null) {
        dir.close();
      }
      if (ephemeral != null) {
        deleteRecursively(ephemeral);
      }
    }
  }

  private JobResult process(List<InputFile> inputs, Manifest manifest,
      Fingerprinter fingerprinter, KeyExtractor extractor, StateDirectory dir, StateStore store,
      Checkpoint start, Tiers tiers, long started) throws IOException {
    boolean durable = dir != null;
    Deduplicator dedup = new Deduplicator(tiers.filter, tiers.exact, fingerprinter, spec.mode(),
        spec.keyMode(), spec.recentCacheSize() > 0
            ? Caffeine.newBuilder().maximumSize(spec.recentCacheSize())
                .<dev.idem.core.Fingerprint, Boolean>build() : null, null);
    Path quarantinePath = spec.onBadRecord() instanceof BadRecordPolicy.Quarantine q
        ? q.file() : null;
    long quarantineStart = quarantinePath != null && start.quarantine() != null
        && Path.of(start.quarantine()).equals(quarantinePath.toAbsolutePath())
        ? start.quarantineBytes() : 0;
    long restoreMillis = (System.nanoTime() - started) / 1_000_000;
    String exactKind = tiers.exact == null ? "none" : tiers.exact.kind();
    listener.started(result(start, false, start.sequence() > 0, start.records(), exactKind,
        manifest, tiers.filter, tiers.journalReplayed, restoreMillis, started, 0,
        tiers.filterRebuilt));
    try (OutputFile out = spec.output() != null ? OutputFile.open(spec.output(),
            start.outputBytes()) : OutputFile.stream("<stdout>", stdout);
        OutputFile dropped = spec.dropped() != null
            ? OutputFile.open(spec.dropped(), start.droppedBytes()) : null;
        OutputFile quarantine = quarantinePath != null
            ? OutputFile.open(quarantinePath, quarantineStart) : null;
        RecordSource source = new RecordSource(inputs, new RecordSource.Settings(spec.format(),
            spec.header(), extractor, fingerprinter, spec.keyMode() == KeyMode.FULL_KEY,
            spec.maxRecordBytes()), stdin, start.fileIndex(), start.offset(), start.line())) {
      Progress p = new Progress(start, dedup, tiers.filter, durable, manifest.writesSeen());
      long firstRecordMillis = -1;
      long totalBytes = inputs.stream().mapToLong(f -> Math.max(0, f.size())).sum();
      long lastProgress = System.nanoTime();
      while (true) {
        RecordBatch batch;
        try {
          batch = source.take();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted");
        }
        if (batch.failure != null) {
          if (batch.failure instanceof RecordSource.HeaderException h) {
            throw new JobException(h.getMessage());
          }
          throw batch.failure instanceof IOException io ? io
              : new IOException(batch.failure.getMessage(), batch.failure);
        }
        if (firstRecordMillis < 0) {
          firstRecordMillis = (System.nanoTime() - started) / 1_000_000;
        }
        for (int i = 0; i < batch.count; i++) {
          String name = inputs.get(batch.fileIndex[i]).path();
          switch (batch.kind[i]) {
            case RecordBatch.OK -> {
              p.records++;
              long hi = batch.fingerprints[2 * i];
              long lo = batch.fingerprints[2 * i + 1];
              if (dedup.firstSeen(hi, lo, batch.keys[i])) {
                writeRecord(out, batch, i);
                if (tiers.exact == null && durable) {
                  p.approximateKept.add(hi, lo, null);
                }
              } else if (dropped != null) {
                dropped.write(name.getBytes(StandardCharsets.UTF_8), 0, name.length());
                byte[] where = ("\t" + batch.line[i] + "\t").getBytes(StandardCharsets.US_ASCII);
                dropped.write(where, 0, where.length);
                dropped.write(batch.arena, batch.start[i], batch.contentLength[i]);
                dropped.write((byte) '\n');
              }
            }
            case RecordBatch.BLANK -> p.blankLines++;
            case RecordBatch.HEADER -> writeRecord(out, batch, i);
            default -> {
              p.records++;
              p.badRecords++;
              handleBad(batch, i, name, quarantine, p, out, dropped, store, dir);
            }
          }
          p.position(batch.fileIndex[i], batch.endOffset[i], batch.endLine[i]);
          if (durable && p.checkpointDue(spec)) {
            p.checkpoint(false, out, dropped, quarantine, quarantinePath, store, dir);
          }
        }
        boolean end = batch.endOfInput;
        source.recycle(batch);
        long now = System.nanoTime();
        if (now - lastProgress > PROGRESS_MILLIS * 1_000_000) {
          listener.progress(source.rawBytesRead(), totalBytes, p.records, p.kept());
          lastProgress = now;
        }
        if (end) {
          break;
        }
      }
      Checkpoint last;
      if (durable) {
        last = p.checkpoint(true, out, dropped, quarantine, quarantinePath, store, dir);
      } else {
        out.flush();
        last = p.snapshotOfCounts(true, out, dropped, quarantine, quarantinePath);
      }
      listener.progress(totalBytes, totalBytes, p.records, p.kept());
      return result(last, false, start.sequence() > 0, start.records(), exactKind, manifest,
          tiers.filter, tiers.journalReplayed, restoreMillis, started, firstRecordMillis,
          tiers.filterRebuilt);
    } finally {
      if (tiers.exact != null) {
        tiers.exact.close();
      }
    }
  }

  /** Writes a record as read; also used by {@link SortDedupJob} for headers and quarantine. */
  static void writeRecord(OutputFile out, RecordBatch batch, int i) throws IOException {
    int terminator = batch.terminatorLength[i];
    out.write(batch.arena, batch.start[i], batch.contentLength[i] + terminator);
    if (terminator == 0) {
      out.write((byte) '\n'); // the last line of an input without one: records stay lines
    }
  }

  private void handleBad(RecordBatch batch, int i, String name, OutputFile quarantine,
      Progress p, OutputFile out, OutputFile dropped, StateStore store, StateDirectory dir)
      throws IOException {
    BadRecordPolicy policy = spec.onBadRecord();
    if (policy instanceof BadRecordPolicy.Fail) {
      p.badRecords--; // not handled: a rerun will meet it again
      p.records--;
      if (dir != null) {
        p.checkpoint(false, out, dropped, quarantine, null, store, dir);
      } else {
        out.flush();
      }
      throw new BadRecordException(name, batch.line[i], batch.problem[i], dir != null);
    }
    if (policy instanceof BadRecordPolicy.Quarantine) {
      if (batch.contentLength[i] == 0 && batch.problem[i].startsWith("record of ")) {
        String w = name + ":" + batch.line[i] + ": " + batch.problem[i]
            + "; too long to quarantine, counted as bad";
        warnings.add(w);
        listener.warning(w);
      } else {
        writeRecord(quarantine, batch, i);
      }
    }
  }

  private boolean chooseMemory(long capacity, boolean fullKeys) {
    return switch (spec.exactStore()) {
      case MEMORY -> true;
      case ROCKSDB -> false;
      case AUTO -> {
        long perKey = fullKeys ? 96 : 32; // set slot at load 0.75 plus growth headroom
        yield capacity * perKey < Runtime.getRuntime().maxMemory() * 4 / 10;
      }
    };
  }

  private static void requireEmpty(StateDirectory dir) throws IOException {
    try (var files = Files.list(dir.path())) {
      List<String> other = files.map(f -> f.getFileName().toString())
          // ours: the lock, and a manifest a crash left half-written before its rename
          .filter(n -> !n.equals("LOCK") && !n.equals("MANIFEST.json.tmp")).toList();
      if (!other.isEmpty()) {
        throw new JobException(dir.path() + " is not empty and has no MANIFEST.json, so it is "
            + "not an idem state directory; give an empty or new directory to --state");
      }
    }
  }

  private JobResult result(Checkpoint cp, boolean complete, boolean resumed, long resumedAt,
      String exactKind, Manifest m, MembershipFilter filter, long replayed, long restoreMillis,
      long started, long firstRecordMillis, boolean rebuilt) {
    String filterText = filter == null ? m.filterType() : filter.type().displayName() + ", "
        + ByteSize.format((filter.bitSize() + 7) / 8) + ", "
        + String.format(java.util.Locale.ROOT, "%.2f", (double) filter.bitSize()
            / Math.max(1, filter.capacity())) + " bits/key at capacity "
        + filter.capacity();
    return new JobResult(cp, complete, resumed, resumedAt, m.mode().toLowerCase(
        java.util.Locale.ROOT), exactKind, filterText, filter == null ? 0 : filter.bitSize(),
        restoreMillis, firstRecordMillis, (System.nanoTime() - started) / 1_000_000, replayed,
        rebuilt, List.copyOf(warnings));
  }

  private static void deleteRecursively(Path dir) {
    try (var walk = Files.walk(dir)) {
      walk.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    } catch (IOException e) {
      // a temporary directory left behind is not worth failing the job
    }
  }

  /** Counts and position of the running job, and the checkpoint procedure. */
  private static final class Progress {
    final Checkpoint start;
    final Deduplicator dedup;
    final MembershipFilter filter;
    final boolean durable;
    final boolean writesSeen;
    final PendingKeys approximateKept = new PendingKeys();
    final PendingKeys batch = new PendingKeys();
    long records;
    long blankLines;
    long badRecords;
    int fileIndex;
    long offset;
    long line;
    long sequence;
    long snapshotSequence;
    long journaledSinceSnapshot;
    long recordsSinceCheckpoint;
    long lastCheckpointNanos = System.nanoTime();

    Progress(Checkpoint start, Deduplicator dedup, MembershipFilter filter, boolean durable,
        boolean writesSeen) {
      this.writesSeen = writesSeen;
      this.start = start;
      this.dedup = dedup;
      this.filter = filter;
      this.durable = durable;
      this.records = start.records();
      this.blankLines = start.blankLines();
      this.badRecords = start.badRecords();
      this.fileIndex = start.fileIndex();
      this.offset = start.offset();
      this.line = start.line();
      this.sequence = start.sequence();
      this.snapshotSequence = start.snapshotSequence();
    }

    long kept() {
      return start.stats().kept() + dedup.stats().kept();
    }

    void position(int file, long endOffset, long endLine) {
      fileIndex = file;
      offset = endOffset;
      line = endLine;
      recordsSinceCheckpoint++;
    }

    boolean checkpointDue(DedupJobSpec spec) {
      if (recordsSinceCheckpoint >= spec.checkpointRecords()) {
        return true;
      }
      return (recordsSinceCheckpoint & 1023) == 0
          && System.nanoTime() - lastCheckpointNanos >= spec.checkpointInterval().toNanos();
    }

    Checkpoint snapshotOfCounts(boolean complete, OutputFile out, OutputFile dropped,
        OutputFile quarantine, Path quarantinePath) {
      return new Checkpoint(sequence, fileIndex, offset, line, out.length(),
          dropped == null ? 0 : dropped.length(),
          quarantinePath == null ? start.quarantine()
              : quarantinePath.toAbsolutePath().toString(),
          quarantine == null ? 0 : quarantine.length(), snapshotSequence, records, blankLines,
          badRecords, start.stats().plus(dedup.stats()), complete);
    }

    /** Steps 1–4 of the protocol; returns the checkpoint written. */
    Checkpoint checkpoint(boolean complete, OutputFile out, OutputFile dropped,
        OutputFile quarantine, Path quarantinePath, StateStore store, StateDirectory dir)
        throws IOException {
      out.sync();
      if (dropped != null) {
        dropped.sync();
      }
      if (quarantine != null) {
        quarantine.sync();
      }
      sequence++;
      batch.clear();
      ExactStore exact = dedup.exactStore();
      if (exact != null) {
        exact.drainPending(batch);
      } else {
        batch.addAll(approximateKept);
        approximateKept.clear();
      }
      journaledSinceSnapshot += batch.size();
      long journalSequence = sequence;
      long dropBefore = 0;
      // a snapshot costs the filter's size; replaying the journal costs 16 bytes a key: write
      // one when the journal since the last reaches a quarter of the filter
      boolean snapshot = journaledSinceSnapshot * 16 * 4 >= filter.bitSize() / 8;
      if (snapshot) {
        FilterSnapshot.write(dir.snapshot(sequence), filter, dedup.fingerprinter());
        snapshotSequence = sequence;
        journaledSinceSnapshot = 0;
        if (writesSeen) {
          // `seen` holds every key and the snapshot covers the filter: the journal can go
          journalSequence = -1;
          dropBefore = sequence;
        }
      }
      Checkpoint cp = snapshotOfCounts(complete, out, dropped, quarantine, quarantinePath);
      store.commit(journalSequence, batch, writesSeen, List.of(new StateStore.MetaEntry(
          "checkpoint", Json.write(cp))), dropBefore, true);
      if (snapshot) {
        dir.deleteSnapshotsExcept(snapshotSequence);
      }
      recordsSinceCheckpoint = 0;
      lastCheckpointNanos = System.nanoTime();
      return cp;
    }
  }
}
