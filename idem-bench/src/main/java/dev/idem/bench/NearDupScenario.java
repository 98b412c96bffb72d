package dev.idem.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * {@code near-dup}: near-duplicate documents at Jaccard 0.8 on word 5-grams, on a corpus with
 * planted near-duplicates and an exact truth ({@link NearDupCorpus}): {@code idem near-dup} (14
 * bands × 8 rows with and without {@code --verify}, its own choice of bands, and past {@code
 * --memory}) against java-lsh with the same bands and, where its project is built, Spark MLlib's
 * {@code MinHashLSH}. Precision and recall of the removed documents against the truth, and the
 * recall of an ideal 14 × 8 LSH with exact verification for scale.
 */
final class NearDupScenario extends Scenario {

  static final double THRESHOLD = 0.8;
  private static final long SEED = 42;
  private static final Path SPARK = Path.of("idem-bench/spark");

  NearDupScenario() {
    super(
        "near-dup",
        200_000,
        "Near-duplicate documents (Jaccard 0.8, word 5-grams): idem near-dup against java-lsh and"
            + " Spark MLlib MinHashLSH (when idem-bench/spark is built), precision and recall"
            + " against the exact truth. --set heap=SIZE (default: 5 KiB a document, >= 1g).");
  }

  @Override
  void run(Bench b) throws Exception {
    int docs = Math.toIntExact(b.size);
    Path corpusFile = b.work.resolve("near-dup-" + docs + ".jsonl");
    NearDupCorpus corpus = NearDupCorpus.write(corpusFile, docs, SEED);
    BitSet truth = corpus.removedAt(THRESHOLD);
    double ideal = Stats.median(idealRecall(corpus, truth, 14, 8));
    b.note(
        String.format(
            Locale.ROOT,
            "corpus: %,d documents, %,d planted pairs, %,d to remove at J >= %.2f; ideal 14x8"
                + " recall %.4f",
            docs,
            corpus.familyPairs.size(),
            truth.cardinality(),
            THRESHOLD,
            ideal));
    String heap = b.option("heap", Math.max(1024, (long) docs * 5 / 1024) + "m");
    Path result = b.work.resolve("near-dup-result.tsv");
    List<Contender> all = new ArrayList<>();
    Path in = corpusFile;
    all.add(idem("idem-14x8-verify", heap, in, result, "--bands", "14", "--rows", "8", "--verify"));
    all.add(idem("idem-14x8", heap, in, result, "--bands", "14", "--rows", "8"));
    all.add(idem("idem-auto-verify", heap, in, result, "--verify"));
    all.add(
        idem(
            "idem-14x8-verify-1g",
            "1g",
            in,
            result,
            "--bands",
            "14",
            "--rows",
            "8",
            "--verify",
            "--memory",
            "1g"));
    String[] args = {corpusFile + "", "14", "8", THRESHOLD + "", SEED + "", result + ""};
    all.add(Contender.java("java-lsh", heap, JavaLshNearDup.class, args));
    all.add(spark(heap, corpusFile, result));
    List<Contender> run =
        b.select(
            all, List.of("idem-14x8-verify", "idem-14x8", "idem-auto-verify", "java-lsh", "spark"));
    for (int rep = 1; rep <= b.reps; rep++) {
      for (Contender c : Bench.rotation(run, rep)) {
        Files.deleteIfExists(result);
        ProcessHarness.Outcome o = b.measure(c, ProcessHarness.Watch.NONE);
        BitSet removed = o.ok() ? removed(c.name(), result, docs) : new BitSet();
        Stats.PrecisionRecall pr = Stats.PrecisionRecall.of(removed, truth);
        Map<String, Object> metrics = new LinkedHashMap<>();
        metrics.put("docs_per_s", Math.round(docs / o.wallSeconds()));
        metrics.put("removed", pr.removed());
        metrics.put("precision", round4(pr.precision()));
        metrics.put("recall", round4(pr.recall()));
        metrics.put("ideal_14x8_recall", round4(ideal));
        String check = o.ok() ? "precision and recall against the truth" : "failed: " + o.error();
        b.record("near-dup", "", c.name(), rep, o, o.ok(), check, "idem-14x8-verify", metrics);
      }
    }
    Files.deleteIfExists(result);
  }

