package dev.idem.engine.records;

import dev.idem.engine.input.InputFile;
import dev.idem.engine.input.LineReader;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * What a job has read of its inputs, as of the last record its checking thread handled: the CRC32C
 * of the input being read through that record, the length and CRC32C of each input read to its end,
 * and sampled blocks of each ({@link SampledBlocks}). Checkpoints keep it as {@link InputRead}s, so
 * that a resume can check that the inputs still hold what was read ({@link InputCheck}).
 *
 * <p>The running CRC32C costs the reading thread little because it is not computed record by
 * record: its {@link LineReader} adds bytes in the large ranges each buffer refill leaves behind,
 * and the value is noted in a batch only here and there (see {@link RecordSource}): after the last
 * record of each batch and of each input, and after any record whose bytes in the batch are not all
 * it consumed (one too long to keep, the first after a header line that was skipped). The CRC32C
 * through any other record follows from the last note before it and the record bytes the batch
 * holds in between; this class works it out, on the checking thread, when a checkpoint asks.
 */
public final class InputReads {

  private final List<InputFile> inputs;

  /** Per input read to its end: its length and CRC32C (-1: unknown); -1 bytes: not ended. */
  private final long[] endBytes;

  private final long[] endCrc;

  /** The CRC32C of input anchorFile through anchorOffset: the last record of a batch recycled. */
  private int anchorFile;

  private long anchorOffset;
  private long anchorCrc;

  /** The last record handled, while its batch is held ... */
  private RecordBatch batch;

  private int index;

  /** ... else where it ended and the CRC32C through it (-1: unknown). */
  private int file;

  private long offset;
  private long crc;
  private int sampledFile;
  private SampledBlocks samples;

  /**
   * @param before what the job read of input {@code startFile} before {@code startOffset}, or
   *     {@code null} when the state does not say (an older idem wrote it)
   */
  InputReads(List<InputFile> inputs, int startFile, long startOffset, InputRead before) {
    this.inputs = inputs;
    this.endBytes = new long[inputs.size()];
    this.endCrc = new long[inputs.size()];
    Arrays.fill(endBytes, -1);
    anchorFile = file = startFile;
    anchorOffset = offset = startOffset;
    anchorCrc = crc = startCrc(startOffset, before);
    sampledFile = startFile;
    samples = SampledBlocks.of(before);
  }

  /** The CRC32C of the first {@code offset} bytes according to {@code before}; -1: unknown. */
  static long startCrc(long offset, InputRead before) {
    return offset == 0 ? 0 : before != null && before.crc() != null ? before.crc() : -1;
  }

  /** A batch the checking thread takes: the inputs the reading thread saw end in it. */
  void taken(RecordBatch b) {
    for (RecordBatch.InputEnd e : b.ended) {
      endBytes[e.file()] = e.bytes();
      endCrc[e.file()] = e.crc();
    }
  }

  /** The checking thread is done with record {@code i} of {@code b}. */
  public void handled(RecordBatch b, int i) {
    batch = b;
    index = i;
  }

  /** {@code b} goes back to the reading thread: keep what later records need of it. */
  void recycled(RecordBatch b) {
    if (b.count == 0) {
      return;
    }
    if (batch == b) {
      file = b.fileIndex[index];
      offset = b.endOffset[index];
      crc = crcThrough(b, index);
      batch = null;
    }
    int last = b.count - 1;
    long lastCrc = crcThrough(b, last); // noted by the reading thread: no bytes to add
    anchorFile = b.fileIndex[last];
    anchorOffset = b.endOffset[last];
    anchorCrc = lastCrc;
  }

  /** What was read of the input being read, through the last record handled. */
  public InputRead current() {
    int f = batch != null ? batch.fileIndex[index] : file;
    long o = batch != null ? batch.endOffset[index] : offset;
    long c = batch != null ? crcThrough(batch, index) : crc;
    if (sampledFile != f) {
      sampledFile = f;
      samples = new SampledBlocks();
    }
    InputFile in = inputs.get(f);
    if (!isCompressed(in)) { // a compressed file's stored bytes read so far are not known exactly
      samples.extendTo(Path.of(in.path()), o);
    }
    return read(in, o, c, samples);
  }

  /** What was read of input {@code f}, which the job read to its end. */
  public InputRead ended(int f) {
    if (endBytes[f] < 0) {
      throw new IllegalStateException("input " + f + " has not been read to its end");
    }
    InputFile in = inputs.get(f);
    SampledBlocks s = f == sampledFile ? samples : new SampledBlocks();
    s.extendTo(Path.of(in.path()), in.size());
    return read(in, endBytes[f], endCrc[f], s);
  }

  /** The key of the state's meta value that holds {@link #ended} of input {@code f}. */
  public static String metaKey(int f) {
    return "input-" + f;
  }

  static boolean isCompressed(InputFile in) {
    try {
      return in.compression().isCompressed();
    } catch (IOException e) {
      return false; // unreadable now: the check that reads it says so
    }
  }

  private static InputRead read(InputFile in, long bytes, long crc, SampledBlocks s) {
    return new InputRead(
        bytes, crc < 0 ? null : crc, s.stride(), s.blocks(), in.modified(), in.fileKey());
  }

  /**
   * The CRC32C of record {@code i}'s input through its end: from the nearest note at or before it
   * in the batch (or the anchor, or the input's start) plus the record bytes in between, which are
   * exactly the input's bytes there, since a record without all its bytes is noted.
   */
  private long crcThrough(RecordBatch b, int i) {
    int f = b.fileIndex[i];
    int j = i;
    while (j >= 0 && b.fileIndex[j] == f && b.crcAfter[j] < 0) {
      j--;
    }
    long base;
    if (j >= 0 && b.fileIndex[j] == f) {
      base = b.crcAfter[j];
    } else if (j < 0 && anchorFile == f) {
      base = anchorCrc;
    } else {
      base = 0; // the input began in this batch, at its first record, not noted: nothing before
    }
    int from = j + 1;
    if (base < 0 || from > i) {
      return base;
    }
    int start = b.start[from];
    int length = b.start[i] + b.contentLength[i] + b.terminatorLength[i] - start;
    CRC32C between = new CRC32C();
    between.update(b.arena, start, length);
    return Crc32c.combine(base, between.getValue(), length);
  }
}
