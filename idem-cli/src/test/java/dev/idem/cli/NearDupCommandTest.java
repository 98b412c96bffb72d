package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.engine.neardup.NearDupSpec;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/**
 * idem near-dup run as the user runs it, on corpora with planted near-duplicates whose true
 * similarity the test computes itself (word 5-grams, as sets of strings).
 */
class NearDupCommandTest {

  @TempDir Path dir;

  /** A document: its words, and the JSON line that carries them. */
  private record Doc(String[] words) {
    String json(int id) {
      return "{\"id\":" + id + ",\"text\":\"" + String.join(" ", words) + "\"}\n";
    }
  }

  /**
   * 40 documents of 200 random words, each followed later by copies with 1, 2, 3, 4, 6 and 10 words
   * replaced (Jaccard of 5-grams about 0.95, 0.90, 0.86, 0.81, 0.73, 0.57), shuffled: a copy may
   * come before its original.
   */
  private static List<Doc> plantedCorpus(long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    List<Doc> docs = new ArrayList<>();
    for (int b = 0; b < 40; b++) {
      String[] base = new String[200];
      for (int i = 0; i < base.length; i++) {
        base[i] = "w" + random.nextInt(5000);
      }
      docs.add(new Doc(base));
      for (int edits : new int[] {1, 2, 3, 4, 6, 10}) {
        String[] copy = base.clone();
        for (int e = 0; e < edits; e++) {
          copy[5 + (e * 190 / edits)] = "x" + random.nextInt(1_000_000);
        }
        docs.add(new Doc(copy));
      }
    }
    for (int i = docs.size() - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      Doc t = docs.get(i);
      docs.set(i, docs.get(j));
      docs.set(j, t);
    }
    return docs;
  }

  private static Set<String> shingles(Doc d) {
    Set<String> s = new HashSet<>();
    for (int i = 0; i + 5 <= d.words().length; i++) {
      s.add(String.join(" ", Arrays.copyOfRange(d.words(), i, i + 5)));
    }
    return s;
  }

  private static double jaccard(Set<String> a, Set<String> b) {
    Set<String> common = new HashSet<>(a);
    common.retainAll(b);
    return (double) common.size() / (a.size() + b.size() - common.size());
  }

