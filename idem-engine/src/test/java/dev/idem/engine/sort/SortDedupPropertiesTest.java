package dev.idem.engine.sort;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.engine.records.KeySpec;
import dev.idem.engine.records.RecordFormat;
import dev.idem.engine.run.CrashPoints;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterTry;
import net.jqwik.api.statistics.Statistics;

/**
 * sort-dedup against an in-memory reference, on random inputs and random tiny memory plans, so that
 * most tries write many runs and merge them in several passes.
 */
class SortDedupPropertiesTest {

  private final List<Path> temporary = new ArrayList<>();

  @Provide
  Arbitrary<byte[]> lines() {
    Arbitrary<byte[]> few =
        Arbitraries.of("a", "b", "c", "dd", "", "é").map(s -> s.getBytes(StandardCharsets.UTF_8));
    // equal in their first 24 bytes: exact keys then tie on the 16-byte prefix the sort uses
    Arbitrary<byte[]> sharedPrefix =
        Arbitraries.of("0", "1", "", "\u0000")
            .map(s -> ("p".repeat(24) + s).getBytes(StandardCharsets.UTF_8));
    Arbitrary<byte[]> raw =
        Arbitraries.bytes()
            .filter(b -> b != '\n' && b != '\r')
            .array(byte[].class)
            .ofMaxSize(5); // mostly not UTF-8
    Arbitrary<byte[]> huge =
        Arbitraries.of(1500, 5000)
            .flatMap(
                n ->
                    Arbitraries.of("x", "y")
                        .map(s -> s.repeat(n).getBytes(StandardCharsets.US_ASCII)));
    Arbitrary<byte[]> line =
        Arbitraries.frequencyOf(
            Tuple.of(6, few), Tuple.of(3, sharedPrefix), Tuple.of(3, raw), Tuple.of(1, huge));
    return Combinators.combine(
            line.list().ofMaxSize(400).withSizeDistribution(RandomDistribution.uniform()),
            Arbitraries.of(true, false))
        .as(
            (ls, newlineAtEnd) -> {
              ByteArrayOutputStream out = new ByteArrayOutputStream();
              for (int i = 0; i < ls.size(); i++) {
                out.writeBytes(ls.get(i));
                if (i < ls.size() - 1 || newlineAtEnd) {
                  out.write('\n');
                }
              }
              return out.toByteArray();
            });
  }

  @Provide
  Arbitrary<SortPlan> plans() {
    return Combinators.combine(
            Arbitraries.integers().between(256, 3000),
            Arbitraries.integers().between(64, 2048),
            Arbitraries.integers().between(2, 5),
            Arbitraries.integers().between(0, 3),
            Arbitraries.integers().between(256, 8192))
        .as(
            (buffer, block, fanIn, fewer, spool) ->
                new SortPlan(1024, 16, buffer, block, fanIn, Math.max(2, fanIn - fewer), spool));
  }

  @Property(tries = 150)
  void wholeLinesMatchTheReference(
      @ForAll("lines") byte[] input,
      @ForAll boolean keepLast,
      @ForAll boolean keyOrder,
      @ForAll boolean exactKey,
      @ForAll("plans") SortPlan plan,
      @ForAll boolean viaStdin)
      throws IOException {
    byte[] expected =
        SortDedupReference.expected(input, line -> line, keepLast, keyOrder, exactKey);
    Run r =
        run(
            input,
            RecordFormat.LINES,
            new KeySpec.WholeLine(),
            keepLast,
            keyOrder,
            exactKey,
            plan,
            viaStdin);
    assertThat(r.output).isEqualTo(expected);
    assertThat(r.result.records()).isEqualTo(SortDedupReference.lines(input).size());
    assertThat(r.result.kept() + r.result.duplicates()).isEqualTo(r.result.records());
    Statistics.label("merge passes").collect(Math.min(r.result.mergePasses(), 3));
    Statistics.label("merge passes")
        .coverage(
            c -> {
              c.check(0).percentage(p -> p > 3); // it fit in memory
              c.check(3).percentage(p -> p > 25); // several passes by key, then by position
            });
  }

