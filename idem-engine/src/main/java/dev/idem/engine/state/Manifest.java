package dev.idem.engine.state;

import dev.idem.core.filter.FilterType;
import dev.idem.engine.DedupMode;
import dev.idem.engine.ExpectedKeys;
import dev.idem.engine.KeyMode;
import dev.idem.engine.records.InputFile;
import dev.idem.engine.records.RecordFormat;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

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
    ExactTierPlacement exactStore,
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
    String seenBefore) {

  /** The version of the state layout this build writes and reads. */
  public static final int FORMAT_VERSION = 1;

  /**
   * Whether checkpoints write every kept key into RocksDB's {@code seen} column family. Needed when
   * RocksDB is the exact tier, and for full keys (the journal holds fingerprints only). Otherwise
   * the journal, never truncated, is the durable record of the kept keys: one packed write per
   * checkpoint instead of one RocksDB entry per key.
   */
  public boolean writesSeen() {
    return exactStore.kind() == ExactTierPlacement.Kind.ROCKSDB || keyMode == KeyMode.FULL_KEY;
  }

  /** A setting of the job that a resume must not change, in the library's terms. */
  public enum Setting {
    INPUTS("the inputs"),
    FORMAT("the record format"),
    KEY("the key"),
    HEADER("whether inputs have a header line"),
    NORMALIZER("the key normalizer"),
    MODE("the mode"),
    KEY_MODE("the key mode"),
    EXACT_TIER("the exact tier"),
    FILTER_TYPE("the filter type"),
    FILTER_CAPACITY("the filter's capacity"),
    EXPECTED_KEYS("the expected key count"),
    FPP("the false-positive rate"),
    SEED("the hash seed"),
    MAX_RECORD_BYTES("the record size limit"),
    OUTPUT("the output"),
    DROPPED("the file of dropped records"),
    WINDOW("the window"),
    SHARD("the shard"),
    SEEN_BEFORE("the keys seen before");

    private final String description;

    Setting(String description) {
      this.description = description;
    }

    /** What it is, in words: {@code "the record format"}. */
    public String description() {
      return description;
    }
  }

  /**
   * One way a command differs from the job in a state.
   *
   * @param detail what differs: {@code "the state has jsonl, this command has csv"}, or what
   *     changed in an input
   */
  public record Difference(Setting setting, String detail) {
    @Override
    public String toString() {
      return setting.description() + " differs: " + detail;
    }
  }

  /**
   * How {@code now} (this command) differs from this manifest (the state's): one entry per setting
   * that differs, each naming both values; empty when they match.
   */
  public List<Difference> differencesFrom(Manifest now) {
    List<Difference> d = new ArrayList<>();
    if (inputs.size() != now.inputs.size()) {
      d.add(
          new Difference(
              Setting.INPUTS,
              "the state has "
                  + inputs.size()
                  + " input files, "
                  + "this command "
                  + now.inputs.size()));
    } else {
      for (int i = 0; i < inputs.size(); i++) {
        InputFile was = inputs.get(i);
        InputFile is = now.inputs.get(i);
        if (!was.isSameFileAs(is)) {
          d.add(
              new Difference(
                  Setting.INPUTS,
                  "input "
                      + (i + 1)
                      + " is "
                      + was.path()
                      + " in the state, "
                      + is.path()
                      + " in this command"));
        } else if (was.differenceFrom(is) != null) {
          d.add(new Difference(Setting.INPUTS, was.differenceFrom(is)));
        }
      }
    }
    compare(d, Setting.FORMAT, format, now.format);
    compare(d, Setting.KEY, key, now.key);
    compare(d, Setting.HEADER, header, now.header);
    compare(d, Setting.NORMALIZER, normalizer, now.normalizer);
    compare(d, Setting.MODE, mode, now.mode);
    compare(d, Setting.KEY_MODE, keyMode, now.keyMode);
    compare(d, Setting.EXACT_TIER, exactStore, now.exactStore);
    compare(d, Setting.FILTER_TYPE, filterType, now.filterType);
    compare(d, Setting.FILTER_CAPACITY, filterCapacity, now.filterCapacity);
    compare(d, Setting.EXPECTED_KEYS, expectedKeys, now.expectedKeys);
    compare(d, Setting.FPP, fpp, now.fpp);
    compare(d, Setting.SEED, seed, now.seed);
    compare(d, Setting.MAX_RECORD_BYTES, maxRecordBytes, now.maxRecordBytes);
    compare(d, Setting.OUTPUT, output, now.output);
    compare(d, Setting.DROPPED, orNone(dropped), orNone(now.dropped));
    compare(d, Setting.WINDOW, orNone(window), orNone(now.window));
    compare(
        d,
        Setting.SHARD,
        shard == null ? "(all keys)" : shard,
        now.shard == null ? "(all keys)" : now.shard);
    compare(d, Setting.SEEN_BEFORE, orNone(seenBefore), orNone(now.seenBefore));
    return d;
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
        seenBefore);
  }

  private static void compare(List<Difference> d, Setting setting, Object was, Object is) {
    if (!Objects.equals(was, is)) {
      d.add(new Difference(setting, "the state has " + was + ", this command has " + is));
    }
  }
}
