package dev.idem.flink.example;

import dev.idem.flink.IdemDedup;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.serialization.SimpleStringEncoder;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.connector.file.sink.FileSink;
import org.apache.flink.connector.file.src.FileSource;
import org.apache.flink.connector.file.src.reader.TextLineInputFormat;
import org.apache.flink.core.fs.Path;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The example job of docs/FLINK.md: CSV order lines in, the first line of each order id out,
 * exactly once across failures. Arguments: input directory or file, output directory, checkpoint
 * directory (URIs such as {@code file:///data/ckpt} or {@code s3://bucket/ckpt}).
 */
public final class DedupOrdersJob {

  private DedupOrdersJob() {}

  public static void main(String[] args) throws Exception {
    Configuration conf = new Configuration();
    conf.set(StateBackendOptions.STATE_BACKEND, "rocksdb");
    conf.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
    conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, args[2]);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.enableCheckpointing(10_000); // exactly-once checkpoints every 10 s

    DataStream<String> orders =
        env.fromSource(
            FileSource.forRecordStreamFormat(new TextLineInputFormat(), new Path(args[0])).build(),
            WatermarkStrategy.noWatermarks(),
            "orders");

    DataStream<String> firstOfEachOrder =
        IdemDedup.of(orders)
            .key(line -> line.substring(0, line.indexOf(','))) // the order id, first CSV column
            .exact()
            .expectedKeys(50_000_000)
            .build()
            .uid("dedup-orders");

    firstOfEachOrder
        .sinkTo(FileSink.forRowFormat(new Path(args[1]), new SimpleStringEncoder<String>()).build())
        .uid("orders-out");
    env.execute("dedup orders");
  }
}
