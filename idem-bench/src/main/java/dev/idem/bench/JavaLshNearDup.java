package dev.idem.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import info.debatty.java.lsh.LSH;
import info.debatty.java.lsh.MinHash;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The near-duplicate job as a user of {@code info.debatty:java-lsh} would write it, in a child JVM
 * of {@link NearDupScenario}: word 5-grams as {@code Set<Integer>} (the library's input), {@code
 * MinHash} signatures of B × R components (computed on all cores, in input order), band buckets
 * from {@code LSH.hashSignature} (the library's band hash, with 2³¹ − 1 buckets so that buckets are
 * band keys), and each document compared, in input order, with the earlier documents of its buckets
 * by the library's signature estimate.
 *
 * <p>{@code java ... JavaLshNearDup CORPUS BANDS ROWS THRESHOLD SEED PAIRS_OUT}: writes the
 * accepted pairs, {@code EARLIER<TAB>LATER} a line; the scenario clusters them.
 */
final class JavaLshNearDup {
  private static final int BATCH = 20_000;

  private JavaLshNearDup() {}

  public static void main(String[] args) throws IOException {
    Path corpus = Path.of(args[0]);
    int bands = Integer.parseInt(args[1]);
    int rows = Integer.parseInt(args[2]);
    double threshold = Double.parseDouble(args[3]);
    long seed = Long.parseLong(args[4]);
    Path pairsOut = Path.of(args[5]);

    MinHash minHash = new MinHash(bands * rows, Integer.MAX_VALUE, seed);
    LSH lsh = new LSH(bands, Integer.MAX_VALUE) {};
    ObjectMapper json = new ObjectMapper();
    List<int[]> signatures = new ArrayList<>();
    List<Map<Integer, List<Integer>>> buckets = new ArrayList<>();
    for (int b = 0; b < bands; b++) {
      buckets.add(new HashMap<>());
    }
    try (BufferedReader in = Files.newBufferedReader(corpus, StandardCharsets.UTF_8);
        BufferedWriter out = Files.newBufferedWriter(pairsOut, StandardCharsets.UTF_8)) {
      List<String> batch = new ArrayList<>(BATCH);
      String line;
      while (true) {
        line = in.readLine();
        if (line != null) {
          batch.add(line);
        }
        if (batch.size() == BATCH || (line == null && !batch.isEmpty())) {
          List<int[]> signed =
              batch.parallelStream().map(l -> minHash.signature(shingles(text(json, l)))).toList();
          for (int[] signature : signed) {
            judge(signature, signatures, buckets, lsh, minHash, threshold, out);
          }
          batch.clear();
        }
        if (line == null) {
          break;
        }
      }
    }
  }

  /** Compares the next document with the earlier ones of its buckets; writes accepted pairs. */
  private static void judge(
      int[] signature,
      List<int[]> signatures,
      List<Map<Integer, List<Integer>>> buckets,
      LSH lsh,
      MinHash minHash,
      double threshold,
      BufferedWriter out)
      throws IOException {
    int doc = signatures.size();
    signatures.add(signature);
    int[] bandKeys = lsh.hashSignature(signature);
    Set<Integer> compared = new HashSet<>();
    for (int b = 0; b < bandKeys.length; b++) {
      List<Integer> bucket = buckets.get(b).computeIfAbsent(bandKeys[b], k -> new ArrayList<>(1));
      for (int earlier : bucket) {
        if (compared.add(earlier)
            && minHash.similarity(signatures.get(earlier), signature) >= threshold) {
          out.write(earlier + "\t" + doc + "\n");
        }
      }
      bucket.add(doc);
    }
  }

  private static String text(ObjectMapper json, String line) {
    try {
      return json.readTree(line).get("text").asText();
    } catch (IOException e) {
      throw new IllegalArgumentException("not a corpus line: " + line, e);
    }
  }

  /** Word 5-grams (the corpus is normalised already: words between single spaces). */
  private static Set<Integer> shingles(String text) {
    String[] words = text.split(" ");
    Set<Integer> set = new HashSet<>();
    for (int i = 0; i + NearDupCorpus.NGRAM <= words.length; i++) {
      StringBuilder gram = new StringBuilder(words[i]);
      for (int j = 1; j < NearDupCorpus.NGRAM; j++) {
        gram.append(' ').append(words[i + j]);
      }
      set.add(gram.toString().hashCode() & Integer.MAX_VALUE);
    }
    return set;
  }
}
