package dev.idem.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * {@code idem-bench near-dup}: {@code idem near-dup} against Spark MLlib's {@code MinHashLSH} and
 * java-lsh on a generated corpus with planted near-duplicates ({@link NearDupCorpus}), at Jaccard
 * threshold 0.8 on word 5-grams: precision and recall of the removed documents against the truth,
 * documents per second and peak RSS, each contender a child process (JVM start included) with the
 * same fixed heap. Writes {@code report.md} in its own directory.
 */
final class NearDupRun {
  static final String USAGE =
      "idem-bench near-dup [--docs N] [--runs N] [--spark-runs N]"
          + " [--only idem,idem-spill,java-lsh,spark]"
          + " [--heap SIZE] [--out DIR]";

  private static final double THRESHOLD = 0.8;
  private static final long SEED = 42;
  private static final int IDEAL_BANDS = 14;
  private static final int IDEAL_ROWS = 8;
  private static final String SPILL_HEAP = "1g";

  /** One contender: its name, and the command that writes its removed documents. */
  private record Contender(String name, ResultKind kind, Command command, int runs) {}

  /** Runs a contender on {@code corpus}; {@code result} gets what it needs to read the removed. */
  @FunctionalInterface
  private interface Command {
    List<String> line(Path corpus, Path result);
  }

  /** How a contender's result file lists what it removed. */
  private enum ResultKind {
    IDEM_CLUSTERS,
    POSITIONS,
    PAIRS
  }

  private NearDupRun() {}

