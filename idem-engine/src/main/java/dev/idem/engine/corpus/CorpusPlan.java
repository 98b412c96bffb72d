package dev.idem.engine.corpus;

import dev.idem.core.filter.FilterMath;
import dev.idem.core.filter.StripedFingerprintSet;
import dev.idem.engine.input.InputFile;
import dev.idem.engine.input.Inputs;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;

/**
 * What a corpus job will hold, from a sample of its inputs: how many documents, paragraphs and
 * n-grams the inputs have (counted in their first megabytes, decompressed, and scaled to their
 * size), and what an exact set or a filter of that many keys costs. The job sizes its set with it,
 * and {@code idem plan --corpus} prints it.
 */
public final class CorpusPlan {

  /** Bytes sampled in all, at most. */
  private static final int SAMPLE_BYTES = 8 << 20;

  /** Files sampled, at most. */
  private static final int FILES = 16;

  /** A working heap the job needs besides its set: batches in flight, parsed documents. */
  public static final long WORKING_BYTES = 96L << 20;

  private CorpusPlan() {}

  /**
   * Counts scaled from a sample.
   *
   * @param documents usable records
   * @param judgedParagraphs paragraphs a job judges (long enough, not white space only)
   * @param grams n-grams of those paragraphs (n-gram modes; 0 otherwise)
   * @param sampledBytes bytes read for the sample (decompressed)
   * @param totalBytes the inputs' bytes (decompressed, estimated for compressed files)
   */
  public record Estimate(
      long documents, long judgedParagraphs, long grams, long sampledBytes, long totalBytes) {

    /** The distinct keys the set may have to hold, at most: paragraphs, or n-grams. */
    public long keys(CorpusSpec.Mode mode) {
      return mode == CorpusSpec.Mode.PARAGRAPHS ? judgedParagraphs : grams;
    }
  }

  /**
   * Samples {@code inputs} (files; streams are not sampled) as {@code spec} would read them.
   *
   * @return the estimate, or {@code null} when nothing could be sampled (standard input)
   */
  public static Estimate survey(CorpusSpec spec, List<InputFile> inputs) throws IOException {
    List<InputFile> files = inputs.stream().filter(f -> !f.isStream()).toList();
    if (files.isEmpty()) {
      return null;
    }
    DocumentParser parser = new DocumentParser(spec, spec.content().path(), null, null);
    int sampled = Math.min(files.size(), FILES);
    int perFile = Math.max(256 << 10, SAMPLE_BYTES / sampled);
    long bytes = 0;
    long docs = 0;
    long paragraphs = 0;
    long grams = 0;
    ParsedDocument d = new ParsedDocument();
    for (int f = 0; f < sampled; f++) {
      byte[] head;
      try (InputStream in = Inputs.open(files.get(f).path(), InputStream.nullInputStream())) {
        head = in.readNBytes(perFile);
      }
      int start = 0;
      for (int i = 0; i < head.length; i++) {
        if (head[i] != '\n') {
          continue;
        }
        if (parser.text(head, start, i - start, d) == null) {
          long[] c = parser.count(d.text);
          docs++;
          paragraphs += c[0];
          grams += c[1];
        }
        bytes += i + 1 - start;
        start = i + 1;
      }
    }
    long total = 0;
    for (InputFile f : inputs) {
      total += f.isStream() ? 0 : f.compression().estimatedBytes(f.size());
    }
    if (bytes == 0) {
      return new Estimate(0, 0, 0, 0, total);
    }
    double scale = (double) total / bytes;
    return new Estimate(
        Math.round(docs * scale),
        Math.round(paragraphs * scale),
        Math.round(grams * scale),
        bytes,
        total);
  }

  /** The bytes of an exact set of {@code keys} fingerprints (21.3 a key, in 64 stripes). */
  public static long exactBytes(long keys) {
    return StripedFingerprintSet.bytesFor(keys);
  }

  /** The bytes of a blocked Bloom filter of {@code keys} keys at rate {@code fpp}. */
  public static long filterBytes(long keys, double fpp) {
    return FilterMath.blockedLayout(Math.max(1, keys), fpp).bitSize() / 8;
  }

  /**
   * Whether an exact set of about {@code keys} fits {@code heap}: the set with room to grow once
   * (its size comes from a sample), and the job's working heap.
   */
  public static boolean exactFits(long keys, long heap) {
    return 2 * exactBytes(keys) + WORKING_BYTES <= heap;
  }
}
