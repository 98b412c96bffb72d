package dev.idem.engine.corpus;

import dev.idem.core.ByteSize;
import dev.idem.core.Fingerprinter;
import dev.idem.core.filter.AbstractBloomFilter;
import dev.idem.core.filter.BlockedBloomFilter;
import dev.idem.core.filter.FilterSnapshot;
import dev.idem.core.filter.FilterType;
import dev.idem.core.filter.MembershipFilter;
import dev.idem.core.filter.ScalableBloomFilter;
import dev.idem.core.filter.StripedFingerprintSet;
import dev.idem.engine.output.OutputFile;
import dev.idem.engine.run.StateFile;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.zip.CRC32C;

/**
 * What a dedup of units has seen: the fingerprints of paragraphs, or of n-grams, as an exact set in
 * memory ({@link StripedFingerprintSet}, 21.3 bytes a key) or as a Bloom filter with a stated rate:
 * a blocked filter sized for {@code --expected} keys, which stops the job rather than pass its
 * rate, or a filter that grows ({@link ScalableBloomFilter}: each layer twice the last, the rates
 * summing to at most {@code --fpp}).
 *
 * <p>With a state, every key the set takes ({@link #add} true) is also appended to a journal, 16
 * bytes each, whose length and CRC32C a checkpoint records; now and then a checkpoint writes the
 * set whole ({@code seen-<c>.snap}, {@link FilterSnapshot}) and starts a new journal. A resume
 * reads the snapshot and puts the journal's keys back in order, which gives the set (or the filter,
 * bit for bit) it had at the checkpoint.
 */
final class SeenSet {

  /** How the set is kept. */
  enum Structure {
    EXACT,
    BLOCKED,
    SCALABLE;

    String word() {
      return name().toLowerCase(Locale.ROOT);
    }

    static Structure of(String word) {
      return valueOf(word.toUpperCase(Locale.ROOT));
    }
  }

  private static final int ENTRY = 16;

  /** Keys between two checks of a fixed filter's rate. */
  private static final int CHECK_EVERY = 1 << 16;

  private final Structure structure;
  private final MembershipFilter set;
  private final double fpp;
  private final long seed;
  private final String keys;

  /**
   * The keys the set was made for ({@link #create}'s {@code expected}): a resume makes it again.
   */
  private final long expected;

  /** With a state: the journal since the snapshot, and what is staged for it. */
  private OutputFile journal;

  private final CRC32C crc = new CRC32C();
  private final ByteBuffer staged = ByteBuffer.allocate(1 << 16);
  private long journaled;
  private long sinceCheck;

  private SeenSet(
      Structure structure,
      MembershipFilter set,
      double fpp,
      long seed,
      String keys,
      long expected) {
    this.structure = structure;
    this.expected = expected;
    this.set = set;
    this.fpp = fpp;
    this.seed = seed;
    this.keys = keys;
  }

  /**
   * A new, empty set.
   *
   * @param expected a fixed filter's keys; an exact set's or a growing filter's first guess
   * @param keys what the keys are, for messages ("paragraphs", "n-grams")
   */
  static SeenSet create(Structure s, long expected, double fpp, long seed, String keys) {
    MembershipFilter set =
        switch (s) {
          case EXACT -> StripedFingerprintSet.forRecords(Math.max(1 << 12, expected));
          case BLOCKED -> BlockedBloomFilter.create(expected, fpp);
          case SCALABLE ->
              ScalableBloomFilter.builder()
                  .initialCapacity(Math.max(1 << 12, expected))
                  .falsePositiveRate(fpp)
                  .build();
        };
    return new SeenSet(s, set, fpp, seed, keys, expected);
  }

  Structure structure() {
    return structure;
  }

  /**
   * The keys the set was made for. A filter restored without a snapshot must be made for the same
   * count, or replaying its journal would set other bits: a checkpoint records it.
   */
  long expected() {
    return expected;
  }

