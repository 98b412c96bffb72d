package dev.idem.engine.neardup;

import dev.idem.core.Fingerprint;
import dev.idem.core.Fingerprinter;
import dev.idem.engine.JobException;
import dev.idem.engine.records.BadRecordException;
import dev.idem.engine.records.BadRecordPolicy;
import dev.idem.engine.records.InputFile;
import dev.idem.engine.records.KeyExtractor;
import dev.idem.engine.records.OutputFile;
import dev.idem.engine.records.RecordBatch;
import dev.idem.engine.records.RecordSource;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

/**
 * {@code idem near-dup}: removes documents that are near-duplicates of an earlier one, in two reads
 * of the inputs.
 *
 * <p>The first read judges. A document whose content has the fingerprint of an earlier document's
 * (the same bytes, as {@code dedup --content} compares them) is an exact duplicate and joins that
 * document's cluster before any shingling. Every other document is shingled, signed and added to
 * the {@code Clustering}, which compares it with every earlier document it shares an LSH bucket
 * with. The second read writes: each document whose cluster's first document is itself goes to the
 * output, the others to {@code --dropped}, in input order, byte for byte as read. Standard input is
 * kept in a temporary file for the second read.
 *
 * <p>Bad records are failed on (before anything is written), skipped or quarantined during the
 * first read; the second read passes over them.
 */
public final class NearDupJob {

  private final NearDupSpec spec;
  private final InputStream stdin;
  private final OutputStream stdout;
  private final Consumer<String> warn;
  private final List<String> warnings = new ArrayList<>();
  private final Clustering clustering;
  private final Shingler shingler;

  private long records;
  private long documents;
  private long exactDuplicates;
  private long badRecords;
  private long blankLines;
  private Path spool;

  private NearDupJob(
      NearDupSpec spec, InputStream stdin, OutputStream stdout, Consumer<String> warn) {
    this.spec = spec;
    this.stdin = stdin;
    this.stdout = stdout;
    this.warn = warn;
    this.shingler = new Shingler(spec.tokenizer(), spec.ngram(), spec.normalization());
    this.clustering =
        new Clustering(
            new MinHasher(spec.numPerm(), spec.seed()),
            spec.bands(),
            spec.threshold(),
            spec.verify());
  }

  /**
   * Runs the job.
   *
   * @param warn told of each warning as it happens (also in the result)
   * @throws BadRecordException for a bad record under {@code fail}, before any output is written
   * @throws JobException for a job that cannot run as specified (a message for the user)
   */
  public static NearDupResult run(
      NearDupSpec spec, InputStream stdin, OutputStream stdout, Consumer<String> warn)
      throws IOException {
    return new NearDupJob(spec, stdin, stdout, warn).run();
  }

  private NearDupResult run() throws IOException {
    long started = System.nanoTime();
    List<InputFile> inputs = InputFile.expand(spec.inputs());
    KeyExtractor extractor;
    try {
      extractor = KeyExtractor.of(spec.content(), spec.format());
    } catch (IllegalArgumentException e) {
      throw new JobException(e.getMessage());
    }
    for (Path p : new Path[] {spec.output(), spec.dropped(), spec.clusters()}) {
      if (p != null) {
        OutputFile.requireDirectory(p); // before the work, not after it
      }
    }
    try {
      if (inputs.stream().anyMatch(InputFile::isStdin)) {
        Path dir = spec.tmp() != null ? spec.tmp() : Path.of(System.getProperty("java.io.tmpdir"));
        spool = Files.createTempFile(dir, "idem-near-dup-", ".stdin");
        Files.copy(stdin, spool, StandardCopyOption.REPLACE_EXISTING);
      }
      judge(inputs, extractor);
      long[] counts = write(inputs, extractor);
      long kept = counts[0];
      return new NearDupResult(
          records,
          documents,
          kept,
          exactDuplicates,
          documents - kept - exactDuplicates,
          counts[1],
          badRecords,
          blankLines,
          clustering.candidatePairs(),
          clustering.comparedPairs(),
          clustering.acceptedPairs(),
          spec.bands(),
          spec.numPerm(),
          (System.nanoTime() - started) / 1_000_000,
          List.copyOf(warnings));
    } finally {
      if (spool != null) {
        Files.deleteIfExists(spool);
      }
    }
  }

