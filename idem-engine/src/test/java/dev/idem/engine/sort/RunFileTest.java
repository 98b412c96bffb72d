package dev.idem.engine.sort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Runs round-trip, large entries included; damaged and cut runs are refused by name. */
class RunFileTest {

  @TempDir Path dir;

  private final ExecutorService background = Executors.newSingleThreadExecutor();

  @AfterEach
  void stop() {
    background.shutdownNow();
  }

  record Entry(long hi, long lo, long ordinal, byte[] key, byte[] record) {}

  private static List<Entry> entries(RunKind kind, int n, long seed) {
    Random r = new Random(seed);
    List<Entry> list = new ArrayList<>();
    long ordinal = 0;
    for (int i = 0; i < n; i++) {
      int len = i % 97 == 5 ? 20_000 + r.nextInt(5000) : r.nextInt(60); // some over a block
      byte[] record = new byte[len];
      for (int j = 0; j < len; j++) {
        record[j] = (byte) (i % 3 == 0 ? r.nextInt(256) : 'a' + r.nextInt(3));
      }
      byte[] key =
          kind.hasKey() ? ("key-" + r.nextInt(50)).getBytes(StandardCharsets.UTF_8) : new byte[0];
      ordinal += 1 + r.nextInt(1000);
      list.add(
          new Entry(
              kind.hasFingerprint() ? r.nextLong() : 0,
              kind.hasFingerprint() ? r.nextLong() : 0,
              ordinal,
              key,
              record));
    }
    return list;
  }

  private RunFile write(RunKind kind, List<Entry> list) throws IOException {
    return write(kind, list, true);
  }

  private RunFile write(RunKind kind, List<Entry> list, boolean compress) throws IOException {
    try (RunWriter w =
        new RunWriter(
            dir.resolve("run-" + kind),
            kind,
            4096,
            list.size() % 2 == 0 ? background : null,
            compress)) {
      for (Entry e : list) {
        w.write(e.hi, e.lo, e.ordinal, e.key, 0, e.key.length, e.record, 0, e.record.length);
      }
      return w.finish();
    }
  }

  @ParameterizedTest
  @EnumSource(RunKind.class)
  void entriesComeBackAsWritten(RunKind kind) throws IOException {
    for (int n : new int[] {0, 1, 2, 3000, 3001}) { // even sizes: compressed in the background
      for (boolean compress : new boolean[] {true, false}) {
        entriesComeBackAsWritten(kind, n, compress);
      }
    }
  }

  private void entriesComeBackAsWritten(RunKind kind, int n, boolean compress) throws IOException {
    List<Entry> list = entries(kind, n, n);
    RunFile run = write(kind, list, compress);
    assertThat(run.entries()).isEqualTo(n);
    long dataBytes =
        list.stream().mapToLong(e -> e.record.length + (kind.hasKey() ? e.key.length : 0)).sum();
    if (!compress) { // every block stored as it is
      assertThat(run.bytes()).isGreaterThan(dataBytes);
    } else if (n >= 3000) { // two thirds of the records are of three letters: LZ4 shrinks them
      assertThat(run.bytes()).isLessThan(dataBytes);
    }
    assertThat(run.bytes()).isEqualTo(Files.size(run.path()));
    try (RunReader r = new RunReader(run, 4096)) {
      for (Entry e : list) {
        assertThat(r.next()).isTrue();
        assertThat(r.hi).isEqualTo(e.hi);
        assertThat(r.lo).isEqualTo(e.lo);
        assertThat(r.ordinal).isEqualTo(e.ordinal);
        assertThat(Arrays.copyOfRange(r.block, r.recordOffset, r.recordOffset + r.recordLength))
            .isEqualTo(e.record);
        if (kind.hasKey()) {
          assertThat(Arrays.copyOfRange(r.block, r.keyOffset, r.keyOffset + r.keyLength))
              .isEqualTo(e.key);
        }
      }
      assertThat(r.next()).isFalse();
      assertThat(r.next()).isFalse();
    }
    Files.delete(run.path());
  }

  @Test
  void aFlippedByteOrACutFileIsRefusedNamingTheRun() throws IOException {
    RunFile run = write(RunKind.FINGERPRINT, entries(RunKind.FINGERPRINT, 2000, 7));
    long size = Files.size(run.path());
    for (long at : new long[] {3, 20, 40, size / 2, size - 10}) {
      byte[] copy = Files.readAllBytes(run.path());
      copy[(int) at] ^= 0x10;
      Path damaged = Files.write(dir.resolve("damaged"), copy);
      assertThatThrownBy(
              () -> readAll(new RunFile(damaged, run.kind(), run.entries(), copy.length)))
          .isInstanceOf(IOException.class)
          .hasMessageContaining(damaged.toString())
          .hasMessageContaining("is damaged");
    }
    Path cut = dir.resolve("cut");
    Files.copy(run.path(), cut);
    try (RandomAccessFile f = new RandomAccessFile(cut.toFile(), "rw")) {
      f.setLength(size - 16); // the end record is gone
    }
    assertThatThrownBy(() -> readAll(new RunFile(cut, run.kind(), run.entries(), size - 16)))
        .hasMessageContaining("ends early");
  }

  private static void readAll(RunFile run) throws IOException {
    try (RunReader r = new RunReader(run, 4096)) {
      while (r.next()) {
        // just read
      }
    }
  }
}