  /** Whether the key is in the set (a filter: maybe). */
  boolean contains(long hi, long lo) {
    return set.mightContain(hi, lo);
  }

  /**
   * Adds the key; true when it was not there (a filter: when it certainly was not). Stops the job
   * when a fixed filter passes its rate.
   */
  boolean add(long hi, long lo) throws IOException {
    if (!set.put(hi, lo)) {
      return false;
    }
    if (journal != null) {
      if (staged.remaining() < ENTRY) {
        flushJournal();
      }
      staged.putLong(hi).putLong(lo);
      journaled++;
    }
    if (++sinceCheck == CHECK_EVERY) {
      sinceCheck = 0;
      checkRate(false);
    }
    return true;
  }

  /**
   * Refuses to go on with a fixed filter whose rate has passed {@code --fpp}: from then on it would
   * call new units repeats more often than the user allowed, without a word. {@code scan}: also
   * from the bits set (a full scan), which a filter overfilled by keys it took for repeats shows.
   */
  void checkRate(boolean scan) throws IOException {
    if (structure != Structure.BLOCKED) {
      return;
    }
    double rate = expectedRate();
    if (scan) {
      rate = Math.max(rate, fillRate());
    }
    if (rate > fpp) {
      AbstractBloomFilter f = (AbstractBloomFilter) set;
      // the data outgrew the filter: the run failed (exit 1), the command was not wrong
      throw new IOException(
          String.format(
              Locale.ROOT,
              "the Bloom filter sized for %,d %s (--expected) holds %,d and is %.1f %% full: its "
                  + "false-positive rate is now %.3g, above --fpp %s, so it would remove new %s as "
                  + "repeats at that rate. Stopped. Run again with --expected of at least %,d and a "
                  + "new state, or without --expected (a filter that grows and keeps its rate)",
              f.capacity(),
              keys,
              f.approximateCount(),
              100 * f.fillRatio(),
              rate,
              fpp,
              keys,
              2 * f.approximateCount()));
    }
  }

  /** The rate worked out from the keys counted and the layout ({@code expectedFpp}); 0 exact. */
  double expectedRate() {
    return structure == Structure.EXACT ? 0 : set.expectedFpp();
  }

  /** The share of bits set (a full scan); 0 for an exact set. */
  double fill() {
    return switch (structure) {
      case EXACT -> 0;
      case BLOCKED -> ((AbstractBloomFilter) set).fillRatio();
      case SCALABLE -> ((ScalableBloomFilter) set).fillRatio();
    };
  }

  /**
   * The rate the measured fill implies for a fixed filter: a fresh key is reported when all its k
   * bits are set, fill<sup>k</sup> (a lower bound for a blocked filter, whose crowded blocks err
   * more).
   */
  private double fillRate() {
    AbstractBloomFilter f = (AbstractBloomFilter) set;
    return Math.pow(f.fillRatio(), f.hashCount());
  }

  /** Keys held (a filter: those whose put changed it). */
  long size() {
    return set.approximateCount();
  }

  /** Bytes the set holds. */
  long bytes() {
    return set.bitSize() / 8;
  }

  double fpp() {
    return fpp;
  }

  /** One line for the summary. */
  String describe() {
    return switch (structure) {
      case EXACT ->
          String.format(
              Locale.ROOT,
              "exact set of the fingerprints of %,d %s, %s",
              size(),
              keys,
              ByteSize.format(bytes()));
      case BLOCKED, SCALABLE ->
          String.format(
              Locale.ROOT,
              "%s Bloom filter (%s), %s, %,d %s: fill %.1f %%, expected false-positive rate %.3g"
                  + " (--fpp %s)",
              structure == Structure.BLOCKED ? "blocked" : "growing",
              structure == Structure.BLOCKED
                  ? String.format(Locale.ROOT, "sized for %,d", set.capacity())
                  : ((ScalableBloomFilter) set).layerCount() + " layers",
              ByteSize.format(bytes()),
              size(),
              keys,
              100 * fill(),
              expectedRate(),
              fpp);
    };
  }

