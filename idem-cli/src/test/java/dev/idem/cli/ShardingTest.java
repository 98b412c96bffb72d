package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Key-range sharding: workers that each own a shard (`dedup --shard I/N`, or `dedup` of one file of
 * `split`) together keep every distinct key exactly once; a killed split resumes to the same
 * shards.
 */
class ShardingTest {

  @TempDir static Path dir;
  private static DedupInput data;
  private static Path input;

  @BeforeAll
  static void generate() throws IOException {
    data = DedupInput.generate(60_000, 42L);
    input = dir.resolve("events.jsonl");
    Files.write(input, data.input);
  }

  /** Lines and how often each occurs. */
  private static Map<String, Integer> multiset(String text) {
    Map<String, Integer> m = new HashMap<>();
    text.lines().forEach(l -> m.merge(l, 1, Integer::sum));
    return m;
  }

  private static final Map<String, Integer> GLOBAL = new HashMap<>();

  private static Map<String, Integer> global() {
    if (GLOBAL.isEmpty()) {
      GLOBAL.putAll(multiset(new String(data.expected, StandardCharsets.UTF_8)));
    }
    return GLOBAL;
  }

  @Test
  void workersOwningOneShardEachTogetherKeepEveryKeyExactlyOnce() {
    StringBuilder union = new StringBuilder();
    for (int i = 0; i < 5; i++) {
      Cli.Result r = Cli.run("dedup", "--key", "id", "--shard", i + "/5", input.toString());
      assertThat(r.status()).as(r.err()).isZero();
      assertThat(r.err()).contains("records owned by other shards skipped");
      union.append(r.out());
    }
    assertThat(multiset(union.toString())).isEqualTo(global());
  }

  @Test
  void dedupOfEachSplitShardUnitesToTheGlobalDedup() throws IOException {
    Path shards = dir.resolve("split");
    Cli.Result split =
        Cli.run(
            "split",
            "--key",
            "id",
            "--shards",
            "4",
            "--gzip",
            "-o",
            shards.toString(),
            input.toString());
    assertThat(split.status()).as(split.err()).isZero();
    StringBuilder union = new StringBuilder();
    Map<String, Integer> records = new HashMap<>();
    for (int i = 0; i < 4; i++) {
      Path shard = shards.resolve(String.format("shard-%05d.jsonl.gz", i));
      multiset(gunzip(shard)).forEach((k, v) -> records.merge(k, v, Integer::sum));
      Cli.Result r = Cli.run("dedup", "--key", "id", shard.toString());
      assertThat(r.status()).as(r.err()).isZero();
      union.append(r.out());
    }
    assertThat(records).isEqualTo(multiset(new String(data.input, StandardCharsets.UTF_8)));
    assertThat(multiset(union.toString())).isEqualTo(global());
    // the same command again: nothing to do; another shard count: refused, naming why
    assertThat(
            Cli.run(
                    "split",
                    "--key",
                    "id",
                    "--shards",
                    "4",
                    "--gzip",
                    "-o",
                    shards.toString(),
                    input.toString())
                .err())
        .contains("already complete");
    Cli.Result other =
        Cli.run(
            "split",
            "--key",
            "id",
            "--shards",
            "5",
            "--gzip",
            "-o",
            shards.toString(),
            input.toString());
    assertThat(other.status()).isEqualTo(2);
    assertThat(other.err()).contains("differs from the job in", "0,1,2,3,4", "empty directory");
  }

