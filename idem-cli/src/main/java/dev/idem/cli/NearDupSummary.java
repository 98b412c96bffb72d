package dev.idem.cli;

import dev.idem.engine.neardup.NearDupResult;
import dev.idem.engine.neardup.NearDupSpec;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** What {@code idem near-dup} reports: warnings as they come, the summary at the end. */
final class NearDupSummary {

  private final Io io;
  private final OutputOptions output;

  NearDupSummary(Io io, OutputOptions output) {
    this.io = io;
    this.output = output;
  }

  /** Printed even with {@code --quiet}, as the other commands print theirs. */
  void warning(String message) {
    io.err().println("idem near-dup: warning: " + message);
  }

  void finish(NearDupResult r, NearDupSpec spec) throws IOException {
    output.writeStats(io, asMap(r, spec));
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

  private static Map<String, Object> asMap(NearDupResult r, NearDupSpec spec) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("records", r.records());
    m.put("documents", r.documents());
    m.put("kept", r.kept());
    m.put("exact_duplicates", r.exactDuplicates());
    m.put("near_duplicates", r.nearDuplicates());
    m.put("clusters", r.clusters());
    m.put("bad_records", r.badRecords());
    m.put("blank_lines", r.blankLines());
    m.put("threshold", spec.threshold());
    m.put("num_perm", r.numPerm());
    m.put("bands", r.bands().bands());
    m.put("rows", r.bands().rows());
    m.put("s_curve_half_point", r.bands().halfPoint());
    m.put("verify", spec.verify());
    m.put("candidate_pairs", r.candidatePairs());
    m.put("compared_pairs", r.comparedPairs());
    m.put("accepted_pairs", r.acceptedPairs());
    m.put("spilled_documents", r.spilledDocuments());
    m.put("elapsed_ms", r.millis());
    m.put("warnings", r.warnings());
    return m;
  }
}