  private Path writeCorpus(String name, List<Doc> docs) throws IOException {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < docs.size(); i++) {
      b.append(docs.get(i).json(i));
    }
    Path p = dir.resolve(name);
    Files.writeString(p, b);
    return p;
  }

  /** Whether document i is kept, by the output's ids. */
  private static boolean[] keptIds(String out, int n) {
    boolean[] kept = new boolean[n];
    for (String line : out.split("\n")) {
      if (!line.isEmpty()) {
        kept[Integer.parseInt(line.substring(6, line.indexOf(',')))] = true;
      }
    }
    return kept;
  }

  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3})
  void withVerifyNoDocumentIsRemovedWithoutATrueNearDuplicateBeforeItAndCloseCopiesAlwaysAre(
      long seed) throws IOException {
    List<Doc> docs = plantedCorpus(seed);
    Path in = writeCorpus("corpus.jsonl", docs);
    // 32 bands of 4 rows: P(candidate) is 1 − 5·10⁻⁸ at s = 0.8, so recall is all but certain
    Cli.Result r =
        Cli.run(
            "near-dup",
            "--content",
            "text",
            "--verify",
            "--bands",
            "32",
            "--rows",
            "4",
            in.toString());
    assertThat(r.status()).as(r.err()).isZero();
    boolean[] kept = keptIds(r.out(), docs.size());

    int n = docs.size();
    List<Set<String>> sets = docs.stream().map(NearDupCommandTest::shingles).toList();
    // the true clusters: components of the pairs at Jaccard ≥ 0.8, and each one's first document
    int[] component = new int[n];
    Arrays.setAll(component, i -> i);
    boolean[] hasCloseEarlier = new boolean[n];
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < i; j++) {
        double s = jaccard(sets.get(i), sets.get(j));
        if (s >= 0.8) {
          union(component, i, j);
        }
        if (s >= 0.85) {
          hasCloseEarlier[i] = true;
        }
      }
    }
    int removed = 0;
    for (int i = 0; i < n; i++) {
      boolean firstOfItsTrueCluster = find(component, i) == i;
      if (firstOfItsTrueCluster) {
        assertThat(kept[i]).as("document %d has no near-duplicate before it", i).isTrue();
      }
      if (hasCloseEarlier[i]) {
        assertThat(kept[i]).as("document %d has a copy at ≥ 0.85 before it", i).isFalse();
      }
      removed += kept[i] ? 0 : 1;
    }
    assertThat(removed).isGreaterThan(100); // 3 to 4 close copies per base
    assertThat(r.err()).contains("LSH 32 bands × 4 rows").contains("S-curve 50 % at s = ");
  }

  /**
   * The streaming plan removes a document exactly when it has a true near-duplicate (Jaccard ≥ 0.8)
   * before it, kept or not; so it keeps every document the batch plan keeps, and reads standard
   * input once, without a copy.
   */
  @ParameterizedTest
  @ValueSource(longs = {5, 6})
  void streamingRemovesADocumentExactlyWhenANearDuplicateCameBeforeIt(long seed)
      throws IOException {
    List<Doc> docs = plantedCorpus(seed);
    Path in = writeCorpus("stream.jsonl", docs);
    Path clusters = dir.resolve("stream-clusters.tsv");
    // 32 bands of 4 rows: a pair at 0.8 is a candidate with probability 1 − 5·10⁻⁸
    String[] lsh = {"--content", "text", "--verify", "--bands", "32", "--rows", "4", "-q"};
    Cli.Result stream =
        Cli.run(
            concat(
                new String[] {"near-dup", "--streaming", "--clusters", clusters.toString()},
                lsh,
                new String[] {in.toString()}));
    assertThat(stream.status()).as(stream.err()).isZero();
    boolean[] kept = keptIds(stream.out(), docs.size());
    List<Set<String>> sets = docs.stream().map(NearDupCommandTest::shingles).toList();
    int removed = 0;
    for (int i = 0; i < docs.size(); i++) {
      boolean earlier = false;
      for (int j = 0; j < i && !earlier; j++) {
        earlier = jaccard(sets.get(i), sets.get(j)) >= 0.8;
      }
      assertThat(kept[i])
          .as("document %d, a near-duplicate before it: %s", i, earlier)
          .isEqualTo(!earlier);
      removed += earlier ? 1 : 0;
    }
    assertThat(removed).isGreaterThan(100);

    List<String> rows = Files.readAllLines(clusters);
    assertThat(rows)
        .hasSize(1 + removed); // removed documents only: a survivor's line would be late
    for (String row : rows.subList(1, rows.size())) {
      String[] f = row.split("\t");
      int doc = Integer.parseInt(f[0]);
      int cluster = Integer.parseInt(f[1]);
      assertThat(kept[doc]).isFalse();
      assertThat(cluster).isLessThan(doc);
      assertThat(kept[cluster]).as("the survivor %d of %d", cluster, doc).isTrue();
    }

    Cli.Result batch =
        Cli.run(concat(new String[] {"near-dup"}, lsh, new String[] {in.toString()}));
    boolean[] keptByBatch = keptIds(batch.out(), docs.size());
    for (int i = 0; i < docs.size(); i++) {
      assertThat(kept[i] || !keptByBatch[i]).as("document %d kept by the batch plan", i).isTrue();
    }

    Path tmp = Files.createDirectories(dir.resolve("stream-tmp"));
    Cli.Result stdin =
        Cli.runWithInput(
            Files.readAllBytes(in),
            concat(new String[] {"near-dup", "--streaming", "--tmp", tmp.toString()}, lsh));
    assertThat(stdin.status()).as(stdin.err()).isZero();
    assertThat(stdin.out()).isEqualTo(stream.out());
    try (var files = Files.list(tmp)) {
      assertThat(files).as("standard input is read once, not copied").isEmpty();
    }
  }

  private static String[] concat(String[]... parts) {
    return Arrays.stream(parts).flatMap(Arrays::stream).toArray(String[]::new);
  }

  private static int find(int[] parent, int x) {
    while (parent[x] != x) {
      x = parent[x];
    }
    return x;
  }

  private static void union(int[] parent, int a, int b) {
    int ra = find(parent, a);
    int rb = find(parent, b);
    parent[Math.max(ra, rb)] = Math.min(ra, rb);
  }

  @Test
  void theFirstInInputOrderSurvivesAndTheOutputIsByteForByte() throws IOException {
    String words = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi";
    String later = words.replace("kappa", "KAPPA!"); // the same after normalisation: similarity 1
    String edited = words.replace("mu", "omicron");
    String input =
        "{\"text\": \""
            + later
            + "\", \"n\": 1}\r\n"
            + "{\"text\":\""
            + words
            + "\"}\n"
            + "{\"text\":\"something else entirely, written otherwise\"}\n"
            + "{\"text\":\""
            + edited
            + "\"}"; // no final line break
    Path in = dir.resolve("order.jsonl");
    Files.writeString(in, input);
    Path clusters = dir.resolve("clusters.tsv");
    Path dropped = dir.resolve("dropped.tsv");
    Path out = dir.resolve("out.jsonl");
    Cli.Result r =
        Cli.run(
            "near-dup",
            "--content",
            "text",
            "--threshold",
            "0.5",
            "--verify",
            "--clusters",
            clusters.toString(),
            "--dropped",
            dropped.toString(),
            "-o",
            out.toString(),
            in.toString());
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(Files.readString(out))
        .isEqualTo(
            "{\"text\": \""
                + later
                + "\", \"n\": 1}\r\n"
                + "{\"text\":\"something else entirely, written otherwise\"}\n");
    assertThat(Files.readString(dropped))
        .isEqualTo(
            in
                + "\t2\t{\"text\":\""
                + words
                + "\"}\n"
                + in
                + "\t4\t{\"text\":\""
                + edited
                + "\"}\n");
    List<String> rows = Files.readAllLines(clusters);
    assertThat(rows.get(0)).isEqualTo("document\tcluster\tsimilarity\tfile\tline");
    assertThat(rows.get(1)).isEqualTo("0\t0\t1.0000\t" + in + "\t1");
    assertThat(rows.get(2)).isEqualTo("1\t0\t1.0000\t" + in + "\t2");
    assertThat(rows.get(3)).startsWith("3\t0\t0.").endsWith("\t" + in + "\t4");
    assertThat(rows).hasSize(4);
    assertThat(r.err()).contains("4 documents, 2 kept").contains("2 near-duplicates removed");
  }

  @Test
  void escapedAndLiteralUnicodeAreOneContentAndCompatibilityFormsOneText() throws IOException {
    String input =
        "{\"text\":\"caf\\u00e9 cr\\u00e8me br\\u00fbl\\u00e9e, the \\\"best\\\" dessert in town\"}\n"
            + "{\"text\":\"café crème brûlée, the \\\"best\\\" dessert in town\"}\n"
            + "{\"text\":\"ＣＡＦÉ crème brûlée — the best dessert in town\"}\n"
            + "{\"text\":\"日本語の文章です。これは別の文書。\"}\n";
    Path in = dir.resolve("unicode.jsonl");
    Files.writeString(in, input, StandardCharsets.UTF_8);
    Cli.Result r = Cli.run("near-dup", "--content", "text", "--verify", in.toString());
    assertThat(r.status()).as(r.err()).isZero();
    String[] lines = input.split("\n");
    assertThat(r.out()).isEqualTo(lines[0] + "\n" + lines[3] + "\n");
    assertThat(r.err()).contains("1 exact duplicates and 1 near-duplicates removed");
  }

  @Test
  void gzipInputsStandardInputAndPlainFilesGiveOneResult() throws IOException {
    List<Doc> docs = plantedCorpus(9);
    Path plain = writeCorpus("c.jsonl", docs);
    Path gz = dir.resolve("c.jsonl.gz");
    try (OutputStream o = new GZIPOutputStream(Files.newOutputStream(gz))) {
      o.write(Files.readAllBytes(plain));
    }
    Cli.Result a = Cli.run("near-dup", "--content", "text", "-q", plain.toString());
    Cli.Result b = Cli.run("near-dup", "--content", "text", "-q", gz.toString());
    Cli.Result c =
        Cli.runWithInput(
            Files.readAllBytes(plain),
            "near-dup",
            "--content",
            "text",
            "-q",
            "--tmp",
            dir.toString());
    assertThat(a.status()).as(a.err()).isZero();
    assertThat(c.status()).as(c.err()).isZero();
    assertThat(a.out()).isNotEmpty().isEqualTo(b.out()).isEqualTo(c.out());
    assertThat(a.out().split("\n").length).isLessThan(docs.size());
    try (var left = Files.list(dir)) {
      assertThat(left.filter(p -> p.getFileName().toString().startsWith("idem-near-dup-")))
          .as("the copy of standard input is removed")
          .isEmpty();
    }
  }

  @Test
  void theOutputIsTheSameForAnyNumberOfThreads() throws IOException {
    Path in = writeCorpus("threads.jsonl", plantedCorpus(4));
    String[] outputs = new String[3];
    int[] threads = {1, 3, 8};
    for (int t = 0; t < threads.length; t++) {
      Path clusters = dir.resolve("clusters-" + t + ".tsv");
      Cli.Result r =
          Cli.run(
              "near-dup",
              "--content",
              "text",
              "--threads",
              Integer.toString(threads[t]),
              "--clusters",
              clusters.toString(),
              "-q",
              in.toString());
      assertThat(r.status()).as(r.err()).isZero();
      outputs[t] = r.out() + Files.readString(clusters);
    }
    assertThat(outputs[1]).isEqualTo(outputs[0]);
    assertThat(outputs[2]).isEqualTo(outputs[0]);
    assertUsage(
        Cli.run("near-dup", "--content", "text", "--threads", "-1", in.toString()), "--threads");
  }

  /**
   * --memory 87515k leaves judging about 100 KB (three quarters less 64 MiB): the first hundred or
   * so documents' tables in memory, the rest in RocksDB in --tmp, and the same output.
   */
  @ParameterizedTest
  @ValueSource(strings = {"batch", "batch --verify", "streaming", "streaming --verify"})
  void pastItsMemoryTheJobKeepsTablesOnDiskAndWritesTheSame(String mode) throws IOException {
    Path in = writeCorpus("spill.jsonl", plantedCorpus(5));
    Path tmp = Files.createDirectories(dir.resolve("tmp"));
    String[] outputs = new String[2];
    for (int run = 0; run < 2; run++) {
      Path clusters = dir.resolve("clusters-" + run + ".tsv");
      Path dropped = dir.resolve("dropped-" + run + ".tsv");
      List<String> args =
          new ArrayList<>(
              List.of(
                  "near-dup",
                  "--content",
                  "text",
                  "--tmp",
                  tmp.toString(),
                  "--clusters",
                  clusters.toString(),
                  "--dropped",
                  dropped.toString()));
      if (mode.contains("streaming")) {
        args.add("--streaming");
      }
      if (mode.contains("verify")) {
        args.add("--verify");
      }
      if (run == 1) {
        args.addAll(List.of("--memory", "87515k"));
      }
      args.add(in.toString());
      Cli.Result r = Cli.run(args.toArray(String[]::new));
      assertThat(r.status()).as(r.err()).isZero();
      if (run == 1) {
        assertThat(r.err())
            .containsPattern("\\d+ documents' signatures and band entries kept on disk");
      } else {
        assertThat(r.err()).doesNotContain("on disk");
      }
      outputs[run] = r.out() + Files.readString(clusters) + Files.readString(dropped);
    }
    assertThat(outputs[1]).isEqualTo(outputs[0]);
    try (var left = Files.list(tmp)) {
      assertThat(left).as("the tables are removed").isEmpty();
    }
  }

  @Test
  void wholeLinesAndCharacterShingles() {
    String input = "kitten sitting on the mat\nkitten sitting on the hat\na different line\n";
    Cli.Result r =
        Cli.runWithInput(
            input,
            "near-dup",
            "--whole-line",
            "--tokenizer",
            "chars",
            "--ngram",
            "3",
            "--threshold",
            "0.7",
            "--verify");
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out()).isEqualTo("kitten sitting on the mat\na different line\n");
    assertThat(r.err()).contains("char shingles of 3 chars");
  }

  @Test
  void badRecordsAreFailedOnNamingFileAndLineOrSkippedAndCounted() throws IOException {
    Path in = dir.resolve("bad.jsonl");
    Files.writeString(
        in, "{\"text\":\"one two\"}\n{\"text\":42}\n{not json\n{\"text\":\"one two\"}\n");
    Path out = dir.resolve("out.jsonl");
    Cli.Result fail = Cli.run("near-dup", "--content", "text", "-o", out.toString(), in.toString());
    assertThat(fail.status()).isEqualTo(1);
    assertThat(fail.err()).contains(in + ":2").contains("not a string").doesNotContain("Exception");
    assertThat(out).doesNotExist();
    Cli.Result skip =
        Cli.run("near-dup", "--content", "text", "--on-bad-record", "skip", in.toString());
    assertThat(skip.status()).as(skip.err()).isZero();
    assertThat(skip.out()).isEqualTo("{\"text\":\"one two\"}\n");
    assertThat(skip.err()).contains("2 bad records");
  }

  @Test
  void badArgumentsAreUsageErrorsWithClearMessages() throws IOException {
    Path in = dir.resolve("in.jsonl");
    Files.writeString(in, "{\"text\":\"a\"}\n");
    String file = in.toString();
    assertUsage(
        Cli.run("near-dup", "--content", "text", "--bands", "4", file), "--bands and --rows go");
    assertUsage(
        Cli.run(
            "near-dup",
            "--content",
            "text",
            "--bands",
            "20",
            "--rows",
            "10",
            "--num-perm",
            "128",
            file),
        "is more than --num-perm 128");
    assertUsage(Cli.run("near-dup", "--content", "text", "--threshold", "1.5", file), "1.5");
    assertUsage(Cli.run("near-dup", "--content", "text", "--normalize", "stem", file), "'stem'");
    assertUsage(Cli.run("near-dup", "--content", "text", "--ngram", "0", file), "--ngram");
    assertUsage(Cli.run("near-dup", "--content", "text", "--tokenizer", "bytes", file), "words");
    assertUsage(Cli.run("near-dup", "--content", "text", "--whole-line", file), "mutually");
    assertUsage(Cli.run("near-dup", file), "--content");
    assertUsage(Cli.run("near-dup", "--content", "text", "-o", file, file), "-o " + file);
  }

  private static void assertUsage(Cli.Result r, String message) {
    assertThat(r.status()).as(r.err()).isEqualTo(2);
    assertThat(r.err()).contains(message).doesNotContain("Exception");
  }

  /** The engine's builder starts every option where the command does. */
  @Test
  void theSpecBuilderStartsAtTheCommandsDefaults() {
    for (String content : new String[] {"text", null}) {
      NearDupCommand command = new NearDupCommand(Cli.nullIo());
      new CommandLine(command)
          .parseArgs(
              content != null
                  ? new String[] {"--content", content, "in.jsonl"}
                  : new String[] {"--whole-line", "in.jsonl"});
      assertThat(command.jobSpec())
          .isEqualTo(NearDupSpec.builder(List.of("in.jsonl"), content).build());
    }
  }
}
