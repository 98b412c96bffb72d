package dev.idem.cli;

import dev.idem.engine.neardup.NearDupResult;
import dev.idem.engine.neardup.NearDupSpec;
import dev.idem.engine.run.JobListener;
import java.io.IOException;
import java.util.Locale;

/** What {@code idem near-dup} reports: warnings and notes as they come, the summary at the end. */
final class NearDupSummary {

  private final Io io;
  private final OutputOptions output;
  private final ProgressDisplay display;

  NearDupSummary(Io io, OutputOptions output) {
    this.io = io;
    this.output = output;
    this.display = new ProgressDisplay(io, "idem near-dup", output.quiet);
  }

  /** The job's listener: warnings (even with {@code --quiet}) and notes. */
  JobListener listener() {
    return display;
  }

  void finish(NearDupResult r, NearDupSpec spec) throws IOException {
    output.writeStats(io, r);
    if (output.quiet) {
      return;
    }
    io.err()
        .printf(
            Locale.ROOT,
            "idem near-dup: %,d documents, %,d kept (%.1f %%), %,d exact duplicates and %,d "
                + "near-duplicates removed, %,d clusters, %,d bad records%s%n",
            r.documents(),
            r.kept(),
            r.documents() == 0 ? 0.0 : 100.0 * r.kept() / r.documents(),
            r.exactDuplicates(),
            r.nearDuplicates(),
            r.clusters(),
            r.badRecords(),
            r.blankLines() > 0
                ? String.format(Locale.ROOT, ", %,d blank lines skipped", r.blankLines())
                : "");
    io.err()
        .printf(
            Locale.ROOT,
            "  %s shingles of %d %s (normalised %s); MinHash %d permutations; LSH %d bands × %d "
                + "rows: S-curve 50 %% at s = %.3f, P(candidate) %.3f at the threshold %s%n",
            spec.tokenizer().name().toLowerCase(Locale.ROOT).replaceAll("s$", ""),
            spec.ngram(),
            spec.tokenizer().name().toLowerCase(Locale.ROOT),
            spec.normalization(),
            r.numPerm(),
            r.bands().bands(),
            r.bands().rows(),
            r.bands().halfPoint(),
            r.bands().probability(spec.threshold()),
            spec.threshold());
    io.err()
        .printf(
            Locale.ROOT,
            "  %,d candidate pairs, %,d compared (%s), %,d accepted; %.1f s%n",
            r.candidatePairs(),
            r.comparedPairs(),
            spec.verify() ? "exact Jaccard" : "MinHash estimate",
            r.acceptedPairs(),
            r.millis() / 1000.0);
    if (r.spilledDocuments() > 0) {
      io.err()
          .printf(
              Locale.ROOT,
              "  %,d documents' signatures and band entries kept on disk in --tmp, past the "
                  + "%s judging holds in memory (--memory)%n",
              r.spilledDocuments(),
              dev.idem.core.ByteSize.format(spec.memory()));
    }
  }
}
