package dev.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The corpus jobs ({@code dedup --unit paragraph}, {@code dedup --unit ngram} with a Bloom filter,
 * {@code decontaminate --unit paragraph}) run as the real command in child JVMs and killed: first
 * at named crash points ({@code -Didem.crash-at=STEP:N}, a halt exactly as a SIGKILL there),
 * sometimes again in the resume; then with SIGKILL at random moments, rerun with the same command
 * until it finishes. The output, {@code --dropped} and {@code --annotate} must equal, byte for
 * byte, what a run without a state writes.
 *
 * <p>In CI: the named points below and 3 random kills per job (about two minutes on two cores). By
 * hand, a long soak: {@code -Didem.kills=100}.
 */
class CorpusKillTest {

  private static final int DOCUMENTS = 6_000;

  /** Random kills per job: 3 in CI; {@code -Didem.kills=100} by hand for a long soak. */
  private static final int KILLS = Integer.getInteger("idem.kills", 3);

  @TempDir static Path shared;
  @TempDir Path dir;

  private static Path input;
  private static Path evals;
  private static final Map<Job, Path> REFERENCES = new ConcurrentHashMap<>();

  enum Job {
    PARAGRAPHS,
    NGRAMS_FILTER,
    DECONTAMINATE
  }

  /**
   * Documents of 3 to 12 paragraphs: fresh ones, boilerplate from a pool of 40 (banners, footers),
   * paragraphs repeated from earlier documents, and now and then a planted evaluation passage.
   */
  @BeforeAll
  static void generate() throws IOException {
    SplittableRandom r = new SplittableRandom(20261207L);
    List<String> boilerplate = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      boilerplate.add("Footer " + i + ": " + words(r, 8));
    }
    List<String> planted = List.of(words(r, 20), words(r, 20), words(r, 20));
    List<String> earlier = new ArrayList<>();
    StringBuilder b = new StringBuilder();
    for (int d = 0; d < DOCUMENTS; d++) {
      List<String> paragraphs = new ArrayList<>();
      for (int p = 3 + r.nextInt(10); p > 0; p--) {
        int pick = r.nextInt(10);
        String s =
            pick < 3
                ? boilerplate.get(r.nextInt(boilerplate.size()))
                : pick < 5 && !earlier.isEmpty()
                    ? earlier.get(r.nextInt(earlier.size()))
                    : pick == 5 && r.nextInt(20) == 0
                        ? planted.get(r.nextInt(planted.size()))
                        : words(r, 5 + r.nextInt(30));
        paragraphs.add(s);
        if (earlier.size() < 5_000) {
          earlier.add(s);
        }
      }
      b.append("{\"id\":")
          .append(d)
          .append(",\"text\":\"")
          .append(String.join("\\n", paragraphs))
          .append("\",\"meta\":{\"n\":")
          .append(d % 7)
          .append("}}\n");
    }
    input = shared.resolve("corpus.jsonl");
    Files.writeString(input, b, StandardCharsets.UTF_8);
    evals = shared.resolve("evals.jsonl");
    StringBuilder e = new StringBuilder();
    for (int i = 0; i < planted.size(); i++) {
      e.append("{\"id\":\"q").append(i).append("\",\"text\":\"").append(planted.get(i));
      e.append("\"}\n");
    }
    Files.writeString(evals, e, StandardCharsets.UTF_8);
  }

  private static String words(SplittableRandom r, int n) {
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < n; i++) {
      s.append(i == 0 ? "" : " ").append("w").append(r.nextInt(3_000));
    }
    return s.toString();
  }

  /** The job's command writing into {@code out} (a directory), with {@code state} or without. */
  private static List<String> command(Job job, Path out, Path state) throws IOException {
    Files.createDirectories(out);
    List<String> a = new ArrayList<>();
    switch (job) {
      case PARAGRAPHS -> a.addAll(List.of("dedup", "--content", "text", "--unit", "paragraph"));
      case NGRAMS_FILTER ->
          a.addAll(
              List.of(
                  "dedup",
                  "--content",
                  "text",
                  "--unit",
                  "ngram",
                  "--ngram",
                  "5",
                  "--threshold",
                  "0.6",
                  "--document-threshold",
                  "0.9",
                  "--fpp",
                  "0.01"));
      case DECONTAMINATE ->
          a.addAll(
              List.of(
                  "decontaminate",
                  "--content",
                  "text",
                  "--against",
                  evals.toString(),
                  "--unit",
                  "paragraph",
                  "--ngram",
                  "8"));
    }
    a.addAll(
        List.of(
            "--threads",
            "2",
            "--dropped",
            out.resolve("dropped.tsv").toString(),
            "--annotate",
            out.resolve("spans.jsonl").toString(),
            "-o",
            out.resolve("out.jsonl").toString(),
            "-q"));
    if (state != null) {
      a.addAll(List.of("--state", state.toString(), "--checkpoint-every", "400"));
    }
    a.add(input.toString());
    return a;
  }

  /** What a run without a state writes; made once per job, in this JVM. */
  private static Path reference(Job job) throws IOException {
    Path made = REFERENCES.get(job);
    if (made == null) {
      made = shared.resolve("reference-" + job);
      Cli.Result r = Cli.run(command(job, made, null).toArray(String[]::new));
      assertThat(r.status()).as(r.err()).isZero();
      assertThat(Files.size(made.resolve("dropped.tsv"))).as("something removed").isPositive();
      REFERENCES.put(job, made);
    }
    return made;
  }

  static Stream<Arguments> points() {
    return Stream.of(
        Arguments.of(Job.PARAGRAPHS, "STATE_CREATED", null),
        Arguments.of(Job.PARAGRAPHS, "DOCUMENT_HANDLED:2500", "OUTPUTS_SYNCED:2"),
        Arguments.of(Job.PARAGRAPHS, "SNAPSHOT_WRITTEN:1", null),
        Arguments.of(Job.PARAGRAPHS, "CHECKPOINT_COMMITTED:4", "DOCUMENT_HANDLED:300"),
        Arguments.of(Job.NGRAMS_FILTER, "CHECKPOINT_COMMITTED:2", null),
        Arguments.of(Job.NGRAMS_FILTER, "OUTPUTS_SYNCED:5", "SNAPSHOT_WRITTEN:1"),
        Arguments.of(Job.DECONTAMINATE, "DOCUMENT_HANDLED:3000", null),
        Arguments.of(Job.DECONTAMINATE, "CHECKPOINT_COMMITTED:3", null));
  }

  @ParameterizedTest(name = "{0} killed at {1}, its resume at {2}")
  @MethodSource("points")
  void killedAtANamedPointAndResumedWritesWhatARunWithoutAStateWrites(
      Job job, String step, String again) throws Exception {
    Path reference = reference(job);
    Path out = dir.resolve("resumed");
    List<String> args = command(job, out, dir.resolve("state"));
    killAt(step, args);
    if (again != null) {
      killAt(again, args);
    }
    Cli.Result end = Cli.run(args.toArray(String[]::new));
    assertThat(end.status()).as(end.err()).isZero();
    assertSameOutputs(reference, out, "after a halt at " + step);
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Job.class)
  void killedAtRandomMomentsItWritesWhatARunWithoutAStateWrites(Job job) throws Exception {
    Path reference = reference(job);
    Path runs = Files.createDirectories(dir.resolve("runs"));
    long full = KillLoop.runToEnd(command(job, runs.resolve("once"), runs.resolve("once-state")));
    assertSameOutputs(reference, runs.resolve("once"), "an uninterrupted run with a state");
    KillLoop.run(
        runs,
        "corpus-" + job,
        (state, o) -> {
          try {
            return command(job, Path.of(o + ".d"), state);
          } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        },
        full,
        1.0,
        KILLS,
        (round, kills, o) ->
            assertSameOutputs(
                reference, Path.of(o + ".d"), "round " + round + " after " + kills + " kills"));
  }

  private static void killAt(String step, List<String> args) throws Exception {
    Process p =
        ChildProcessTest.builder(
                "512m", List.of("-Didem.crash-at=" + step), args.toArray(new String[0]))
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as("halted at " + step + ": " + err).isEqualTo(137);
  }

  private static void assertSameOutputs(Path reference, Path out, String as) throws IOException {
    for (String f : List.of("out.jsonl", "dropped.tsv", "spans.jsonl")) {
      assertThat(Files.readAllBytes(out.resolve(f)))
          .as(f + ", " + as)
          .isEqualTo(Files.readAllBytes(reference.resolve(f)));
    }
  }
}
