package dev.idem.parquet;

import java.io.IOException;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.Converter;
import org.apache.parquet.io.api.GroupConverter;
import org.apache.parquet.io.api.PrimitiveConverter;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.io.api.RecordMaterializer;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.MessageType;

/**
 * Copies the rows of row groups into Parquet writers ({@link Sink}s) without building them as
 * objects: the reader's record assembly calls converters that pass each value straight to a
 * writer's record consumer ({@link #copyNext}), or drop it ({@link #skipNext}). Nested groups,
 * repeated fields and nulls come through as the assembly presents them: a field with no value is
 * left out, which is how Parquet writes a null.
 *
 * <p>The writer pulls: {@link #copyNext} calls the sink's {@code write}, and its write support
 * reads the row from within it, so the writer counts the row and sizes its row groups as for any
 * record.
 */
final class RowCopy {

  private final MessageType schema;
  private final ColumnEncodings encodings;
  private final Forward root;
  private RecordConsumer out;
  private boolean forwarding;
  private RecordReader<Object> rows;

  RowCopy(MessageType schema, ColumnEncodings encodings) {
    this.schema = schema;
    this.encodings = encodings;
    this.root = new Forward(schema, null, -1);
  }

  /** A new output file of the schema that rows can be copied into. */
  Sink sink(
      OutputFile file, ParquetConfiguration conf, CompressionCodecName codec, long rowGroupBytes)
      throws IOException {
    return new Sink(file, conf, codec, rowGroupBytes);
  }

  /** Starts on a row group whose rows are next copied or skipped, in order. */
  void rowGroup(PageReadStore pages) {
    rows =
        new ColumnIOFactory()
            .getColumnIO(schema)
            .getRecordReader(
                pages,
                new RecordMaterializer<Object>() {
                  @Override
                  public Object getCurrentRecord() {
                    return Boolean.TRUE;
                  }

                  @Override
                  public GroupConverter getRootConverter() {
                    return root;
                  }
                });
  }

  /** Writes the next row of the row group to {@code sink}. */
  void copyNext(Sink sink) throws IOException {
    sink.writer.write(Boolean.TRUE); // the sink's write support reads the row: see Support.write
  }

  /** Passes over the next row of the row group. */
  void skipNext() {
    forwarding = false;
    rows.read();
  }

  /** A Parquet file being written, rows copied in by {@link #copyNext}. */
  final class Sink implements AutoCloseable {
    private final ParquetWriter<Object> writer;

    private Sink(
        OutputFile file, ParquetConfiguration conf, CompressionCodecName codec, long rowGroupBytes)
        throws IOException {
      Builder b =
          new Builder(file)
              .withConf(conf)
              .withCompressionCodec(codec)
              .withRowGroupSize(rowGroupBytes);
      for (String column : encodings.plainColumns()) {
        b = b.withDictionaryEncoding(column, false);
      }
      this.writer = b.build();
    }

    @Override
    public void close() throws IOException {
      writer.close();
    }
  }

  private final class Builder extends ParquetWriter.Builder<Object, Builder> {
    Builder(OutputFile file) {
      super(file);
    }

    @Override
    protected Builder self() {
      return this;
    }

    @Override
    protected WriteSupport<Object> getWriteSupport(Configuration conf) {
      return new Support();
    }

    @Override
    protected WriteSupport<Object> getWriteSupport(ParquetConfiguration conf) {
      return new Support();
    }
  }

  private final class Support extends WriteSupport<Object> {
    private RecordConsumer consumer;

    @Override
    public WriteContext init(Configuration configuration) {
      return new WriteContext(schema, Map.of());
    }

    @Override
    public WriteContext init(ParquetConfiguration configuration) {
      return new WriteContext(schema, Map.of());
    }

    @Override
    public void prepareForWrite(RecordConsumer recordConsumer) {
      this.consumer = recordConsumer;
    }

    @Override
    public void write(Object ignored) {
      out = consumer;
      forwarding = true;
      rows.read();
    }
  }

  /**
   * The converter of one group (the root: the message) that forwards its fields' values, opening a
   * field on its first value and closing it when another field or the group's end comes.
   */
  private final class Forward extends GroupConverter {
    private final Forward parent;
    private final int index;
    private final GroupType type;
    private final Converter[] children;
    private int open = -1;

    Forward(GroupType type, Forward parent, int index) {
      this.type = type;
      this.parent = parent;
      this.index = index;
      this.children = new Converter[type.getFieldCount()];
      for (int i = 0; i < children.length; i++) {
        children[i] =
            type.getType(i).isPrimitive()
                ? new Value(this, i)
                : new Forward(type.getType(i).asGroupType(), this, i);
      }
    }

    @Override
    public Converter getConverter(int fieldIndex) {
      return children[fieldIndex];
    }

    /** A value (or a group) of field {@code i} follows. */
    void enter(int i) {
      if (open != i) {
        closeField();
        out.startField(type.getFieldName(i), i);
        open = i;
      }
    }

    private void closeField() {
      if (open >= 0) {
        out.endField(type.getFieldName(open), open);
        open = -1;
      }
    }

    @Override
    public void start() {
      if (!forwarding) {
        return;
      }
      open = -1;
      if (parent == null) {
        out.startMessage();
      } else {
        parent.enter(index);
        out.startGroup();
      }
    }

    @Override
    public void end() {
      if (!forwarding) {
        return;
      }
      closeField();
      if (parent == null) {
        out.endMessage();
      } else {
        out.endGroup();
      }
    }
  }

  /** Forwards the values of one primitive field. */
  private final class Value extends PrimitiveConverter {
    private final Forward group;
    private final int index;

    Value(Forward group, int index) {
      this.group = group;
      this.index = index;
    }

    @Override
    public void addBinary(Binary value) {
      if (forwarding) {
        group.enter(index);
        out.addBinary(value);
      }
    }

    @Override
    public void addBoolean(boolean value) {
      if (forwarding) {
        group.enter(index);
        out.addBoolean(value);
      }
    }

    @Override
    public void addDouble(double value) {
      if (forwarding) {
        group.enter(index);
        out.addDouble(value);
      }
    }

    @Override
    public void addFloat(float value) {
      if (forwarding) {
        group.enter(index);
        out.addFloat(value);
      }
    }

    @Override
    public void addInt(int value) {
      if (forwarding) {
        group.enter(index);
        out.addInteger(value);
      }
    }

    @Override
    public void addLong(long value) {
      if (forwarding) {
        group.enter(index);
        out.addLong(value);
      }
    }
  }
}
