package dev.idem.engine.state;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.engine.Deduplicator;
import dev.idem.engine.JobException;
import dev.idem.engine.KeyMode;
import dev.idem.engine.run.JobIdentity;
import dev.idem.engine.run.Json;
import dev.idem.engine.run.StateFile;
import dev.idem.engine.store.StateStore;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A look into any idem state without disturbing it (files only read, RocksDB opened read-only, the
 * lock only tested): what kind of state it is, the job's identity, its last checkpoint, its files
 * and whether a process runs it. A dedup job's state carries more ({@link #dedup}).
 *
 * @param kind {@code "dedup"}, {@code "sort-dedup"}, {@code "near-dup"}, {@code "corpus"}, {@code
 *     "split"}, {@code "parquet-dedup"} or {@code "durable-set"} (a library deduplicator's)
 * @param file the file that makes the directory that kind of state
 * @param version the layout version of that file ({@link StateFile#LEGACY_VERSION}: before the
 *     state encoding)
 * @param runningBy who holds the lock ("pid 1234"), or {@code null} when no process runs it
 * @param identity the job's identity (inputs and settings) as the state keeps it, as JSON
 * @param checkpoint the last checkpoint as the state keeps it, as JSON; {@code null} before the
 *     first
 * @param files the other files of the state, each with its size
 * @param dedup a dedup job's manifest, checkpoint and store; {@code null} for other kinds
 */
public record StateInspection(
    String kind,
    Path file,
    int version,
    String runningBy,
    JsonNode identity,
    JsonNode checkpoint,
    List<String> files,
    Dedup dedup) {

  /**
   * What a dedup job's state holds beyond the others.
   *
   * @param manifest the job's identity
   * @param checkpoint the last checkpoint ({@link Checkpoint#START} if none yet)
   * @param storeBytes bytes of RocksDB's live table files
   * @param estimatedKeys RocksDB's estimate of the keys in {@code seen}
   */
  public record Dedup(
      Manifest manifest, Checkpoint checkpoint, long storeBytes, long estimatedKeys) {}

  /** The files that make a directory a state of the job named beside each. */
  private static final Map<String, String> KERNEL_FILES =
      Map.of(
          "SORT-DEDUP.json", "sort-dedup",
          "NEAR-DUP.json", "near-dup",
          "CORPUS.json", "corpus",
          "checkpoint.json", "split",
          ".idem-split/checkpoint.json", "split");

  /**
   * Inspects {@code state}: a state directory of any job, or a split's output directory.
   *
   * @throws JobException when it is not an idem state, naming what was looked for
   */
  public static StateInspection of(Path state) throws IOException {
    if (!Files.isDirectory(state)) {
      throw new JobException(state + ": no such directory");
    }
    if (Files.isRegularFile(state.resolve(Manifest.FILE))) {
      return dedup(state);
    }
    for (Map.Entry<String, String> e : KERNEL_FILES.entrySet()) {
      Path file = state.resolve(e.getKey());
      if (Files.isRegularFile(file)) {
        return kernel(state, file, e.getValue());
      }
    }
    Deduplicator.StateDescription d = Deduplicator.describeState(state);
    if (d != null) {
      return durable(state, d);
    }
    throw new JobException(
        state
            + ": not an idem state directory (none of "
            + Manifest.FILE
            + ", SORT-DEDUP.json, NEAR-DUP.json, CORPUS.json, .idem-split/checkpoint.json or "
            + "store.created is "
            + "there)");
  }

  private static StateInspection dedup(Path state) throws IOException {
    Path file = state.resolve(Manifest.FILE);
    StateFile.Contents c = StateFile.read(file, "dedup", Integer.MAX_VALUE);
    Manifest m = c.as(Manifest.class);
    Checkpoint cp = Checkpoint.START;
    long storeBytes = 0;
    long keys = 0;
    Path storeDir = state.resolve("store");
    if (Files.isDirectory(storeDir)) {
      try (StateStore store = StateStore.openReadOnly(storeDir, m.keyMode() == KeyMode.FULL_KEY)) {
        byte[] saved = store.meta("checkpoint");
        if (saved != null) {
          cp = Json.read(saved, Checkpoint.class);
        }
        storeBytes = store.liveFileBytes();
        keys = store.estimatedSeenKeys();
      }
    }
    return new StateInspection(
        "dedup",
        file,
        c.version(),
        lockHolder(state.resolve("LOCK")),
        Json.tree(m.identity()),
        Json.tree(cp),
        files(state, Manifest.FILE),
        new Dedup(m, cp, storeBytes, keys));
  }

  /** A state of a job on the kernel: its file holds the identity and the last checkpoint. */
  private static StateInspection kernel(Path state, Path file, String job) throws IOException {
    StateFile.Contents c = StateFile.read(file, job, Integer.MAX_VALUE);
    JsonNode body = c.as(JsonNode.class);
    boolean legacy = c.version() == StateFile.LEGACY_VERSION;
    Path dir = file.getParent();
    return new StateInspection(
        job,
        file,
        c.version(),
        lockHolder(dir.resolve("LOCK")),
        legacy ? legacyIdentity(body) : body.get("identity"),
        legacy ? body : body.get("checkpoint"),
        files(dir, file.getFileName().toString()),
        null);
  }

  /**
   * The identity of a state file written before the state encoding, as the encoding has it: its
   * inputs (an array, or described in one line) and its settings (an object, or one line).
   */
  private static JsonNode legacyIdentity(JsonNode body) throws IOException {
    ObjectNode identity = JsonNodeFactory.instance.objectNode();
    JsonNode job = body.get("job");
    ObjectNode settings = JsonNodeFactory.instance.objectNode();
    if (job != null && job.isObject()) {
      settings.setAll((ObjectNode) job.deepCopy());
      settings.remove("inputs");
    } else if (job != null) {
      settings.set("job", job);
    }
    if (body.has("inputs")) {
      identity.set("inputs", body.get("inputs"));
    } else if (job != null && job.has("inputs")) {
      identity.set("inputs", Json.tree(JobIdentity.legacyInputs(job.get("inputs").asText())));
    }
    identity.set("settings", settings);
    return identity;
  }

  /** A library deduplicator's durable set, or a Parquet job's, whose token is its checkpoint. */
  private static StateInspection durable(Path state, Deduplicator.StateDescription d)
      throws IOException {
    JsonNode identity = Json.tree(d.settings());
    JsonNode checkpoint = null;
    String kind = "durable-set";
    if (d.token() != null) {
      try {
        JsonNode token =
            StateFile.decode(state, d.token(), "parquet-dedup", Integer.MAX_VALUE)
                .as(JsonNode.class);
        kind = "parquet-dedup";
        identity = token.has("identity") ? token.get("identity") : identity;
        checkpoint = token;
      } catch (IOException | RuntimeException e) {
        checkpoint = // a library caller's own token: shown as text where it is text
            Json.tree(
                Map.of(
                    "commits",
                    d.commits(),
                    "keys",
                    d.keys(),
                    "token",
                    new String(d.token(), StandardCharsets.UTF_8)));
      }
    }
    return new StateInspection(
        kind,
        state.resolve("store.created"),
        StateFile.LEGACY_VERSION,
        lockHolder(state.resolve("LOCK")),
        identity,
        checkpoint,
        files(state, "store.created"),
        null);
  }

  /** The files and directories of {@code dir} but {@code except}, each with its size. */
  private static List<String> files(Path dir, String except) throws IOException {
    List<String> out = new ArrayList<>();
    try (Stream<Path> list = Files.list(dir)) {
      for (Path p : list.sorted().toList()) {
        String n = p.getFileName().toString();
        if (n.equals(except) || n.equals("LOCK")) {
          continue;
        }
        out.add(
            n + (Files.isDirectory(p) ? "/ (" + treeBytes(p) : " (" + Files.size(p)) + " bytes)");
      }
    }
    return out;
  }

  private static long treeBytes(Path dir) throws IOException {
    try (Stream<Path> walk = Files.walk(dir)) {
      return walk.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
    }
  }

  private static String lockHolder(Path lockFile) throws IOException {
    if (!Files.exists(lockFile)) {
      return null;
    }
    try (FileChannel ch = FileChannel.open(lockFile, StandardOpenOption.WRITE)) {
      FileLock lock = ch.tryLock();
      if (lock != null) {
        lock.release();
        return null;
      }
    } catch (OverlappingFileLockException e) {
      // held in this very process
    }
    return new String(Files.readAllBytes(lockFile), StandardCharsets.UTF_8).strip();
  }
}
