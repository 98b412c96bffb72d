package dev.idem.engine.records;

import dev.idem.core.Fingerprinter;
import dev.idem.engine.JobException;
import dev.idem.engine.input.InputFile;
import dev.idem.engine.input.Inputs;
import dev.idem.engine.input.LineReader;
import java.io.EOFException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;

/**
 * The reading side of a job, on its own thread: opens the inputs in order from a position, splits
 * records, extracts keys and fingerprints them, and hands batches to the checking thread through a
 * small queue, so reading, decompressing and parsing overlap with checking and writing while the
 * order stays the input order. With {@link Settings#parsers} above one, the reading thread only
 * splits records, and parsing threads extract and fingerprint a whole batch each; the queue holds
 * the batches' futures in input order, so the checking thread still takes them in that order.
 *
 * <p>A source made by {@link #tracking} also keeps what the job read ({@link #reads()}): the
 * reading thread keeps a running CRC32C of each input and notes it in the batches where the
 * checking thread will need it ({@link InputReads} says where); and it can check the part of the
 * first input a resumed job read before against its checksum as it passes over it, which for a
 * compressed input, read anyway to get past it, costs nothing more.
 *
 * <p>Why it is long: it owns the reading thread, the parsing threads and the queue to the checking
 * thread; starting at a position, handing over batches in input order, and stopping (a failure on
 * any thread surfaces once, on the checking thread) are one protocol between them, kept in one
 * place.
 */
public final class RecordSource implements AutoCloseable {

  /**
   * Everything that decides how records are read.
   *
   * @param time where each record's event time is, or {@code null} (no event times)
   * @param parsers threads that extract and fingerprint keys, a batch each; 1: the reading thread
   *     does it
   */
  public record Settings(
      RecordFormat format,
      boolean header,
      KeyExtractor extractor,
      Fingerprinter fingerprinter,
      boolean fullKeys,
      int maxRecordBytes,
      TimeField time,
      int parsers) {

    public Settings {
      if (parsers < 1) {
        throw new IllegalArgumentException("parsers must be at least 1, got " + parsers);
      }
    }

    public Settings(
        RecordFormat format,
        boolean header,
        KeyExtractor extractor,
        Fingerprinter fingerprinter,
        boolean fullKeys,
        int maxRecordBytes,
        TimeField time) {
      this(format, header, extractor, fingerprinter, fullKeys, maxRecordBytes, time, 1);
    }

    public Settings(
        RecordFormat format,
        boolean header,
        KeyExtractor extractor,
        Fingerprinter fingerprinter,
        boolean fullKeys,
        int maxRecordBytes) {
      this(format, header, extractor, fingerprinter, fullKeys, maxRecordBytes, null, 1);
    }

    /** These settings with {@code n} parsing threads. */
    public Settings withParsers(int n) {
      return new Settings(
          format, header, extractor, fingerprinter, fullKeys, maxRecordBytes, time, n);
    }
  }

  /** The field or column that holds a record's event time, and how it is written. */
  public record TimeField(KeyExtractor extractor, EventTime format) {}

  private final List<InputFile> inputs;
  private final Settings settings;
  private final InputStream stdin;

  /** Batches in flight: filling, queued and being checked. */
  public static final int BATCHES = 5;

  /** Batches in input order, each done once parsed (at once when the reading thread parses). */
  private final BlockingQueue<Future<RecordBatch>> ready;

  private final BlockingQueue<RecordBatch> free;

  /** The reading thread's parser. */
  private final RecordParser parser;

  /** Each parsing thread's own parser (extractors reuse buffers). */
  private final ThreadLocal<RecordParser> parserOfThread;

  /** Threads that parse whole batches, or {@code null}: the reading thread parses. */
  private final ExecutorService parsing;

  private final Thread thread;
  private final int startFile;
  private final long startOffset;
  private final long startLine;

  /** What the job has read, or {@code null} when it does not keep track. */
  private final InputReads reads;

