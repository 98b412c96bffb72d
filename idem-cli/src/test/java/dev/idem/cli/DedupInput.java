package dev.idem.cli;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A generated JSON Lines input with known duplicates, and the output a correct dedup must write.
 * About 30 % of records repeat an earlier key: mostly a recent one, sometimes a much older one
 * (some near the very end), and a few hot keys repeat hundreds of times. Keys are sometimes written
 * with JSON escapes ({@code caf\u00e9}) and sometimes raw ({@code café}): one key.
 */
final class DedupInput {

  final byte[] input;
  final byte[] expected;
  final int records;
  final int distinct;

  private DedupInput(byte[] input, byte[] expected, int records, int distinct) {
    this.input = input;
    this.expected = expected;
    this.records = records;
    this.distinct = distinct;
  }

  static DedupInput generate(int records, long seed) {
    Random random = new Random(seed);
    List<Integer> keys = new ArrayList<>();
    Map<Integer, byte[]> firstLine = new LinkedHashMap<>();
    StringBuilder in = new StringBuilder();
    int next = 0;
    int[] hot = {0, 1, 2};
    for (int r = 0; r < records; r++) {
      int key;
      double u = random.nextDouble();
      if (keys.isEmpty() || u >= 0.30) {
        key = next++;
        keys.add(key);
      } else if (u < 0.02) {
        key = hot[random.nextInt(hot.length)];
      } else if (u < 0.22) {
        key = keys.get(Math.max(0, keys.size() - 1 - random.nextInt(200)));
      } else {
        key = keys.get(random.nextInt(keys.size()));
      }
      String line =
          "{\"ts\":"
              + (1_700_000_000_000L + r)
              + ",\"id\":\""
              + keyText(key, random.nextBoolean())
              + "\",\"text\":\""
              + TEXTS[random.nextInt(TEXTS.length)]
              + "\",\"n\":"
              + r
              + "}\n";
      in.append(line);
      firstLine.putIfAbsent(key, line.getBytes(StandardCharsets.UTF_8));
    }
    StringBuilder out = new StringBuilder();
    for (byte[] l : firstLine.values()) {
      out.append(new String(l, StandardCharsets.UTF_8));
    }
    return new DedupInput(
        in.toString().getBytes(StandardCharsets.UTF_8),
        out.toString().getBytes(StandardCharsets.UTF_8),
        records,
        firstLine.size());
  }

  private static final String[] TEXTS = {
    "plain",
    "caf\\u00e9 cr\\u00e8me",
    "日本語のテキスト",
    "emoji \\ud83c\\udf89",
    "tab\\there",
    "quote \\\"q\\\"",
    "Stra\u00dfe",
    "line\\nbreak"
  };

  /** Key number {@code k} as JSON string content: "clé-k", its é raw or escaped. */
  private static String keyText(int k, boolean escaped) {
    return (escaped ? "cl\\u00e9-" : "cl\u00e9-") + k;
  }
}
