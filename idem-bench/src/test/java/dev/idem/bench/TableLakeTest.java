package dev.idem.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.io.LocalOutputFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The table lake's oracle passes the reference output and catches what a wrong one does. */
class TableLakeTest {

  private static final long ROWS = 5000;

  @TempDir Path dir;

  @Test
  void theReferencePassesAndAMissedRepeatedAlteredOrMovedRowFails() throws IOException {
    long distinct = TableLake.ensure(dir, ROWS, 3);
    assertThat(distinct).isBetween(ROWS * 70 / 100, ROWS * 84 / 100);
    List<Long> first = new ArrayList<>();
    for (long s : TableLake.firstRows(ROWS, distinct)) {
      first.add(s);
    }
    assertThat(check("good", first, -1, distinct).correct(true)).isTrue();

    List<Long> missed = new ArrayList<>(first);
    missed.remove(100);
    assertThat(check("missed", missed, -1, distinct).missed()).isEqualTo(1);

    List<Long> repeated = new ArrayList<>(first);
    repeated.add(200, first.get(150));
    LineData.Check r = check("repeated", repeated, -1, distinct);
    assertThat(r.duplicated()).isEqualTo(1);
    assertThat(r.correct(true)).isFalse();

    assertThat(check("altered", first, 300, distinct).altered()).isEqualTo(1);

    List<Long> moved = new ArrayList<>(first);
    Collections.swap(moved, 10, 20);
    LineData.Check m = check("moved", moved, -1, distinct);
    assertThat(m.correct(false)).isFalse(); // a swap shows as a repeat to an in-order reader
    assertThat(m.correct(true)).isFalse();
  }

  /**
   * Writes the rows {@code seqs} (key, then its row's values; row {@code alter} with another
   * score).
   */
  private LineData.Check check(String name, List<Long> seqs, int alter, long distinct)
      throws IOException {
    Path out = dir.resolve(name + ".parquet");
    long[] keyOf = new long[(int) ROWS];
    long[] first = TableLake.firstRows(ROWS, distinct);
    for (int k = 0; k < first.length; k++) {
      keyOf[(int) first[k]] = k;
    }
    SimpleGroupFactory f = new SimpleGroupFactory(TableLake.SCHEMA);
    try (ParquetWriter<Group> w =
        ExampleParquetWriter.builder(new LocalOutputFile(out))
            .withConf(new PlainParquetConfiguration())
            .withType(TableLake.SCHEMA)
            .build()) {
      for (int i = 0; i < seqs.size(); i++) {
        long s = seqs.get(i);
        w.write(
            f.newGroup()
                .append("id", TableLake.id(keyOf[(int) s]))
                .append("seq", s)
                .append("url", TableLake.url(s))
                .append("score", TableLake.score(s) + (i == alter ? 1 : 0))
                .append("payload", TableLake.payload(s)));
      }
    }
    return TableLake.check(List.of(out), ROWS, distinct);
  }
}