  static void main(String[] args) throws Exception {
    int docs = 1_000_000;
    int runs = 3;
    int sparkRuns = -1;
    String heap = "8g";
    List<String> only = List.of("idem", "idem-spill", "java-lsh", "spark");
    Path out = Path.of("bench-results");
    for (int i = 1; i < args.length; i++) {
      switch (args[i]) {
        case "--docs" -> docs = Integer.parseInt(args[++i].replace("_", ""));
        case "--runs" -> runs = Integer.parseInt(args[++i]);
        case "--spark-runs" -> sparkRuns = Integer.parseInt(args[++i]);
        case "--heap" -> heap = args[++i];
        case "--only" -> only = Arrays.asList(args[++i].split(","));
        case "--out" -> out = Path.of(args[++i]);
        default -> throw new IllegalArgumentException("unknown option " + args[i] + "; " + USAGE);
      }
    }
    Path dir =
        out.resolve(
            "near-dup-"
                + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
    Files.createDirectories(dir);
    new NearDupRun().run(dir, docs, runs, sparkRuns < 0 ? runs : sparkRuns, heap, only);
  }

  /** Every contender {@code runs} times, but Spark (minutes a run) {@code sparkRuns} times. */
  private void run(Path dir, int docs, int runs, int sparkRuns, String heap, List<String> only)
      throws Exception {
    Path corpusFile = dir.resolve("corpus.jsonl");
    ForkRunner.log("near-dup: writing " + docs + " documents to " + corpusFile);
    NearDupCorpus corpus = NearDupCorpus.write(corpusFile, docs, SEED);
    BitSet truth = corpus.removedAt(THRESHOLD);
    ForkRunner.log(
        String.format(
            Locale.ROOT,
            "near-dup: %,d bytes, %,d planted pairs, %,d documents to remove at %.2f",
            corpus.bytes,
            corpus.familyPairs.size(),
            truth.cardinality(),
            THRESHOLD));
    Path idemJar = Files.copy(Path.of("idem-cli/target/idem.jar"), dir.resolve("idem.jar"));
    E2eCommands commands = new E2eCommands(idemJar);
    List<Contender> contenders = new ArrayList<>();
    if (only.contains("idem")) {
      contenders.add(
          idem(commands, heap, "idem 14×8 --verify", "--bands 14 --rows 8 --verify", runs));
      contenders.add(idem(commands, heap, "idem 14×8", "--bands 14 --rows 8", runs));
      contenders.add(idem(commands, heap, "idem auto (9×13) --verify", "--verify", runs));
      contenders.add(idem(commands, heap, "idem auto (9×13)", "", runs));
    }
    if (only.contains("idem-spill")) {
      // on the 1 M corpus, about a third of the documents' tables in memory, the rest on disk
      contenders.add(
          idem(
              commands,
              SPILL_HEAP,
              "idem 14×8 --verify --memory " + SPILL_HEAP,
              "--bands 14 --rows 8 --verify --memory " + SPILL_HEAP,
              runs));
    }
    if (only.contains("java-lsh")) {
      contenders.add(
          new Contender(
              "java-lsh 14×8",
              ResultKind.POSITIONS,
              (in, result) -> {
                List<String> cmd = commands.harness(heap, JavaLshNearDup.class);
                cmd.addAll(
                    List.of(
                        in.toString(),
                        "14",
                        "8",
                        Double.toString(THRESHOLD),
                        Long.toString(SEED),
                        result.toString()));
                return cmd;
              },
              runs));
    }
    if (only.contains("spark")) {
      List<String> spark = SparkContender.command(heap);
      contenders.add(
          new Contender(
              "Spark MinHashLSH 14 tables",
              ResultKind.PAIRS,
              (in, result) -> {
                List<String> cmd = new ArrayList<>(spark);
                cmd.addAll(
                    List.of(
                        in.toString(),
                        "14",
                        Double.toString(THRESHOLD),
                        Long.toString(SEED),
                        result.toString()));
                return cmd;
              },
              Math.min(runs, sparkRuns)));
    }

    Map<String, List<MeasuredProcess.Measurement>> measured = new LinkedHashMap<>();
    Map<String, BitSet> removed = new LinkedHashMap<>();
    Path tmp = Files.createDirectories(dir.resolve("tmp"));
    for (int run = 1; run <= runs; run++) {
      for (Contender c : contenders) {
        if (run > c.runs) {
          continue;
        }
        Path result = dir.resolve("result-" + c.name.replaceAll("[^a-zA-Z0-9]+", "-"));
        Files.deleteIfExists(result);
        MeasuredProcess.Measurement m;
        try (BenchLock lock = BenchLock.take()) {
          m =
              MeasuredProcess.run(
                  c.command.line(corpusFile, result),
                  Map.of("TMPDIR", tmp.toString()),
                  tmp,
                  dir.resolve("stdout.txt"),
                  dir);
        }
        if (m.exitStatus() != 0) {
          throw new IOException(c.name + " failed (exit " + m.exitStatus() + "): " + m.stderr());
        }
        BitSet r = readRemoved(c.kind, result, docs);
        BitSet before = removed.putIfAbsent(c.name, r);
        if (before != null && !before.equals(r)) {
          throw new IOException(c.name + " removed other documents in run " + run);
        }
        measured.computeIfAbsent(c.name, k -> new ArrayList<>()).add(m);
        ForkRunner.log(
            String.format(
                Locale.ROOT,
                "run %d %s: %.1f s, %,d KiB peak RSS, %,d removed",
                run,
                c.name,
                m.seconds(),
                m.peakRssKiB(),
                r.cardinality()));
      }
    }
    String md = report(corpus, truth, measured, removed, docs, heap);
    Files.writeString(dir.resolve("report.md"), md);
    System.out.println(md);
    Files.delete(dir.resolve("stdout.txt"));
  }

  private static Contender idem(
      E2eCommands commands, String heap, String name, String options, int runs) {
    return new Contender(
        name,
        ResultKind.IDEM_CLUSTERS,
        (in, result) -> {
          List<String> cmd = commands.idem(heap);
          cmd.addAll(
              List.of(
                  "near-dup",
                  "-q",
                  "--content",
                  "text",
                  "--ngram",
                  "5",
                  "--threshold",
                  Double.toString(THRESHOLD),
                  "--clusters",
                  result.toString()));
          if (!options.isEmpty()) {
            cmd.addAll(List.of(options.split(" ")));
          }
          cmd.addAll(List.of("-o", "/dev/null", in.toString()));
          return cmd;
        },
        runs);
  }

  private static BitSet readRemoved(ResultKind kind, Path result, int docs) throws IOException {
    List<String> lines = Files.readAllLines(result, StandardCharsets.UTF_8);
    BitSet removed = new BitSet(docs);
    switch (kind) {
      case IDEM_CLUSTERS -> {
        for (String line : lines.subList(1, lines.size())) {
          String[] f = line.split("\t");
          if (!f[0].equals(f[1])) {
            removed.set(Integer.parseInt(f[0]));
          }
        }
      }
      case POSITIONS -> lines.forEach(l -> removed.set(Integer.parseInt(l)));
      case PAIRS -> {
        FirstSurvivorClusters clusters = new FirstSurvivorClusters(docs);
        for (String line : lines) {
          String[] f = line.split("\t");
          clusters.union(Integer.parseInt(f[0]), Integer.parseInt(f[1]));
        }
        removed.or(clusters.removed());
      }
    }
    return removed;
  }

  private static String report(
      NearDupCorpus corpus,
      BitSet truth,
      Map<String, List<MeasuredProcess.Measurement>> measured,
      Map<String, BitSet> removed,
      int docs,
      String heap) {
    StringBuilder b = new StringBuilder();
    b.append("# idem-bench near-dup\n\n")
        .append(MachineInfo.summary())
        .append("\n\n")
        .append(
            String.format(
                Locale.ROOT,
                "Corpus: %,d documents (%,d bytes), %,d planted pairs; truth at Jaccard ≥ %.2f:"
                    + " %,d documents to remove. Heap %s (-Xms = -Xmx) for every JVM but the one"
                    + " named by its --memory; medians of the runs listed.%n%n",
                docs,
                corpus.bytes,
                corpus.familyPairs.size(),
                THRESHOLD,
                truth.cardinality(),
                heap))
        .append(
            "| contender | seconds | docs/s | peak RSS MiB | removed | precision | recall |"
                + " runs (s) |\n|---|---:|---:|---:|---:|---:|---:|---|\n");
    for (Map.Entry<String, List<MeasuredProcess.Measurement>> e : measured.entrySet()) {
      double[] seconds = e.getValue().stream().mapToDouble(m -> m.seconds()).sorted().toArray();
      long[] rss = e.getValue().stream().mapToLong(m -> m.peakRssKiB()).sorted().toArray();
      double median = seconds[seconds.length / 2];
      BitSet r = removed.get(e.getKey());
      BitSet hit = (BitSet) r.clone();
      hit.and(truth);
      b.append(
          String.format(
              Locale.ROOT,
              "| %s | %.1f | %,.0f | %,d | %,d | %.4f | %.4f | %s |%n",
              e.getKey(),
              median,
              docs / median,
              rss[rss.length / 2] / 1024,
              r.cardinality(),
              r.isEmpty() ? 1.0 : (double) hit.cardinality() / r.cardinality(),
              (double) hit.cardinality() / truth.cardinality(),
              Arrays.toString(
                  Arrays.stream(seconds)
                      .mapToObj(s -> String.format(Locale.ROOT, "%.1f", s))
                      .toArray())));
    }
    double[] ideal = idealRecall(corpus, truth);
    b.append(
        String.format(
            Locale.ROOT,
            "%nThe ideal of LSH with %d bands × %d rows and exact verification, each truth pair a"
                + " candidate with probability 1 − (1 − J^%d)^%d (%d simulations): recall median"
                + " %.4f, 5th–95th percentile %.4f–%.4f.%n",
            IDEAL_BANDS,
            IDEAL_ROWS,
            IDEAL_ROWS,
            IDEAL_BANDS,
            ideal.length,
            ideal[ideal.length / 2],
            ideal[ideal.length / 20],
            ideal[ideal.length - 1 - ideal.length / 20]));
    b.append("\n").append(recallBySimilarity(corpus, removed)).append('\n');
    return b.toString();
  }

  /**
   * What a perfect LSH with {@value #IDEAL_BANDS} × {@value #IDEAL_ROWS} bands and exact
   * verification would recall: a truth pair at similarity J is a candidate with the S-curve's
   * probability, independently, and accepted (J is at least the threshold); the first document of
   * each cluster survives. The sorted recalls of many simulations, to set each contender's recall
   * against the spread the S-curve alone allows.
   */
  private static double[] idealRecall(NearDupCorpus corpus, BitSet truth) {
    SplittableRandom random = new SplittableRandom(SEED);
    double[] recalls = new double[200];
    for (int s = 0; s < recalls.length; s++) {
      FirstSurvivorClusters clusters = new FirstSurvivorClusters(corpus.documents);
      for (NearDupCorpus.Pair p : corpus.familyPairs) {
        if (p.jaccard() >= THRESHOLD && random.nextDouble() < sCurve(p.jaccard())) {
          clusters.union(p.a(), p.b());
        }
      }
      BitSet hit = clusters.removed();
      hit.and(truth);
      recalls[s] = (double) hit.cardinality() / truth.cardinality();
    }
    Arrays.sort(recalls);
    return recalls;
  }

  private static double sCurve(double jaccard) {
    return 1 - Math.pow(1 - Math.pow(jaccard, IDEAL_ROWS), IDEAL_BANDS);
  }

  /**
   * For planted pairs in each similarity range: the share whose later document each contender
   * removed (whatever the cluster it joined), next to the 14 × 8 S-curve's chance of a candidate
   * (below the threshold a removal there is a false positive only if no other pair explains it).
   */
  private static String recallBySimilarity(NearDupCorpus corpus, Map<String, BitSet> removed) {
    double[] edges = {0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0001};
    StringBuilder b = new StringBuilder("| planted pair J | pairs | S-curve 14×8 |");
    removed.keySet().forEach(name -> b.append(' ').append(name).append(" |"));
    b.append("\n|---|---:|---:|").append("---:|".repeat(removed.size())).append('\n');
    for (int e = 0; e + 1 < edges.length; e++) {
      double lo = edges[e];
      double hi = edges[e + 1];
      List<NearDupCorpus.Pair> pairs =
          corpus.familyPairs.stream().filter(p -> p.jaccard() >= lo && p.jaccard() < hi).toList();
      b.append(
          String.format(
              Locale.ROOT,
              "| [%.2f, %.2f) | %,d | %.3f |",
              lo,
              Math.min(hi, 1.0),
              pairs.size(),
              pairs.stream().mapToDouble(p -> sCurve(p.jaccard())).average().orElse(Double.NaN)));
      for (BitSet r : removed.values()) {
        long hit = pairs.stream().filter(p -> r.get(p.b())).count();
        b.append(
            String.format(
                Locale.ROOT,
                " %.3f |",
                pairs.isEmpty() ? Double.NaN : (double) hit / pairs.size()));
      }
      b.append('\n');
    }
    return b.toString();
  }
}
