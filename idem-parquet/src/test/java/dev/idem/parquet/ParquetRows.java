package dev.idem.parquet;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.schema.MessageType;

/** Writes and reads Parquet files for tests with parquet-java's own example API, not idem's. */
public final class ParquetRows {

  private static final PlainParquetConfiguration CONF = new PlainParquetConfiguration();

  private ParquetRows() {}

  /** Writes {@code rows} to {@code file}, in row groups of about {@code rowGroupBytes}. */
  public static void write(
      Path file,
      MessageType schema,
      List<Group> rows,
      CompressionCodecName codec,
      long rowGroupBytes)
      throws IOException {
    Files.deleteIfExists(file);
    try (ParquetWriter<Group> w =
        ExampleParquetWriter.builder(new LocalOutputFile(file))
            .withConf(CONF)
            .withType(schema)
            .withCompressionCodec(codec)
            .withRowGroupSize(rowGroupBytes)
            .withMinRowCountForPageSizeCheck(10)
            .withPageSize(1024)
            .build()) {
      for (Group g : rows) {
        w.write(g);
      }
    }
  }

  /** Every row of {@code file}, as text, in order. */
  public static List<String> read(Path file) throws IOException {
    List<String> out = new ArrayList<>();
    try (ParquetFileReader r =
        ParquetFileReader.open(
            new LocalInputFile(file), ParquetReadOptions.builder(CONF).build())) {
      MessageType schema = r.getFooter().getFileMetaData().getSchema();
      PageReadStore pages;
      while ((pages = r.readNextRowGroup()) != null) {
        RecordReader<Group> rows =
            new ColumnIOFactory()
                .getColumnIO(schema)
                .getRecordReader(pages, new GroupRecordConverter(schema));
        for (long i = 0; i < pages.getRowCount(); i++) {
          out.add(rows.read().toString());
        }
      }
    }
    return out;
  }

  /** Every row of the part files in {@code dir}, in name order. */
  public static List<String> readParts(Path dir) throws IOException {
    List<String> out = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path p : files.filter(f -> f.toString().endsWith(".parquet")).sorted().toList()) {
        out.addAll(read(p));
      }
    }
    return out;
  }

  /** The number of row groups in {@code file}. */
  public static int rowGroups(Path file) throws IOException {
    try (ParquetFileReader r =
        ParquetFileReader.open(
            new LocalInputFile(file), ParquetReadOptions.builder(CONF).build())) {
      return r.getRowGroups().size();
    }
  }
}
