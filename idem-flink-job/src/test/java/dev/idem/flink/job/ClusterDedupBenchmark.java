package dev.idem.flink.job;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.idem.flink.job.cluster.Classpaths;
import dev.idem.flink.job.cluster.FlinkCluster;
import dev.idem.flink.job.cluster.KafkaBroker;
import dev.idem.flink.job.cluster.Waits;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * The cluster benchmark of docs/BENCHMARKS.md ("Flink cluster, Kafka to Kafka"): idem's exact mode
 * against Flink's keyed {@code ValueState} dedup and Flink SQL's {@code ROW_NUMBER()} dedup ({@link
 * BaselineDedupJob}), each the job jar submitted to a session cluster of separate JVMs (a
 * JobManager, 2 TaskManagers of 1 slot), reading one Kafka topic and writing another in
 * transactions. Not a test, and never run by the build: its name matches neither surefire's nor
 * failsafe's patterns. Run by hand:
 *
 * <pre>
 * ./mvnw -B -pl idem-flink-job -am verify -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false \
 *   -Dit.test=ClusterDedupBenchmark -Didem.bench.records=20000000 -Didem.bench.rounds=1
 * </pre>
 *
 * <p>The input is produced once: {@code records} JSON records in which, in each block of 10, 7
 * carry a fresh key and 3 repeat a uniformly chosen earlier key, so 70 % are distinct. Each run
 * reads it from the start under a consumer group of its own. Its time runs from the moment every
 * task of the job runs to the moment the dedup vertex has read every record (the REST API's vertex
 * metrics, fetched every second); the commit of the last transaction, on the next checkpoint, is
 * timed separately, and so is the CPU time both TaskManager processes used from start to read, per
 * million records: what the job costs whether or not the machine's cores are the limit (on a
 * machine of 2 cores, a broker and 2 TaskManagers, they are). Every run is checked: a {@code
 * read_committed} consumer of its output must see exactly the first record of every key (count, and
 * a sum of 64-bit hashes of the records).
 *
 * <p>Prints one tab-separated line per run, and the checkpoint statistics of each job.
 */
class ClusterDedupBenchmark {
  private static final long RECORDS = Long.getLong("idem.bench.records", 1_000_000);
  private static final int ROUNDS = Integer.getInteger("idem.bench.rounds", 1);
  private static final List<String> STRATEGIES =
      List.of(System.getProperty("idem.bench.strategies", "idem value-state sql").split(" "));
  private static final int PARALLELISM = 2;

  /**
   * Room for RocksDB and the filters: 512 MiB of managed memory (RocksDB's block cache and
   * memtables), as in the MiniCluster benchmark, and 512 MiB of task heap.
   */
  private static final Map<String, String> BENCH_SETTINGS =
      Map.of(
          "taskmanager.memory.task.heap.size", "512m",
          "taskmanager.memory.managed.size", "512m",
          "taskmanager.memory.network.min", "64m",
          "taskmanager.memory.network.max", "64m",
          "execution.checkpointing.incremental", "true",
          "metrics.fetcher.update-interval", "1000");

  @Test
  void run() throws Exception {
    Path dir = Classpaths.workDir().resolve("bench-" + Instant.now().toString().replace(':', '-'));
    try (KafkaBroker kafka = KafkaBroker.start(dir.resolve("kafka"));
        FlinkCluster flink =
            FlinkCluster.start(
                dir.resolve("flink"),
                PARALLELISM,
                BENCH_SETTINGS,
                List.of("-XX:+AlwaysPreTouch"))) {
      kafka.createTopics(PARALLELISM, "input");
      Expected expected = produce(kafka, "input");
      System.out.println(
          "strategy\tround\trecords\tkept\tseconds\trecords_per_s\tseconds_to_commit"
              + "\ttm_cpu_s_per_million"
              + "\tstate_reads\treads_per_record\tcheckpoints\tcheckpoint_p50_ms"
              + "\tcheckpoint_max_ms\tcheckpointed_p50_bytes\tstate_full_bytes");
      for (int round = 1; round <= ROUNDS; round++) {
        for (String strategy : STRATEGIES) {
          System.out.println(runOnce(kafka, flink, strategy, round, expected));
        }
      }
    }
  }

