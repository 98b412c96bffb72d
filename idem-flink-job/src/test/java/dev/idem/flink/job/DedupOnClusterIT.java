package dev.idem.flink.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.idem.flink.job.cluster.Classpaths;
import dev.idem.flink.job.cluster.FlinkCluster;
import dev.idem.flink.job.cluster.KafkaBroker;
import dev.idem.flink.job.cluster.Waits;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
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
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The job jar on real processes: a Kafka broker (KRaft) and a Flink session cluster (a JobManager,
 * two TaskManagers) each in its own JVM, the shaded jar submitted through the REST API, and
 * TaskManagers killed with {@code SIGKILL} while the job runs. Pass: a {@code read_committed}
 * consumer of the output topic sees exactly the reference, byte for byte: in exact mode every
 * distinct key of the input once, as its first record ({@link GeneratedClicks}); in window mode the
 * kept and the late clicks of docs/WINDOWS.md's definitions ({@link WindowedClicks}, from
 * idem-engine's {@code WindowedDeduplicator}); with a file sink, the committed part files hold
 * exactly the exact-mode reference; and a job stopped with a savepoint at parallelism 2 and resumed
 * at 3 outputs the exact-mode reference of all it read. No reference is computed by the job's code.
 *
 * <p>Each kill hits a TaskManager that runs the job, after a replacement has started, and the test
 * waits until the job has been restored from a checkpoint and has completed another before the next
 * kill.
 *
 * <p>Variants, by the system property {@code idem.soak}:
 *
 * <ul>
 *   <li>unset (CI, within its time budget): exact mode on 20,000 records with 2 kills, and window
 *       mode on 6,000 clicks without kills; the file sink and rescale tests are skipped.
 *   <li>{@code full}: the same sizes, and the file sink (10,000 records, 1 kill) and rescale (8,000
 *       records) tests too.
 *   <li>{@code long}: all four, larger: 500,000 records and 10 kills; 100,000 clicks and 3 kills;
 *       200,000 records to files with 3 kills; 200,000 records rescaled.
 * </ul>
 *
 * <p>Run: {@code ./mvnw -B -pl idem-flink-job -am verify -Dtest=none
 * -Dsurefire.failIfNoSpecifiedTests=false -Didem.soak=full} (the first options skip the other
 * modules' unit tests). {@code -Didem.seed=N} replays a run's random choices (the seed is printed).
 * Each process's log is in {@code idem-flink-job/target/it/run-TIME/}, named in every failure
 * message, and kept unless every test passed.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DedupOnClusterIT {
  private static final String SOAK = System.getProperty("idem.soak", "ci");
  private static final boolean LONG = "long".equals(SOAK);

  /** Whether the file sink and rescale tests run too (not in CI, for its time budget). */
  private static final boolean ALL = !"ci".equals(SOAK);

  private static final int TASK_MANAGERS = 2;
  private static final int PARALLELISM = 2;
  private static final long SEED = Long.getLong("idem.seed", System.nanoTime());

  private Path runDir;
  private KafkaBroker kafka;
  private FlinkCluster flink;
  private int started;
  private int passed;
  private volatile Exception producerError;

  @BeforeAll
  void startProcesses() throws Exception {
    System.out.println("DedupOnClusterIT seed " + SEED + " (rerun with -Didem.seed=" + SEED + ")");
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
      if (passed == started) {
        deleteRecursively(runDir);
      }
    }
  }

  @Test
  @Order(1)
  void exactModeKeepsEachKeyOnceAcrossTaskManagerKills() throws Exception {
    started++;
    int records = LONG ? 500_000 : 20_000;
    int keySpace = LONG ? 300_000 : 12_000;
    int kills = LONG ? 10 : 2;
    GeneratedClicks clicks = new GeneratedClicks(SEED, records, keySpace);
    kafka.createTopics(4, "clicks");
    kafka.createTopics(2, "unique");
    JobID job =
        submit(
            "--source", "kafka://" + kafka.bootstrapServers() + "/clicks",
            "--sink", "kafka://" + kafka.bootstrapServers() + "/unique",
            "--key", "id",
            "--mode", "exact",
            "--expected-keys", Integer.toString(keySpace),
            "--checkpoint-interval", "1s",
            "--group-id", "idem-it");
    try {
      checkExactMode(job, clicks, records, kills);
    } finally {
      flink.cancel(job);
    }
    passed++;
  }

  private void checkExactMode(JobID job, GeneratedClicks clicks, int records, int kills)
      throws Exception {
    produceWhileKilling(job, new Random(SEED), kills, "clicks", clicks.records);

    List<byte[]> output = consumeCommitted("unique", clicks.firstOfEachKey.size(), job);
    compare("kept", output, clicks.firstOfEachKey.values(), records + " records in, seed " + SEED);
    // the kills took effect: each one failed the job, which came back from a checkpoint
    assertThat(flink.rest().restores(job))
        .as("restores from a checkpoint; " + logs())
        .isGreaterThanOrEqualTo(kills);
    assertThat(flink.rest().stateBackend(job)).containsIgnoringCase("rocksdb");
  }

  @Test
  @Order(2)
  void windowModeMatchesTheReferenceWithOutOfOrderAndLateClicks() throws Exception {
    started++;
    int partitions = 4;
    WindowedClicks clicks =
        new WindowedClicks(SEED, LONG ? 100_000 : 6_000, LONG ? 20_000 : 1_500, partitions);
    kafka.createTopics(partitions, "w-clicks");
    kafka.createTopics(2, "w-unique", "w-late");
    JobID job =
        submit(
            "--source", "kafka://" + kafka.bootstrapServers() + "/w-clicks",
            "--sink", "kafka://" + kafka.bootstrapServers() + "/w-unique",
            "--key", "id",
            "--mode", "window",
            "--window", "1m",
            "--time-field", "at",
            "--max-delay", WindowedClicks.MAX_DELAY.toSeconds() + "s",
            "--late-topic", "w-late",
            "--checkpoint-interval", "1s",
            "--group-id", "idem-it-window",
            "--transactional-id-prefix", "idem-it-window");
    try {
      checkWindowMode(job, clicks, partitions);
    } finally {
      flink.cancel(job);
    }
    passed++;
  }

  private void checkWindowMode(JobID job, WindowedClicks clicks, int partitions) throws Exception {
    // phase 1 (with kills in the long variant): no click is late, however far the watermark of a
    // restarted job lags
    produceWhileKilling(job, new Random(SEED + 1), LONG ? 3 : 0, "w-clicks", clicks.inOrder);
    // phase 2: every partition's watermark moves past phase 1's windows
    try (KafkaProducer<String, byte[]> producer = producer()) {
      for (int p = 0; p < partitions; p++) {
        producer.send(new ProducerRecord<>("w-clicks", p, "advance-" + p, clicks.advance.get(p)));
      }
    }
    long pastPhaseOne = WindowedClicks.T0 + Duration.ofMinutes(10).toMillis();
    Waits.until(
        () -> flink.rest().minInputWatermark(job, "IdemDedup") >= pastPhaseOne,
        Duration.ofMinutes(3),
        () -> "the dedup operator's watermark to pass phase 1's windows; " + logs());
    // phase 3: clicks of phase 1's windows, now late
    produce("w-clicks", clicks.late, Duration.ZERO);
    assertThat(producerError).as("producing the late clicks").isNull();

    List<byte[]> kept = consumeCommitted("w-unique", clicks.expectedKept.size(), job);
    List<byte[]> late = consumeCommitted("w-late", clicks.expectedLate.size(), job);
    String input = clicks.inOrder.size() + " clicks, " + clicks.late.size() + " late, seed " + SEED;
    compare("kept", kept, clicks.expectedKept, input);
    compare("late", late, clicks.expectedLate, input);
  }

  @Test
  @Order(3)
  void fileSinkCommitsEachKeyOnceAcrossAKill() throws Exception {
    assumeTrue(ALL, "runs with -Didem.soak=full or -Didem.soak=long, not in CI");
    started++;
    int records = LONG ? 200_000 : 10_000;
    int keySpace = LONG ? 120_000 : 6_000;
    GeneratedClicks clicks = new GeneratedClicks(SEED + 2, records, keySpace);
    Path out = runDir.resolve("file-sink");
    kafka.createTopics(4, "f-clicks");
    JobID job =
        submit(
            "--source",
            "kafka://" + kafka.bootstrapServers() + "/f-clicks",
            "--sink",
            out.toUri().toString(),
            "--key",
            "id",
            "--expected-keys",
            Integer.toString(keySpace),
            "--checkpoint-interval",
            "1s",
            "--group-id",
            "idem-it-files");
    try {
      produceWhileKilling(job, new Random(SEED + 2), LONG ? 3 : 1, "f-clicks", clicks.records);
      int expected = clicks.firstOfEachKey.size();
      Waits.until(
          () -> committedLines(out).size() >= expected,
          Duration.ofMinutes(LONG ? 15 : 4),
          () -> expected + " committed lines in " + out + "; " + logs());
      long checkpoints = flink.rest().completedCheckpoints(job);
      Waits.until(
          () -> flink.rest().completedCheckpoints(job) >= checkpoints + 2,
          Duration.ofMinutes(2),
          () -> "two more checkpoints; " + logs());
      compare(
          "committed files",
          committedLines(out),
          clicks.firstOfEachKey.values(),
          records + " records in, seed " + (SEED + 2));
    } finally {
      flink.cancel(job);
    }
    passed++;
  }

  @Test
  @Order(4)
  void rescalesFromTwoToThreeThroughASavepoint() throws Exception {
    assumeTrue(ALL, "runs with -Didem.soak=full or -Didem.soak=long, not in CI");
    started++;
    int records = LONG ? 200_000 : 8_000;
    int keySpace = LONG ? 120_000 : 5_000;
    GeneratedClicks clicks = new GeneratedClicks(SEED + 3, records, keySpace);
    List<GeneratedClicks.Click> firstHalf = clicks.records.subList(0, records / 2);
    List<GeneratedClicks.Click> secondHalf = clicks.records.subList(records / 2, records);
    kafka.createTopics(4, "r-clicks");
    kafka.createTopics(2, "r-unique");
    List<String> args =
        List.of(
            "--source",
            "kafka://" + kafka.bootstrapServers() + "/r-clicks",
            "--sink",
            "kafka://" + kafka.bootstrapServers() + "/r-unique",
            "--key",
            "id",
            "--expected-keys",
            Integer.toString(keySpace),
            "--checkpoint-interval",
            "1s",
            "--group-id",
            "idem-it-rescale");
    JobID atTwo = submit(args.toArray(new String[0]));
    String savepoint;
    try {
      produce("r-clicks", firstHalf, Duration.ZERO);
      assertThat(producerError).as("producing the first half").isNull();
      awaitCheckpoint(atTwo);
      savepoint = flink.stopWithSavepoint(atTwo);
    } finally {
      flink.cancel(atTwo);
    }
    System.out.println("rescale: savepoint " + savepoint + " at parallelism " + PARALLELISM);
    flink.startTaskManager();
    flink.awaitTaskManagers(TASK_MANAGERS + 1, Duration.ofMinutes(3));
    JobID atThree = flink.submit(Classpaths.jobJar(), args, PARALLELISM + 1, savepoint);
    try {
      Waits.until(
          () -> flink.rest().allTasksRunning(atThree),
          Duration.ofMinutes(3),
          () -> "the job at parallelism 3 running; " + logs());
      produce("r-clicks", secondHalf, Duration.ZERO);
      assertThat(producerError).as("producing the second half").isNull();
      List<byte[]> output = consumeCommitted("r-unique", clicks.firstOfEachKey.size(), atThree);
      compare(
          "kept across the rescale",
          output,
          clicks.firstOfEachKey.values(),
          records + " records in, seed " + (SEED + 3));
    } finally {
      flink.cancel(atThree);
    }
    passed++;
  }

  /**
   * The lines of the file sink's committed part files: those whose names do not start with a dot
   * (in-progress and pending files do).
   */
  private static List<byte[]> committedLines(Path dir) throws IOException {
    List<byte[]> lines = new ArrayList<>();
    if (!Files.exists(dir)) {
      return lines;
    }
    List<Path> files;
    try (Stream<Path> paths = Files.walk(dir)) {
      files =
          paths
              .filter(Files::isRegularFile)
              .filter(p -> !p.getFileName().toString().startsWith("."))
              .toList();
    }
    for (Path file : files) {
      for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
        lines.add(line.getBytes(StandardCharsets.UTF_8));
      }
    }
    return lines;
  }

  private JobID submit(String... args) throws Exception {
    JobID job = flink.submit(Classpaths.jobJar(), List.of(args), PARALLELISM, null);
    Waits.until(
        () -> flink.rest().allTasksRunning(job),
        Duration.ofMinutes(3),
        () -> "job running; " + logs());
    return job;
  }

  /** Starts a producer thread, kills TaskManagers while it runs, and waits for both to end. */
  private void produceWhileKilling(
      JobID job, Random random, int kills, String topic, List<GeneratedClicks.Click> clicks)
      throws Exception {
    Thread producer =
        new Thread(() -> produce(topic, clicks, Duration.ofSeconds(4L * kills)), "producer");
    producer.start();
    try {
      awaitCheckpoint(job);
      for (int kill = 1; kill <= kills; kill++) {
        // the replacement starts first, so the job can restart as soon as it notices the loss
        flink.startTaskManager();
        flink.awaitTaskManagers(TASK_MANAGERS + 1, Duration.ofMinutes(3));
        Thread.sleep(random.nextInt(3000));
        long restores = flink.rest().restores(job);
        String tm = flink.killBusyTaskManager(job, random);
        System.out.println("kill " + kill + ": SIGKILL " + tm + " at " + Instant.now());
        // the kill took effect: the job failed and came back from a checkpoint, and checkpoints
        Waits.until(
            () -> flink.rest().restores(job) > restores,
            Duration.ofMinutes(3),
            () -> "the job to restore from a checkpoint after kill " + tm + "; " + logs());
        awaitCheckpoint(job);
      }
    } finally {
      producer.join(TimeUnit.MINUTES.toMillis(5));
    }
    assertThat(producerError).as("producing the input").isNull();
  }

  /** Sends {@code clicks} to {@code topic}, spread over {@code over}, each under its key. */
  private void produce(String topic, List<GeneratedClicks.Click> clicks, Duration over) {
    int chunks = 50;
    int chunk = Math.max(1, (clicks.size() + chunks - 1) / chunks);
    long pause = over.toMillis() / chunks;
    try (KafkaProducer<String, byte[]> producer = producer()) {
      for (int i = 0; i < clicks.size(); i++) {
        GeneratedClicks.Click click = clicks.get(i);
        producer.send(new ProducerRecord<>(topic, click.kafkaKey(), click.bytes()));
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

  private KafkaProducer<String, byte[]> producer() {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    return new KafkaProducer<>(props, new StringSerializer(), new ByteArraySerializer());
  }

  /** Waits until the job runs on every task and has completed a checkpoint since it did. */
  private void awaitCheckpoint(JobID job) throws Exception {
    Waits.until(
        () -> flink.rest().allTasksRunning(job),
        Duration.ofMinutes(3),
        () -> "the job to run again; " + logs());
    long before = flink.rest().completedCheckpoints(job);
    Waits.until(
        () -> flink.rest().completedCheckpoints(job) > before,
        Duration.ofMinutes(3),
        () -> "a checkpoint; " + logs());
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

  /** Fails unless {@code output} holds each record of {@code expected} once, and nothing else. */
  private void compare(
      String what, List<byte[]> output, Collection<ByteBuffer> expected, String input) {
    Set<ByteBuffer> reference = new HashSet<>(expected);
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
    String where = " (" + what + ", " + input + "; " + logs() + ")";
    assertThat(repeated).as("records committed more than once" + where).isEmpty();
    assertThat(unexpected).as("records not in the reference" + where).isEmpty();
    assertThat(missing).as("reference records missing from the output" + where).isEmpty();
    assertThat(output).as("output size" + where).hasSize(reference.size());
  }

  private static String text(ByteBuffer b) {
    return new String(b.array(), StandardCharsets.UTF_8);
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