  private static double round4(double v) {
    return Math.round(v * 10_000) / 10_000.0;
  }

  private static Contender idem(String name, String heap, Path in, Path result, String... options) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "near-dup",
                "-q",
                "--content",
                "text",
                "--ngram",
                "5",
                "--threshold",
                THRESHOLD + "",
                "--clusters",
                result + ""));
    args.addAll(List.of(options));
    args.addAll(List.of("-o", "/dev/null", in.toString()));
    return Contender.idem(name, heap, args.toArray(String[]::new));
  }

  /** What a contender removed: from idem's clusters (document, cluster), else from its pairs. */
  static BitSet removed(String name, Path result, int docs) throws IOException {
    List<String> lines = Files.readAllLines(result, StandardCharsets.UTF_8);
    BitSet removed = new BitSet(docs);
    Stats.Clusters clusters = new Stats.Clusters(docs);
    for (String line : name.startsWith("idem") ? lines.subList(1, lines.size()) : lines) {
      String[] f = line.split("\t");
      if (name.startsWith("idem")) {
        removed.set(Integer.parseInt(f[0]), !f[0].equals(f[1]));
      } else {
        clusters.union(Integer.parseInt(f[0]), Integer.parseInt(f[1]));
      }
    }
    removed.or(clusters.removed());
    return removed;
  }

  /**
   * The recall of an ideal LSH with {@code bands} × {@code rows} and exact verification, simulated
   * 200 times: each truth pair at or above the threshold is a candidate with the S-curve's
   * probability 1 − (1 − J^rows)^bands, independently; the first document of a cluster survives.
   */
  static double[] idealRecall(NearDupCorpus corpus, BitSet truth, int bands, int rows) {
    SplittableRandom random = new SplittableRandom(SEED);
    double[] recalls = new double[200];
    for (int s = 0; s < recalls.length; s++) {
      Stats.Clusters clusters = new Stats.Clusters(corpus.documents);
      for (NearDupCorpus.Pair p : corpus.familyPairs) {
        double candidate = 1 - Math.pow(1 - Math.pow(p.jaccard(), rows), bands);
        if (p.jaccard() >= THRESHOLD && random.nextDouble() < candidate) {
          clusters.union(p.a(), p.b());
        }
      }
      recalls[s] = Stats.PrecisionRecall.of(clusters.removed(), truth).recall();
    }
    return recalls;
  }

  /** Spark MLlib's MinHashLSH, when {@code idem-bench/spark} is built (see its pom). */
  private static Contender spark(String heap, Path corpus, Path result) throws IOException {
    Path classpath = SPARK.resolve("target/classpath");
    if (!Files.exists(classpath)) {
      return Contender.of(
          "spark",
          List.of(),
          Map.of(),
          "build it first: ./mvnw -q -B -f idem-bench/spark/pom.xml package dependency:build-classpath -Dmdep.outputFile=target/classpath");
    }
    List<String> cmd =
        new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java")));
    cmd.addAll(List.of(Contender.heapFlags(heap).split(" ")));
    for (String p :
        List.of(
            "java.lang",
            "java.lang.invoke",
            "java.lang.reflect",
            "java.io",
            "java.net",
            "java.nio",
            "java.util",
            "java.util.concurrent",
            "java.util.concurrent.atomic",
            "jdk.internal.ref",
            "sun.nio.ch",
            "sun.nio.cs",
            "sun.security.action",
            "sun.util.calendar")) {
      cmd.add("--add-opens=java.base/" + p + "=ALL-UNNAMED"); // what Spark's launcher gives Java 17
    }
    cmd.addAll(
        List.of(
            "-Djdk.reflect.useDirectMethodHandle=false",
            "-Dio.netty.tryReflectionSetAccessible=true",
            "-cp",
            SPARK.resolve("target/classes").toAbsolutePath()
                + ":"
                + Files.readString(classpath).strip(),
            "dev.idem.bench.spark.SparkNearDup",
            corpus + "",
            "14",
            THRESHOLD + "",
            SEED + "",
            result + ""));
    return Contender.of("spark", cmd, Map.of(), null);
  }
}
