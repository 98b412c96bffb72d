package dev.idem.engine.neardup;

import dev.idem.engine.output.ScratchDirectory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * The memory budget of judging ({@code --memory}) and what happens past it. Each structure asks
 * before it keeps a document's entry in memory ({@link #hold}); once the entries held add up to the
 * budget, every later entry of every structure goes to the {@link SpillTables} instead, and the
 * entries already in memory stay there. Spilling is one-way, so each structure splits its documents
 * at one position: those before it in memory, those from it on disk.
 *
 * <p>The bytes are counted as {@link NearDupPlan} estimates them (the same figures {@code idem plan
 * --near-dup} prints), not measured. Per-document arrays of a few ints (union-find, signature row,
 * copy-of, pair stamps) and the judgement stay in memory: about 36 bytes a document ({@link
 * NearDupPlan#fixedBytesPerDocument}, which {@link #charge} counts).
 */
final class JudgingMemory implements AutoCloseable {

  static final String PREFIX = "idem-near-dup-";

  private final long budget;
  private final Path tmp;
  private final Consumer<String> warnings;
  private long held;
  private boolean spilling;
  private ScratchDirectory scratch;
  private SpillTables tables;

  /**
   * @param budget bytes of entries to hold in memory ({@link Long#MAX_VALUE}: no limit)
   * @param tmp where the spill tables go once they are needed
   * @param warnings told about leftovers of killed jobs removed from {@code tmp}
   */
  JudgingMemory(long budget, Path tmp, Consumer<String> warnings) {
    this.budget = budget;
    this.tmp = tmp;
    this.warnings = warnings;
  }

  /** A budget without a limit: everything in memory. */
  static JudgingMemory unlimited() {
    return new JudgingMemory(Long.MAX_VALUE, null, m -> {});
  }

  /**
   * Whether an entry of {@code bytes} may be kept in memory, counting it if so; once one is
   * refused, every later one is.
   */
  boolean hold(long bytes) {
    if (!spilling && held + bytes <= budget) {
      held += bytes;
      return true;
    }
    spilling = true;
    return false;
  }

  /** Counts bytes that stay in memory whatever the budget (per-document array entries). */
  void charge(long bytes) {
    held += bytes;
  }

  /** Whether entries go to disk now. */
  boolean spilling() {
    return spilling;
  }

  /** Bytes of entries held in memory. */
  long held() {
    return held;
  }

  /** The spill tables, opened the first time they are asked for. */
  SpillTables tables() {
    if (tables == null) {
      try {
        scratch = ScratchDirectory.create(tmp, PREFIX, "spilled tables", "a near-dup", warnings);
        tables = SpillTables.open(scratch.path().resolve("tables"));
      } catch (IOException e) {
        if (scratch != null) {
          scratch.delete();
        }
        throw new UncheckedIOException(e);
      }
    }
    return tables;
  }

  /** Closes the spill tables, if any, and deletes them. */
  @Override
  public void close() throws IOException {
    try {
      if (tables != null) {
        tables.close();
      }
    } finally {
      if (scratch != null) {
        scratch.delete();
      }
    }
  }
}
