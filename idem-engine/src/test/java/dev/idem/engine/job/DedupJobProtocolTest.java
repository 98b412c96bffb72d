package dev.idem.engine.job;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.Fingerprint;
import dev.idem.core.Fingerprinter;
import dev.idem.core.filter.FilterSnapshot;
import dev.idem.core.filter.FilterType;
import dev.idem.core.filter.FingerprintSet;
import dev.idem.core.window.WindowKind;
import dev.idem.engine.DedupMode;
import dev.idem.engine.DedupStats;
import dev.idem.engine.ExpectedKeys;
import dev.idem.engine.KeyMode;
import dev.idem.engine.records.BadRecordPolicy;
import dev.idem.engine.records.EventTime;
import dev.idem.engine.records.KeySpec;
import dev.idem.engine.records.RecordFormat;
import dev.idem.engine.run.CrashPoints;
import dev.idem.engine.shard.ShardSpec;
import dev.idem.engine.state.Checkpoint;
import dev.idem.engine.window.WindowStats;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import java.util.zip.GZIPOutputStream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.statistics.Statistics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The exactly-once protocol of docs/DESIGN.md, section 3, in one JVM and without a child process: a
 * {@link DedupJob} is killed at a chosen step of state creation, resume or checkpoint (the {@link
 * CrashPoints} seam), rerun with the same spec, maybe killed again, and finally run to its end.
 * Everything it wrote (output, {@code --dropped}, quarantine, late file) must equal, byte for byte,
 * what an uninterrupted run wrote, and so must its final counts.
 *
 * <p>How a kill is simulated. The seam throws {@link SimulatedCrash}, an {@link Error} that no
 * catch block of the job handles, so nothing after the crash point runs. The job's finally blocks
 * do run, and all but one leave the files as a kill would: RocksDB holds the same synced batches (a
 * batch not yet written is discarded, as in a kill), and the locks are released, as the operating
 * system releases them when a process dies. The exception is {@code OutputFile.close()}, which
 * flushes the 64 KiB buffer. A kill does not: bytes the job handed to the operating system with
 * {@code write()} are in the file, fsynced or not, and bytes still in its buffer are lost. So the
 * seam notes each output's size on disk at the moment of the crash, and the test cuts the file back
 * to it once the job has unwound: outputs only append, so that leaves exactly the bytes a kill
 * leaves. (The other way, telling the outputs not to flush, needs a flag in {@code OutputFile},
 * production code in a package that knows nothing of jobs; this needs none.) A kill inside the
 * writing of an atomic file (the manifest, a snapshot) leaves a torn temporary file and no final
 * one: the {@code *_TORN} points make that state out of the finished file. Power loss, which also
 * loses bytes written but not fsynced, is not simulated.
 *
 * <p>The inputs are small and full of duplicates, with checkpoints every few records, blank lines,
 * bad records (quarantined), records of tens of KiB (so the output buffer also fills and flushes
 * between checkpoints, and a cut has bytes to remove), and several input files: one gzipped, the
 * last without a final line break, and for CSV an empty one first.
 */
class DedupJobProtocolTest {

  private static final long SEED = 7;
  private static final Path BASE = temporaryBase();

  /** What a job keeps, and how; each shape exercises another part of the protocol. */
  enum Shape {
    /** Memory exact tier, fingerprints: journal never cut, filter and exact-set snapshots. */
    MEMORY_SNAPSHOTS,
    /** The default memory tier: a striped exact set alone, its snapshots the filter snapshots. */
    STRIPED_SET,
    /** As {@link #STRIPED_SET}, judged by three threads that decide each batch ahead. */
    STRIPED_THREADS,
    /** RocksDB exact tier: {@code seen}, a scalable filter's snapshots drop the journal. */
    ROCKSDB,
    /** Full keys in memory: {@code seen} holds them, filter snapshots drop the journal. */
    FULL_KEYS,
    /** No exact tier: an overfull filter drops new keys, so it must come back bit for bit. */
    APPROXIMATE,
    /** Tumbling event-time windows: {@code windows} changes, the clock, a late file. */
    WINDOWED,
    /** Shard 0 of 2, {@code --seen-before} and a recent tier, over the RocksDB exact tier. */
    SHARDED,
    /**
     * CSV with a header, an empty first input and quoted fields across lines, over the memory exact
     * tier without snapshots: the set and filter come from the whole journal.
     */
    CSV
  }

