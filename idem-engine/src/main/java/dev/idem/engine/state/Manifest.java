package dev.idem.engine.state;

import dev.idem.engine.records.InputFile;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A job's identity, written to {@code STATE/MANIFEST.json} when the state is created and checked
 * on every resume: a job may only continue with the inputs and options it started with.
 * Options that do not change which records are kept (checkpoint interval, bad-record policy,
 * progress, statistics file) are not part of it. Where the exact tier lives is, because the
 * state's layout follows from it (see {@link #writesSeen()}).
 */
public record Manifest(
    int formatVersion,
    String created,
    List<InputFile> inputs,
    String format,
    String key,
    boolean header,
    String normalizer,
    String mode,
    String keyMode,
    String exactStore,
    String filterType,
    long filterCapacity,
    long expectedKeys,
    double fpp,
    long seed,
    int maxRecordBytes,
    String output,
    String dropped,
    String window,
    String shard,
    String seenBefore) {

  /** The version of the state layout this build writes and reads. */
  public static final int FORMAT_VERSION = 1;

  /**
   * Whether checkpoints write every kept key into RocksDB's {@code seen} column family. Needed
   * when RocksDB is the exact tier, and for full keys (the journal holds fingerprints only).
   * Otherwise the journal, never truncated, is the durable record of the kept keys: one packed
   * write per checkpoint instead of one RocksDB entry per key.
   */
  public boolean writesSeen() {
    return exactStore.equals("rocksdb") || keyMode.equals("FULL_KEY");
  }

  /**
   * How {@code now} (this command) differs from this manifest (the state's): one line per
   * difference, naming the option and both values; empty when they match.
   */
  public List<String> differencesFrom(Manifest now) {
    List<String> d = new ArrayList<>();
    if (inputs.size() != now.inputs.size()) {
      d.add("inputs differ: the state has " + inputs.size() + " input files, this command "
          + now.inputs.size());
    } else {
      for (int i = 0; i < inputs.size(); i++) {
        InputFile was = inputs.get(i);
        InputFile is = now.inputs.get(i);
        if (!was.path().equals(is.path())) {
          d.add("input " + (i + 1) + " differs: the state has " + was.path()
              + ", this command " + is.path());
        } else if (was.differenceFrom(is) != null) {
          d.add(was.differenceFrom(is));
        }
      }
    }
    compare(d, "--format", format, now.format);
    compare(d, "the key (--key/--column/--whole-line/--content)", key, now.key);
    compare(d, "--header", header, now.header);
    compare(d, "--normalize", normalizer, now.normalizer);
    compare(d, "--mode", mode, now.mode);
    compare(d, "--key-mode", keyMode, now.keyMode);
    compare(d, "--exact-store", exactStore, now.exactStore);
    compare(d, "--filter", filterType, now.filterType);
    compare(d, "the filter's capacity (from --expected or estimated from the inputs)",
        filterCapacity, now.filterCapacity);
    compare(d, "--expected", expectedKeys < 0 ? "(not given)" : expectedKeys,
        now.expectedKeys < 0 ? "(not given)" : now.expectedKeys);
    compare(d, "--fpp", fpp, now.fpp);
    compare(d, "--seed", seed, now.seed);
    compare(d, "--max-record-bytes", maxRecordBytes, now.maxRecordBytes);
    compare(d, "-o", output, now.output);
    compare(d, "--dropped", dropped == null ? "(none)" : dropped,
        now.dropped == null ? "(none)" : now.dropped);
    compare(d, "the window (--window, --sliding, --time-field, --max-delay, --allowed-lateness)",
        window == null ? "(none)" : window, now.window == null ? "(none)" : now.window);
    compare(d, "--shard / --ring-nodes", shard == null ? "(all keys)" : shard,
        now.shard == null ? "(all keys)" : now.shard);
    compare(d, "--seen-before", seenBefore == null ? "(none)" : seenBefore,
        now.seenBefore == null ? "(none)" : now.seenBefore);
    return d;
  }

  /** This manifest with another exact-store placement. */
  public Manifest withExactStore(String store) {
    return new Manifest(formatVersion, created, inputs, format, key, header, normalizer, mode,
        keyMode, store, filterType, filterCapacity, expectedKeys, fpp, seed, maxRecordBytes,
        output, dropped, window, shard, seenBefore);
  }

  private static void compare(List<String> d, String option, Object was, Object is) {
    if (!Objects.equals(was, is)) {
      d.add(option + " differs: the state has " + was + ", this command has " + is);
    }
  }
}
