package dev.idem.engine.run;

import dev.idem.engine.JobException;
import dev.idem.engine.records.InputCheck;
import dev.idem.engine.records.InputRead;
import dev.idem.engine.records.InputReads;
import dev.idem.engine.records.RecordBatch;
import java.util.ArrayList;
import java.util.List;

/**
 * A job's {@link InputPosition}, kept up to date record by record as it handles the batches of a
 * {@code RecordSource.tracking} source: a checkpoint asks it where the job stands and what it read.
 */
public final class InputCursor {

  private final InputReads reads;
  private final int inputs;
  private final List<InputRead> ended;
  private int fileIndex;
  private long offset;
  private long line;

  /** A position this read must pass through with the same bytes read, or {@code null}. */
  private InputPosition expected;

  /**
   * A cursor at {@code start}, over what {@code reads} (the source's) tracks from there, in a job
   * of {@code inputs} inputs.
   */
  public InputCursor(InputReads reads, InputPosition start, int inputs) {
    this.reads = reads;
    this.inputs = inputs;
    this.ended = new ArrayList<>(start.ended());
    while (ended.size() < start.fileIndex()) {
      ended.add(null); // read to its end under an idem that did not keep what it read
    }
    this.fileIndex = start.fileIndex();
    this.offset = start.offset();
    this.line = start.line();
  }

  /** The job has handled record {@code i} of {@code batch}, whatever it made of it. */
  public void handled(RecordBatch batch, int i) throws JobException {
    fileIndex = batch.fileIndex[i];
    offset = batch.endOffset[i];
    line = batch.endLine[i];
    reads.handled(batch, i);
    if (expected != null
        && (fileIndex > expected.fileIndex()
            || (fileIndex == expected.fileIndex() && offset >= expected.offset()))) {
      InputPosition e = expected;
      expected = null;
      check(e);
    }
  }

  /**
   * Makes this read, which starts before {@code earlier}, refuse to go past it unless it read there
   * what was read the first time: a job that reads its inputs again from their start to get back to
   * a checkpoint (near-dup's streaming resume) checks them as it passes, for nothing.
   */
  public void expect(InputPosition earlier) {
    expected = earlier.offset() == 0 && earlier.fileIndex() == 0 ? null : earlier;
  }

  private void check(InputPosition earlier) throws JobException {
    InputPosition now = position();
    List<String> differences = new ArrayList<>();
    if (now.fileIndex() != earlier.fileIndex() || now.offset() != earlier.offset()) {
      differences.add(
          "input "
              + (earlier.fileIndex() + 1)
              + ": no record ends where the job's last checkpoint did (byte "
              + earlier.offset()
              + ")");
    } else {
      for (int f = 0; f < earlier.fileIndex() && f < earlier.ended().size(); f++) {
        InputRead was = earlier.ended().get(f);
        if (was != null && was.crc() != null && !was.crc().equals(now.ended().get(f).crc())) {
          differences.add("input " + (f + 1) + ": its bytes differ from the ones the job read");
        }
      }
      InputRead was = earlier.current();
      if (was != null
          && was.crc() != null
          && now.current() != null
          && !was.crc().equals(now.current().crc())) {
        differences.add(
            "input "
                + (earlier.fileIndex() + 1)
                + ": its first "
                + earlier.offset()
                + " bytes differ from the ones the job read");
      }
    }
    if (!differences.isEmpty()) {
      throw InputCheck.refusal(differences);
    }
  }

  /** Where the job stands: just after the last record handled. */
  public InputPosition position() {
    while (ended.size() < fileIndex) { // the inputs before the one being read: read to their end
      ended.add(reads.ended(ended.size()));
    }
    return new InputPosition(fileIndex, offset, line, reads.current(), ended);
  }

  /**
   * Every input read to its end, once the source has ended: what a job that goes on from all its
   * inputs (merging, writing a judgement) checks on resume ({@link InputPosition#allRead}).
   */
  public InputPosition finalPosition() {
    while (ended.size() < inputs) {
      ended.add(reads.ended(ended.size()));
    }
    return InputPosition.allRead(ended);
  }
}
