package dev.idem.bench;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * The near-duplicate benchmark's corpus, with its ground truth. Documents are JSON Lines {@code
 * {"id":POSITION,"text":"..."}}, the text already normalised (lower-case ASCII words, single
 * spaces), so every contender's tokenizer sees the same words and the same word 5-grams.
 *
 * <ul>
 *   <li><b>Originals</b>: 60 to 240 words drawn from a Zipf (s = 1) vocabulary of 50,000 made-up
 *       words, the shape of word frequencies in real text. Two originals share no 5-gram in
 *       practice (the chance that two independent documents reach a Jaccard of 0.5 is far below
 *       anything this corpus could show).
 *   <li><b>Planted near-duplicates</b>: for one original in {@link #FAMILY_SHARE}, one to three
 *       variants, each the original with word insertions, deletions and replacements at random
 *       places, their number chosen to aim at a Jaccard similarity drawn from {@link #TARGETS} (0.5
 *       to 0.99, and 1.0: an exact copy). Variants are placed 1 to 50,000 positions after their
 *       original.
 * </ul>
 *
 * <p>The truth: within each family (an original and its variants) the exact Jaccard similarity of
 * every pair of word-5-gram sets is computed here; pairs at or above the threshold are joined in a
 * union-find, and every document of a component but its first in input order should be removed.
 * Pairs across families are taken to be below every threshold (see above).
 */
final class NearDupCorpus {
  static final int NGRAM = 5;
  static final double FAMILY_SHARE = 0.08;
  static final double[] TARGETS = {0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 0.99, 1.0};
  private static final int VOCABULARY = 50_000;
  private static final int MAX_OFFSET = 50_000;

  /** A similar pair of the truth: positions {@code a < b} and their exact Jaccard similarity. */
  record Pair(int a, int b, double jaccard) {}

  final int documents;
  final List<Pair> familyPairs = new ArrayList<>();
  final long bytes;

  private final String[] words = new String[VOCABULARY];
  private final double[] zipfCdf = new double[VOCABULARY];

  private NearDupCorpus(int documents, long bytes) {
    this.documents = documents;
    this.bytes = bytes;
  }

  /** Writes {@code documents} documents to {@code file}, seeded by {@code seed}. */
  static NearDupCorpus write(Path file, int documents, long seed) throws IOException {
    NearDupCorpus corpus = new NearDupCorpus(documents, 0);
    SplittableRandom random = new SplittableRandom(seed);
    corpus.vocabulary(random);
    TreeMap<Integer, int[]> reserved = new TreeMap<>();
    try (BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      for (int position = 0; position < documents; position++) {
        int[] text = reserved.remove(position);
        if (text == null) {
          text = corpus.original(random);
          if (random.nextDouble() < FAMILY_SHARE) {
            corpus.plantFamily(random, position, text, reserved);
          }
        }
        out.write("{\"id\":");
        out.write(Integer.toString(position));
        out.write(",\"text\":\"");
        for (int i = 0; i < text.length; i++) {
          if (i > 0) {
            out.write(' ');
          }
          out.write(corpus.words[text[i]]);
        }
        out.write("\"}\n");
      }
    }
    NearDupCorpus done = new NearDupCorpus(documents, Files.size(file));
    done.familyPairs.addAll(corpus.familyPairs);
    return done;
  }

  /** The positions the truth removes at {@code threshold}: all but the first of each cluster. */
  BitSet removedAt(double threshold) {
    Stats.Clusters clusters = new Stats.Clusters(documents);
    for (Pair p : familyPairs) {
      if (p.jaccard >= threshold) {
        clusters.union(p.a, p.b);
      }
    }
    return clusters.removed();
  }

  private void vocabulary(SplittableRandom random) {
    double sum = 0;
    for (int w = 0; w < VOCABULARY; w++) {
      StringBuilder b = new StringBuilder();
      int length = 2 + random.nextInt(9);
      for (int i = 0; i < length; i++) {
        b.append((char) ('a' + random.nextInt(26)));
      }
      // a number keeps the words distinct however the letters fall
      words[w] = b.append(Integer.toString(w, 36)).toString();
      sum += 1.0 / (w + 1);
      zipfCdf[w] = sum;
    }
    for (int w = 0; w < VOCABULARY; w++) {
      zipfCdf[w] /= sum;
    }
  }

  private int word(SplittableRandom random) {
    int i = Arrays.binarySearch(zipfCdf, random.nextDouble());
    return Math.min(i < 0 ? -i - 1 : i, VOCABULARY - 1);
  }

  private int[] original(SplittableRandom random) {
    int[] text = new int[60 + random.nextInt(181)];
    for (int i = 0; i < text.length; i++) {
      text[i] = word(random);
    }
    return text;
  }

  private void plantFamily(
      SplittableRandom random, int position, int[] original, TreeMap<Integer, int[]> reserved) {
    int variants = 1 + random.nextInt(3);
    List<int[]> texts = new ArrayList<>(List.of(original));
    List<Integer> positions = new ArrayList<>(List.of(position));
    for (int v = 0; v < variants; v++) {
      int at = position + 1 + random.nextInt(MAX_OFFSET);
      while (reserved.containsKey(at)) {
        at++;
      }
      if (at >= documents) {
        continue;
      }
      int[] variant = edit(random, original, TARGETS[random.nextInt(TARGETS.length)]);
      reserved.put(at, variant);
      texts.add(variant);
      positions.add(at);
    }
    long[][] shingles = texts.stream().map(NearDupCorpus::shingles).toArray(long[][]::new);
    for (int i = 0; i < texts.size(); i++) {
      for (int j = i + 1; j < texts.size(); j++) {
        int a = Math.min(positions.get(i), positions.get(j));
        int b = Math.max(positions.get(i), positions.get(j));
        familyPairs.add(new Pair(a, b, Stats.jaccard(shingles[i], shingles[j])));
      }
    }
  }

  /**
   * The original with scattered edits aiming at Jaccard {@code target}: an edit changes about
   * {@code NGRAM} shingles on each side, so k edits on S shingles give J ≈ (S − 5k) / (S + 5k).
   */
  private int[] edit(SplittableRandom random, int[] original, double target) {
    int shingles = original.length - NGRAM + 1;
    int edits = (int) Math.round(shingles * (1 - target) / (NGRAM * (1 + target)));
    List<Integer> text = new ArrayList<>(original.length + edits);
    for (int w : original) {
      text.add(w);
    }
    for (int e = 0; e < edits; e++) {
      int at = random.nextInt(text.size());
      switch (random.nextInt(3)) {
        case 0 -> text.add(at, word(random));
        case 1 -> {
          if (text.size() > NGRAM) {
            text.remove(at);
          }
        }
        default -> text.set(at, word(random));
      }
    }
    return text.stream().mapToInt(Integer::intValue).toArray();
  }

  /** The sorted, distinct hashes of a text's word 5-grams (the text is at least 5 words). */
  static long[] shingles(int[] text) {
    long[] hashes = new long[text.length - NGRAM + 1];
    for (int i = 0; i < hashes.length; i++) {
      long h = 0x9E3779B97F4A7C15L;
      for (int j = 0; j < NGRAM; j++) {
        h = mix(h ^ text[i + j]);
      }
      hashes[i] = h;
    }
    return Arrays.stream(hashes).sorted().distinct().toArray();
  }

  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