  /** Where a run is killed: a step of the seam, and whether the file just written is torn. */
  enum Point {
    STORE_CREATED(DedupStep.STORE_CREATED),
    /** Killed while writing {@code MANIFEST.json}: a torn {@code MANIFEST.json.tmp}. */
    MANIFEST_TORN(DedupStep.STORE_CREATED),
    MANIFEST_WRITTEN(DedupStep.MANIFEST_WRITTEN),
    TIERS_RESTORED(DedupStep.TIERS_RESTORED),
    OUTPUTS_CUT(DedupStep.OUTPUTS_CUT),
    RECORD_HANDLED(DedupStep.RECORD_HANDLED),
    OUTPUTS_SYNCED(DedupStep.OUTPUTS_SYNCED),
    /** Killed while writing {@code filter-c.snap}: a torn {@code .filter-c.snap.*.tmp}. */
    FILTER_SNAPSHOT_TORN(DedupStep.FILTER_SNAPSHOT_WRITTEN),
    FILTER_SNAPSHOT_WRITTEN(DedupStep.FILTER_SNAPSHOT_WRITTEN),
    /** Killed while writing {@code exact-c.snap}, after {@code filter-c.snap}. */
    DELTA_SNAPSHOT_TORN(DedupStep.DELTA_SNAPSHOT_WRITTEN),
    DELTA_SNAPSHOT_WRITTEN(DedupStep.DELTA_SNAPSHOT_WRITTEN),
    EXACT_SNAPSHOT_TORN(DedupStep.EXACT_SNAPSHOT_WRITTEN),
    EXACT_SNAPSHOT_WRITTEN(DedupStep.EXACT_SNAPSHOT_WRITTEN),
    JOURNAL_BATCHED(DedupStep.JOURNAL_BATCHED),
    COMMITTED(DedupStep.COMMITTED),
    CHECKPOINT_DONE(DedupStep.CHECKPOINT_DONE);

    final DedupStep step;

    Point(DedupStep step) {
      this.step = step;
    }

    /** Turns what the step finished into what a kill halfway through it leaves. */
    void tear(Path state) throws IOException {
      switch (this) {
        case MANIFEST_TORN ->
            Files.writeString(
                state.resolve("MANIFEST.json.tmp"), "{\"format_version\":1,\"created\":\"20");
        case FILTER_SNAPSHOT_TORN -> tearNewest(state, "filter");
        case EXACT_SNAPSHOT_TORN -> tearNewest(state, "exact");
        case DELTA_SNAPSHOT_TORN -> tearNewest(state, "delta");
        default -> {}
      }
    }

