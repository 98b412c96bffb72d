package dev.idem.engine.shard;

import dev.idem.engine.output.OutputFile;
import dev.idem.engine.records.RecordBatch;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A split's shard files, one per node of the ring: each opened at its checkpoint's mark (cut back
 * to it, refused if changed since), records written to their owner's file and a header line to
 * every file, and the marks a checkpoint keeps.
 */
final class ShardWriters {
  private final SplitSpec spec;
  private final List<OutputFile> shards = new ArrayList<>();

  ShardWriters(SplitSpec spec) {
    this.spec = spec;
  }

  /** Opens every shard file at its mark in {@code marks}. */
  void open(List<OutputFile.Mark> marks) throws IOException {
    for (int i = 0; i < spec.ring().size(); i++) {
      shards.add(
          OutputFile.open(
              spec.directory()
                  .resolve(SplitJob.shardFileName(i, spec.format(), spec.compression())),
              marks.get(i)));
    }
  }

  /** Writes record {@code i} of {@code batch} to the shard of node {@code owner}. */
  void write(int owner, RecordBatch batch, int i) throws IOException {
    shards.get(owner).writeRecord(batch, i);
  }

  /** Writes header line {@code i} of {@code batch} to every shard: each is a file of its own. */
  void writeHeader(RecordBatch batch, int i) throws IOException {
    for (OutputFile s : shards) {
      s.writeRecord(batch, i);
    }
  }

  /** Every shard's mark, each shard synced to it. */
  List<OutputFile.Mark> marks() throws IOException {
    List<OutputFile.Mark> marks = new ArrayList<>(shards.size());
    for (OutputFile shard : shards) {
      marks.add(shard.mark()); // ends a compressed shard's frame: the length is a frame's end
    }
    return marks;
  }

  /** Closes the shards opened. */
  void close() throws IOException {
    for (OutputFile s : shards) {
      s.close();
    }
  }
}
