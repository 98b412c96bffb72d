package dev.idem.engine.estimate;

import dev.idem.core.Fingerprinter;
import dev.idem.core.KeyNormalizer;
import dev.idem.engine.JobException;
import dev.idem.engine.estimate.DistinctKeyCounter.DistinctEstimate;
import dev.idem.engine.input.InputFile;
import dev.idem.engine.records.KeyExtractor;
import dev.idem.engine.records.KeySpec;
import dev.idem.engine.records.RecordBatch;
import dev.idem.engine.records.RecordFormat;
import dev.idem.engine.records.RecordSource;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;

/**
 * Reads inputs (all of them, or their first bytes) the way a dedup job would, and measures what
 * sizing needs: records, distinct keys (a {@link DistinctKeyCounter}), mean key and record size.
 * Keys are extracted and normalised exactly as {@code idem dedup} does, so the distinct count is
 * the one the job will see.
 */
public final class InputSurvey {

  /**
   * What a survey found.
   *
   * @param records records read (bad ones included)
   * @param badRecords records without a usable key
   * @param bytesRead bytes of the files as stored that were read (compressed bytes for gzip or
   *     zstd)
   * @param totalBytes bytes of all the files as stored
   * @param recordBytes record bytes read, uncompressed
   * @param keyBytes key bytes of the good records read
   * @param sampled distinct keys among the records read
   * @param whole distinct keys of the whole input: {@code sampled} when all of it was read, else
   *     extrapolated by bytes
   */
  public record Result(
      long records,
      long badRecords,
      long bytesRead,
      long totalBytes,
      long recordBytes,
      long keyBytes,
      DistinctEstimate sampled,
      DistinctEstimate whole) {

    /** True when every input was read to its end. */
    public boolean complete() {
      return bytesRead >= totalBytes;
    }

    /** Records of the whole input: counted, or extrapolated by bytes. */
    public long recordsInWhole() {
      return complete() || bytesRead == 0
          ? records
          : (long) Math.ceil(records * ((double) totalBytes / bytesRead));
    }

    /** Uncompressed bytes of the whole input: counted, or extrapolated. */
    public long recordBytesInWhole() {
      return complete() || bytesRead == 0
          ? recordBytes
          : (long) Math.ceil(recordBytes * ((double) totalBytes / bytesRead));
    }

    public double meanKeyBytes() {
      long good = records - badRecords;
      return good == 0 ? 0 : (double) keyBytes / good;
    }

    public double meanRecordBytes() {
      return records == 0 ? 0 : (double) recordBytes / records;
    }
  }

  private InputSurvey() {}

  /**
   * Surveys {@code inputs} (files, directories or globs; not standard input), reading at most about
   * {@code sampleBytes} of them as stored ({@code Long.MAX_VALUE}: all).
   *
   * @throws JobException for standard input, or a key or header the format cannot have
   * @throws IOException when an input cannot be read
   */
  public static Result run(
      List<String> inputs,
      RecordFormat format,
      KeySpec key,
      boolean header,
      KeyNormalizer normalizer,
      int maxRecordBytes,
      long sampleBytes)
      throws IOException {
    List<InputFile> files = InputFile.expand(inputs);
    InputFile.requireFiles(
        files,
        "estimating distinct keys reads the inputs before the job does (or give the count, "
            + "--expected N)");
    RecordSource.Settings settings;
    try {
      settings =
          new RecordSource.Settings(
              format,
              header,
              KeyExtractor.of(key, format),
              Fingerprinter.xxh3().withNormalizer(normalizer),
              true,
              maxRecordBytes);
    } catch (IllegalArgumentException e) {
      throw new JobException(e.getMessage());
    }
    long total = files.stream().mapToLong(InputFile::size).sum();
    DistinctKeyCounter counter = new DistinctKeyCounter();
    long records = 0;
    long bad = 0;
    long recordBytes = 0;
    long keyBytes = 0;
    long read;
    long[] before = new long[files.size() + 1];
    boolean[] compressed = new boolean[files.size()];
    for (int f = 0; f < files.size(); f++) {
      before[f + 1] = before[f] + files.get(f).size();
      compressed[f] = files.get(f).compression().isCompressed();
    }
    read = 0;
    try (RecordSource source =
        new RecordSource(files, settings, InputStream.nullInputStream(), 0, 0, 0)) {
      sampling:
      while (true) {
        RecordBatch batch = source.next();
        for (int i = 0; i < batch.count; i++) {
          int file = batch.fileIndex[i];
          // a compressed file is sampled whole (its stored offset is unknown mid-stream): stop at
          // the first record past the sample's end, in a plain file or in the next file
          if (before[file] >= sampleBytes) {
            read = before[file];
            break sampling;
          }
          byte kind = batch.kind[i];
          if (kind == RecordBatch.OK || kind == RecordBatch.BAD) {
            records++;
            recordBytes += batch.contentLength[i] + batch.terminatorLength[i];
          }
          if (kind == RecordBatch.OK) {
            counter.add(batch.fingerprints[2 * i]);
            keyBytes += batch.keys[i].length;
          } else if (kind == RecordBatch.BAD) {
            bad++;
          }
          if (!compressed[file] && before[file] + batch.endOffset[i] >= sampleBytes) {
            read = before[file] + batch.endOffset[i];
            break sampling;
          }
        }
        boolean end = batch.endOfInput;
        source.recycle(batch);
        if (end) {
          read = total;
          break;
        }
      }
    }
    DistinctEstimate sampled = counter.estimate();
    long recordsInWhole =
        read >= total || read == 0 ? records : (long) Math.ceil(records * ((double) total / read));
    DistinctEstimate whole =
        read >= total || read == 0
            ? sampled
            : sampled.extrapolate((double) read / total, recordsInWhole);
    return new Result(records, bad, read, total, recordBytes, keyBytes, sampled, whole);
  }
}