  @Test
  void growingFromFourToFiveShardsBetweenJobsKeepsTheResultExact() throws IOException {
    // day 1: the first half of the stream by 4 workers; day 2: the second half by 5 workers
    String[] lines = new String(data.input, StandardCharsets.UTF_8).split("\n");
    Path day1 =
        Files.writeString(
            dir.resolve("day1.jsonl"),
            String.join("\n", java.util.Arrays.copyOfRange(lines, 0, lines.length / 2)) + "\n");
    Path day2 =
        Files.writeString(
            dir.resolve("day2.jsonl"),
            String.join("\n", java.util.Arrays.copyOfRange(lines, lines.length / 2, lines.length))
                + "\n");
    StringBuilder union = new StringBuilder();
    List<String> states = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      Path state = dir.resolve("day1-state-" + i);
      Path out = dir.resolve("day1-out-" + i + ".jsonl");
      Cli.Result r =
          Cli.run(
              "dedup",
              "--key",
              "id",
              "--shard",
              i + "/4",
              "--state",
              state.toString(),
              "-o",
              out.toString(),
              day1.toString());
      assertThat(r.status()).as(r.err()).isZero();
      union.append(Files.readString(out));
      states.add(state.toString());
    }
    String day1Kept = union.toString();
    Path seen = dir.resolve("reshard");
    List<String> reshard =
        new ArrayList<>(List.of("reshard", "--shards", "5", "-o", seen.toString()));
    reshard.addAll(states);
    Cli.Result moved = Cli.run(reshard.toArray(String[]::new));
    assertThat(moved.status()).as(moved.err()).isZero();
    // about 1/5 of the keys change owner (the new node's share)
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("\\((\\d+\\.\\d) %\\) changed").matcher(moved.err());
    assertThat(m.find()).as(moved.err()).isTrue();
    assertThat(Double.parseDouble(m.group(1))).isBetween(15.0, 25.0);
    for (int j = 0; j < 5; j++) {
      Cli.Result r =
          Cli.run(
              "dedup",
              "--key",
              "id",
              "--shard",
              j + "/5",
              "--seen-before",
              seen.resolve(String.format("seen-%05d.idx", j)).toString(),
              day2.toString());
      assertThat(r.status()).as(r.err()).isZero();
      union.append(r.out());
    }
    assertThat(multiset(union.toString())).isEqualTo(global());
    // without the moved state, day 2 would repeat keys that day 1 kept
    StringBuilder naive = new StringBuilder(day1Kept);
    for (int j = 0; j < 5; j++) {
      naive.append(Cli.run("dedup", "--key", "id", "--shard", j + "/5", day2.toString()).out());
    }
    assertThat(multiset(naive.toString())).isNotEqualTo(global());
  }

  @Test
  void badSeenBeforeFilesUnfinishedStatesAndDamagedSplitsAreRefusedClearly() throws IOException {
    Path small = Files.writeString(dir.resolve("small.jsonl"), "{\"id\":1}\n{\"x\":2}\n");
    // a Bloom filter is not an exact set: it could take new keys for seen
    Path keys = Files.writeString(dir.resolve("keys.txt"), "1\n");
    Path bloom = dir.resolve("bloom.idx");
    assertThat(
            Cli.run(
                    "filter",
                    "build",
                    "--type",
                    "blocked",
                    "-n",
                    "10",
                    "-o",
                    bloom.toString(),
                    keys.toString())
                .status())
        .isZero();
    Cli.Result notExact =
        Cli.run("dedup", "--key", "id", "--seen-before", bloom.toString(), small.toString());
    assertThat(notExact.status()).isEqualTo(2);
    assertThat(notExact.err())
        .contains("bloom.idx: a blocked filter; --seen-before takes an " + "exact set");
    // an exact set hashed otherwise (another normalizer) would match nothing: refused
    Path exact = dir.resolve("exact.idx");
    assertThat(
            Cli.run(
                    "filter",
                    "build",
                    "--type",
                    "exact",
                    "-n",
                    "10",
                    "--normalize",
                    "lowercase",
                    "-o",
                    exact.toString(),
                    keys.toString())
                .status())
        .isZero();
    Cli.Result otherHash =
        Cli.run("dedup", "--key", "id", "--seen-before", exact.toString(), small.toString());
    assertThat(otherHash.status()).isEqualTo(2);
    assertThat(otherHash.err()).contains("its keys were hashed as");
    assertThat(
            Cli.run(
                    "dedup",
                    "--key",
                    "id",
                    "--seen-before",
                    dir.resolve("nope.idx").toString(),
                    small.toString())
                .err())
        .contains("no such file");
    // a job stopped by a bad record has not finished: its state cannot be resharded yet
    Path state = dir.resolve("stopped-state");
    assertThat(
            Cli.run(
                    "dedup",
                    "--key",
                    "id",
                    "--state",
                    state.toString(),
                    "-o",
                    dir.resolve("stopped.jsonl").toString(),
                    small.toString())
                .status())
        .isEqualTo(1);
    Cli.Result unfinished =
        Cli.run("reshard", "--shards", "2", "-o", dir.resolve("re").toString(), state.toString());
    assertThat(unfinished.status()).isEqualTo(2);
    assertThat(unfinished.err()).contains("the job is not finished");
    Cli.Result notState =
        Cli.run(
            "reshard",
            "--shards",
            "2",
            "-o",
            dir.resolve("re2").toString(),
            Files.createDirectories(dir.resolve("empty")).toString());
    assertThat(notState.status()).isEqualTo(2);
    assertThat(notState.err()).contains("not a dedup job's state");
    // a split whose checkpoint was damaged says so instead of guessing
    Path split = dir.resolve("damaged-split");
    assertThat(
            Cli.run(
                    "split",
                    "--key",
                    "id",
                    "--shards",
                    "2",
                    "--on-bad-record",
                    "skip",
                    "-o",
                    split.toString(),
                    small.toString())
                .status())
        .isZero();
    Files.writeString(split.resolve(".idem-split/checkpoint.json"), "{\"job\":");
    Cli.Result damaged =
        Cli.run(
            "split",
            "--key",
            "id",
            "--shards",
            "2",
            "--on-bad-record",
            "skip",
            "-o",
            split.toString(),
            small.toString());
    assertThat(damaged.status()).isEqualTo(1);
    assertThat(damaged.err()).contains("checkpoint.json: damaged").doesNotContain("Exception");
  }

  @Test
  void csvShardsEachStartWithTheHeader() throws IOException {
    Path csv = Files.writeString(dir.resolve("in.csv"), "url,n\na,1\nb,2\nc,3\na,4\n");
    Path out = dir.resolve("csv-split");
    Cli.Result r =
        Cli.run("split", "--column", "url", "--shards", "2", "-o", out.toString(), csv.toString());
    assertThat(r.status()).as(r.err()).isZero();
    String a = Files.readString(out.resolve("shard-00000.csv"));
    String b = Files.readString(out.resolve("shard-00001.csv"));
    assertThat(a).startsWith("url,n\n");
    assertThat(b).startsWith("url,n\n");
    assertThat((a + b).lines().filter(l -> !l.equals("url,n")).sorted())
        .containsExactly("a,1", "a,4", "b,2", "c,3");
    assertThat(a.contains("a,1")).isEqualTo(a.contains("a,4"));
  }

  @Test
  void aSplitKilledAtRandomMomentsResumesToTheSameShards() throws Exception {
    Path reference = dir.resolve("ref-split");
    List<String> once = splitCommand(reference);
    Process p = ChildProcessTest.start(once.toArray(String[]::new));
    long start = System.nanoTime();
    assertThat(p.waitFor(2, TimeUnit.MINUTES)).isTrue();
    assertThat(p.exitValue()).isZero();
    long full = (System.nanoTime() - start) / 1_000_000;
    Path killed = dir.resolve("killed-split");
    List<String> args = splitCommand(killed);
    Random random = new Random(5);
    int kills = 0;
    boolean finished = false;
    while (!finished) {
      Process run = ChildProcessTest.start(args.toArray(String[]::new));
      long delay =
          kills >= 8
              ? TimeUnit.MINUTES.toMillis(2)
              : 30 + (long) (random.nextDouble() * full * 0.8);
      if (run.waitFor(delay, TimeUnit.MILLISECONDS)) {
        assertThat(run.exitValue()).isZero();
        finished = true;
      } else {
        run.destroyForcibly().waitFor();
        kills++;
      }
    }
    System.err.printf("split: %d kills (uninterrupted run %d ms)%n", kills, full);
    assertThat(Files.list(killed).filter(f -> f.getFileName().toString().endsWith(".gz")).count())
        .isEqualTo(3);
    for (int i = 0; i < 3; i++) {
      String name = String.format("shard-%05d.jsonl.gz", i);
      assertThat(gunzip(killed.resolve(name)))
          .as("%s after %d kills", name, kills)
          .isEqualTo(gunzip(reference.resolve(name)));
    }
  }

  private static List<String> splitCommand(Path out) {
    return new ArrayList<>(
        List.of(
            "split",
            "--key",
            "id",
            "--shards",
            "3",
            "--gzip",
            "--checkpoint-every",
            "1000",
            "-q",
            "-o",
            out.toString(),
            input.toString()));
  }

  private static String gunzip(Path file) throws IOException {
    try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
