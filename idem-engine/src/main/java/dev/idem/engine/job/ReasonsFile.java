package dev.idem.engine.job;

import dev.idem.engine.input.InputFile;
import dev.idem.engine.output.OutputFile;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Why each record of {@code --on-bad-record quarantine=FILE} was bad: {@code FILE.reasons.tsv}, one
 * line per bad record the job met under that policy, in input order, as {@code
 * INPUT<TAB>LINE<TAB>REASON} (the input as named on the command line, the line where the record
 * starts, the problem; tabs and line breaks in a name or reason become spaces). The quarantine file
 * holds the records as read, so that it can be fixed and fed again; this one says where each came
 * from and what was wrong. A record too long to quarantine has its line here all the same.
 *
 * <p>Exactly once across resumes, like the quarantine file, without a place in the checkpoint: each
 * line names its record's position, so a resumed job keeps the lines of the records before its
 * checkpoint's position and cuts the rest, then appends. Each checkpoint flushes and syncs it with
 * the outputs, before it commits, so a line of a record before the position is never lost.
 */
final class ReasonsFile implements AutoCloseable {

  private final OutputFile file;

  private ReasonsFile(OutputFile file) {
    this.file = file;
  }

  /** The sidecar of the quarantine file {@code quarantine}. */
  static Path of(Path quarantine) {
    return quarantine.resolveSibling(quarantine.getFileName() + ".reasons.tsv");
  }

  /**
   * Opens the sidecar of {@code quarantine}: new (emptied) for a job that starts its quarantine
   * file anew, else cut back to the lines of the records before {@code start}'s position.
   */
  static ReasonsFile open(
      Path quarantine, boolean resume, List<InputFile> inputs, long fileIndex, long line)
      throws IOException {
    Path path = of(quarantine);
    if (!resume) {
      return new ReasonsFile(OutputFile.open(path));
    }
    return new ReasonsFile(OutputFile.open(path, keptBytes(path, inputs, fileIndex, line), null));
  }

  /**
   * The length of the lines at the start of {@code path} whose records lie before input {@code
   * fileIndex}'s line {@code line + 1}: those a run that got that far wrote. A line that names no
   * input in order, or lacks its line break (a write a kill cut short), ends them.
   */
  static long keptBytes(Path path, List<InputFile> inputs, long fileIndex, long line)
      throws IOException {
    if (!Files.isRegularFile(path)) {
      return 0;
    }
    long kept = 0;
    int input = 0;
    try (InputStream in = new BufferedInputStream(Files.newInputStream(path))) {
      ByteArrayOutputStream current = new ByteArrayOutputStream();
      int b;
      while ((b = in.read()) >= 0) {
        current.write(b);
        if (b != '\n') {
          continue;
        }
        String[] fields = current.toString(StandardCharsets.UTF_8).split("\t", 3);
        if (fields.length < 3 || !fields[1].matches("[0-9]{1,18}")) {
          return kept;
        }
        while (input < inputs.size() && !clean(inputs.get(input).path()).equals(fields[0])) {
          input++;
        }
        long at = Long.parseLong(fields[1]);
        if (input == inputs.size() || input > fileIndex || (input == fileIndex && at > line)) {
          return kept;
        }
        kept += current.size();
        current.reset();
      }
    }
    return kept;
  }

  /** Adds the line of a bad record to the sidecar {@code file}. */
  static void write(OutputFile file, String input, long line, String reason) throws IOException {
    byte[] b =
        (clean(input) + "\t" + line + "\t" + clean(reason) + "\n").getBytes(StandardCharsets.UTF_8);
    file.write(b, 0, b.length);
  }

  /** The file, for the checkpoint to flush and sync with the outputs. */
  OutputFile file() {
    return file;
  }

  private static String clean(String s) {
    return s.replace('\t', ' ').replace('\n', ' ').replace('\r', ' ');
  }

  @Override
  public void close() throws IOException {
    file.close();
  }
}
