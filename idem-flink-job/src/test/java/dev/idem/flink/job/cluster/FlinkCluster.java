package dev.idem.flink.job.cluster;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobID;
import org.apache.flink.client.deployment.StandaloneClusterId;
import org.apache.flink.client.program.rest.RestClusterClient;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.RestOptions;

/**
 * A Flink session cluster of separate JVMs, as a user runs one: a JobManager ({@code
 * StandaloneSessionClusterEntrypoint}) and TaskManagers ({@code TaskManagerRunner}), started from
 * the Flink jars Maven resolved, with RocksDB state and filesystem checkpoints in {@code dir}. Jobs
 * are submitted, watched and stopped through its REST API.
 */
public final class FlinkCluster implements AutoCloseable {
  private static final String JOB_MANAGER =
      "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint";
  private static final String TASK_MANAGER =
      "org.apache.flink.runtime.taskexecutor.TaskManagerRunner";

  /**
   * Slots per TaskManager: one, so that a job of parallelism 2 runs on both TaskManagers and every
   * kill hits a running task (with more, a restarted job could sit on one, and a kill of the other
   * would test nothing).
   */
  public static final int SLOTS_PER_TASK_MANAGER = 1;

  private final Path dir;
  private final Path confDir;
  private final String classpath;
  private final List<String> jvmOptions;
  private final List<String> taskManagerMemory;
  private final int restPort;
  private final ChildJvm jobManager;
  private final List<ChildJvm> taskManagers = new ArrayList<>();
  private final List<ChildJvm> killed = new ArrayList<>();
  private final RestClusterClient<StandaloneClusterId> client;
  private final ClusterRest rest;
  private int started;

  private FlinkCluster(
      Path dir, Path confDir, int restPort, List<String> jvmOptions, List<String> taskManagerMemory)
      throws Exception {
    this.dir = dir;
    this.confDir = confDir;
    this.restPort = restPort;
    this.jvmOptions = jvmOptions;
    this.taskManagerMemory = taskManagerMemory;
    this.classpath = Classpaths.flinkCluster();
    this.jobManager =
        ChildJvm.start(
            "jobmanager",
            classpath,
            concat(jvmOptions, "-Xmx256m"),
            JOB_MANAGER,
            List.of("--configDir", confDir.toString()),
            dir);
    Configuration clientConf = new Configuration();
    clientConf.set(RestOptions.ADDRESS, "localhost");
    clientConf.set(RestOptions.PORT, restPort);
    clientConf.set(JobManagerOptions.ADDRESS, "localhost");
    this.client = new RestClusterClient<>(clientConf, StandaloneClusterId.getInstance());
    this.rest = new ClusterRest(restPort);
  }

  /** Starts the JobManager and {@code taskManagers} TaskManagers, and waits for them. */
  public static FlinkCluster start(Path dir, int taskManagers) throws Exception {
    return start(dir, taskManagers, Map.of(), List.of());
  }