  /** The CRC32C of the first input's bytes before startOffset, -1 if unknown. */
  private final long startCrc;

  /** Whether to check startCrc against the first input rather than skip over it. */
  private final boolean verifyStart;

  private volatile long rawBytesRead;
  private volatile boolean stopped;

  /** Open once the reading thread stands at the start position, or has failed to get there. */
  private final CountDownLatch atStart = new CountDownLatch(1);

  /** How much of the first input's bytes before the start position have been checked. */
  private volatile long startChecked;

  public RecordSource(
      List<InputFile> inputs,
      Settings settings,
      InputStream stdin,
      int startFile,
      long startOffset,
      long startLine) {
    this(
        inputs,
        settings,
        stdin,
        startFile,
        startOffset,
        startLine,
        RecordBatch.TARGET_BYTES,
        RecordBatch.MAX_RECORDS);
  }

  /**
   * A source whose batches hold about {@code batchBytes} bytes and at most {@code batchRecords}
   * records each; {@link #BATCHES} of them exist at once.
   */
  public RecordSource(
      List<InputFile> inputs,
      Settings settings,
      InputStream stdin,
      int startFile,
      long startOffset,
      long startLine,
      int batchBytes,
      int batchRecords) {
    this(
        inputs,
        settings,
        stdin,
        startFile,
        startOffset,
        startLine,
        batchBytes,
        batchRecords,
        false,
        null,
        false);
  }

  /**
   * A source that also keeps what the job reads ({@link #reads()}), for a job that checkpoints.
   *
   * @param before what the job read of input {@code startFile} before {@code startOffset}, or
   *     {@code null} when its state does not say (an older idem wrote it)
   * @param verify read that part again and refuse the input ({@link JobException}) unless it still
   *     has the checksum in {@code before}, rather than skip over it
   */
  public static RecordSource tracking(
      List<InputFile> inputs,
      Settings settings,
      int startFile,
      long startOffset,
      long startLine,
      InputRead before,
      boolean verify) {
    return tracking(
        inputs,
        settings,
        startFile,
        startOffset,
        startLine,
        before,
        verify,
        RecordBatch.TARGET_BYTES,
        RecordBatch.MAX_RECORDS);
  }

  /** {@link #tracking} with batches of a given size. */
  public static RecordSource tracking(
      List<InputFile> inputs,
      Settings settings,
      int startFile,
      long startOffset,
      long startLine,
      InputRead before,
      boolean verify,
      int batchBytes,
      int batchRecords) {
    return new RecordSource(
        inputs,
        settings,
        InputStream.nullInputStream(),
        startFile,
        startOffset,
        startLine,
        batchBytes,
        batchRecords,
        true,
        before,
        verify);
  }

  private RecordSource(
      List<InputFile> inputs,
      Settings settings,
      InputStream stdin,
      int startFile,
      long startOffset,
      long startLine,
      int batchBytes,
      int batchRecords,
      boolean track,
      InputRead before,
      boolean verifyStart) {
    this.reads = track ? new InputReads(inputs, startFile, startOffset, before) : null;
    this.startCrc = track ? InputReads.startCrc(startOffset, before) : -1;
    this.verifyStart = verifyStart && startOffset > 0 && startCrc >= 0;
    this.inputs = inputs;
    this.settings = settings;
    this.stdin = stdin;
    this.startFile = startFile;
    this.startOffset = startOffset;
    this.startLine = startLine;
    int parsers = settings.parsers();
    int batches = BATCHES + 2 * (parsers - 1); // each parser has one to parse and one queued
    this.ready = new ArrayBlockingQueue<>(batches);
    this.free = new ArrayBlockingQueue<>(batches);
    for (int i = 0; i < batches; i++) {
      free.add(new RecordBatch(batchBytes, batchRecords));
    }
    this.parser = new RecordParser(settings, false);
    if (parsers > 1) {
      ThreadLocal<RecordParser> own =
          ThreadLocal.withInitial(() -> new RecordParser(settings, true));
      this.parsing =
          Executors.newFixedThreadPool(
              parsers,
              r -> {
                Thread t =
                    new Thread(
                        () -> {
                          try {
                            r.run();
                          } finally {
                            own.remove();
                          }
                        },
                        "idem-parser");
                t.setDaemon(true);
                return t;
              });
      this.parserOfThread = own;
    } else {
      this.parsing = null;
      this.parserOfThread = null;
    }
    this.thread = new Thread(this::run, "idem-reader");
    thread.setDaemon(true);
    thread.start();
  }

