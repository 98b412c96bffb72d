package dev.idem.engine.corpus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.engine.run.CrashPoints;
import dev.idem.engine.run.JobListener;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A corpus job stopped at each of its named crash points ({@link CorpusState.Step} and the
 * kernel's), sometimes stopped again in its resume, then run to its end, writes what an
 * uninterrupted run writes: output, {@code --dropped} and {@code --annotate}, byte for byte. The
 * job is stopped inside the JVM by an exception at the step (its finally blocks run, so its buffers
 * reach the files, which the resume must cut back); idem-cli's {@code CorpusKillTest} halts the
 * real command instead, as a SIGKILL would.
 */
class CorpusCrashTest {

  @TempDir static Path shared;
  @TempDir Path dir;

  private static final Map<String, Path> REFERENCES = new ConcurrentHashMap<>();

  enum Shape {
    PARAGRAPHS_EXACT,
    NGRAMS_GROWING_FILTER,
    DECONTAMINATE_PARAGRAPHS
  }

  static Stream<Arguments> points() {
    return Stream.of(
        Arguments.of(Shape.PARAGRAPHS_EXACT, "STATE_CREATED", 1, null, 0),
        Arguments.of(Shape.PARAGRAPHS_EXACT, "DOCUMENT_HANDLED", 1_500, null, 0),
        Arguments.of(Shape.PARAGRAPHS_EXACT, "OUTPUTS_SYNCED", 3, "DOCUMENT_HANDLED", 700),
        Arguments.of(Shape.PARAGRAPHS_EXACT, "SNAPSHOT_WRITTEN", 1, null, 0),
        Arguments.of(Shape.PARAGRAPHS_EXACT, "SNAPSHOT_WRITTEN", 2, "SNAPSHOT_WRITTEN", 1),
        Arguments.of(Shape.PARAGRAPHS_EXACT, "CHECKPOINT_COMMITTED", 4, null, 0),
        Arguments.of(Shape.NGRAMS_GROWING_FILTER, "CHECKPOINT_COMMITTED", 1, null, 0),
        Arguments.of(Shape.NGRAMS_GROWING_FILTER, "DOCUMENT_HANDLED", 2_500, null, 0),
        Arguments.of(Shape.NGRAMS_GROWING_FILTER, "SNAPSHOT_WRITTEN", 1, "OUTPUTS_SYNCED", 2),
        Arguments.of(Shape.NGRAMS_GROWING_FILTER, "CHECKPOINT_COMMITTED", 3, null, 0),
        Arguments.of(Shape.DECONTAMINATE_PARAGRAPHS, "DOCUMENT_HANDLED", 999, null, 0),
        Arguments.of(Shape.DECONTAMINATE_PARAGRAPHS, "CHECKPOINT_COMMITTED", 2, null, 0));
  }

  @ParameterizedTest(name = "{0} stopped at {1}:{2}, its resume at {3}:{4}")
  @MethodSource("points")
  void stoppedAndResumedWritesWhatAnUninterruptedRunWrites(
      Shape shape, String step, int n, String again, int againN) throws IOException {
    Path reference = reference(shape);
    Path out = Files.createDirectories(dir.resolve("resumed"));
    CorpusSpec spec = spec(shape, out, true);
    assertThatThrownBy(() -> run(spec, stopAt(step, n))).isInstanceOf(Stop.class);
    if (again != null) {
      assertThatThrownBy(() -> run(spec, stopAt(again, againN))).isInstanceOf(Stop.class);
    }
    CorpusResult r = run(spec, CrashPoints.NONE);
    assertThat(r.alreadyDone()).isFalse();
    for (String f : List.of("out.jsonl", "dropped.tsv", "attributes.jsonl")) {
      assertThat(Files.readAllBytes(out.resolve(f)))
          .as(f)
          .isEqualTo(Files.readAllBytes(reference.resolve(f)));
    }
    CorpusResult done = run(spec, CrashPoints.NONE);
    assertThat(done.alreadyDone()).isTrue();
    assertThat(done.kept()).isEqualTo(r.kept());
  }

  /** Thrown at the step: the job stops there. */
  static final class Stop extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Stop(String step) {
      super("stopped at " + step);
    }
  }

  private static CrashPoints stopAt(String step, int n) {
    AtomicLong seen = new AtomicLong();
    return s -> {
      if (s.name().equals(step) && seen.incrementAndGet() == n) {
        throw new Stop(step);
      }
    };
  }

  private static CorpusResult run(CorpusSpec spec, CrashPoints crash) throws IOException {
    return CorpusJob.run(
        spec,
        new ByteArrayInputStream(new byte[0]),
        new ByteArrayOutputStream(),
        JobListener.NONE,
        crash);
  }

  private static Path reference(Shape shape) throws IOException {
    Path made = REFERENCES.get(shape.name());
    if (made == null) {
      made = Files.createDirectories(shared.resolve("reference-" + shape));
      run(spec(shape, made, false), CrashPoints.NONE);
      REFERENCES.put(shape.name(), made);
    }
    return made;
  }

  /** 6,000 documents with boilerplate, repeats and planted passages; made once. */
  private static Path input(String name) throws IOException {
    Path in = shared.resolve(name);
    if (Files.exists(in)) {
      return in;
    }
    SplittableRandom r = new SplittableRandom(7);
    List<String> planted = List.of(CorpusFixture.words(r, 15), CorpusFixture.words(r, 15));
    if (name.equals("eval.jsonl")) {
      return CorpusFixture.write(
          shared, name, List.of(CorpusFixture.record(r, 1, String.join("\n", planted))));
    }
    return CorpusFixture.write(
        shared, name, CorpusFixture.generate(r, 6_000, CorpusSpec.Split.NEWLINE, planted));
  }

  private static CorpusSpec spec(Shape shape, Path out, boolean durable) throws IOException {
    Path in = input("in.jsonl");
    CorpusSpec.Builder b =
        switch (shape) {
          case PARAGRAPHS_EXACT ->
              CorpusSpec.builder(CorpusSpec.Mode.PARAGRAPHS, List.of(in.toString()), "text");
          case NGRAMS_GROWING_FILTER ->
              CorpusSpec.builder(CorpusSpec.Mode.NGRAMS, List.of(in.toString()), "text")
                  .ngram(3)
                  .threshold(0.5)
                  .fpp(0.01);
          case DECONTAMINATE_PARAGRAPHS ->
              CorpusSpec.builder(CorpusSpec.Mode.DECONTAMINATE, List.of(in.toString()), "text")
                  .against(List.of(input("eval.jsonl").toString()))
                  .unit(CorpusSpec.Unit.PARAGRAPH)
                  .ngram(5);
        };
    b.output(out.resolve("out.jsonl"))
        .dropped(out.resolve("dropped.tsv"))
        .annotate(out.resolve("attributes.jsonl"))
        .threads(2)
        .checkpointEvery(500, 60_000);
    if (durable) {
      b.state(out.resolve("state"));
    }
    return b.build();
  }
}
