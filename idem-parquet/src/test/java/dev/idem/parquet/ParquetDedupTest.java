package dev.idem.parquet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.engine.JobException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ParquetDedupTest {

  @TempDir Path dir;

  @Property(tries = 12)
  void keepsTheFirstRowOfEachKeyInInputOrder(
      @ForAll @IntRange(min = 1, max = 4) int files,
      @ForAll @IntRange(min = 1, max = 700) int rowsPerFile,
      @ForAll @IntRange(min = 1, max = 900) int distinct,
      @ForAll long seed,
      @ForAll boolean withState)
      throws IOException {
    Path work = Files.createTempDirectory("pq");
    ParquetLake lake =
        ParquetLake.write(
            Files.createDirectories(work.resolve("in")), seed, files, rowsPerFile, distinct, 9);
    Path out = work.resolve("out");
    Path dropped = work.resolve("dropped");
    ParquetDedupResult r =
        ParquetDedup.builder()
            .inputs(List.of(work.resolve("in").toString()))
            .key(List.of(seed % 2 == 0 ? "meta.url" : "/meta/url"))
            .output(out)
            .dropped(dropped)
            .state(withState ? work.resolve("state") : null)
            .checkpointRows(1 + Math.floorMod(seed, 300))
            .onNullKey(ParquetDedup.NullKeys.SKIP)
            .run();
    List<String> expected = ParquetLake.reference(lake);
    assertThat(ParquetRows.readParts(out)).containsExactlyElementsOf(expected);
    assertThat(ParquetRows.readParts(dropped))
        .containsExactlyElementsOf(ParquetLake.duplicates(lake));
    long nulls = lake.keys().stream().filter(k -> k == null).count();
    assertThat(r.kept()).isEqualTo(expected.size());
    assertThat(r.nullKeys()).isEqualTo(nulls);
    assertThat(r.rows()).isEqualTo((long) files * rowsPerFile);
    assertThat(r.kept() + r.duplicates() + r.nullKeys()).isEqualTo(r.rows());
  }

  @Test
  void aFinishedJobRunAgainDoesNothingAndAResumeDeletesPartsAfterItsCheckpoint()
      throws IOException {
    ParquetLake lake =
        ParquetLake.write(Files.createDirectories(dir.resolve("in")), 7, 3, 500, 400, 0);
    Path out = dir.resolve("out");
    ParquetDedup.Builder job =
        ParquetDedup.builder()
            .inputs(List.of(dir.resolve("in").toString()))
            .key(List.of("meta.url"))
            .output(out)
            .state(dir.resolve("state"))
            .checkpointRows(50);
    ParquetDedupResult first = job.run();
    assertThat(first.parts()).isGreaterThan(3);
    ParquetDedupResult again = job.run();
    assertThat(again.alreadyComplete()).isTrue();
    assertThat(ParquetRows.readParts(out)).containsExactlyElementsOf(ParquetLake.reference(lake));
    // parts beyond a checkpoint (as a crash leaves them) are deleted on a resume
    PartFiles parts = new PartFiles(out);
    Files.copy(parts.part(0), parts.part(first.parts() + 3));
    Files.writeString(out.resolve(".part-00099.parquet.inprogress"), "half");
    assertThat(parts.cutBackTo(first.parts())).isEqualTo(2);
    assertThat(ParquetRows.readParts(out)).containsExactlyElementsOf(ParquetLake.reference(lake));
    parts.requireParts(first.parts());
    Files.delete(parts.part(1));
    assertThatThrownBy(() -> parts.requireParts(first.parts()))
        .isInstanceOf(JobException.class)
        .hasMessageContaining("part-00001.parquet is missing");
  }

  @Test
  void aResumedRunReportsItsRestoreTimeAndFinishesAsAnUninterruptedOne() throws IOException {
    // the key column of b's last row group is damaged: the job fails judging it, before it
    // marks a key of that row group
    List<String> expected = new ArrayList<>();
    ParquetDedup.Builder job = failOnDamagedRowGroup(0, expected);
    ParquetDedupResult resumed = job.run();
    assertThat(resumed.resumed()).isTrue();
    assertThat(resumed.alreadyComplete()).isFalse();
    assertThat(resumed.restoreMillis()).isBetween(0L, resumed.elapsedMillis());
    assertThat(ParquetRows.readParts(dir.resolve("out"))).containsExactlyElementsOf(expected);
    ParquetDedupResult again = job.run();
    assertThat(again.alreadyComplete()).isTrue();
    assertThat(again.restoreMillis()).isEqualTo(again.elapsedMillis());
  }

  @Test
  void aFailureWhileCopyingARowGroupDoesNotMarkItsKeys() throws IOException {
    List<String> expected = new ArrayList<>();
    ParquetDedup.Builder job = failOnDamagedRowGroup(1, expected);
    job.run();
    assertThat(ParquetRows.readParts(dir.resolve("out"))).containsExactlyElementsOf(expected);
  }

  /**
   * Two inputs of 2,000 rows (id, 100 random letters), uncompressed, small row groups; byte in the
   * middle of column {@code column}'s chunk in b's last row group (past the 64 KiB a resume
   * compares) is damaged, the job run and failed on it after the checkpoints before, and the byte
   * put back. Returns the job to resume; {@code expected} gets the reference rows.
   */
  private ParquetDedup.Builder failOnDamagedRowGroup(int column, List<String> expected)
      throws IOException {
    MessageType schema =
        MessageTypeParser.parseMessageType(
            "message t { required binary id (STRING); required binary text (STRING); }");
    SimpleGroupFactory f = new SimpleGroupFactory(schema);
    Random random = new Random(20);
    Path in = Files.createDirectories(dir.resolve("in"));
    Set<String> seen = new HashSet<>();
    for (String name : List.of("a.parquet", "b.parquet")) {
      List<Group> rows = new ArrayList<>();
      for (int r = 0; r < 2000; r++) {
        String id = "id-" + random.nextInt(1500);
        StringBuilder text = new StringBuilder();
        for (int c = 0; c < 100; c++) {
          text.append((char) ('a' + random.nextInt(26)));
        }
        Group g = f.newGroup().append("id", id).append("text", text.toString());
        rows.add(g);
        if (seen.add(id)) {
          expected.add(g.toString());
        }
      }
      ParquetRows.write(in.resolve(name), schema, rows, CompressionCodecName.UNCOMPRESSED, 32768);
    }
    Path b = in.resolve("b.parquet");
    byte[] bytes = Files.readAllBytes(b);
    int at;
    try (ParquetFileReader r =
        ParquetFileReader.open(
            new LocalInputFile(b),
            ParquetReadOptions.builder(new PlainParquetConfiguration()).build())) {
      List<BlockMetaData> groups = r.getFooter().getBlocks();
      assertThat(groups.size()).isGreaterThan(2);
      ColumnChunkMetaData chunk = groups.get(groups.size() - 1).getColumns().get(column);
      at = Math.toIntExact(chunk.getStartingPos() + chunk.getTotalSize() / 2);
    }
    assertThat(at).isGreaterThan(65536);
    byte[] damaged = bytes.clone();
    damaged[at] ^= 0x5a;
    Files.write(b, damaged);
    ParquetDedup.Builder job =
        ParquetDedup.builder()
            .inputs(List.of(in.toString()))
            .key(List.of("id"))
            .output(dir.resolve("out"))
            .state(dir.resolve("state"))
            .checkpointRows(100);
    assertThatThrownBy(job::run).isInstanceOf(ParquetInputException.class);
    assertThat(new PartFiles(dir.resolve("out")).hasParts()).isTrue();
    Files.write(b, bytes);
    return job;
  }

  @Test
  void aTupleKeyFramesItsValuesAndTypesAreKeptApartUnlessAsText() throws IOException {
    MessageType schema =
        MessageTypeParser.parseMessageType(
            "message t { optional binary a (STRING); optional binary b (STRING);"
                + " optional int64 num; optional binary text (STRING); }");
    SimpleGroupFactory f = new SimpleGroupFactory(schema);
    List<Group> rows =
        List.of(
            f.newGroup().append("a", "a").append("b", "bc").append("num", 1L).append("text", "1"),
            f.newGroup().append("a", "ab").append("b", "c").append("num", 2L).append("text", "2"),
            f.newGroup().append("a", "a").append("b", "bc").append("num", 1L).append("text", "1"));
    Path in = dir.resolve("t.parquet");
    ParquetRows.write(in, schema, rows, CompressionCodecName.ZSTD, 1 << 20);
    assertThat(run(in, List.of("a", "b"), false, "tuple").kept()).isEqualTo(2);
    // a file with the int64 1 and the string "1" in one column is not possible; two columns
    // of one row compared as one key each way show the tag at work
    assertThat(keyBytes(in, "num", false)).isNotEqualTo(keyBytes(in, "text", false));
    assertThat(keyBytes(in, "num", true)).isEqualTo(keyBytes(in, "text", true));
  }

  @Test
  void rowsWithListsRepeatedGroupsAndEmptyGroupsAreCopiedWhole() throws IOException {
    MessageType schema =
        MessageTypeParser.parseMessageType(
            "message r { required binary id (STRING); repeated binary tags (STRING);"
                + " optional group items (LIST) { repeated group list { optional int32 element; } }"
                + " optional group empty { optional double d; } optional boolean flag;"
                + " optional fixed_len_byte_array(4) raw; optional float f; }");
    SimpleGroupFactory f = new SimpleGroupFactory(schema);
    Random random = new Random(5);
    List<Group> rows = new ArrayList<>();
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 400; i++) {
      String id = "k" + random.nextInt(150);
      Group g = f.newGroup().append("id", id);
      for (int t = random.nextInt(3); t > 0; t--) {
        g.append("tags", "t" + random.nextInt(9));
      }
      if (random.nextBoolean()) {
        Group items = g.addGroup("items");
        for (int e = random.nextInt(3); e > 0; e--) {
          Group element = items.addGroup("list");
          if (random.nextBoolean()) {
            element.append("element", random.nextInt());
          }
        }
      }
      if (random.nextBoolean()) {
        g.addGroup("empty");
      }
      if (random.nextBoolean()) {
        g.append("flag", random.nextBoolean());
      }
      g.append(
          "raw",
          org.apache.parquet.io.api.Binary.fromConstantByteArray(new byte[] {1, 2, 3, (byte) i}));
      g.append("f", random.nextFloat());
      rows.add(g);
      keys.add(id);
    }
    Path in = dir.resolve("nested.parquet");
    ParquetRows.write(in, schema, rows, CompressionCodecName.SNAPPY, 4096);
    List<String> all = ParquetRows.read(in);
    Set<String> seen = new HashSet<>();
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < all.size(); i++) {
      if (seen.add(keys.get(i))) {
        expected.add(all.get(i));
      }
    }
    run(in, List.of("id"), false, "nested-out");
    assertThat(ParquetRows.readParts(dir.resolve("nested-out")))
        .containsExactlyElementsOf(expected);
  }

  @Test
  void aNullKeyFailsNamingFileRowGroupRowAndColumn() throws IOException {
    ParquetLake lake =
        ParquetLake.write(Files.createDirectories(dir.resolve("in")), 3, 1, 300, 50, 5);
    assertThatThrownBy(
            () ->
                ParquetDedup.builder()
                    .inputs(List.of(lake.files().get(0).toString()))
                    .key(List.of("meta.url"))
                    .output(dir.resolve("out"))
                    .run())
        .isInstanceOf(ParquetInputException.class)
        .hasMessageContaining(lake.files().get(0).toString())
        .hasMessageMatching("(?s).*row group \\d+, row [0-9,]+: key column meta.url is null.*")
        .hasMessageContaining("--on-bad-record skip");
  }

  @Test
  void inputsTheJobCannotUseAreRefusedWithWhatIsWrong() throws IOException {
    ParquetLake lake =
        ParquetLake.write(Files.createDirectories(dir.resolve("in")), 5, 1, 100, 50, 0);
    Path good = lake.files().get(0);
    assertThatThrownBy(() -> run(good, List.of("meta.uri"), false, "o1"))
        .isInstanceOf(ParquetInputException.class)
        .hasMessageContaining("no key column meta.uri")
        .hasMessageContaining("meta.url");
    assertThatThrownBy(() -> run(good, List.of("meta"), false, "o2"))
        .hasMessageContaining("is a group");
    Path cut = dir.resolve("cut.parquet");
    byte[] bytes = Files.readAllBytes(good);
    Files.write(cut, java.util.Arrays.copyOf(bytes, bytes.length / 2));
    assertThatThrownBy(() -> run(cut, List.of("meta.url"), false, "o3"))
        .isInstanceOf(ParquetInputException.class)
        .hasMessageContaining(cut.toString())
        .hasMessageContaining("not a Parquet file, or a damaged one");
    Path damaged = dir.resolve("damaged.parquet");
    byte[] flipped = bytes.clone();
    for (int i = 200; i < 600; i++) {
      flipped[i] ^= (byte) 0x5a; // inside the first column's pages
    }
    Files.write(damaged, flipped);
    assertThatThrownBy(() -> run(damaged, List.of("meta.url"), false, "o5"))
        .isInstanceOf(ParquetInputException.class)
        .hasMessageContaining(damaged + ": damaged Parquet data");
    MessageType other = MessageTypeParser.parseMessageType("message row { required int64 n; }");
    Path odd = dir.resolve("in/z.parquet");
    ParquetRows.write(
        odd,
        other,
        List.of(new SimpleGroupFactory(other).newGroup().append("n", 1L)),
        CompressionCodecName.ZSTD,
        1 << 20);
    assertThatThrownBy(() -> run(dir.resolve("in"), List.of("n"), false, "o4"))
        .isInstanceOf(ParquetInputException.class)
        .hasMessageContaining("z.parquet: its schema differs from")
        .hasMessageContaining("it lacks");
  }

  @Test
  void aResumeWithOtherSettingsIsRefusedAndASingleFileOutputCannotBeResumable() throws IOException {
    ParquetLake lake =
        ParquetLake.write(Files.createDirectories(dir.resolve("in")), 9, 2, 200, 100, 0);
    ParquetDedup.Builder job =
        ParquetDedup.builder()
            .inputs(List.of(dir.resolve("in").toString()))
            .key(List.of("meta.url"))
            .output(dir.resolve("out"))
            .state(dir.resolve("state"));
    job.run();
    assertThatThrownBy(() -> job.key(List.of("id")).run())
        .isInstanceOf(JobException.class)
        .hasMessageContaining("key differs: the state has meta.url, this command has id");
    assertThatThrownBy(
            () ->
                ParquetDedup.builder()
                    .inputs(List.of(lake.files().get(0).toString()))
                    .key(List.of("meta.url"))
                    .output(dir.resolve("one.parquet"))
                    .state(dir.resolve("state2"))
                    .run())
        .isInstanceOf(JobException.class)
        .hasMessageContaining("give a directory");
    assertThatThrownBy(() -> run(dir.resolve("in"), List.of("meta.url"), false, "in"))
        .isInstanceOf(JobException.class)
        .hasMessageContaining("would overwrite or mix with the inputs");
    ParquetDedupResult single = run(lake.files().get(0), List.of("meta.url"), false, "one.parquet");
    assertThat(ParquetRows.read(dir.resolve("one.parquet"))).hasSize((int) single.kept());
  }

  private ParquetDedupResult run(Path in, List<String> key, boolean asText, String out)
      throws IOException {
    return ParquetDedup.builder()
        .inputs(List.of(in.toString()))
        .key(key)
        .keyAsText(asText)
        .output(dir.resolve(out))
        .run();
  }

  /** The key bytes of the first row of {@code in} by {@code column}. */
  private static String keyBytes(Path in, String column, boolean asText) throws IOException {
    try (var r =
        org.apache.parquet.hadoop.ParquetFileReader.open(
            new org.apache.parquet.io.LocalInputFile(in),
            org.apache.parquet.ParquetReadOptions.builder(
                    new org.apache.parquet.conf.PlainParquetConfiguration())
                .build())) {
      MessageType schema = r.getFooter().getFileMetaData().getSchema();
      KeyColumns k =
          KeyColumns.resolve(
              in.toString(),
              schema,
              List.of(column),
              asText,
              dev.idem.core.KeyNormalizer.identity());
      r.setRequestedSchema(k.projection());
      var pages = r.readNextRowGroup();
      var store =
          new org.apache.parquet.column.impl.ColumnReadStoreImpl(
              pages,
              new org.apache.parquet.example.data.simple.convert.GroupRecordConverter(
                      k.projection())
                  .getRootConverter(),
              k.projection(),
              r.getFooter().getFileMetaData().getCreatedBy());
      int length =
          k.read(
              new org.apache.parquet.column.ColumnReader[] {
                store.getColumnReader(k.columns().get(0))
              });
      return java.util.HexFormat.of().formatHex(k.bytes(), 0, length);
    }
  }
}