  /**
   * Starts the cluster with {@code settings} in its configuration over the test's small defaults (a
   * benchmark gives its TaskManagers more memory this way; the JVMs' heap and direct memory follow
   * the {@code taskmanager.memory.*} sizes, in {@code m}), and {@code taskManagerJvm} added to the
   * TaskManagers' JVM options.
   */
  public static FlinkCluster start(
      Path dir, int taskManagers, Map<String, String> settings, List<String> taskManagerJvm)
      throws Exception {
    Files.createDirectories(dir);
    Path confDir = Files.createDirectories(dir.resolve("conf"));
    int restPort = FreePorts.pick();
    int rpcPort = FreePorts.pick();
    Path tmp = Files.createDirectories(dir.resolve("tmp"));
    Map<String, String> conf = new LinkedHashMap<>();
    conf.put("jobmanager.rpc.address", "localhost");
    conf.put("jobmanager.rpc.port", Integer.toString(rpcPort));
    conf.put("jobmanager.bind-host", "localhost");
    conf.put("taskmanager.bind-host", "localhost");
    conf.put("taskmanager.host", "localhost");
    conf.put("rest.address", "localhost");
    conf.put("rest.bind-address", "localhost");
    conf.put("rest.port", Integer.toString(restPort));
    conf.put("jobmanager.memory.process.size", "600m");
    // a TaskManager started without Flink's scripts must be given its memory explicitly
    conf.put("taskmanager.numberOfTaskSlots", Integer.toString(SLOTS_PER_TASK_MANAGER));
    conf.put("taskmanager.cpu.cores", "2");
    conf.put("taskmanager.memory.framework.heap.size", "64m");
    conf.put("taskmanager.memory.task.heap.size", "128m");
    conf.put("taskmanager.memory.task.off-heap.size", "0m");
    conf.put("taskmanager.memory.framework.off-heap.size", "64m");
    conf.put("taskmanager.memory.network.min", "32m");
    conf.put("taskmanager.memory.network.max", "32m");
    conf.put("taskmanager.memory.managed.size", "64m");
    conf.put("taskmanager.memory.jvm-metaspace.size", "192m");
    conf.put("taskmanager.memory.jvm-overhead.min", "96m");
    conf.put("taskmanager.memory.jvm-overhead.max", "96m");
    conf.put("parallelism.default", "2");
    conf.put("state.backend.type", "rocksdb");
    conf.put("execution.checkpointing.dir", dir.resolve("checkpoints").toUri().toString());
    conf.put("execution.checkpointing.savepoint-dir", dir.resolve("savepoints").toUri().toString());
    conf.put("restart-strategy.type", "fixed-delay");
    conf.put("restart-strategy.fixed-delay.attempts", "1000");
    conf.put("restart-strategy.fixed-delay.delay", "1 s");
    // a killed TaskManager is noticed within seconds, not the default 50
    conf.put("heartbeat.interval", "1000");
    conf.put("heartbeat.timeout", "8000");
    conf.put("io.tmp.dirs", tmp.toString());
    conf.put("web.tmpdir", tmp.toString());
    conf.put("blob.storage.directory", tmp.toString());
    conf.putAll(settings);
    StringBuilder yaml = new StringBuilder();
    conf.forEach((key, value) -> yaml.append(key).append(": ").append(value).append('\n'));
    Files.writeString(confDir.resolve("config.yaml"), yaml);
    // heap: framework + task, and room for the JVM's own; direct: framework and task off-heap and
    // the network buffers, with the same room
    int heap =
        megabytes(conf, "taskmanager.memory.framework.heap.size")
            + megabytes(conf, "taskmanager.memory.task.heap.size")
            + 32;
    int direct =
        megabytes(conf, "taskmanager.memory.framework.off-heap.size")
            + megabytes(conf, "taskmanager.memory.task.off-heap.size")
            + megabytes(conf, "taskmanager.memory.network.max")
            + 64;
    Path logConfig = Logging.writeConfig(confDir);
    List<String> jvm = List.of("-XX:+UseSerialGC", Logging.option(logConfig));
    FlinkCluster cluster =
        new FlinkCluster(
            dir,
            confDir,
            restPort,
            jvm,
            concat(
                taskManagerJvm,
                "-Xms" + heap + "m",
                "-Xmx" + heap + "m",
                "-XX:MaxDirectMemorySize=" + direct + "m"));
    try {
      for (int i = 0; i < taskManagers; i++) {
        cluster.startTaskManager();
      }
      cluster.awaitTaskManagers(taskManagers, Duration.ofMinutes(3));
    } catch (Exception e) {
      cluster.close();
      throw e;
    }
    return cluster;
  }

  private static int megabytes(Map<String, String> conf, String key) {
    String value = conf.get(key);
    if (!value.endsWith("m")) {
      throw new IllegalArgumentException(key + " must be given in m (megabytes), got " + value);
    }
    return Integer.parseInt(value.substring(0, value.length() - 1));
  }

  private static List<String> concat(List<String> list, String... more) {
    List<String> all = new ArrayList<>(list);
    all.addAll(List.of(more));
    return all;
  }