    /** The newest {@code kind-c.snap}, just renamed into place, back to a torn temporary. */
    private static void tearNewest(Path state, String kind) throws IOException {
      Path newest;
      try (Stream<Path> files = Files.list(state)) {
        newest =
            files
                .filter(p -> p.getFileName().toString().matches(kind + "-\\d+\\.snap"))
                .max(Comparator.comparingLong(DedupJobProtocolTest::snapshotSequence))
                .orElseThrow();
      }
      // FilterSnapshot.write's temporary: "." + target name + "." + random + ".tmp"
      Path tmp = state.resolve("." + newest.getFileName() + ".8675309.tmp");
      Files.move(newest, tmp);
      try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
        ch.truncate(ch.size() / 2);
      }
    }
  }

  /** A run killed the {@code occurrence}-th time it reaches {@code point}. */
  record Kill(Point point, int occurrence) {
    @Override
    public String toString() {
      return point + " #" + occurrence;
    }
  }

  /** Thrown by the seam: a kill. An Error, so that no catch block of the job handles it. */
  static final class SimulatedCrash extends Error {
    SimulatedCrash(Kill kill) {
      super("simulated kill at " + kill, null, false, false);
    }
  }

  /** Counts the steps a run reaches, and kills it at one. */
  private static final class Crasher implements CrashPoints {
    final EnumMap<DedupStep, Integer> counts = new EnumMap<>(DedupStep.class);
    private final Kill kill;
    private final List<Path> outputs;

    /** Each output's size on disk at the kill; -1 for none. */
    final Map<Path, Long> onDisk = new HashMap<>();

    Crasher(Kill kill, List<Path> outputs) {
      this.kill = kill;
      this.outputs = outputs;
    }

    /** Synchronized: a checkpoint's last steps are reached on its own thread (JobProgress). */
    @Override
    public synchronized void reached(Enum<?> reached) {
      if (!(reached instanceof DedupStep step)) {
        return; // the plan's and the kernel's own steps are not among this test's points
      }
      int n = counts.merge(step, 1, Integer::sum);
      if (kill != null && step == kill.point().step && n == kill.occurrence()) {
        for (Path p : outputs) {
          onDisk.put(p, size(p));
        }
        throw new SimulatedCrash(kill);
      }
    }

    /** Undoes what the job's unwinding did that a kill does not: flushing output buffers. */
    void leaveAsKilled() throws IOException {
      for (Map.Entry<Path, Long> e : onDisk.entrySet()) {
        if (e.getValue() < 0) {
          assertThat(e.getKey()).as("an output the kill came before").doesNotExist();
        } else {
          try (FileChannel ch = FileChannel.open(e.getKey(), StandardOpenOption.WRITE)) {
            ch.truncate(e.getValue());
          }
        }
      }
    }
  }

  /** The system property of {@code SnapshotPolicy.snapshotKeys()}. */
  private static final String SNAPSHOT_KEYS = "idem.snapshot-keys";

  /** One job: its spec and the files it writes, in a directory of its own. */
  private record Job(DedupJobSpec spec, Path dir, List<Path> outputs) {
    Path state() {
      return spec.state();
    }

    JobResult run(CrashPoints crash) throws IOException {
      // an exact set alone snapshots every 40 kept keys (not every million): a few full snapshots
      // and many deltas between them, so that kills fall in both
      System.setProperty(SNAPSHOT_KEYS, "40");
      try {
        return DedupJob.run(
            spec,
            InputStream.nullInputStream(),
            OutputStream.nullOutputStream(),
            dev.idem.engine.run.JobListener.NONE,
            crash);
      } finally {
        System.clearProperty(SNAPSHOT_KEYS);
      }
    }

    List<byte[]> written() throws IOException {
      List<byte[]> all = new ArrayList<>();
      for (Path p : outputs) {
        all.add(Files.exists(p) ? Files.readAllBytes(p) : null);
      }
      return all;
    }
  }

  /** A shape's inputs and what an uninterrupted run of it does. */
  private record Fixture(
      Shape shape,
      List<String> inputs,
      Path seenBefore,
      List<byte[]> written,
      Checkpoint last,
      EnumMap<DedupStep, Integer> counts) {

    Job job(Path dir) {
      DedupJobSpec spec = spec(shape, inputs, seenBefore, dir);
      List<Path> outputs =
          new ArrayList<>(
              List.of(
                  spec.output(),
                  spec.dropped(),
                  ((BadRecordPolicy.Quarantine) spec.onBadRecord()).file()));
      if (spec.window() != null) {
        outputs.add(((WindowSpec.LatePolicy.SideOutput) spec.window().late()).file());
      }
      return new Job(spec, dir, outputs);
    }

    int count(Point p) {
      return counts.getOrDefault(p.step, 0);
    }
  }

  private static final Map<Shape, Fixture> FIXTURES = new EnumMap<>(Shape.class);

  /** The shape's inputs, written once, and its uninterrupted run, made once. */
  private static synchronized Fixture fixture(Shape shape) {
    return FIXTURES.computeIfAbsent(
        shape,
        s -> {
          try {
            return makeFixture(s);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
  }

  private static Fixture makeFixture(Shape shape) throws IOException {
    Path dir = BASE.resolve(shape.name().toLowerCase());
    deleteRecursively(dir); // what a fixture that failed its checks left
    Files.createDirectories(dir);
    Random r = new Random(shape.name().hashCode());
    // the memory exact set holds at least 1,024 keys, so its snapshots (32 KiB) come only
    // every 512 kept keys (TieredJudge's rule): that shape needs many more keys
    List<String> lines =
        shape == Shape.WINDOWED
            ? events(r)
            : shape == Shape.CSV
                ? rows(r)
                : shape == Shape.STRIPED_THREADS
                    // checkpoints fall between batches (up to 2,048 records): enough batches
                    ? records(r, 60_000, 20_000)
                    : shape == Shape.MEMORY_SNAPSHOTS || striped(shape)
                        ? records(r, 1600, 4000)
                        : records(r, 200, 150);
    List<String> inputs = shape == Shape.CSV ? writeCsvInputs(dir, lines) : writeInputs(dir, lines);
    Path seenBefore = null;
    if (shape == Shape.SHARDED) {
      // keys earlier jobs kept: duplicates here from their first record on
      Fingerprinter fp = Fingerprinter.xxh3().withSeed(SEED);
      FingerprintSet set = FingerprintSet.withExpectedSize(16);
      for (String key : List.of("k0", "k3", "k7", "k12")) {
        Fingerprint f = fp.fingerprint(key);
        set.put(f.hi(), f.lo());
      }
      seenBefore = dir.resolve("seen-before.idx");
      FilterSnapshot.write(seenBefore, set, fp);
    }
    Fixture f = new Fixture(shape, inputs, seenBefore, null, null, null);
    Job job = f.job(Files.createDirectory(dir.resolve("uninterrupted")));
    Crasher counter = new Crasher(null, job.outputs());
    JobResult result = job.run(counter);
    assertThat(result.warnings()).isEmpty();
    f = new Fixture(shape, inputs, seenBefore, job.written(), result.last(), counter.counts);
    checkTheShapeDoesWhatItSays(f, lines);
    return f;
  }

  /**
   * The uninterrupted run exercises what its shape is for, so that a kill at each of its points
   * means something; and for the exact shapes its output is the first record of each key.
   */
  private static void checkTheShapeDoesWhatItSays(Fixture f, List<String> lines) {
    Checkpoint last = f.last();
    assertThat(last.complete()).isTrue();
    assertThat(f.count(Point.CHECKPOINT_DONE)).as("checkpoints").isGreaterThan(25);
    assertThat(last.badRecords()).as("bad records").isPositive();
    assertThat(f.written().get(2)).as("quarantine").isNotEmpty();
    assertThat(f.written().get(1)).as("dropped").isNotEmpty();
    int filterSnapshots = f.count(Point.FILTER_SNAPSHOT_WRITTEN);
    int exactSnapshots = f.count(Point.EXACT_SNAPSHOT_WRITTEN);
    switch (f.shape()) {
      case MEMORY_SNAPSHOTS -> {
        assertThat(filterSnapshots).as(f.shape() + ": filter snapshots").isGreaterThanOrEqualTo(2);
        assertThat(exactSnapshots).isEqualTo(filterSnapshots);
      }
      case ROCKSDB, FULL_KEYS, APPROXIMATE, SHARDED -> {
        assertThat(filterSnapshots).as(f.shape() + ": filter snapshots").isGreaterThanOrEqualTo(2);
        assertThat(exactSnapshots).isZero();
      }
      case STRIPED_SET, STRIPED_THREADS -> {
        assertThat(filterSnapshots).as(f.shape() + ": full snapshots").isGreaterThanOrEqualTo(2);
        assertThat(f.count(Point.DELTA_SNAPSHOT_WRITTEN))
            .as(f.shape() + ": delta snapshots")
            .isGreaterThanOrEqualTo(2);
        assertThat(exactSnapshots).isZero();
      }
      case WINDOWED, CSV -> assertThat(filterSnapshots + exactSnapshots).isZero();
    }
    if (f.shape() == Shape.APPROXIMATE) {
      long distinct =
          lines.stream().map(DedupJobProtocolTest::id).filter(id -> id != null).distinct().count();
      assertThat(last.stats().kept())
          .as("new keys dropped as false positives")
          .isLessThan(distinct);
    }
    if (f.shape() == Shape.WINDOWED) {
      assertThat(f.written().get(3)).as("late events").isNotEmpty();
      assertThat(last.window().stats().duplicates()).isPositive();
    }
    if (f.shape() == Shape.SHARDED) {
      assertThat(last.records() - last.badRecords())
          .as("the other shard's records skipped")
          .isLessThan(lines.stream().filter(line -> id(line) != null).count());
    }
    if (f.shape() == Shape.MEMORY_SNAPSHOTS
        || striped(f.shape())
        || f.shape() == Shape.ROCKSDB
        || f.shape() == Shape.FULL_KEYS) {
      ByteArrayOutputStream first = new ByteArrayOutputStream();
      Set<String> seen = new HashSet<>();
      for (String line : lines) {
        String id = id(line);
        if (id != null && seen.add(id)) {
          first.writeBytes((line + "\n").getBytes(StandardCharsets.UTF_8));
        }
      }
      assertThat(f.written().get(0)).isEqualTo(first.toByteArray());
    }
  }

  /** The spec of a shape's job in {@code dir}; the one place a {@link DedupJobSpec} is built. */
  private static DedupJobSpec spec(Shape shape, List<String> inputs, Path seenBefore, Path dir) {
    DedupMode mode = shape == Shape.APPROXIMATE ? DedupMode.APPROXIMATE : DedupMode.EXACT;
    KeyMode keyMode = shape == Shape.FULL_KEYS ? KeyMode.FULL_KEY : KeyMode.FINGERPRINT;
    // tiny filters: snapshots every few checkpoints, and many false positives to settle
    FilterType filter = shape == Shape.ROCKSDB || striped(shape) ? null : FilterType.BLOCKED;
    boolean csv = shape == Shape.CSV;
    ExpectedKeys expected =
        shape == Shape.ROCKSDB
            ? ExpectedKeys.UNKNOWN
            : ExpectedKeys.of(shape == Shape.APPROXIMATE ? 40 : 48);
    double fpp = shape == Shape.APPROXIMATE ? 0.2 : 0.01;
    ExactTierChoice store =
        shape == Shape.ROCKSDB || shape == Shape.SHARDED
            ? ExactTierChoice.ROCKSDB
            : ExactTierChoice.MEMORY;
    long every =
        switch (shape) {
          case MEMORY_SNAPSHOTS, STRIPED_SET, STRIPED_THREADS -> 50;
          case WINDOWED, ROCKSDB -> 6;
          case FULL_KEYS -> 5;
          case APPROXIMATE -> 7;
          case SHARDED, CSV -> 4;
        };
    WindowSpec window =
        shape != Shape.WINDOWED
            ? null
            : new WindowSpec(
                WindowKind.TUMBLING,
                Duration.ofSeconds(2),
                KeySpec.jsonField("ts", false),
                EventTime.MILLIS,
                Duration.ofSeconds(1),
                Duration.ofMillis(500),
                new WindowSpec.LatePolicy.SideOutput(dir.resolve("late.jsonl")));
    ShardSpec shard = shape == Shape.SHARDED ? ShardSpec.parse("0/2") : null;
    long recent = shape == Shape.SHARDED ? 8 : 0;
    return DedupJobSpec.builder(inputs)
        .format(csv ? RecordFormat.CSV : RecordFormat.JSONL)
        .key(csv ? KeySpec.column("id") : KeySpec.jsonField("id", false))
        .header(csv)
        .mode(mode)
        .keyMode(keyMode)
        .filterType(filter)
        .expectedKeys(expected)
        .fpp(fpp)
        .seed(SEED)
        .exactTier(store)
        .state(dir.resolve("state"))
        .checkpointRecords(every)
        .checkpointInterval(Duration.ofHours(1))
        .output(dir.resolve("out.jsonl"))
        .dropped(dir.resolve("dropped.tsv"))
        .onBadRecord(new BadRecordPolicy.Quarantine(dir.resolve("bad.jsonl")))
        .maxRecordBytes(1 << 20)
        .recentCacheSize(recent)
        .rocksDbCacheBytes(8L << 20)
        .window(window)
        .shard(shard)
        .seenBefore(seenBefore)
        .threads(
            shape == Shape.STRIPED_THREADS ? 3 : shape == Shape.CSV ? 2 : 1) // CSV: two parsers
        .build();
  }

  private static boolean striped(Shape shape) {
    return shape == Shape.STRIPED_SET || shape == Shape.STRIPED_THREADS;
  }

  /** Records with a skewed key distribution, blank lines, bad records and a few big ones. */
  private static List<String> records(Random r, int count, int keys) {
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      double x = r.nextDouble();
      if (x < 0.03) {
        lines.add("");
      } else if (x < 0.05) {
        lines.add("{\"n\":" + i + ",\"no\":\"key\"}");
      } else if (x < 0.06) {
        lines.add("{\"id\":\"k" + i); // not JSON
      } else {
        int key = (int) (keys * Math.pow(r.nextDouble(), 2));
        lines.add("{\"id\":\"k" + key + "\",\"n\":" + i + pad(r, 16.0 / count) + "}");
      }
    }
    return lines;
  }

  /** Events about 200 ms apart and up to 3 s out of order: some arrive late. */
  private static List<String> events(Random r) {
    List<String> lines = new ArrayList<>();
    long start = 1_764_669_600_000L;
    for (int i = 0; i < 200; i++) {
      double x = r.nextDouble();
      if (x < 0.03) {
        lines.add("{\"id\":\"u1\",\"n\":" + i + "}"); // no event time
      } else {
        long ts = start + 200L * i - r.nextInt(3000);
        lines.add(
            "{\"id\":\"u" + r.nextInt(25) + "\",\"ts\":" + ts + ",\"n\":" + i + pad(r, 0.06) + "}");
      }
    }
    return lines;
  }

  /**
   * CSV rows under a header {@code n,id,note}: some notes quoted across lines, some rows with one
   * field (bad: no column id).
   */
  private static List<String> rows(Random r) {
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      double x = r.nextDouble();
      if (x < 0.04) {
        lines.add(Integer.toString(i));
      } else {
        String note =
            x < 0.15
                ? "\"two\nlines, \"\"quoted\"\"\""
                : r.nextDouble() < 0.06 ? "x".repeat(20_000 + r.nextInt(40_000)) : "n" + i;
        lines.add(i + ",k" + (int) (150 * Math.pow(r.nextDouble(), 2)) + "," + note);
      }
    }
    return lines;
  }

  /** Now and then tens of KiB: the 64 KiB output buffer then flushes between checkpoints. */
  private static String pad(Random r, double p) {
    return r.nextDouble() < p ? ",\"pad\":\"" + "x".repeat(20_000 + r.nextInt(40_000)) + "\"" : "";
  }

  /** The key the job sees in {@code line}, or null for a blank line or a bad record. */
  private static String id(String line) {
    int from = line.indexOf("\"id\":\"");
    int to = line.indexOf('"', from + 6);
    return from < 0 || to < 0 ? null : line.substring(from + 6, to);
  }

  /** Three inputs: plain, gzipped, and plain without a line break after its last line. */
  private static List<String> writeInputs(Path dir, List<String> lines) throws IOException {
    int third = lines.size() / 3;
    Path a = dir.resolve("a.jsonl");
    Path b = dir.resolve("b.jsonl.gz");
    Path c = dir.resolve("c.jsonl");
    Files.writeString(a, String.join("\n", lines.subList(0, third)) + "\n");
    try (OutputStream gz = new GZIPOutputStream(Files.newOutputStream(b))) {
      gz.write(
          (String.join("\n", lines.subList(third, 2 * third)) + "\n")
              .getBytes(StandardCharsets.UTF_8));
    }
    Files.writeString(c, String.join("\n", lines.subList(2 * third, lines.size())));
    return List.of(a.toString(), b.toString(), c.toString());
  }

  /**
   * CSV inputs, each with the header: an empty one (as a Spark job writes for an empty partition:
   * no header either), a plain one, a gzipped one, and one without a final line break.
   */
  private static List<String> writeCsvInputs(Path dir, List<String> lines) throws IOException {
    int third = lines.size() / 3;
    String header = "n,id,note\n";
    Path empty = Files.writeString(dir.resolve("part-0.csv"), "");
    Path a = dir.resolve("part-1.csv");
    Path b = dir.resolve("part-2.csv.gz");
    Path c = dir.resolve("part-3.csv");
    Files.writeString(a, header + String.join("\n", lines.subList(0, third)) + "\n");
    try (OutputStream gz = new GZIPOutputStream(Files.newOutputStream(b))) {
      gz.write(
          (header + String.join("\n", lines.subList(third, 2 * third)) + "\n")
              .getBytes(StandardCharsets.UTF_8));
    }
    Files.writeString(c, header + String.join("\n", lines.subList(2 * third, lines.size())));
    return List.of(empty.toString(), a.toString(), b.toString(), c.toString());
  }

  /**
   * Runs the job of {@code shape} in a new directory, killed by each of {@code kills} in turn (a
   * run that completes before its kill point is just a run: the next one finds the job complete),
   * then once more without a kill, and checks that it wrote what the uninterrupted run wrote.
   * Returns the number of runs killed.
   */
  private static int killAndResume(Shape shape, List<Kill> kills) throws IOException {
    Fixture f = fixture(shape);
    Path dir = Files.createTempDirectory(BASE, shape.name().toLowerCase() + "-");
    try {
      Job job = f.job(dir);
      int killed = 0;
      for (Kill kill : kills) {
        Crasher crasher = new Crasher(kill, job.outputs());
        try {
          JobResult result = job.run(crasher);
          assertNothingRepaired(result, kills);
        } catch (SimulatedCrash e) {
          killed++;
          crasher.leaveAsKilled();
          kill.point().tear(job.state());
        }
      }
      JobResult result = job.run(CrashPoints.NONE);
      assertNothingRepaired(result, kills);
      List<byte[]> written = job.written();
      String[] names = {"output", "dropped", "quarantine", "late file"};
      for (int i = 0; i < written.size(); i++) {
        assertSameBytes(names[i] + " after " + kills, written.get(i), f.written().get(i));
      }
      assertSameCounts(result.last(), f.last(), kills);
      return killed;
    } finally {
      deleteRecursively(dir);
    }
  }

  /**
   * A page of the mapped snapshot damaged while the job was down (one byte of every page flipped):
   * the resume that first reads a page stops judging, moves the file aside and resumes again from
   * the last checkpoint, rebuilding the set from the journal, and writes what an uninterrupted run
   * writes. Never a silent miss: the damaged page is not trusted for any answer.
   */
  @ParameterizedTest(name = "{0} snapshot damaged")
  @MethodSource("damagedSnapshotKinds")
  void aDamagedPageOfAMappedSnapshotIsMovedAsideAndRebuiltFromTheJournal(String kind)
      throws IOException {
    Fixture f = fixture(Shape.STRIPED_SET);
    Path dir = Files.createTempDirectory(BASE, "damaged-" + kind + "-");
    try {
      Job job = null;
      Path snapshot = null;
      // killed just after a checkpoint that names a snapshot of this kind (from the middle on)
      for (int n = f.count(Point.CHECKPOINT_DONE) / 2; snapshot == null; n++) {
        assertThat(n)
            .as("a checkpoint naming a " + kind)
            .isLessThan(f.count(Point.CHECKPOINT_DONE));
        deleteRecursively(dir);
        job = f.job(Files.createDirectories(dir));
        Crasher crasher = new Crasher(new Kill(Point.CHECKPOINT_DONE, n), job.outputs());
        try {
          job.run(crasher);
          throw new AssertionError("not killed");
        } catch (SimulatedCrash e) {
          crasher.leaveAsKilled();
        }
        try (Stream<Path> files = Files.list(job.state())) {
          snapshot =
              files
                  .filter(p -> p.getFileName().toString().matches(kind + "-\\d+\\.snap"))
                  .findFirst()
                  .orElse(null);
        }
      }
      try (FileChannel ch =
          FileChannel.open(snapshot, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
        // every page of the payload, past the header's first 4 KiB: whichever page the job reads
        for (long at = 4096 + 100; at < ch.size() - 16; at += 4096) {
          java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(1);
          ch.read(b, at);
          b.put(0, (byte) (b.get(0) ^ 0x5A)).rewind();
          ch.write(b, at);
        }
      }
      // the run that first reads a damaged page moves the file aside and resumes again itself
      String name = snapshot.getFileName().toString();
      JobResult result = job.run(CrashPoints.NONE);
      assertThat(snapshot).doesNotExist();
      assertThat(snapshot.resolveSibling(snapshot.getFileName() + ".damaged")).exists();
      assertThat(result.warnings())
          .as("the resume says what it rebuilt")
          .anyMatch(w -> w.contains(name));
      List<byte[]> written = job.written();
      for (int i = 0; i < written.size(); i++) {
        assertSameBytes(
            "file " + i + " after a damaged " + kind, written.get(i), f.written().get(i));
      }
      assertSameCounts(result.last(), f.last(), List.of());
    } finally {
      deleteRecursively(dir);
    }
  }

  static Stream<String> damagedSnapshotKinds() {
    return Stream.of("filter", "delta");
  }

  /**
   * A kill leaves nothing to repair. A resume that found a snapshot missing or damaged rebuilds it
   * and warns: the output may still be right (the journal or {@code seen} has every key), so only
   * the warning shows that a checkpoint named a file that was not there.
   */
  private static void assertNothingRepaired(JobResult result, List<Kill> kills) {
    assertThat(result.warnings()).as("warnings of a run after %s", kills).isEmpty();
  }

  /** Equal bytes; if not, where they part, as text (the files hold lines). */
  private static void assertSameBytes(String what, byte[] actual, byte[] expected) {
    if (Arrays.equals(actual, expected)) {
      return;
    }
    assertThat(actual).as(what + ": missing").isNotNull();
    assertThat(expected).as(what + ": not written by the uninterrupted run").isNotNull();
    int at = Arrays.mismatch(actual, expected);
    throw new AssertionError(
        String.format(
            "%s: %,d bytes, %,d expected; from byte %,d it has" + "%n  %s%ninstead of%n  %s",
            what, actual.length, expected.length, at, excerpt(actual, at), excerpt(expected, at)));
  }

  private static String excerpt(byte[] b, int from) {
    String s = new String(b, from, Math.min(120, b.length - from), StandardCharsets.UTF_8);
    return s.isEmpty() ? "(the end)" : s.replace("\n", "\\n");
  }

  /**
   * The final checkpoint counts what the uninterrupted one counts. Not the exact-tier traffic: a
   * resumed job's recent tier starts empty, which changes where a key is found, not whether.
   */
  private static void assertSameCounts(Checkpoint resumed, Checkpoint once, List<Kill> kills) {
    assertThat(resumed.complete()).isTrue();
    assertThat(
            new long[] {
              resumed.records(),
              resumed.blankLines(),
              resumed.badRecords(),
              resumed.outputBytes(),
              resumed.droppedBytes(),
              resumed.quarantineBytes()
            })
        .as("counts after %s", kills)
        .containsExactly(
            once.records(),
            once.blankLines(),
            once.badRecords(),
            once.outputBytes(),
            once.droppedBytes(),
            once.quarantineBytes());
    DedupStats a = resumed.stats();
    DedupStats b = once.stats();
    assertThat(new long[] {a.checked(), a.kept(), a.duplicates()})
        .as("stats after %s", kills)
        .containsExactly(b.checked(), b.kept(), b.duplicates());
    if (once.window() != null) {
      WindowStats w = resumed.window().stats();
      WindowStats v = once.window().stats();
      assertThat(
              new long[] {w.events(), w.kept(), w.duplicates(), w.late(), w.held(), w.watermark()})
          .as("window counts after %s", kills)
          .containsExactly(v.events(), v.kept(), v.duplicates(), v.late(), v.held(), v.watermark());
      assertThat(resumed.window().maxEventTime()).isEqualTo(once.window().maxEventTime());
    }
  }

  // ---------------------------------------------------------------- every point, by name

  /** The points a shape reaches in an uninterrupted run (a resume reaches no others). */
  private static List<Point> points(Shape shape) {
    return Arrays.stream(Point.values()).filter(p -> fixture(shape).count(p) > 0).toList();
  }

  static Stream<Arguments> shapesAndPoints() {
    return Arrays.stream(Shape.values())
        .flatMap(s -> points(s).stream().map(p -> Arguments.of(s, p)));
  }

  /**
   * One kill at the middle occurrence of a point (the only one for the once-a-run points), then a
   * resume: a regression names the shape and the step.
   */
  @ParameterizedTest(name = "{0} killed at {1}")
  @MethodSource("shapesAndPoints")
  void killedOnceAtAStepTheRerunWritesWhatAnUninterruptedRunWrites(Shape shape, Point point)
      throws IOException {
    int n = fixture(shape).count(point) / 2 + 1;
    assertThat(killAndResume(shape, List.of(new Kill(point, n)))).isOne();
  }

  static Stream<Arguments> shapesAndResumePoints() {
    return Arrays.stream(Shape.values())
        .flatMap(
            s ->
                Stream.of(
                        Point.TIERS_RESTORED,
                        Point.OUTPUTS_CUT,
                        Point.RECORD_HANDLED,
                        Point.FILTER_SNAPSHOT_TORN)
                    .filter(p -> fixture(s).count(p) > 0)
                    .map(p -> Arguments.of(s, p)));
  }

  /**
   * A resume killed in its turn, before it checkpointed anything (restoring, cutting the outputs,
   * judging again the records after the checkpoint) or in its first snapshot, then resumed again: a
   * resume must leave the state as it found it, or as a checkpoint of its own.
   */
  @ParameterizedTest(name = "{0} resume killed at {1}")
  @MethodSource("shapesAndResumePoints")
  void aResumeKilledInItsTurnIsResumedAgain(Shape shape, Point during) throws IOException {
    Fixture f = fixture(shape);
    // first killed at a snapshot when there are any, so the resume finds one to ignore
    Point first =
        f.count(Point.FILTER_SNAPSHOT_WRITTEN) > 0
            ? Point.FILTER_SNAPSHOT_WRITTEN
            : Point.OUTPUTS_SYNCED;
    int n = f.count(first) / 3 + 1;
    List<Kill> kills =
        List.of(
            new Kill(first, n),
            new Kill(during, 1),
            new Kill(during, 1),
            new Kill(Point.COMMITTED, 2),
            new Kill(during, 2));
    // the first three always come: the later ones only if the resumed run gets that far
    assertThat(killAndResume(shape, kills)).isGreaterThanOrEqualTo(3);
  }

  /** Killed at the end: after the final checkpoint's commit, the rerun finds a complete job. */
  @Test
  void killedAfterTheFinalCommitTheRerunFindsTheJobComplete() throws IOException {
    for (Shape shape : Shape.values()) {
      int last = fixture(shape).count(Point.COMMITTED);
      assertThat(killAndResume(shape, List.of(new Kill(Point.COMMITTED, last)))).isOne();
    }
  }

  // ---------------------------------------------------------------- random kills

  /**
   * Up to four kills at points the shape reaches. The first, in a new job, at any occurrence; the
   * later ones mostly at early occurrences, since a resumed run has fewer steps left.
   */
  private static Arbitrary<List<Kill>> kills(Shape shape) {
    Arbitrary<Point> point = Arbitraries.of(points(shape));
    Arbitrary<Kill> first =
        point.flatMap(
            p ->
                Arbitraries.integers()
                    .between(1, fixture(shape).count(p))
                    .map(n -> new Kill(p, n)));
    Arbitrary<Kill> later =
        point.flatMap(
            p ->
                Arbitraries.integers()
                    .between(1, fixture(shape).count(p))
                    .withDistribution(RandomDistribution.biased())
                    .map(n -> new Kill(p, n)));
    return Combinators.combine(first, later.list().ofMaxSize(3))
        .as(
            (f, l) -> {
              List<Kill> all = new ArrayList<>(List.of(f));
              all.addAll(l);
              return all;
            });
  }

  record Scenario(Shape shape, List<Kill> kills) {}

  @Provide
  Arbitrary<Scenario> scenarios() {
    return Arbitraries.of(Shape.values()).flatMap(s -> kills(s).map(k -> new Scenario(s, k)));
  }

  /**
   * Up to four kills in a row, at random points and occurrences (a later kill often lands in the
   * resume itself, or never comes because the resumed run has fewer steps left), then a run to the
   * end: the outputs are always those of the uninterrupted run.
   */
  @Property(tries = 200, edgeCases = EdgeCasesMode.NONE)
  void killedAnywhereAnyNumberOfTimesTheOutputsAreThoseOfAnUninterruptedRun(
      @ForAll("scenarios") Scenario scenario) throws IOException {
    int killed = killAndResume(scenario.shape(), scenario.kills());
    Statistics.label("shape").collect(scenario.shape());
    Statistics.label("runs killed").collect(killed);
    for (Kill k : scenario.kills()) {
      Statistics.label("point").collect(k.point());
    }
  }

  // ---------------------------------------------------------------- files

  private static long snapshotSequence(Path snapshot) {
    String name = snapshot.getFileName().toString();
    return Long.parseLong(name.substring(name.indexOf('-') + 1, name.indexOf('.')));
  }

  private static long size(Path p) {
    try {
      return Files.exists(p) ? Files.size(p) : -1;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Where the test's files go: a tmpfs when there is one. The kills are simulated, so the fsyncs of
   * the jobs (outputs, RocksDB, snapshots, thousands of them) buy nothing here, and on a disk they
   * make the test several times slower. It needs some 30 MB at most.
   */
  private static Path temporaryBase() {
    try {
      Path shm = Path.of("/dev/shm");
      Path parent =
          Files.isDirectory(shm)
                  && Files.isWritable(shm)
                  && Files.getFileStore(shm).getUsableSpace() > (256L << 20)
              ? shm
              : Path.of(System.getProperty("java.io.tmpdir"));
      Path base = Files.createTempDirectory(parent, "idem-protocol-test-");
      Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteRecursively(base)));
      return base;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void deleteRecursively(Path dir) {
    try (Stream<Path> walk = Files.walk(dir)) {
      walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a temporary directory left behind is not worth failing a test
    }
  }
}
