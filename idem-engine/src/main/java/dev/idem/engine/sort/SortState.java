package dev.idem.engine.sort;

import dev.idem.engine.JobException;
import dev.idem.engine.records.InputFile;
import dev.idem.engine.records.OutputFile;
import dev.idem.engine.state.Json;
import dev.idem.engine.state.StateDirectory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The state directory of a resumable sort-dedup ({@code --state DIR}): its sorted runs in {@code
 * runs/} and {@code SORT-DEDUP.json}, the last checkpoint, replaced atomically.
 *
 * <p>A checkpoint names every run that holds data still to merge, all synced to disk before it is
 * written; runs it no longer names are deleted after it ({@link RunDirectory#deleteMerged}). While
 * reading, it is taken after each run is spilled and holds the input position after the last record
 * in the runs, the counts, and the quarantine file's length; a resume cuts the quarantine back and
 * reads on from there. While merging, it is taken after each merge of a group of runs; a resume
 * merges what it names, so only the merge a kill interrupted is redone. The last merge writes the
 * output, which a resume writes again from its start; the job's last checkpoint says it is done and
 * how long the output is.
 */
final class SortState implements AutoCloseable {

  static final String FILE = "SORT-DEDUP.json";

  /** Where a job is. */
  enum Phase {
    /** Reading the inputs into runs by key. */
    READING,
    /** All read: merging the runs by key. */
    MERGING,
    /** Input order: the survivors are in runs by input position. */
    POSITIONS,
    /** The output is written. */
    DONE
  }

  /** A run a checkpoint names, by its file name in {@code runs/}. */
  record Run(String file, RunKind kind, long entries, long bytes) {}

  /** A checkpoint. {@code job} is what the command asked, compared on every resume. */
  record Progress(
      Map<String, String> job,
      Phase phase,
      int fileIndex,
      long offset,
      long line,
      long ordinal,
      long records,
      long blankLines,
      long badRecords,
      long bytesSeen,
      long quarantineBytes,
      Long quarantineTail,
      byte[] header,
      List<Run> runs,
      long kept,
      long outputBytes) {

    static Progress start(Map<String, String> job) {
      return new Progress(
          job, Phase.READING, 0, 0, 0, 0, 0, 0, 0, 0, 0, null, null, List.of(), 0, 0);
    }
  }

  private final StateDirectory dir;
  private final Progress resumed;

  private SortState(StateDirectory dir, Progress resumed) {
    this.dir = dir;
    this.resumed = resumed;
  }

  /**
   * Opens (creating) the state at {@code path} and takes its lock; refuses a state of another
   * command, naming what differs.
   */
  static SortState open(Path path, Map<String, String> job) throws IOException {
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
        Set<String> differ = new TreeSet<>(job.keySet());
        differ.addAll(p.job().keySet());
        Progress was = p;
        differ.removeIf(k -> java.util.Objects.equals(job.get(k), was.job().get(k)));
        if (!differ.isEmpty()) {
          throw new JobException(
              path
                  + " is the state of another sort-dedup: "
                  + differ.stream()
                      .map(k -> k + " was " + was.job().get(k) + ", now " + job.get(k))
                      .collect(Collectors.joining("; "))
                  + ". Run the same command to resume, or give a new --state");
        }
      }
      SortState s = new SortState(dir, p);
      if (p == null) {
        s.write(Progress.start(job)); // before runs/: a state is never without its file
      }
      return s;
    } catch (IOException | RuntimeException e) {
      dir.close();
      throw e;
    }
  }

  /** The checkpoint the job resumes from, or {@code null} for a new job. */
  Progress resumed() {
    return resumed;
  }

  Path runs() {
    return dir.path().resolve("runs");
  }

  /** Writes a checkpoint atomically. */
  void write(Progress p) throws IOException {
    dir.writeAtomically(FILE, Json.write(p));
  }

  /** The runs a checkpoint names, as files. */
  List<RunFile> runFiles(Progress p) {
    List<RunFile> out = new ArrayList<>();
    for (Run r : p.runs()) {
      out.add(new RunFile(runs().resolve(r.file()), r.kind(), r.entries(), r.bytes()));
    }
    return out;
  }

  /** The run files a checkpoint names ({@code null}: none): the ones a resume keeps. */
  Set<Path> runPaths(Progress p) {
    Set<Path> paths = new java.util.HashSet<>();
    if (p != null) {
      runFiles(p).forEach(r -> paths.add(r.path()));
    }
    return paths;
  }

  /** What a command asked that decides its output: a resume must ask the same. */
  static Map<String, String> identity(SortDedupSpec spec, List<InputFile> inputs) {
    Map<String, String> m = new java.util.TreeMap<>();
    m.put(
        "inputs",
        inputs.stream()
            .map(f -> f.path() + " (" + f.size() + " bytes, head CRC32C " + f.headCrc() + ")")
            .collect(Collectors.joining(", ")));
    m.put("format", spec.format().toString());
    m.put("key", spec.key().describe());
    m.put("header", Boolean.toString(spec.header()));
    m.put("normalize", spec.normalizer().spec());
    m.put("seed", Long.toString(spec.seed()));
    m.put("exact key", Boolean.toString(spec.exactKey()));
    m.put("memory", Long.toString(spec.memoryBytes()));
    m.put("keep", spec.keep().toString());
    m.put("order", spec.order().toString());
    m.put("output", OutputFile.absolute(spec.output()));
    m.put("max record bytes", Integer.toString(spec.maxRecordBytes()));
    return m;
  }

  static List<Run> named(List<RunFile> runs) {
    List<Run> out = new ArrayList<>();
    for (RunFile r : runs) {
      out.add(new Run(r.path().getFileName().toString(), r.kind(), r.entries(), r.bytes()));
    }
    return out;
  }

  @Override
  public void close() throws IOException {
    dir.close();
  }
}
