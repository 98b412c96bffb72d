package dev.idem.engine.neardup;

import dev.idem.engine.JobException;
import dev.idem.engine.records.InputFile;
import dev.idem.engine.records.OutputFile;
import dev.idem.engine.run.Json;
import dev.idem.engine.run.StateDirectory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The {@code --state} of a near-dup job: {@code NEAR-DUP.json}, its checkpoint, replaced
 * atomically, and {@code judged.bin} ({@link Judgement}) once the first read is done.
 *
 * <p>While judging, nothing is committed: a killed job judges again from the start (the work is
 * deterministic, so it decides the same), and a rerun may even change its options. Once judged, the
 * judgement is saved and the checkpoint says {@link Phase#WRITING}; from then on a checkpoint is
 * taken every so many documents: the outputs flushed and synced, then their lengths and tail
 * checksums, the input position and the counts written in one atomic replacement. A resume cuts
 * each output back to its checkpointed length (refusing a file changed since) and reads on from the
 * position, so the outputs are, byte for byte, those of an uninterrupted run.
 *
 * <p>A streaming job ({@code --streaming}) has no judgement to save: it checkpoints its writing
 * from the first document, and a resume judges again, without writing, every document up to the
 * checkpoint's position (the same decisions, as judging is deterministic), then writes on.
 */
final class NearDupState implements AutoCloseable {

  static final String FILE = "NEAR-DUP.json";

  enum Phase {
    JUDGING,
    WRITING,
    DONE
  }

  /**
   * A checkpoint. Counts of the first read ({@code records} … {@code acceptedPairs}) are final once
   * judged; {@code doc} and {@code kept} are the second read's, through the position. A streaming
   * job judges and writes in one read: its counts are those through the position, and {@code
   * clusters} (else {@code null}: the judgement has them) its clusters so far.
   */
  record Progress(
      Map<String, String> job,
      Phase phase,
      int fileIndex,
      long offset,
      long line,
      int doc,
      long kept,
      long outputBytes,
      Long outputTail,
      long droppedBytes,
      Long droppedTail,
      long clustersBytes,
      Long clustersTail,
      long records,
      long documents,
      long exactDuplicates,
      long badRecords,
      long blankLines,
      long candidatePairs,
      long comparedPairs,
      long acceptedPairs,
      long quarantineBytes,
      Long clusters) {

    static Progress judging(Map<String, String> job) {
      return new Progress(
          job,
          Phase.JUDGING,
          0,
          0,
          0,
          0,
          0,
          0,
          null,
          0,
          null,
          0,
          null,
          0,
          0,
          0,
          0,
          0,
          0,
          0,
          0,
          0,
          null);
    }
  }

  private final StateDirectory dir;
  private final Map<String, String> job;
  private final Progress resumed;

  private NearDupState(StateDirectory dir, Map<String, String> job, Progress resumed) {
    this.dir = dir;
    this.job = job;
    this.resumed = resumed;
  }

  /**
   * Opens (creating) the state at {@code path} and takes its lock. A state past judging that
   * another command made is refused, naming what differs.
   */
  static NearDupState open(Path path, Map<String, String> job) throws IOException {
    StateDirectory dir = StateDirectory.open(path, FILE);
    try {
      Path file = path.resolve(FILE);
      Progress p = null;
      if (Files.exists(file)) {
        try {
          p = Json.read(Files.readAllBytes(file), Progress.class);
        } catch (IOException e) {
          throw new IOException(
              file + ": unreadable (" + e.getMessage() + "); the state was damaged");
        }
        if (p.phase() == Phase.JUDGING) {
          p = null; // nothing committed yet: start over, with this command's options
        } else {
          refuseOther(path, job, p);
        }
      }
      NearDupState s = new NearDupState(dir, job, p);
      if (p == null) {
        s.write(Progress.judging(job));
      }
      return s;
    } catch (IOException | RuntimeException e) {
      dir.close();
      throw e;
    }
  }

  private static void refuseOther(Path path, Map<String, String> job, Progress was)
      throws JobException {
    Set<String> differ = new TreeSet<>(job.keySet());
    differ.addAll(was.job().keySet());
    differ.removeIf(k -> Objects.equals(job.get(k), was.job().get(k)));
    if (!differ.isEmpty()) {
      throw new JobException(
          path
              + " is the state of another near-dup: "
              + differ.stream()
                  .map(k -> k + " was " + was.job().get(k) + ", now " + job.get(k))
                  .collect(Collectors.joining("; "))
              + ". Run the same command to resume, or give a new --state");
    }
  }

  /** The checkpoint to resume from, or {@code null}: judge from the start. */
  Progress resumed() {
    return resumed;
  }

  /** What this command asked, as {@link #identity} puts it. */
  Map<String, String> job() {
    return job;
  }

  StateDirectory directory() {
    return dir;
  }

  /** Replaces the checkpoint atomically. */
  void write(Progress p) throws IOException {
    dir.writeAtomically(FILE, Json.write(p));
  }

  /** What a command asked that decides its outputs: a resume must ask the same. */
  static Map<String, String> identity(NearDupSpec spec, List<InputFile> inputs) {
    Map<String, String> m = new TreeMap<>();
    m.put(
        "inputs",
        inputs.stream()
            .map(f -> f.path() + " (" + f.size() + " bytes, head CRC32C " + f.headCrc() + ")")
            .collect(Collectors.joining(", ")));
    m.put("format", spec.format().toString());
    m.put("content", spec.content().describe());
    m.put("tokenizer", spec.tokenizer().toString());
    m.put("ngram", Integer.toString(spec.ngram()));
    m.put("normalize", spec.normalization().toString());
    m.put("threshold", Double.toString(spec.threshold()));
    m.put("num perm", Integer.toString(spec.numPerm()));
    m.put("bands", spec.bands().bands() + "x" + spec.bands().rows());
    m.put("verify", Boolean.toString(spec.verify()));
    m.put("seed", Long.toString(spec.seed()));
    m.put("output", OutputFile.absolute(spec.output()));
    m.put("dropped", OutputFile.absolute(spec.dropped()));
    m.put("clusters", OutputFile.absolute(spec.clusters()));
    m.put("on bad record", spec.onBadRecord().toString());
    m.put("max record bytes", Integer.toString(spec.maxRecordBytes()));
    if (spec.streaming()) {
      m.put("streaming", "true"); // only when given: states of batch jobs stay as they were
    }
    return m;
  }

  @Override
  public void close() throws IOException {
    dir.close();
  }
}