  /** The next batch, in order; give it back with {@link #recycle} when done with it. */
  RecordBatch take() throws InterruptedException {
    try {
      return ready.take().get();
    } catch (ExecutionException e) {
      throw new IllegalStateException("parsing a batch failed", e.getCause()); // see handOff
    }
  }

  /** A full batch, parsed on a parsing thread when there are any; a failure goes in the batch. */
  private Future<RecordBatch> handOff(RecordBatch batch) {
    if (parsing == null || batch.failure != null) {
      return CompletableFuture.completedFuture(batch);
    }
    return parsing.submit(
        () -> {
          try {
            parserOfThread.get().parseAll(batch);
          } catch (RuntimeException | Error e) {
            batch.failure = e; // rethrown by next() in order, as the reading thread's are
          }
          return batch;
        });
  }

  /**
   * The next batch, or the reading thread's failure rethrown in order: a bad header or an
   * unreadable input as the {@link IOException} it was.
   */
  public RecordBatch next() throws IOException {
    RecordBatch batch;
    try {
      batch = take();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted");
    }
    if (batch.failure != null) {
      if (batch.failure instanceof Error e) {
        throw e;
      }
      throw batch.failure instanceof IOException io
          ? io
          : new IOException(batch.failure.getMessage(), batch.failure);
    }
    if (reads != null) {
      reads.taken(batch);
    }
    return batch;
  }

  /**
   * What the job read of its inputs as of the last record {@link InputReads#handled}, for a source
   * made by {@link #tracking}; {@code null} otherwise.
   */
  public InputReads reads() {
    return reads;
  }

  public void recycle(RecordBatch batch) {
    if (reads != null) {
      reads.recycled(batch);
    }
    batch.clear();
    free.offer(batch);
  }

  /**
   * Waits up to {@code millis} for the reading thread to stand at the start position, having
   * checked ({@link #startCheckBytes}) or skipped what lies before it; true when it does or failed
   * to (the failure comes with {@link #next}).
   */
  public boolean awaitStart(long millis) throws InterruptedException {
    return atStart.await(millis, TimeUnit.MILLISECONDS);
  }

  /**
   * How many bytes (uncompressed) of the first input a resumed job reads again before its start
   * position, to check they did not change: 0 when it skips them.
   */
  public long startCheckBytes() {
    return verifyStart ? startOffset : 0;
  }

  /** How many of the {@link #startCheckBytes} have been checked. */
  public long startChecked() {
    return startChecked;
  }

  /** Bytes read from the files as stored (compressed bytes for gzip or zstd): for progress. */
  public long rawBytesRead() {
    return rawBytesRead;
  }