  /** The first read: every document into the clustering, bad records as the policy says. */
  private void judge(List<InputFile> inputs, KeyExtractor extractor) throws IOException {
    Map<Fingerprint, Integer> firstCopy = new HashMap<>();
    BadRecordPolicy policy = spec.onBadRecord();
    try (OutputFile quarantine =
            policy instanceof BadRecordPolicy.Quarantine q ? OutputFile.open(q.file()) : null;
        InputStream in = standardInput();
        RecordSource source = source(inputs, extractor, true, in)) {
      while (true) {
        RecordBatch batch = source.next();
        for (int i = 0; i < batch.count; i++) {
          switch (batch.kind[i]) {
            case RecordBatch.OK -> {
              records++;
              documents++;
              Fingerprint f =
                  new Fingerprint(batch.fingerprints[2 * i], batch.fingerprints[2 * i + 1]);
              Integer first = firstCopy.putIfAbsent(f, clustering.documents());
              if (first != null) {
                clustering.addExactDuplicate(first);
                exactDuplicates++;
              } else {
                // malformed UTF-8 reads as U+FFFD: such a document still has shingles
                String text = new String(batch.keys[i], StandardCharsets.UTF_8);
                clustering.addDocument(shingler.shingles(text));
              }
            }
            case RecordBatch.BLANK -> blankLines++;
            case RecordBatch.HEADER -> {}
            default -> {
              records++;
              badRecords++;
              bad(batch, i, inputs.get(batch.fileIndex[i]).path(), quarantine);
            }
          }
        }
        boolean end = batch.endOfInput;
        source.recycle(batch);
        if (end) {
          return;
        }
      }
    }
  }

  private void bad(RecordBatch batch, int i, String name, OutputFile quarantine)
      throws IOException {
    if (spec.onBadRecord() instanceof BadRecordPolicy.Fail) {
      throw new BadRecordException(name, batch.line[i], batch.problem[i], false);
    }
    if (quarantine != null) {
      if (batch.tooLongToKeep(i)) {
        String message =
            name
                + ":"
                + batch.line[i]
                + ": "
                + batch.problem[i]
                + "; too long to quarantine, counted as bad";
        warnings.add(message);
        warn.accept(message);
      } else {
        quarantine.writeRecord(batch, i);
      }
    }
  }

  /**
   * The second read: survivors to the output, the others to {@code --dropped}, clusters of two or
   * more to {@code --clusters}. Returns the documents kept and the clusters.
   */
  private long[] write(List<InputFile> inputs, KeyExtractor extractor) throws IOException {
    int n = clustering.documents();
    int[] clusterSize = new int[n];
    for (int d = 0; d < n; d++) {
      clusterSize[clustering.survivor(d)]++;
    }
    long clusters = 0;
    for (int size : clusterSize) {
      clusters += size > 1 ? 1 : 0;
    }
    long kept = 0;
    int doc = 0;
    try (OutputFile out =
            spec.output() != null
                ? OutputFile.open(spec.output())
                : OutputFile.stream("<stdout>", stdout);
        OutputFile dropped = spec.dropped() != null ? OutputFile.open(spec.dropped()) : null;
        OutputFile clusterFile = spec.clusters() != null ? OutputFile.open(spec.clusters()) : null;
        InputStream in = standardInput();
        RecordSource source = source(inputs, extractor, false, in)) {
      if (clusterFile != null) {
        text(clusterFile, "document\tcluster\tsimilarity\tfile\tline\n");
      }
      while (true) {
        RecordBatch batch = source.next();
        for (int i = 0; i < batch.count; i++) {
          if (batch.kind[i] != RecordBatch.OK) {
            continue;
          }
          if (doc == n) {
            throw changed(inputs.get(batch.fileIndex[i]).path());
          }
          int survivor = clustering.survivor(doc);
          String name = inputs.get(batch.fileIndex[i]).path();
          if (survivor == doc) {
            out.writeRecord(batch, i);
            kept++;
          } else if (dropped != null) {
            byte[] file = name.getBytes(StandardCharsets.UTF_8); // a path's bytes, not its chars
            dropped.write(file, 0, file.length);
            text(dropped, "\t" + batch.line[i] + "\t");
            dropped.write(batch.arena, batch.start[i], batch.contentLength[i]);
            dropped.write((byte) '\n');
          }
          if (clusterFile != null && clusterSize[survivor] > 1) {
            text(
                clusterFile,
                doc
                    + "\t"
                    + survivor
                    + "\t"
                    + String.format(Locale.ROOT, "%.4f", clustering.similarityToSurvivor(doc))
                    + "\t"
                    + name
                    + "\t"
                    + batch.line[i]
                    + "\n");
          }
          doc++;
        }
        boolean end = batch.endOfInput;
        source.recycle(batch);
        if (end) {
          break;
        }
      }
    }
    if (doc != n) {
      throw changed(inputs.isEmpty() ? "-" : inputs.get(inputs.size() - 1).path());
    }
    return new long[] {kept, clusters};
  }

  private static JobException changed(String name) {
    return new JobException(
        name
            + ": the inputs changed between near-dup's two reads (a different number of "
            + "documents); run it again on inputs that do not change while it runs");
  }

  private static void text(OutputFile out, String s) throws IOException {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    out.write(b, 0, b.length);
  }

  /** What a read takes for {@code -}: the copy of standard input, read from its start. */
  private InputStream standardInput() throws IOException {
    return spool != null ? Files.newInputStream(spool) : InputStream.nullInputStream();
  }

  private RecordSource source(
      List<InputFile> inputs, KeyExtractor extractor, boolean text, InputStream in) {
    return new RecordSource(
        inputs,
        new RecordSource.Settings(
            spec.format(),
            false,
            extractor.copy(),
            Fingerprinter.xxh3(),
            text,
            spec.maxRecordBytes()),
        in,
        0,
        0,
        0);
  }
}
