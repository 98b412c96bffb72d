package dev.idem.engine.records;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.idem.core.Fingerprinter;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
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
    KeyExtractor failing = (record, offset, length, out) -> {
      if (record[offset] == 'b') {
        throw new OutOfMemoryError("simulated");
      }
      out.set(record, offset, length);
      return null;
    };
    RecordSource.Settings settings = new RecordSource.Settings(RecordFormat.LINES, false,
        failing, Fingerprinter.xxh3(), false, 1 << 20);
    assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
      try (RecordSource source = new RecordSource(List.of(InputFile.identify(in)), settings,
          InputStream.nullInputStream(), 0, 0, 0)) {
        assertThatThrownBy(source::next).isInstanceOf(OutOfMemoryError.class)
            .hasMessage("simulated");
      }
    });
  }

  @Test
  void withoutTheErrorTheSameInputArrivesWhole() throws IOException {
    Path in = Files.writeString(dir.resolve("in.txt"), "a\nb\nc\n");
    RecordSource.Settings settings = new RecordSource.Settings(RecordFormat.LINES, false,
        (record, offset, length, out) -> {
          out.set(record, offset, length);
          return null;
        }, Fingerprinter.xxh3(), false, 1 << 20);
    try (RecordSource source = new RecordSource(List.of(InputFile.identify(in)), settings,
        InputStream.nullInputStream(), 0, 0, 0)) {
      RecordBatch batch = source.next();
      assertThat(batch.count).isEqualTo(3);
      assertThat(batch.endOfInput).isTrue();
      assertThat(batch.kind).startsWith(RecordBatch.OK, RecordBatch.OK, RecordBatch.OK);
    }
  }
}