  /**
   * Starts one more TaskManager (it registers with the JobManager by itself), its resource id its
   * name, so that the REST API's answers say which process runs what.
   */
  public void startTaskManager() throws Exception {
    String name = "taskmanager-" + (++started);
    taskManagers.add(
        ChildJvm.start(
            name,
            classpath,
            concat(jvmOptions, taskManagerMemory.toArray(new String[0])),
            TASK_MANAGER,
            List.of("--configDir", confDir.toString(), "-D", "taskmanager.resource-id=" + name),
            dir));
  }

  /**
   * {@code SIGKILL}s one of the TaskManagers that run tasks of {@code job}, chosen with {@code
   * random}.
   *
   * @return which one, for the test's output
   */
  public String killBusyTaskManager(JobID job, Random random) throws Exception {
    List<String> busy = new ArrayList<>(rest.taskManagersRunning(job));
    Collections.sort(busy);
    if (busy.isEmpty()) {
      throw new IllegalStateException("no TaskManager runs job " + job + "; " + logs());
    }
    String victim = busy.get(random.nextInt(busy.size()));
    for (ChildJvm tm : taskManagers) {
      if (tm.name().equals(victim)) {
        taskManagers.remove(tm);
        tm.kill();
        killed.add(tm);
        return tm.toString();
      }
    }
    throw new IllegalStateException("job " + job + " runs on an unknown TaskManager " + victim);
  }

  /**
   * Fails at once when a process that should run has exited.
   *
   * @throws ProcessDied naming its log
   */
  public void checkAlive() {
    if (!jobManager.isAlive()) {
      throw new ProcessDied(jobManager);
    }
    for (ChildJvm tm : taskManagers) {
      if (!tm.isAlive()) {
        throw new ProcessDied(tm);
      }
    }
  }

  /** Waits until the JobManager knows exactly {@code count} live TaskManagers. */
  public void awaitTaskManagers(int count, Duration timeout) throws Exception {
    Waits.until(
        () -> {
          checkAlive();
          return rest.taskManagerCount() == count;
        },
        timeout,
        () -> count + " TaskManagers registered; " + logs());
  }

  /**
   * Submits the job jar with {@code args} through the REST API.
   *
   * @param savepoint the savepoint to start from, or {@code null}
   */
  public JobID submit(Path jar, List<String> args, int parallelism, String savepoint)
      throws Exception {
    return rest.runJar(jar, null, args, parallelism, savepoint);
  }

  /** Submits the main class {@code entryClass} of {@code jar} with {@code args}. */
  public JobID submit(Path jar, String entryClass, List<String> args, int parallelism)
      throws Exception {
    return rest.runJar(jar, entryClass, args, parallelism, null);
  }

  /** Stops {@code job} with a savepoint and returns its path. */
  public String stopWithSavepoint(JobID job) throws Exception {
    return client
        .stopWithSavepoint(
            job,
            false,
            dir.resolve("savepoints").toUri().toString(),
            org.apache.flink.core.execution.SavepointFormatType.CANONICAL)
        .get(3, TimeUnit.MINUTES);
  }

  /** Cancels {@code job} unless it has ended already, and waits until it has. */
  public void cancel(JobID job) throws Exception {
    String state = rest.jobState(job);
    if (!List.of("CANCELED", "FAILED", "FINISHED").contains(state)) {
      client.cancel(job).get(1, TimeUnit.MINUTES);
    }
  }

  public ClusterRest rest() {
    return rest;
  }

  /** CPU seconds the live TaskManagers have used so far, together. */
  public double taskManagerCpuSeconds() {
    return taskManagers.stream().mapToLong(tm -> tm.cpuTime().toMillis()).sum() / 1000.0;
  }

  /** Where to look when something fails: every process's log. */
  public String logs() {
    StringBuilder b = new StringBuilder("logs: ").append(jobManager.log());
    for (ChildJvm tm : taskManagers) {
      b.append(", ").append(tm.log());
    }
    for (ChildJvm tm : killed) {
      b.append(", ").append(tm.log()).append(" (killed)");
    }
    return b.toString();
  }

  @Override
  public void close() throws Exception {
    try {
      client.close();
    } finally {
      for (ChildJvm tm : taskManagers) {
        tm.close();
      }
      jobManager.close();
    }
  }

  public int restPort() {
    return restPort;
  }
}
