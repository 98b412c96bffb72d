package dev.idem.engine.run;

import dev.idem.engine.records.InputRead;
import java.util.List;

/**
 * Where a job stands in its inputs, as a checkpoint keeps it: the position just after the last
 * record it handled, and what it read of each input up to there, for a resume to check that the
 * inputs still hold it ({@link ResumableRun#checkInputs}).
 *
 * @param fileIndex the input being read
 * @param offset bytes of it consumed (decompressed, for a compressed input)
 * @param line lines of it consumed
 * @param current what was read of input {@code fileIndex} through {@code offset}; {@code null} in
 *     states written before idem kept it
 * @param ended what was read of each input before {@code fileIndex}, read to its end ({@code null}
 *     entries for inputs read under an idem that kept none)
 */
public record InputPosition(
    int fileIndex, long offset, long line, InputRead current, List<InputRead> ended) {

  /** The start of the first input. */
  public static final InputPosition START = new InputPosition(0, 0, 0, null, List.of());

  public InputPosition {
    ended =
        ended == null
            ? List.of()
            : java.util.Collections.unmodifiableList(new java.util.ArrayList<>(ended));
  }

  /** Every input read to its end, as {@code ended} says: a job that judged all of them first. */
  public static InputPosition allRead(List<InputRead> ended) {
    return new InputPosition(ended.size(), 0, 0, null, ended);
  }
}