  private void run() {
    RecordBatch batch = null;
    try {
      batch = free.take();
      byte[] firstHeader = null;
      for (int f = startFile; f < inputs.size() && !stopped; f++) {
        InputFile input = inputs.get(f);
        long offset = f == startFile ? startOffset : 0;
        long line = f == startFile ? startLine : 0;
        // the header was read before this input, or before this offset: it is the first line
        // of the first input that has one (empty inputs before it have no header either)
        int readBefore = offset > 0 ? f : f - 1;
        for (int h = 0; settings.header && firstHeader == null && h <= readBefore; h++) {
          firstHeader = readFirstLine(inputs.get(h));
          if (firstHeader != null) {
            configureHeader(firstHeader, inputs.get(h).path());
          }
        }
        boolean first = f == startFile;
        LineReader lines = openLines(input, offset, line, first && verifyStart ? startCrc : -1);
        atStart.countDown();
        Running running = reads == null ? null : new Running(lines, first ? startCrc : 0, offset);
        try (RecordReader records =
            new RecordReader(lines, settings.format == RecordFormat.CSV, settings.maxRecordBytes)) {
          if (settings.header && offset == 0) {
            if (!records.next()) {
              if (running != null) {
                running.ended(batch, f);
              }
              continue; // an empty file has no header either
            }
            byte[] header =
                Arrays.copyOfRange(
                    records.bytes(), records.offset(), records.offset() + records.length());
            if (firstHeader == null) {
              firstHeader = header;
              configureHeader(header, input.path());
              batch.add(
                  RecordBatch.HEADER,
                  records.bytes(),
                  records.offset(),
                  records.length(),
                  records.terminatorLength(),
                  f,
                  records.lineNumber(),
                  records.endOffset());
              batch.endLine(batch.count - 1, records.lineNumber());
              if (running != null) {
                running.added(batch);
              }
            } else if (!Arrays.equals(header, firstHeader)) {
              throw new IOException(
                  input.path()
                      + ": its header line differs from the first "
                      + "input's header; all inputs must have the same columns");
            }
          }
          while (!stopped && records.next()) {
            read(records, f, batch);
            if (running != null) {
              running.added(batch);
            }
            if (batch.isFull()) {
              if (running != null) {
                running.handOff(batch);
              }
              ready.put(handOff(batch));
              batch = free.take();
            }
          }
          if (running != null && !stopped) {
            running.ended(batch, f);
          }
        }
      }
      batch.endOfInput = !stopped;
      ready.put(handOff(batch));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception | Error e) {
      // an Error too (out of memory): the consumer must hear of it, or it waits forever
      if (batch != null && !stopped) {
        batch.failure = e;
        try {
          ready.put(handOff(batch));
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
        }
      }
    } finally {
      atStart.countDown(); // no input, or a failure before the start: nobody waits for it
    }
  }

  /**
   * The reading thread's running CRC32C of one input (from its start, though reading may have begun
   * later), noted in the batches where {@link InputReads} needs it.
   */
  private static final class Running {
    private final LineReader lines;

    /** The CRC32C of the bytes before {@code from}; -1 if unknown, and then nothing is noted. */
    private final long before;

    private final long from;

    /** Where the last record added ended. */
    private long end;

    Running(LineReader lines, long before, long from) {
      this.lines = lines;
      this.before = before;
      this.from = from;
      this.end = from;
      if (before >= 0) {
        lines.trackChecksum();
      }
    }

    private long crc() {
      return before < 0
          ? -1
          : Crc32c.combine(before, lines.checksum(), lines.bytesConsumed() - from);
    }

    /** After a record was added: noted if the batch does not hold all the bytes it consumed. */
    void added(RecordBatch b) {
      int i = b.count - 1;
      long consumed = b.endOffset[i] - end;
      end = b.endOffset[i];
      if (consumed != b.contentLength[i] + b.terminatorLength[i] && before >= 0) {
        b.crcAfter[i] = crc();
      }
    }

    /** The batch, whose last record is of this input, goes to the checking thread. */
    void handOff(RecordBatch b) {
      b.crcAfter[b.count - 1] = crc();
    }

    /** The input ended while {@code b} was being filled. */
    void ended(RecordBatch b, int file) {
      long crc = crc();
      if (b.count > 0 && b.fileIndex[b.count - 1] == file) {
        b.crcAfter[b.count - 1] = crc;
      }
      b.ended.add(new RecordBatch.InputEnd(file, lines.bytesConsumed(), crc));
    }
  }

  private void configureHeader(byte[] header, String path) throws IOException {
    String problem = settings.extractor.header(header, 0, header.length);
    if (problem == null && settings.time != null) {
      problem = settings.time.extractor().header(header, 0, header.length);
    }
    if (problem != null) {
      throw new HeaderException(path + ": " + problem);
    }
  }

