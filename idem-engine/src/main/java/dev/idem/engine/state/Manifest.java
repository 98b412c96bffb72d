package dev.idem.engine.state;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.idem.core.filter.FilterType;
import dev.idem.engine.DedupMode;
import dev.idem.engine.ExpectedKeys;
import dev.idem.engine.KeyMode;
import dev.idem.engine.input.InputFile;
import dev.idem.engine.records.RecordFormat;
import dev.idem.engine.run.JobIdentity;
import dev.idem.engine.run.StateFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A job's identity, written to {@code STATE/MANIFEST.json} when the state is created and checked on
 * every resume: a job may only continue with the inputs and options it started with. Options that
 * do not change which records are kept (checkpoint interval, bad-record policy, progress,
 * statistics file) are not part of it. Where the exact tier lives is, because the state's layout
 * follows from it (see {@link #writesSeen()}).
 */
public record Manifest(
    int formatVersion,
    String created,
    List<InputFile> inputs,
    RecordFormat format,
    String key,
    boolean header,
    String normalizer,
    DedupMode mode,
    KeyMode keyMode,
    @JsonProperty("exact_store") ExactTierPlacement exactTier, // named as states have it
    FilterType filterType,
    long filterCapacity,
    ExpectedKeys expectedKeys,
    double fpp,
    long seed,
    int maxRecordBytes,
    String output,
    String dropped,
    String window,
    String shard,
    String seenBefore,
    String worker) {

  /** The version of the state layout this build writes and reads. */
  public static final int FORMAT_VERSION = 1;

  /** The file, in the state directory, that makes it a dedup job's state. */
  public static final String FILE = "MANIFEST.json";

  /**
   * The version of the manifest's encoding: 2, the first in the {@link StateFile} encoding
   * (checksummed); manifests written before it are read as they are.
   */
  static final int FILE_VERSION = 2;

  /** The manifest of the state in {@code dir}, or {@code null} for a new state. */
  public static Manifest read(Path dir) throws IOException {
    StateFile.Contents c = StateFile.read(dir.resolve(FILE), "dedup", FILE_VERSION);
    return c == null ? null : c.as(Manifest.class);
  }

  /** Writes this manifest into {@code dir} atomically, checksummed ({@link StateFile}). */
  public void write(Path dir) throws IOException {
    StateFile.write(dir.resolve(FILE), "dedup", FILE_VERSION, this);
  }

  /**
   * Whether checkpoints write every kept key into RocksDB's {@code seen} column family. Needed when
   * RocksDB is the exact tier, and for full keys (the journal holds fingerprints only). Otherwise
   * the journal, never truncated, is the durable record of the kept keys: one packed write per
   * checkpoint instead of one RocksDB entry per key.
   */
  public boolean writesSeen() {
    return exactTier.kind() == ExactTierPlacement.Kind.ROCKSDB || keyMode == KeyMode.FULL_KEY;
  }

  /** The job this manifest describes, as every job's identity is compared ({@link JobIdentity}). */
  public JobIdentity identity() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("format", String.valueOf(format));
    m.put("key", key);
    m.put("header", Boolean.toString(header));
    m.put("normalize", normalizer);
    m.put("mode", String.valueOf(mode));
    m.put("key mode", String.valueOf(keyMode));
    m.put("exact tier", String.valueOf(exactTier));
    m.put("filter type", String.valueOf(filterType));
    m.put("filter capacity", Long.toString(filterCapacity));
    m.put("expected keys", String.valueOf(expectedKeys));
    m.put("fpp", Double.toString(fpp));
    m.put("seed", Long.toString(seed));
    m.put("max record bytes", Integer.toString(maxRecordBytes));
    m.put("output", String.valueOf(output));
    m.put("dropped", orNone(dropped));
    m.put("window", orNone(window));
    m.put("shard", shard == null ? "(all keys)" : shard);
    m.put("seen before", orNone(seenBefore));
    return new JobIdentity("dedup", inputs, m);
  }

  /**
   * How {@code now} (this command) differs from this manifest (the state's): one entry per input
   * and setting that differs, each naming both values; empty when they match.
   */
  public List<JobIdentity.Difference> differencesFrom(Manifest now) {
    return identity().differencesFrom(now.identity());
  }

  private static String orNone(String value) {
    return value == null ? "(none)" : value;
  }

  /** This manifest with another exact-tier placement and filter type. */
  public Manifest withTiers(ExactTierPlacement store, FilterType filterType) {
    return new Manifest(
        formatVersion,
        created,
        inputs,
        format,
        key,
        header,
        normalizer,
        mode,
        keyMode,
        store,
        filterType,
        filterCapacity,
        expectedKeys,
        fpp,
        seed,
        maxRecordBytes,
        output,
        dropped,
        window,
        shard,
        seenBefore,
        worker);
  }
}