  // ---- the state: journal and snapshots ----

  /**
   * Appends every key taken from now on to {@code journal}: a new one (after a snapshot, or at the
   * start), or, after {@link #restore}, the journal it read, cut back to its checkpoint.
   */
  void journalTo(OutputFile journal, boolean continued) {
    this.journal = journal;
    if (!continued) {
      journaled = 0;
      crc.reset();
    }
  }

  /** Keys journaled since the snapshot (or since the start). */
  long journaled() {
    return journaled;
  }

  /** Writes the staged keys to the journal. */
  void flushJournal() throws IOException {
    if (journal != null && staged.position() > 0) {
      crc.update(staged.array(), 0, staged.position());
      journal.write(staged.array(), 0, staged.position());
      staged.clear();
    }
  }

  /** The CRC32C of the journal's bytes so far (after {@link #flushJournal}). */
  long journalCrc() {
    return crc.getValue();
  }

  /** The journal being written. */
  OutputFile journal() {
    return journal;
  }

  /** Whether a snapshot is due: replaying the journal would cost a quarter of reading one. */
  boolean snapshotDue() {
    return journaled * ENTRY * 4 >= bytes();
  }

  /** Writes the set whole to {@code file}, atomically. */
  void writeSnapshot(Path file) throws IOException {
    FilterSnapshot.write(file, set, Fingerprinter.xxh3().withSeed(seed));
  }

  /**
   * The set a checkpoint names: its snapshot ({@code null}: an empty {@code structure}) and the
   * first {@code length} bytes of its journal, which must have the CRC32C {@code journalCrc}.
   *
   * @param expected what the set was made for ({@link #expected}), for a set without a snapshot
   */
  static SeenSet restore(
      Structure structure,
      Path snapshot,
      Path journalFile,
      long length,
      long journalCrc,
      long expected,
      double fpp,
      long seed,
      String keys)
      throws IOException {
    SeenSet s;
    if (snapshot == null) {
      s = create(structure, expected, fpp, seed, keys);
    } else {
      FilterSnapshot snap = FilterSnapshot.read(snapshot);
      FilterType want =
          switch (structure) {
            case EXACT -> FilterType.EXACT_STRIPED;
            case BLOCKED -> FilterType.BLOCKED;
            case SCALABLE -> FilterType.SCALABLE;
          };
      if (snap.filter().type() != want || snap.fingerprinter().seed() != seed) {
        throw StateFile.damaged(
            snapshot, "it holds a " + snap.filter().type() + " set, not a " + want);
      }
      s = new SeenSet(structure, snap.filter(), fpp, seed, keys, expected);
    }
    if (length % ENTRY != 0) {
      throw StateFile.damaged(journalFile, "its checkpoint names a length that is no whole entry");
    }
    CRC32C check = s.crc;
    byte[] buf = new byte[1 << 16];
    try (InputStream in = Files.newInputStream(journalFile)) {
      for (long left = length; left > 0; ) {
        int n = in.readNBytes(buf, 0, (int) Math.min(buf.length, left));
        if (n != Math.min(buf.length, left)) {
          throw StateFile.damaged(journalFile, "it is shorter than its checkpoint says");
        }
        check.update(buf, 0, n);
        ByteBuffer b = ByteBuffer.wrap(buf, 0, n);
        while (b.remaining() >= ENTRY) {
          if (!s.set.put(b.getLong(), b.getLong())) {
            throw StateFile.damaged(journalFile, "it holds a key twice");
          }
        }
        left -= n;
      }
    }
    if (check.getValue() != journalCrc) {
      throw StateFile.damaged(journalFile, "its checksum does not match its checkpoint's");
    }
    s.journaled = length / ENTRY;
    return s;
  }
}
