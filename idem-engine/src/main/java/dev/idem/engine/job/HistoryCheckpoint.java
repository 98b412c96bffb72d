package dev.idem.engine.job;

import dev.idem.engine.JobException;
import dev.idem.engine.records.InputRead;
import dev.idem.engine.run.JobIdentity;
import dev.idem.engine.run.StateFile;
import dev.idem.engine.state.Checkpoint;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * Where a run over a history stands, committed with its kept keys as the history's commit token
 * (the library's {@link dev.idem.engine.DurableDeduplicator#commit(byte[])}), in the job kernel's
 * state encoding ({@link StateFile}). The keys in the history are exactly those of the runs before
 * plus this run's up to {@code checkpoint}, whose output marks say how far the run's outputs stand
 * for them: a resume cuts the outputs back to those marks and reads on from its position.
 *
 * @param identity the run: its inputs when it began, and the settings that decide its output
 * @param run the run's number in this history, from 1
 * @param started when the run began (ISO-8601), for messages
 * @param checkpoint the dedup job's checkpoint: position, output marks, counts, {@code complete}
 * @param ended what the run read of each input before {@code checkpoint.fileIndex()}, read to its
 *     end, for a resume to check those inputs
 */
record HistoryCheckpoint(
    JobIdentity identity, long run, String started, Checkpoint checkpoint, List<InputRead> ended) {

  /** The kind of job in the identity and the token's header. */
  static final String JOB = "history-run";

  static final int VERSION = 1;

  HistoryCheckpoint {
    ended = ended == null ? List.of() : List.copyOf(ended);
  }

  byte[] encode() {
    return StateFile.encode(JOB, VERSION, this);
  }

  boolean complete() {
    return checkpoint.complete();
  }

  /** This run, later: at {@code cp}, with {@code ended} read. */
  HistoryCheckpoint at(Checkpoint cp, List<InputRead> ended) {
    return new HistoryCheckpoint(identity, run, started, cp, ended);
  }

  /**
   * The checkpoint in {@code token}; {@code history} names it in errors.
   *
   * @throws JobException when the token is not a history run's (the directory is another program's
   *     durable set)
   * @throws IOException when it is damaged
   */
  static HistoryCheckpoint decode(Path history, byte[] token) throws IOException {
    if (token.length == 0 || token[0] == '{' || !startsWithStateHeader(token)) {
      throw notAHistory(history);
    }
    StateFile.Contents c;
    try {
      c = StateFile.decode(history, token, JOB, VERSION);
    } catch (JobException e) {
      throw notAHistory(history);
    }
    return c.as(HistoryCheckpoint.class);
  }

  private static boolean startsWithStateHeader(byte[] token) {
    byte[] magic = "idem-state ".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    if (token.length < magic.length) {
      return false;
    }
    for (int i = 0; i < magic.length; i++) {
      if (token[i] != magic[i]) {
        return false;
      }
    }
    return true;
  }

  private static JobException notAHistory(Path history) {
    return new JobException(
        history
            + " is a durable set whose commits carry another program's token (a Parquet job's "
            + "--state, or a worker's): give --history a directory of its own");
  }

  /** A short description of the run for messages: its number, start, inputs and output. */
  String describe() {
    List<String> names =
        identity.inputs().stream().map(dev.idem.engine.input.InputFile::path).toList();
    String inputs =
        names.size() <= 3
            ? String.join(", ", names)
            : String.join(", ", names.subList(0, 3)) + " and " + (names.size() - 3) + " more";
    return "run "
        + run
        + " (begun "
        + started
        + ", over "
        + inputs
        + ", writing "
        + identity.settings().get("output")
        + ")";
  }
}
