package dev.idem.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The generator and the output check that every exact-dedup result goes through. */
class LineDataTest {

  @TempDir Path dir;

  /** The reference, computed the obvious way: the first line of each key, in input order. */
  private static List<String> firstOccurrences(Path in, LineData.Shape shape) throws IOException {
    Map<String, String> first = new LinkedHashMap<>();
    for (String line : Files.readAllLines(in, StandardCharsets.US_ASCII)) {
      String key = shape == LineData.Shape.JSONL ? line.substring(0, line.indexOf(",")) : line;
      first.putIfAbsent(key, line);
    }
    return new ArrayList<>(first.values());
  }

  private LineData.Check check(LineData.Facts f, List<String> lines) throws IOException {
    Path out = dir.resolve("out");
    Files.write(out, lines, StandardCharsets.US_ASCII);
    int[] first =
        f.shape() == LineData.Shape.JSONL
            ? LineData.firstRecords(f.dist(), f.records(), f.distinct())
            : null;
    return LineData.check(f.shape(), out, f.distinct(), first);
  }

  @Test
  void theGeneratorsFactsMatchTheFileAndThirtyPercentRepeat() throws IOException {
    Path in = dir.resolve("in");
    LineData.Facts f = LineData.generate(LineData.Shape.URL, LineData.Dist.UNIFORM30, 50_000, in);
    List<String> reference = firstOccurrences(in, LineData.Shape.URL);
    assertThat(f.distinct()).isEqualTo(reference.size());
    assertThat(f.bytes()).isEqualTo(Files.size(in));
    assertThat(f.outputBytes()).isEqualTo(reference.stream().mapToLong(l -> l.length() + 1).sum());
    assertThat(1 - (double) f.distinct() / f.records()).isBetween(0.29, 0.31);
  }

  @Property(tries = 20)
  void theReferenceDedupPassesAndEveryKeyDecodes(
      @ForAll @IntRange(min = 1, max = 3000) int records,
      @ForAll LineData.Dist dist,
      @ForAll LineData.Shape shape)
      throws IOException {
    dir = Files.createTempDirectory("linedata"); // jqwik injects no @TempDir
    try {
      Path in = dir.resolve("in");
      LineData.Facts f = LineData.generate(shape, dist, records, in);
      List<String> reference = firstOccurrences(in, shape);
      assertThat(reference).hasSize((int) f.distinct());
      LineData.Check c = check(f, reference);
      assertThat(c.exact()).isTrue();
      assertThat(c.inOrder()).isTrue();
      assertThat(c.correct(true)).isTrue();
    } finally {
      Scenario.Bench.delete(dir);
    }
  }

  @Test
  void everyWayOfGettingItWrongIsCaught() throws IOException {
    Path in = dir.resolve("in");
    LineData.Facts f = LineData.generate(LineData.Shape.URL, LineData.Dist.MIXED30, 5000, in);
    List<String> ref = firstOccurrences(in, LineData.Shape.URL);

    List<String> dropped = new ArrayList<>(ref);
    dropped.remove(100);
    assertThat(check(f, dropped).missed()).isEqualTo(1);
    assertThat(check(f, dropped).correct(false)).isFalse();

    List<String> twice = new ArrayList<>(ref);
    twice.add(ref.get(7));
    assertThat(check(f, twice).duplicated()).isEqualTo(1);
    assertThat(check(f, twice).correct(false)).isFalse();

    List<String> altered = new ArrayList<>(ref);
    altered.set(3, ref.get(3) + "x");
    assertThat(check(f, altered).altered()).isEqualTo(1);

    List<String> foreign = new ArrayList<>(ref);
    foreign.add("https://www.example-100.com/item/zzzzzzzzzzzzzzzz?ref=1");
    assertThat(check(f, foreign).unknown()).isEqualTo(1);

    List<String> swapped = new ArrayList<>(ref);
    Collections.swap(swapped, 10, 20);
    LineData.Check s = check(f, swapped);
    assertThat(s.exact()).isTrue();
    assertThat(s.inOrder()).isFalse();
    assertThat(s.correct(true)).isFalse();
    assertThat(s.correct(false)).isTrue(); // GNU sort's promise: the right set, any order

    Path crlf = dir.resolve("crlf");
    Files.writeString(crlf, String.join("\r\n", ref) + "\r\n");
    assertThat(LineData.check(f.shape(), crlf, f.distinct(), null).exact()).isFalse();
  }

  @Test
  void keyedByIdALaterRecordOfAKeyIsNotItsFirst() throws IOException {
    Path in = dir.resolve("in");
    LineData.Facts f = LineData.generate(LineData.Shape.JSONL, LineData.Dist.MIXED30, 5000, in);
    List<String> all = Files.readAllLines(in);
    Map<String, String> last = new LinkedHashMap<>();
    for (String line : all) {
      String key = line.substring(0, line.indexOf(","));
      last.putIfAbsent(key, line);
      last.put(key, line); // the last record of each key, in the first one's place
    }
    LineData.Check c = check(f, new ArrayList<>(last.values()));
    assertThat(c.missed()).isZero();
    assertThat(c.altered()).isPositive();
    assertThat(c.correct(true)).isFalse();
  }

  @Property
  void keyNumbersRoundTrip(@ForAll long c) {
    assertThat(LineData.decode(LineData.encode(c))).isEqualTo(c);
    byte[] b = new byte[256];
    int len = LineData.line(LineData.Shape.URL, b, c & Long.MAX_VALUE, 0);
    assertThat(LineData.keyNumber(LineData.Shape.URL, b, 0, len)).isEqualTo(c & Long.MAX_VALUE);
  }
}
