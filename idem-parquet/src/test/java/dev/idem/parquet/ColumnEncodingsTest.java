package dev.idem.parquet;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The output's columns that hardly repeat are written without a dictionary (the key; a column whose
 * input chunk fell back to plain pages), the others with one, and the rows are the same first rows
 * either way.
 */
class ColumnEncodingsTest {

  private static final MessageType SCHEMA =
      MessageTypeParser.parseMessageType(
          "message row { required binary id (STRING); required binary note (STRING);"
              + " required binary tag (STRING); required int64 n; }");

  @TempDir Path dir;

  @Test
  void theKeyAndColumnsThatFellBackInTheInputAreWrittenPlainTheRestWithADictionary()
      throws IOException, InterruptedException {
    Path in = Files.createDirectories(dir.resolve("in"));
    List<String> expected = writeLake(in, 3, 4000);
    for (boolean withState : new boolean[] {false, true}) {
      Path out = dir.resolve("out-" + withState);
      ParquetDedupResult r =
          ParquetDedup.builder()
              .inputs(List.of(in.toString()))
              .key(List.of("id"))
              .output(out)
              .state(withState ? dir.resolve("state") : null)
              .checkpointRows(2500)
              .run();
      assertThat(r.kept()).isEqualTo(expected.size());
      assertThat(ParquetRows.readParts(out)).containsExactlyElementsOf(expected);
      for (Path part : parts(out)) {
        Map<String, Boolean> dictionary = dictionaryPages(part);
        assertThat(dictionary)
            .as(part.toString())
            .containsEntry("id", false)
            .containsEntry("note", false)
            .containsEntry("tag", true);
      }
      assertPyarrowReads(out, expected.size());
    }
  }

  @Test
  void aTupleKeyKeepsItsColumnsDictionaries() throws IOException {
    Path in = Files.createDirectories(dir.resolve("in"));
    writeLake(in, 1, 3000);
    Path out = dir.resolve("out");
    ParquetDedup.builder()
        .inputs(List.of(in.toString()))
        .key(List.of("tag", "n"))
        .output(out)
        .run();
    assertThat(ParquetRows.readParts(out)).hasSize(3000); // n is unique: every row is kept
    for (Path part : parts(out)) {
      // tag repeats in the output: a tuple's columns are not unique one by one
      assertThat(dictionaryPages(part)).containsEntry("tag", true).containsEntry("note", false);
    }
  }

  /**
   * {@code files} files of {@code rows} rows: {@code id} from a pool a little smaller than the rows
   * (so some repeat), {@code note} unique and long, so the writer's small dictionary page overflows
   * and it falls back, {@code tag} one of 5. Returns the first rows of each id, as {@link
   * ParquetRows} prints them.
   */
  private static List<String> writeLake(Path in, int files, int rows) throws IOException {
    SimpleGroupFactory f = new SimpleGroupFactory(SCHEMA);
    List<String> firstRows = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    long n = 0;
    for (int i = 0; i < files; i++) {
      Path p = in.resolve(String.format("part-%03d.parquet", i));
      List<Group> groups = new ArrayList<>();
      try (ParquetWriter<Group> w =
          ExampleParquetWriter.builder(new LocalOutputFile(p))
              .withConf(new PlainParquetConfiguration())
              .withType(SCHEMA)
              .withCompressionCodec(CompressionCodecName.ZSTD)
              .withDictionaryPageSize(4096)
              .build()) {
        for (int r = 0; r < rows; r++, n++) {
          String id = "id-" + (n * 7919 % (files * rows * 3L / 4));
          Group g =
              f.newGroup()
                  .append("id", id)
                  .append("note", "note " + n + " " + "z".repeat((int) (n % 23)))
                  .append("tag", "tag-" + (n % 5))
                  .append("n", n);
          w.write(g);
          groups.add(g);
          if (seen.add(id)) {
            firstRows.add(g.toString());
          }
        }
      }
    }
    return firstRows;
  }

  private static List<Path> parts(Path out) throws IOException {
    try (Stream<Path> s = Files.list(out)) {
      return s.filter(p -> p.getFileName().toString().matches("part-.*\\.parquet"))
          .sorted()
          .toList();
    }
  }

  /** For each column of each row group: whether any of its pages is dictionary-encoded. */
  private static Map<String, Boolean> dictionaryPages(Path file) throws IOException {
    Map<String, Boolean> out = new HashMap<>();
    try (ParquetFileReader r =
        ParquetFileReader.open(
            new LocalInputFile(file),
            ParquetReadOptions.builder(new PlainParquetConfiguration()).build())) {
      for (BlockMetaData b : r.getRowGroups()) {
        for (ColumnChunkMetaData c : b.getColumns()) {
          out.merge(
              c.getPath().toDotString(),
              c.getEncodingStats().hasDictionaryEncodedPages(),
              Boolean::logicalOr);
        }
      }
    }
    return out;
  }

  /** Another implementation reads the parts whole, where pyarrow is installed. */
  private static void assertPyarrowReads(Path out, long rows)
      throws IOException, InterruptedException {
    Process probe =
        new ProcessBuilder("python3", "-c", "import pyarrow.parquet")
            .redirectErrorStream(true)
            .start();
    boolean has;
    try {
      has = probe.waitFor(60, TimeUnit.SECONDS) && probe.exitValue() == 0;
    } finally {
      probe.destroy();
    }
    Assumptions.assumeTrue(has, "pyarrow is not installed for python3");
    Process p =
        new ProcessBuilder(
                "python3",
                "-c",
                "import sys, pyarrow.parquet as pq, glob\n"
                    + "t = pq.ParquetDataset(sorted(glob.glob(sys.argv[1] + '/part-*.parquet')))"
                    + ".read()\n"
                    + "print(t.num_rows, len(set(t.column('id').to_pylist())))",
                out.toString())
            .redirectErrorStream(true)
            .start();
    String printed = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(printed).isEqualTo(rows + " " + rows);
  }
}
