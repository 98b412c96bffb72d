package dev.idem.cli;

import dev.idem.engine.DedupMode;
import dev.idem.engine.KeyMode;
import dev.idem.engine.input.InputFile;
import dev.idem.engine.records.BadRecordPolicy;
import dev.idem.engine.records.RecordFormat;
import dev.idem.parquet.ParquetDedup;
import dev.idem.parquet.ParquetDedupResult;
import dev.idem.parquet.ParquetInputException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.ParameterException;

/**
 * {@code idem dedup} over Parquet inputs: the command's options mapped onto {@link ParquetDedup},
 * those that do not apply to Parquet refused by name, and the summary.
 */
final class ParquetDedupRun {

  private final DedupCommand c;
  private final Io io;

  ParquetDedupRun(DedupCommand command, Io io) {
    this.c = command;
    this.io = io;
  }

  /**
   * Whether the job reads Parquet: {@code --format parquet}, or no format given and every input
   * named (directories and globs expanded) ends in {@code .parquet}.
   *
   * <p>An input that matches nothing is left to the text job, which names it after its usage checks
   * (so a wrong option is still a usage error, whatever the inputs).
   */
  static boolean applies(RecordFormat format, List<String> inputs) {
    if (format != null) {
      return format == RecordFormat.PARQUET;
    }
    List<String> files;
    try {
      files = InputFile.files(inputs);
    } catch (IOException e) {
      return false;
    }
    long parquet = files.stream().filter(ParquetDedup::isParquetName).count();
    long other =
        files.stream()
            .filter(f -> !ParquetDedup.isParquetName(f) && !ParquetDedup.isMarker(f))
            .count();
    if (parquet > 0 && other > 0) {
      throw new UserException(
          "the inputs mix "
              + parquet
              + " Parquet file(s) with "
              + other
              + " other file(s): dedup one format per job (--format says which)");
    }
    return parquet > 0;
  }

  int call() throws IOException {
    ParquetDedup.Builder job = builder();
    if (c.state != null) {
      Signals.whenStopped(() -> Signals.resumable("idem dedup", c.state, ""));
    }
    ParquetDedupResult r;
    try {
      r = job.run();
    } catch (ParquetInputException e) {
      throw new UserException(e.getMessage(), e);
    }
    report(r);
    return 0;
  }

  private ParquetDedup.Builder builder() {
    refuseWhatDoesNotApply();
    Path out = c.output.file();
    if (out == null) {
      throw usage(
          "Parquet output needs -o DIR (a directory of part files) or -o FILE.parquet: "
              + "Parquet cannot be streamed to standard output");
    }
    RecordOptions.KeyOptions k = c.record.key;
    String columns = k.jsonKey != null ? k.jsonKey : k.column;
    if (columns == null) {
      throw usage(
          "Parquet rows are keyed by columns: --key COLUMN (a name, a dotted path such as "
              + "meta.url, or /meta/url), or several as --key a,b");
    }
    CheckpointEvery every = c.checkpoints();
    try {
      return ParquetDedup.builder()
          .inputs(c.inputs)
          .key(Arrays.asList(columns.split(",", -1)))
          .keyAsText(c.parquet.keyAsText)
          .normalizer(c.record.normalizer())
          .seed(c.seed)
          .output(out)
          .dropped(c.dropped)
          .state(c.state)
          .checkpointRows(every.count())
          .checkpointInterval(every.interval())
          .compression(c.parquet.compression)
          .rowGroupBytes(c.parquet.rowGroupBytes)
          .onNullKey(
              c.badRecords.policy instanceof BadRecordPolicy.Skip
                  ? ParquetDedup.NullKeys.SKIP
                  : ParquetDedup.NullKeys.FAIL)
          .cacheBytes(CacheSizeConverter.resolve(c.rocksDbCache))
          .verifyInputs(c.verify.verifyInputs)
          .listener(new ProgressDisplay(io, "idem dedup", c.output.quiet));
    } catch (IllegalArgumentException e) {
      throw usage(e.getMessage());
    }
  }

  /** Options with a meaning for text records only, refused rather than silently ignored. */
  private void refuseWhatDoesNotApply() {
    List<String> refused = new ArrayList<>();
    if (c.record.key.wholeLine || c.record.key.content != null) {
      refused.add(c.record.key.wholeLine ? "--whole-line" : "--content");
    }
    if (c.record.header != null) {
      refused.add("--header");
    }
    if (c.mode != DedupMode.EXACT) {
      refused.add("--mode approximate");
    }
    if (c.keyMode != KeyMode.FINGERPRINT) {
      refused.add("--key-mode full");
    }
    if (c.windowOptions != null) {
      refused.add("--window");
    }
    if (c.shard != null) {
      refused.add("--shard");
    }
    if (c.exactTier.shared() != null) {
      refused.add("--exact-store redis://…");
    }
    if (c.seenBefore != null) {
      refused.add("--seen-before");
    }
    if (c.badRecords.policy instanceof BadRecordPolicy.Quarantine) {
      refused.add("--on-bad-record quarantine=FILE");
    }
    if (!refused.isEmpty()) {
      throw usage(
          String.join(", ", refused)
              + (refused.size() == 1 ? " does" : " do")
              + " not apply to Parquet inputs yet: a Parquet job keeps the first row of each "
              + "key (exact), --dropped DIR/ gets the others whole, and --on-bad-record skip "
              + "leaves rows with a null key out");
    }
  }

  private ParameterException usage(String message) {
    return new ParameterException(c.spec.commandLine(), message);
  }

  private void report(ParquetDedupResult r) throws IOException {
    c.output.writeStats(io, r);
    if (c.output.quiet) {
      return;
    }
    if (r.alreadyComplete()) {
      io.err()
          .printf(
              Locale.ROOT,
              "idem dedup: already complete (%,d rows, %,d kept); nothing to do%n",
              r.rows(),
              r.kept());
      return;
    }
    double seconds = Math.max(r.elapsedMillis() / 1000.0, 1e-3);
    io.err()
        .printf(
            Locale.ROOT,
            "idem dedup: %,d rows from %,d Parquet file%s: %,d kept, %,d duplicates%s%n"
                + "  %,d part file%s in %s; %.1f s%n",
            r.rows(),
            r.files(),
            r.files() == 1 ? "" : "s",
            r.kept(),
            r.duplicates(),
            r.nullKeys() > 0
                ? String.format(Locale.ROOT, ", %,d null keys skipped", r.nullKeys())
                : "",
            r.parts(),
            r.parts() == 1 ? "" : "s",
            c.output.file(),
            seconds);
  }
}
