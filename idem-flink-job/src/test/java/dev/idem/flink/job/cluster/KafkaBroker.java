package dev.idem.flink.job.cluster;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * A single-node Kafka (KRaft: broker and controller in one JVM) in its own process, on free
 * loopback ports, its storage formatted first in its own directory.
 */
public final class KafkaBroker implements AutoCloseable {
  private final Path dir;
  private final int port;
  private final ChildJvm process;

  private KafkaBroker(Path dir, int port, ChildJvm process) {
    this.dir = dir;
    this.port = port;
    this.process = process;
  }

  /** Formats storage under {@code dir}, starts the broker and waits until it answers. */
  public static KafkaBroker start(Path dir) throws Exception {
    Files.createDirectories(dir);
    int port = FreePorts.pick();
    int controllerPort = FreePorts.pick();
    Path config = dir.resolve("server.properties");
    Files.writeString(
        config,
        String.join(
            "\n",
            "process.roles=broker,controller",
            "node.id=1",
            "controller.quorum.voters=1@localhost:" + controllerPort,
            "listeners=PLAINTEXT://localhost:" + port + ",CONTROLLER://localhost:" + controllerPort,
            "advertised.listeners=PLAINTEXT://localhost:" + port,
            "controller.listener.names=CONTROLLER",
            "inter.broker.listener.name=PLAINTEXT",
            "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
            "log.dirs=" + dir.resolve("data"),
            "num.partitions=1",
            "offsets.topic.replication.factor=1",
            "offsets.topic.num.partitions=4",
            "transaction.state.log.replication.factor=1",
            "transaction.state.log.min.isr=1",
            "transaction.state.log.num.partitions=4",
            "share.coordinator.state.topic.replication.factor=1",
            "share.coordinator.state.topic.min.isr=1",
            "group.initial.rebalance.delay.ms=0",
            "auto.create.topics.enable=false",
            ""));
    Path logConfig = Logging.writeConfig(dir);
    List<String> jvm = List.of("-Xmx384m", "-XX:+UseSerialGC", Logging.option(logConfig));
    String classpath = Classpaths.kafkaBroker();
    try (ChildJvm format =
        ChildJvm.start(
            "kafka-storage-format",
            classpath,
            jvm,
            "kafka.tools.StorageTool",
            List.of(
                "format",
                // one argument: an id may start with '-', which would read as an option
                "--cluster-id=" + uuidBase64(),
                "--config",
                config.toString(),
                "--ignore-formatted"),
            dir)) {
      int exit = format.waitFor(120);
      if (exit != 0) {
        throw new IllegalStateException(
            "formatting Kafka's storage failed (exit " + exit + "); see " + format.log());
      }
    }
    ChildJvm broker =
        ChildJvm.start("kafka", classpath, jvm, "kafka.Kafka", List.of(config.toString()), dir);
    KafkaBroker kafka = new KafkaBroker(dir, port, broker);
    try {
      kafka.awaitReady(Duration.ofMinutes(2));
    } catch (Exception e) {
      kafka.close();
      throw e;
    }
    return kafka;
  }

  /** Kafka's cluster ids are 16 random bytes in URL-safe Base64 without padding. */
  private static String uuidBase64() {
    UUID uuid = UUID.randomUUID();
    java.nio.ByteBuffer bytes = java.nio.ByteBuffer.allocate(16);
    bytes.putLong(uuid.getMostSignificantBits()).putLong(uuid.getLeastSignificantBits());
    return java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(bytes.array());
  }

  private void awaitReady(Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    Exception last = null;
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("the Kafka broker exited; see " + process.log());
      }
      try (Admin admin = admin()) {
        admin.describeCluster().nodes().get(10, TimeUnit.SECONDS);
        return;
      } catch (ExecutionException | TimeoutException e) {
        last = e;
        Thread.sleep(500);
      }
    }
    throw new IllegalStateException(
        "the Kafka broker did not answer within " + timeout + "; see " + process.log(), last);
  }

  /** {@code localhost:PORT}, for bootstrap.servers. */
  public String bootstrapServers() {
    return "localhost:" + port;
  }

  public Admin admin() {
    return Admin.create(
        Map.of(
            AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
            bootstrapServers(),
            AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG,
            "15000"));
  }

  /** Creates topics of {@code partitions} partitions each. */
  public void createTopics(int partitions, String... names) throws Exception {
    List<NewTopic> topics = new ArrayList<>();
    for (String name : names) {
      topics.add(new NewTopic(name, partitions, (short) 1));
    }
    try (Admin admin = admin()) {
      admin.createTopics(topics).all().get(60, TimeUnit.SECONDS);
    }
  }

  /** Deletes topics (a benchmark's outputs, once checked, to keep the disk free). */
  public void deleteTopics(String... names) throws Exception {
    try (Admin admin = admin()) {
      admin.deleteTopics(List.of(names)).all().get(60, TimeUnit.SECONDS);
    }
  }

  public Path log() {
    return process.log();
  }

  public Path dir() {
    return dir;
  }

  @Override
  public void close() throws InterruptedException {
    process.close();
  }

  @Override
  public String toString() {
    return "Kafka " + bootstrapServers() + " (log " + process.log() + ")";
  }
}
