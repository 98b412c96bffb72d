package dev.idem.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code cluster}: drives idem-flink-job's {@code ClusterDedupBenchmark} (a Kafka broker and a
 * Flink session cluster of separate JVMs, Kafka to Kafka in transactions, every run's output
 * checked by the benchmark itself) through Maven, and records each of its tab-separated result
 * lines. Its time runs from every task running to the dedup vertex having read every record.
 */
final class ClusterScenario extends Scenario {

  ClusterScenario() {
    super(
        "cluster",
        1_000_000,
        "Flink cluster, Kafka to Kafka: idem's operator against keyed ValueState and SQL"
            + " ROW_NUMBER() (idem-flink-job's ClusterDedupBenchmark, run through ./mvnw).");
  }

  @Override
  void run(Bench b) throws Exception {
    if (!Files.exists(
        Path.of("idem-flink-job/src/test/java/dev/idem/flink/job/ClusterDedupBenchmark.java"))) {
      b.note("skipped cluster: idem-flink-job's ClusterDedupBenchmark is not in this tree");
      return;
    }
    List<String> cmd =
        List.of(
            Path.of("mvnw").toAbsolutePath().toString(),
            "-B",
            "-o",
            "-pl",
            "idem-flink-job",
            "-am",
            "verify",
            "-Didem.cds.skip=true",
            "-Dspotless.check.skip=true",
            "-Dtest=none",
            "-Dsurefire.failIfNoSpecifiedTests=false",
            "-Dit.test=ClusterDedupBenchmark",
            "-Dfailsafe.failIfNoSpecifiedTests=false",
            "-Didem.bench.records=" + b.size,
            "-Didem.bench.rounds=" + b.reps,
            "-Didem.bench.strategies="
                + String.join(
                    " ", b.only.isEmpty() ? List.of("idem", "value-state", "sql") : b.only));
    ProcessHarness.Outcome mvn =
        b.measure(Contender.of("mvnw", cmd, Map.of(), null), ProcessHarness.Watch.NONE);
    for (String line : mvn.stdout()) {
      String[] f = line.split("\t");
      if (f.length != 15 || !f[1].matches("\\d+")) {
        continue; // not a result line (the header, Maven's and the cluster's own output)
      }
      ProcessHarness.Outcome run =
          new ProcessHarness.Outcome(0, Double.parseDouble(f[4]), -1, -1, -1, false, List.of(), "");
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("records_per_s", Long.parseLong(f[5]));
      m.put("to_commit_s", Double.parseDouble(f[6]));
      m.put("tm_cpu_s_per_million", Double.parseDouble(f[7]));
      m.put("reads_per_record", f[9]);
      m.put("checkpoint_p50_ms", f[11]);
      m.put("state_full_bytes", f[14]);
      boolean kept = f[3].matches("\\d+");
      b.record(
          "cluster",
          "Kafka to Kafka",
          f[0],
          Integer.parseInt(f[1]),
          run,
          kept,
          "output checked by the benchmark: " + f[3] + " records, first of each key",
          "idem",
          m);
    }
    if (!mvn.ok()) {
      b.note("cluster: ./mvnw failed (exit " + mvn.exit() + "): " + mvn.stderrTail());
    }
  }
}