  @Provide
  Arbitrary<byte[]> jsonLines() {
    Arbitrary<String> key =
        Arbitraries.of(
            "a",
            "b",
            "c",
            "q".repeat(20) + "1",
            "q".repeat(20) + "2",
            "slash/and\\\\backslash",
            "caf\\u00e9",
            "café");
    return key.list()
        .ofMaxSize(200)
        .withSizeDistribution(RandomDistribution.uniform())
        .map(
            keys -> {
              StringBuilder sb = new StringBuilder();
              for (int i = 0; i < keys.size(); i++) {
                sb.append("{\"n\":")
                    .append(i)
                    .append(",\"id\":\"")
                    .append(keys.get(i))
                    .append("\"}\n");
              }
              return sb.toString().getBytes(StandardCharsets.UTF_8);
            });
  }

  @Property(tries = 50)
  void jsonKeysMatchTheReference(
      @ForAll("jsonLines") byte[] input,
      @ForAll boolean keepLast,
      @ForAll boolean keyOrder,
      @ForAll boolean exactKey,
      @ForAll("plans") SortPlan plan)
      throws IOException {
    byte[] expected =
        SortDedupReference.expected(
            input, SortDedupPropertiesTest::idOf, keepLast, keyOrder, exactKey);
    Run r =
        run(
            input,
            RecordFormat.JSONL,
            KeySpec.jsonField("id", false),
            keepLast,
            keyOrder,
            exactKey,
            plan,
            false);
    assertThat(r.output).isEqualTo(expected);
  }

  /** The id's value as the JSON extractor gives it: unescaped, UTF-8. */
  private static byte[] idOf(byte[] line) {
    String s = new String(line, StandardCharsets.UTF_8);
    int from = s.indexOf("\"id\":\"") + 6;
    String raw = s.substring(from, s.lastIndexOf('"'));
    String value = raw.replace("\\u00e9", "é").replace("\\\\", "\\");
    return value.getBytes(StandardCharsets.UTF_8);
  }

  record Run(byte[] output, SortDedupResult result) {}

  private Run run(
      byte[] input,
      RecordFormat format,
      KeySpec key,
      boolean keepLast,
      boolean keyOrder,
      boolean exactKey,
      SortPlan plan,
      boolean viaStdin)
      throws IOException {
    Path dir = Files.createTempDirectory("idem-sort-dedup-test-");
    temporary.add(dir);
    Path tmp = Files.createDirectory(dir.resolve("tmp"));
    String name = "-";
    if (!viaStdin) {
      name = Files.write(dir.resolve("in"), input).toString();
    }
    SortDedupSpec spec =
        SortDedupSpec.builder(List.of(name), key)
            .format(format)
            .exactKey(exactKey)
            .memoryBytes(1 << 20)
            .tmp(tmp)
            .keep(keepLast ? SortDedupSpec.Keep.LAST : SortDedupSpec.Keep.FIRST)
            .order(keyOrder ? SortDedupSpec.Order.KEY : SortDedupSpec.Order.INPUT)
            .maxRecordBytes(1 << 20)
            .compressRuns(true)
            .build();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    SortDedupResult result =
        SortDedupJob.run(
            spec,
            plan,
            null,
            new ByteArrayInputStream(viaStdin ? input : new byte[0]),
            out,
            dev.idem.engine.run.JobListener.NONE,
            CrashPoints.NONE);
    try (Stream<Path> left = Files.list(tmp)) {
      assertThat(left).as("temporary files left in --tmp").isEmpty();
    }
    return new Run(out.toByteArray(), result);
  }

  @AfterTry
  void removeTemporaryFiles() throws IOException {
    for (Path dir : temporary) {
      try (Stream<Path> walk = Files.walk(dir)) {
        walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
    temporary.clear();
  }
}
