package dev.idem.bench;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The results file: one JSON line per measured run, appended as each run ends, so an interrupted
 * scenario keeps what it measured and later runs add to it. Tables and plots are rendered from it
 * ({@link Render}).
 */
final class Results {

  static final ObjectMapper JSON =
      new ObjectMapper()
          .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
          .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  /**
   * One run of one contender. {@code part}: a scenario's table (e.g. "restart", "throughput");
   * {@code ref}: the contender the table's speed column compares with; times in seconds and RSS in
   * KiB, -1 when unknown; {@code metrics}: what the scenario measures beyond those.
   */
  record Row(
      String scenario,
      String part,
      String contender,
      long size,
      int rep,
      double wallSeconds,
      double cpuSeconds,
      long rssKib,
      boolean correct,
      String check,
      String ref,
      Map<String, Object> metrics,
      Map<String, Object> machine,
      String commit,
      String time) {}

  private final Path file;
  private final Map<String, Object> machine = machine();
  private final String commit = commit();

  Results(Path file) throws IOException {
    this.file = file;
    if (file.getParent() != null) {
      Files.createDirectories(file.getParent());
    }
  }

  Path file() {
    return file;
  }

  /** Appends one run; returns the row as written. */
  Row append(
      String scenario,
      String part,
      String contender,
      long size,
      int rep,
      ProcessHarness.Outcome o,
      boolean correct,
      String check,
      String ref,
      Map<String, Object> metrics)
      throws IOException {
    Row row =
        new Row(
            scenario,
            part,
            contender,
            size,
            rep,
            round(o.wallSeconds()),
            round(o.cpuSeconds()),
            o.rssKiB(),
            correct,
            check,
            ref,
            metrics,
            machine,
            commit,
            Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
    Files.writeString(
        file,
        JSON.writeValueAsString(row) + "\n",
        StandardCharsets.UTF_8,
        StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
    return row;
  }

  static double round(double seconds) {
    return seconds < 0 ? -1 : Math.round(seconds * 1000) / 1000.0;
  }

  static List<Row> read(Path file) throws IOException {
    List<Row> rows = new ArrayList<>();
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      if (!line.isBlank()) {
        rows.add(JSON.readValue(line, Row.class));
      }
    }
    return rows;
  }

  /** CPU model, cores, memory, kernel, JDK and the load average when the run started. */
  static Map<String, Object> machine() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("cpu", firstField(Path.of("/proc/cpuinfo"), "model name"));
    m.put("cores", Runtime.getRuntime().availableProcessors());
    String mem = firstField(Path.of("/proc/meminfo"), "MemTotal").replaceAll("\\D", "");
    m.put("memory_gib", mem.isEmpty() ? -1 : Math.round(Long.parseLong(mem) / 1048576.0));
    m.put("kernel", System.getProperty("os.version"));
    m.put("jdk", System.getProperty("java.vm.version"));
    try {
      m.put("load", Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
    } catch (IOException e) {
      m.put("load", "?");
    }
    return m;
  }

  private static String firstField(Path file, String name) {
    try {
      for (String line : Files.readAllLines(file)) {
        if (line.startsWith(name)) {
          return line.substring(line.indexOf(':') + 1).trim();
        }
      }
    } catch (IOException | UncheckedIOException e) {
      // not Linux: unknown
    }
    return "";
  }

  /** The commit measured, with "+dirty" when tracked files differ from it. */
  static String commit() {
    try {
      String head = git("rev-parse", "--short", "HEAD");
      return git("status", "--porcelain", "--untracked-files=no").isEmpty()
          ? head
          : head + "+dirty";
    } catch (IOException e) {
      return "unknown";
    }
  }

  private static String git(String... args) throws IOException {
    List<String> cmd = new ArrayList<>(List.of("git"));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    try {
      if (p.waitFor() != 0) {
        throw new IOException(out);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
    return out;
  }
}
