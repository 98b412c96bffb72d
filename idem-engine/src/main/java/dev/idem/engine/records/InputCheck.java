package dev.idem.engine.records;

import dev.idem.engine.JobException;
import dev.idem.engine.input.InputFile;
import dev.idem.engine.input.Inputs;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32C;

/**
 * Whether a resumed job's inputs still hold what it read of them. Its output so far was made from
 * those bytes; reading on over changed ones would mix old input and new without a word. What the
 * job read of each input is in its checkpoints ({@link InputRead}): how many bytes, their CRC32C,
 * sampled blocks, and the file's modification time and file key when it was read.
 *
 * <ul>
 *   <li>Only what was read counts: an input's bytes past that (the rest of the input being read,
 *       the inputs not begun) are read as they are now, so the output is that of the inputs as they
 *       are when the job ends. Sizes and the first 64 KiB, compared for every input by {@code
 *       Manifest.differencesFrom}, are stricter: they must not change at all.
 *   <li>{@link VerifyInputs#SAMPLE}, the default: the sampled blocks are read again and compared. A
 *       new modification time or file key alone is not a difference, since copying a state and its
 *       inputs elsewhere or {@code touch} changes them and not the content; it is a cue to check
 *       that input in full, with a note saying so. The compressed input being read is checked in
 *       full too, since a resume decompresses its part read anyway to get past it.
 *   <li>{@link VerifyInputs#FULL}: everything read is read again and compared with its CRC32C.
 * </ul>
 *
 * <p>The input being read is checked in full by {@link RecordSource} as it passes over the part
 * read ({@link Outcome#verifyStart}), the others here. Any difference refuses the resume with a
 * {@link JobException} naming each input and what differs.
 */
public final class InputCheck {

  /**
   * What a resume that passed the check must know.
   *
   * @param verifyStart whether the reading thread must check the part of the input being read that
   *     was read before against its CRC32C, as it passes over it
   * @param notes what the user should know: inputs modified since, checked in full
   * @param warnings what could not be checked (states of older versions keep no checksums)
   * @param vouched by input index: inputs read to their end that were modified since (time or key)
   *     and checked in full here, found as read; what was read of them with the time and key they
   *     have now, to keep instead, so that the next resume need not read them again
   */
  public record Outcome(
      boolean verifyStart,
      List<String> notes,
      List<String> warnings,
      Map<Integer, InputRead> vouched) {}

  /** Where the {@link InputRead}s of the inputs a job read to their end are kept. */
  @FunctionalInterface
  public interface Ended {
    /** What the job read of input {@code file}, or {@code null} when not recorded. */
    InputRead read(int file) throws IOException;
  }

  private InputCheck() {}

  /**
   * Checks the inputs of a job about to resume from input {@code fileIndex}, byte {@code offset}.
   *
   * @param started the inputs as the job's manifest has them (when the state was created)
   * @param now the inputs as they are
   * @param current what was read of input {@code fileIndex} ({@code null}: not recorded)
   * @param ended what was read of an input before it ({@code null}: not recorded)
   * @throws JobException naming each input whose content read differs now
   */
  public static Outcome run(
      List<InputFile> started,
      List<InputFile> now,
      int fileIndex,
      long offset,
      InputRead current,
      Ended ended,
      VerifyInputs mode)
      throws IOException {
    List<String> differences = new ArrayList<>();
    List<String> notes = new ArrayList<>();
    List<String> warnings = new ArrayList<>();
    Map<Integer, InputRead> vouched = new TreeMap<>();
    boolean verifyStart = false;
    for (int f = 0; f <= fileIndex && f < now.size(); f++) {
      boolean reading = f == fileIndex;
      if (reading && offset == 0) {
        break;
      }
      InputRead read = reading ? current : ended.read(f);
      InputFile is = now.get(f);
      String changed =
          read != null && read.modified() != null
              ? modification(read.modified(), read.fileKey(), is)
              : modification(started.get(f).modified(), started.get(f).fileKey(), is);
      boolean full = mode == VerifyInputs.FULL || changed != null;
      boolean hasCrc = read != null && read.crc() != null;
      if (full && !hasCrc) {
        warnings.add(
            is.path()
                + ": not checked in full: the job began reading it under an "
                + "idem version that kept no checksum of what it read"
                + (changed != null ? " (and it was modified since: " + changed + ")" : ""));
      } else if (changed != null) {
        notes.add(
            String.format(
                Locale.ROOT,
                "%s: modified since the job read it (%s); "
                    + "checking the %,d bytes it read in full",
                is.path(),
                changed,
                reading ? offset : read.bytes()));
      }
      String sampled =
          read == null
              ? null
              : SampledBlocks.firstDifference(Path.of(is.path()), read.stride(), read.blocks());
      if (sampled != null) {
        differences.add(is.path() + ": " + sampled + " differ from what the job read");
      } else if (hasCrc && reading) {
        verifyStart = full || InputReads.isCompressed(is);
      } else if (hasCrc && full) {
        String d = wholeDifference(is, read);
        if (d != null) {
          differences.add(d);
        } else if (changed != null) {
          vouched.put(
              f,
              new InputRead(
                  read.bytes(),
                  read.crc(),
                  read.stride(),
                  read.blocks(),
                  is.modified(),
                  is.fileKey()));
        }
      }
    }
    if (!differences.isEmpty()) {
      throw refusal(differences);
    }
    return new Outcome(verifyStart, notes, warnings, vouched);
  }

  /** The refusal of a resume over inputs that differ as {@code differences} say. */
  public static JobException refusal(List<String> differences) {
    return new JobException(
        "inputs changed since the job read them:\n  "
            + String.join("\n  ", differences)
            + "\nthe output so far was made from what the job read: put those inputs back to "
            + "resume it, or start over with a new --state directory (for split, an empty output "
            + "directory)");
  }

  /**
   * How {@code now}'s modification time or file key differs from those recorded, or {@code null}
   * when neither is known to differ.
   */
  private static String modification(String modified, String fileKey, InputFile now) {
    List<String> d = new ArrayList<>();
    if (modified != null && !modified.equals(now.modified())) {
      d.add("modification time " + modified + " -> " + now.modified());
    }
    if (fileKey != null && !fileKey.equals(now.fileKey())) {
      d.add("file key " + fileKey + " -> " + now.fileKey());
    }
    return d.isEmpty() ? null : String.join(", ", d);
  }

  /** How all of {@code input} differs from the bytes the job read of it, or {@code null}. */
  private static String wholeDifference(InputFile input, InputRead read) throws IOException {
    CRC32C crc = new CRC32C();
    long bytes = 0;
    try (InputStream in = Inputs.open(input.path(), InputStream.nullInputStream())) {
      byte[] buf = new byte[1 << 16];
      for (int n; (n = in.read(buf)) > 0; ) {
        crc.update(buf, 0, n);
        bytes += n;
      }
    }
    if (bytes != read.bytes()) {
      return String.format(
          Locale.ROOT,
          "%s: holds %,d bytes%s now, the job read %,d",
          input.path(),
          bytes,
          InputReads.isCompressed(input) ? " decompressed" : "",
          read.bytes());
    }
    if (crc.getValue() != read.crc()) {
      return String.format(
          Locale.ROOT, "%s: its %,d bytes differ from the ones the job read", input.path(), bytes);
    }
    return null;
  }
}