  /**
   * A header that cannot serve the key spec: input without the column asked for, which fails the
   * job as a record without the JSON field asked for does (exit status 1).
   */
  static final class HeaderException extends IOException {
    private static final long serialVersionUID = 1L;

    HeaderException(String message) {
      super(message);
    }
  }

  private void read(RecordReader records, int file, RecordBatch batch) {
    int i =
        batch.add(
            RecordBatch.OK,
            records.bytes(),
            records.offset(),
            records.length(),
            records.terminatorLength(),
            file,
            records.lineNumber(),
            records.endOffset());
    batch.endLine(i, records.lineNumberAfter());
    String problem = records.problem();
    if (problem != null) {
      batch.kind[i] = RecordBatch.BAD;
      batch.problem[i] = problem;
    } else if (parsing == null) {
      parser.parse(batch, i);
    }
  }

  private RecordReader open(InputFile input, long offset, long line) throws IOException {
    return new RecordReader(
        openLines(input, offset, line, -1),
        settings.format == RecordFormat.CSV,
        settings.maxRecordBytes);
  }

  /**
   * The lines of {@code input} from byte {@code offset} on (decompressed, for gzip or zstd); when
   * {@code expectedCrc} is not -1, the bytes before it are read and must have that CRC32C.
   */
  private LineReader openLines(InputFile input, long offset, long line, long expectedCrc)
      throws IOException {
    InputStream in =
        input.isStdin() ? Inputs.open(Inputs.STDIN, stdin) : openCounted(Path.of(input.path()));
    if (offset > 0) {
      try {
        if (expectedCrc >= 0) {
          checkPrefix(in, input, offset, expectedCrc);
        } else {
          in.skipNBytes(offset);
        }
      } catch (EOFException e) {
        in.close();
        throw new IOException(
            input.path()
                + " is shorter than the position of the last "
                + "checkpoint ("
                + offset
                + " bytes): it changed since the job started");
      } catch (IOException e) {
        in.close();
        throw e;
      }
    }
    return new LineReader(in, Inputs.displayName(input.path()), offset, line);
  }

  /** Reads the first {@code length} bytes of {@code in}: refused unless their CRC32C matches. */
  private void checkPrefix(InputStream in, InputFile input, long length, long expected)
      throws IOException {
    byte[] buf = new byte[1 << 16];
    CRC32C crc = new CRC32C();
    for (long left = length; left > 0; ) {
      int n = in.read(buf, 0, (int) Math.min(buf.length, left));
      if (n < 0) {
        throw new EOFException();
      }
      crc.update(buf, 0, n);
      left -= n;
      startChecked = length - left;
    }
    if (crc.getValue() != expected) {
      throw InputCheck.refusal(
          List.of(
              String.format(
                  java.util.Locale.ROOT,
                  "%s: its first %,d bytes, which the job read, differ from what it read",
                  input.path(),
                  length)));
    }
  }

  /** A file's stream, decompressed if gzip or zstd, counting the stored bytes read for progress. */
  private InputStream openCounted(Path path) throws IOException {
    InputStream raw =
        new FilterInputStream(Files.newInputStream(path)) {
          @Override
          public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            if (n > 0) {
              rawBytesRead += n;
            }
            return n;
          }

          @Override
          public long skip(long n) throws IOException {
            long skipped = super.skip(n);
            rawBytesRead += skipped;
            return skipped;
          }
        };
    return Inputs.decompressed(path.toString(), raw);
  }

  /** The first line of {@code input}, or {@code null} when it is empty. */
  private byte[] readFirstLine(InputFile input) throws IOException {
    try (RecordReader r = open(input, 0, 0)) {
      if (!r.next()) {
        return null;
      }
      return Arrays.copyOfRange(r.bytes(), r.offset(), r.offset() + r.length());
    }
  }

  @Override
  public void close() {
    stopped = true;
    if (parsing != null) {
      parsing.shutdownNow();
    }
    thread.interrupt();
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