  /** What each run's output must be: the first record of every key. */
  record Expected(long count, long hashSum) {}

  private static Expected produce(KafkaBroker kafka, String topic) throws Exception {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.LINGER_MS_CONFIG, "20");
    props.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(512 * 1024));
    long started = System.nanoTime();
    long kept = 0;
    long hashSum = 0;
    long fresh = 0;
    SplittableRandom random = new SplittableRandom(42);
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
      for (long i = 0; i < RECORDS; i++) {
        boolean isFresh = i % 10 < 7;
        long key = isFresh ? fresh++ : random.nextLong(fresh);
        String id = String.format(Locale.ROOT, "k%016x", mix(key));
        byte[] json =
            String.format(
                    Locale.ROOT,
                    "{\"id\":\"%s\",\"seq\":%d,\"page\":\"/p/%d\"}",
                    id,
                    i,
                    random.nextInt(1000))
                .getBytes(StandardCharsets.UTF_8);
        if (isFresh) {
          kept++;
          hashSum += hash(json);
        }
        // under its key: Kafka keeps order within a partition only, so "first" needs one per key
        producer.send(new ProducerRecord<>(topic, id.getBytes(StandardCharsets.UTF_8), json));
      }
      producer.flush();
    }
    System.out.printf(
        Locale.ROOT,
        "produced %,d records (%,d distinct keys) in %.1f s%n",
        RECORDS,
        kept,
        (System.nanoTime() - started) / 1e9);
    return new Expected(kept, hashSum);
  }

  private static String runOnce(
      KafkaBroker kafka, FlinkCluster flink, String strategy, int round, Expected expected)
      throws Exception {
    String output = "out-" + strategy + "-" + round;
    kafka.createTopics(PARALLELISM, output);
    List<String> args =
        new ArrayList<>(
            List.of(
                "--source", "kafka://" + kafka.bootstrapServers() + "/input",
                "--sink", "kafka://" + kafka.bootstrapServers() + "/" + output,
                "--key", "id",
                "--expected-keys", Long.toString(expected.count),
                "--group-id", "bench-" + strategy + "-" + round));
    String entry = null;
    if (!strategy.equals("idem")) {
      entry = BaselineDedupJob.class.getName();
      args.add(0, strategy);
    }
    JobID job = flink.submit(Classpaths.jobJar(), entry, args, PARALLELISM);
    try {
      Waits.until(
          () -> flink.rest().allTasksRunning(job),
          Duration.ofMinutes(3),
          () -> strategy + " job running; " + flink.logs());
      long start = System.nanoTime();
      double cpuAtStart = flink.taskManagerCpuSeconds();
      Waits.until(
          () -> {
            flink.checkAlive();
            return flink.rest().vertexMetric(job, "", "read-records") >= RECORDS;
          },
          Duration.ofHours(2),
          () -> strategy + " to read " + RECORDS + " records; " + flink.logs());
      long read = System.nanoTime();
      double cpu = flink.taskManagerCpuSeconds() - cpuAtStart;
      long checkpointsBefore = flink.rest().completedCheckpoints(job);
      Waits.until(
          () -> flink.rest().completedCheckpoints(job) > checkpointsBefore,
          Duration.ofMinutes(10),
          () -> strategy + " to checkpoint after reading everything; " + flink.logs());
      long committed = System.nanoTime();
      long reads =
          switch (strategy) {
            case "idem" -> settledReads(flink, job, "idem.records", "idem.tier2Reads");
            case "value-state" ->
                settledReads(flink, job, "baseline.stateReads", "baseline.stateReads");
            default -> -1;
          };
      JsonNode checkpoints = flink.rest().checkpoints(job);
      System.out.println(strategy + " round " + round + " checkpoints: " + checkpoints);
      checkOutput(kafka, output, expected, strategy);
      flink.cancel(job);
      kafka.deleteTopics(output);

      double seconds = (read - start) / 1e9;
      JsonNode summary = checkpoints.path("summary");
      return String.join(
          "\t",
          strategy,
          Integer.toString(round),
          Long.toString(RECORDS),
          Long.toString(expected.count),
          String.format(Locale.ROOT, "%.1f", seconds),
          String.format(Locale.ROOT, "%.0f", RECORDS / seconds),
          String.format(Locale.ROOT, "%.1f", (committed - start) / 1e9),
          String.format(Locale.ROOT, "%.2f", cpu * 1e6 / RECORDS),
          reads < 0 ? "not counted" : Long.toString(reads),
          reads < 0 ? "-" : String.format(Locale.ROOT, "%.4f", (double) reads / RECORDS),
          checkpoints.path("counts").path("completed").asText(),
          summary.path("end_to_end_duration").path("p50").asText(),
          summary.path("end_to_end_duration").path("max").asText(),
          summary.path("checkpointed_size").path("p50").asText(),
          checkpoints.path("latest").path("completed").path("state_size").asText());
    } finally {
      flink.cancel(job);
    }
  }

  /**
   * The state reads the job counted, once its count of records is complete: the REST API serves
   * what it last fetched from each TaskManager, which may be from before the last records (a first
   * try, which waited for the reads alone to stop changing, took one subtask's stale count). Both
   * come from one request, so from the same fetch.
   */
  private static long settledReads(FlinkCluster flink, JobID job, String records, String reads)
      throws Exception {
    Map<String, Long> last = Map.of();
    long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    while (System.nanoTime() < deadline) {
      last = flink.rest().operatorMetricSums(job, records, reads);
      if (last.getOrDefault(records, 0L) == RECORDS) {
        return last.getOrDefault(reads, -1L);
      }
      Thread.sleep(500);
    }
    // a restarted task counts from its restart: the figure is then not the run's, so none is given
    System.out.println(
        "WARNING: "
            + records
            + " never reached "
            + RECORDS
            + " in the REST API's metrics: "
            + last);
    return -1;
  }

  /**
   * Fails unless {@code topic}'s committed records are exactly the first record of every key. Runs
   * while the job does, so that the commit of its last transaction cannot be cancelled.
   */
  private static void checkOutput(
      KafkaBroker kafka, String topic, Expected expected, String strategy) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    props.put(ConsumerConfig.GROUP_ID_CONFIG, "check-" + topic);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
    long count = 0;
    long hashSum = 0;
    int idlePolls = 0;
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(topic));
      long progressDeadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
      // past the expected count too, for a few empty polls: a record written twice would show;
      // short of it, until nothing new has come for 3 minutes (the last commit may be pending)
      while ((count < expected.count || idlePolls < 6) && System.nanoTime() < progressDeadline) {
        int polled = 0;
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
          count++;
          hashSum += hash(r.value());
          polled++;
        }
        if (polled > 0) {
          progressDeadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        }
        idlePolls = polled == 0 ? idlePolls + 1 : 0;
      }
    }
    assertThat(count).as(strategy + ": committed records in " + topic).isEqualTo(expected.count);
    assertThat(hashSum)
        .as(strategy + ": the committed records are the first of each key")
        .isEqualTo(expected.hashSum);
  }

  /** A bijective scramble, so keys are spread over the key space (SplitMix64's finalizer). */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  private static long hash(byte[] bytes) {
    long h = 0x9E3779B97F4A7C15L;
    for (byte b : bytes) {
      h = (h ^ b) * 0x100000001B3L;
    }
    return mix(h);
  }
}
