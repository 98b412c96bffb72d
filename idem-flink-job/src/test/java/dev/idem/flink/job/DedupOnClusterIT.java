package dev.idem.flink.job;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.flink.job.cluster.Classpaths;
import dev.idem.flink.job.cluster.FlinkCluster;
import dev.idem.flink.job.cluster.KafkaBroker;
import dev.idem.flink.job.cluster.Waits;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The job jar on real processes: a Kafka broker (KRaft) and a Flink session cluster (a JobManager,
 * two TaskManagers) each in its own JVM, the shaded jar submitted through the REST API, and
 * TaskManagers killed with {@code SIGKILL} while the job runs. Pass: a {@code read_committed}
 * consumer of the output topic sees every distinct key of the input exactly once, as its first
 * record, byte for byte (the reference is computed by {@link GeneratedClicks}, not by idem).
 *
 * <p>CI runs the short variant (20,000 records, 3 kills, about a minute or two of cluster time).
 * The long one: {@code ./mvnw -B -pl idem-flink-job -am verify -Didem.soak=long} (500,000 records,
 * 10 kills). {@code -Didem.seed=N} replays a run's random choices (the seed is printed). Each
 * process's log is in {@code idem-flink-job/target/it/RUN/}, named in every failure message, and
 * kept when the test fails (removed when it passes).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DedupOnClusterIT {
  private static final boolean LONG = "long".equals(System.getProperty("idem.soak"));
  private static final int RECORDS = LONG ? 500_000 : 20_000;
  private static final int KEY_SPACE = LONG ? 300_000 : 12_000;
  private static final int KILLS = LONG ? 10 : 3;
  private static final int TASK_MANAGERS = 2;
  private static final int PARALLELISM = 2;

  private Path runDir;
  private KafkaBroker kafka;
  private FlinkCluster flink;
  private boolean failed = true;

  @BeforeAll
  void startProcesses() throws Exception {
    runDir = Classpaths.workDir().resolve("run-" + Instant.now().toString().replace(':', '-'));
    Files.createDirectories(runDir);
    kafka = KafkaBroker.start(runDir.resolve("kafka"));
    flink = FlinkCluster.start(runDir.resolve("flink"), TASK_MANAGERS);
  }

  @AfterAll
  void stopProcesses() throws Exception {
    try {
      if (flink != null) {
        flink.close();
      }
    } finally {
      if (kafka != null) {
        kafka.close();
      }
      if (!failed) {
        deleteRecursively(runDir);
      }
    }
  }

  @Test
  void exactModeKeepsEachKeyOnceAcrossTaskManagerKills() throws Exception {
    long seed = Long.getLong("idem.seed", System.nanoTime());
    System.out.println("DedupOnClusterIT seed " + seed + " (rerun with -Didem.seed=" + seed + ")");
    Random random = new Random(seed);
    GeneratedClicks clicks = new GeneratedClicks(seed, RECORDS, KEY_SPACE);
    kafka.createTopics(4, "clicks");
    kafka.createTopics(2, "unique");

    JobID job =
        flink.submit(
            Classpaths.jobJar(),
            List.of(
                "--source", "kafka://" + kafka.bootstrapServers() + "/clicks",
                "--sink", "kafka://" + kafka.bootstrapServers() + "/unique",
                "--key", "id",
                "--mode", "exact",
                "--expected-keys", Integer.toString(KEY_SPACE),
                "--checkpoint-interval", "2s",
                "--group-id", "idem-it"),
            PARALLELISM,
            null);
    Waits.until(
        () -> flink.rest().allTasksRunning(job),
        Duration.ofMinutes(3),
        () -> "job running; " + logs());

    Thread producer =
        new Thread(() -> produce(clicks, Duration.ofSeconds(10L * KILLS)), "producer");
    producer.start();
    try {
      for (int kill = 1; kill <= KILLS; kill++) {
        awaitCheckpointAfterRecovery(job);
        Thread.sleep(500 + random.nextInt(3000));
        int victim = random.nextInt(flink.taskManagersAlive());
        var tm = flink.killTaskManager(victim);
        System.out.println("kill " + kill + ": SIGKILL " + tm + " at " + Instant.now());
        flink.startTaskManager();
      }
      awaitCheckpointAfterRecovery(job);
    } finally {
      producer.join(TimeUnit.MINUTES.toMillis(5));
    }
    assertThat(producerError).as("producing the input").isNull();

    List<byte[]> output = consumeCommitted("unique", clicks.firstOfEachKey.size(), job);
    compare(output, clicks);
    // the kills took effect: each one failed the job, which came back from a checkpoint
    assertThat(flink.rest().restores(job))
        .as("restores from a checkpoint; " + logs())
        .isGreaterThanOrEqualTo(KILLS);
    assertThat(flink.rest().stateBackend(job)).containsIgnoringCase("rocksdb");
    flink.cancel(job);
    failed = false;
  }

  private volatile Exception producerError;

  private void produce(GeneratedClicks clicks, Duration over) {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    int chunks = 50;
    int chunk = (clicks.records.size() + chunks - 1) / chunks;
    long pause = over.toMillis() / chunks;
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(props, new StringSerializer(), new ByteArraySerializer())) {
      for (int i = 0; i < clicks.records.size(); i++) {
        GeneratedClicks.Click click = clicks.records.get(i);
        producer.send(new ProducerRecord<>("clicks", click.kafkaKey(), click.bytes()));
        if ((i + 1) % chunk == 0) {
          producer.flush();
          Thread.sleep(pause);
        }
      }
      producer.flush();
    } catch (Exception e) {
      producerError = e;
    }
  }

  /** Waits until the job runs on every task and has completed a checkpoint since it did. */
  private void awaitCheckpointAfterRecovery(JobID job) throws Exception {
    Waits.until(
        () -> flink.rest().allTasksRunning(job),
        Duration.ofMinutes(3),
        () -> "the job to run again; " + logs());
    long before = flink.rest().completedCheckpoints(job);
    Waits.until(
        () -> flink.rest().completedCheckpoints(job) > before,
        Duration.ofMinutes(3),
        () -> "a checkpoint after recovery; " + logs());
  }

  /**
   * Reads the topic as a {@code read_committed} consumer until it holds {@code expected} records,
   * then for two more checkpoints, so that a record committed twice would show.
   */
  private List<byte[]> consumeCommitted(String topic, int expected, JobID job) throws Exception {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    props.put(ConsumerConfig.GROUP_ID_CONFIG, "verifier-" + topic);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    List<byte[]> records = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(topic));
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(LONG ? 15 : 4);
      while (records.size() < expected && System.nanoTime() < deadline) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
          records.add(r.value());
        }
      }
      long checkpoints = flink.rest().completedCheckpoints(job);
      Waits.until(
          () -> flink.rest().completedCheckpoints(job) >= checkpoints + 2,
          Duration.ofMinutes(2),
          () -> "two more checkpoints; " + logs());
      for (int i = 0; i < 6; i++) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
          records.add(r.value());
        }
      }
    }
    return records;
  }

  private void compare(List<byte[]> output, GeneratedClicks clicks) {
    Set<ByteBuffer> reference = new HashSet<>(clicks.firstOfEachKey.values());
    Map<ByteBuffer, Integer> seen = new HashMap<>();
    for (byte[] record : output) {
      seen.merge(ByteBuffer.wrap(record), 1, Integer::sum);
    }
    List<String> repeated = new ArrayList<>();
    List<String> unexpected = new ArrayList<>();
    seen.forEach(
        (record, times) -> {
          if (times > 1) {
            repeated.add(text(record) + " ×" + times);
          }
          if (!reference.contains(record)) {
            unexpected.add(text(record));
          }
        });
    List<String> missing = new ArrayList<>();
    for (ByteBuffer record : reference) {
      if (!seen.containsKey(record)) {
        missing.add(text(record));
      }
    }
    String where = " (" + clicks.records.size() + " records in; " + logs() + ")";
    assertThat(repeated).as("records committed more than once" + where).isEmpty();
    assertThat(unexpected).as("records that are not their key's first" + where).isEmpty();
    assertThat(missing).as("keys missing from the output" + where).isEmpty();
    assertThat(output).as("output size" + where).hasSize(reference.size());
  }

  private static String text(ByteBuffer b) {
    return new String(b.array(), java.nio.charset.StandardCharsets.UTF_8);
  }

  private String logs() {
    return flink.logs() + ", " + kafka.log();
  }

  private static void deleteRecursively(Path dir) throws IOException {
    if (dir == null || !Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(p);
      }
    }
  }
}
