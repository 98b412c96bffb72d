package dev.idem.engine.records;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.idem.core.Fingerprint;
import dev.idem.core.Fingerprinter;
import dev.idem.engine.input.InputFile;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RecordSourceTest {

  @TempDir Path dir;

  /**
   * An Error on the reading thread (out of memory, say) must reach the job in order, like an
   * exception; a reader that just died would leave the job waiting for the next batch forever.
   */
  @Test
  void anErrorWhileReadingReachesTheJobInsteadOfHangingIt() throws IOException {
    Path in = Files.writeString(dir.resolve("in.txt"), "a\nb\nc\n");
    KeyExtractor failing =
        (record, offset, length, out) -> {
          if (record[offset] == 'b') {
            throw new OutOfMemoryError("simulated");
          }
          out.set(record, offset, length);
          return null;
        };
    RecordSource.Settings settings =
        new RecordSource.Settings(
            RecordFormat.LINES, false, failing, Fingerprinter.xxh3(), false, 1 << 20);
    assertTimeoutPreemptively(
        Duration.ofSeconds(30),
        () -> {
          try (RecordSource source =
              new RecordSource(
                  List.of(InputFile.identify(in)),
                  settings,
                  InputStream.nullInputStream(),
                  0,
                  0,
                  0)) {
            assertThatThrownBy(source::next)
                .isInstanceOf(OutOfMemoryError.class)
                .hasMessage("simulated");
          }
        });
  }

  /**
   * With a header, an empty first input (a Spark job writes one for an empty partition) has no
   * header either: the header is the first line of the first input that has one. A job starting
   * after it, as a resume does, must find it there too, not fail on the empty input.
   */
  @Test
  void theHeaderComesFromTheFirstInputThatHasOneWhereverTheJobStarts() throws IOException {
    List<InputFile> inputs =
        List.of(
            InputFile.identify(Files.writeString(dir.resolve("part-0.csv"), "")),
            InputFile.identify(Files.writeString(dir.resolve("part-1.csv"), "n,id\n1,a\n2,b\n")),
            InputFile.identify(Files.writeString(dir.resolve("part-2.csv"), "n,id\n3,c\n")));
    Fingerprinter fp = Fingerprinter.xxh3();
    RecordSource.Settings settings =
        new RecordSource.Settings(
            RecordFormat.CSV,
            true,
            KeyExtractor.of(KeySpec.column("id"), RecordFormat.CSV),
            fp,
            false,
            1 << 20);
    assertThat(read(inputs, settings, 0, 0, 0)).containsExactly("header", "a", "b", "c");
    // after "n,id\n1,a\n" of part-1: the header was written before, and names the columns
    assertThat(read(inputs, settings, 1, 9, 2)).containsExactly("b", "c");
    assertThat(read(inputs, settings, 2, 9, 2)).isEmpty();
  }

  /** The keys read from {@code startFile} at {@code offset}, or "header" for the header. */
  private static List<String> read(
      List<InputFile> inputs, RecordSource.Settings settings, int startFile, long offset, long line)
      throws IOException {
    Map<Fingerprint, String> names = new HashMap<>();
    for (String k : List.of("a", "b", "c")) {
      names.put(Fingerprinter.xxh3().fingerprint(k), k);
    }
    List<String> read = new ArrayList<>();
    try (RecordSource source =
        new RecordSource(
            inputs, settings, InputStream.nullInputStream(), startFile, offset, line)) {
      boolean end;
      do {
        RecordBatch batch = source.next();
        for (int i = 0; i < batch.count; i++) {
          read.add(
              batch.kind[i] == RecordBatch.HEADER
                  ? "header"
                  : names.get(
                      new Fingerprint(batch.fingerprints[2 * i], batch.fingerprints[2 * i + 1])));
        }
        end = batch.endOfInput;
        source.recycle(batch);
      } while (!end);
    }
    return read;
  }

  @Test
  void withoutTheErrorTheSameInputArrivesWhole() throws IOException {
    Path in = Files.writeString(dir.resolve("in.txt"), "a\nb\nc\n");
    RecordSource.Settings settings =
        new RecordSource.Settings(
            RecordFormat.LINES,
            false,
            (record, offset, length, out) -> {
              out.set(record, offset, length);
              return null;
            },
            Fingerprinter.xxh3(),
            false,
            1 << 20);
    try (RecordSource source =
        new RecordSource(
            List.of(InputFile.identify(in)), settings, InputStream.nullInputStream(), 0, 0, 0)) {
      RecordBatch batch = source.next();
      assertThat(batch.count).isEqualTo(3);
      assertThat(batch.endOfInput).isTrue();
      assertThat(batch.kind).startsWith(RecordBatch.OK, RecordBatch.OK, RecordBatch.OK);
    }
  }
}
