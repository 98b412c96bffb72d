/**
 * idem's engine: the {@code Deduplicator} library (in memory, or durable in a directory), windowed
 * dedup, and the resumable jobs behind the {@code idem} command with their job kernel. Every
 * package but {@code dev.idem.engine.store} (where keys live: RocksDB, the exact tiers, the
 * hand-over of restored tiers) and {@code dev.idem.engine.partition} (the partitioned method's
 * plan, files and judge) is API; docs/DESIGN.md lists what each exports.
 */
module dev.idem.engine {
  requires transitive dev.idem.core;
  requires com.dynatrace.hash4j;
  requires com.fasterxml.jackson.databind;
  requires com.github.benmanes.caffeine;
  requires org.lz4.java;
  requires com.github.luben.zstd_jni;
  requires org.tukaani.xz;
  requires org.apache.commons.compress;
  requires io.prometheus.metrics.core;
  requires io.prometheus.metrics.model;
  requires io.prometheus.metrics.exporter.httpserver;
  requires static rocksdbjni;

  exports dev.idem.engine;
  exports dev.idem.engine.window;
  exports dev.idem.engine.job;
  exports dev.idem.engine.sort;
  exports dev.idem.engine.neardup;
  exports dev.idem.engine.shard;
  exports dev.idem.engine.plan;
  exports dev.idem.engine.records;
  exports dev.idem.engine.input;
  exports dev.idem.engine.output;
  exports dev.idem.engine.estimate;
  exports dev.idem.engine.run;
  exports dev.idem.engine.state;
  exports dev.idem.engine.corpus;

  // state files are JSON records, read and written by Jackson
  opens dev.idem.engine to
      com.fasterxml.jackson.databind;
  opens dev.idem.engine.window to
      com.fasterxml.jackson.databind;
  opens dev.idem.engine.sort to
      com.fasterxml.jackson.databind;
  opens dev.idem.engine.neardup to
      com.fasterxml.jackson.databind;
  opens dev.idem.engine.shard to
      com.fasterxml.jackson.databind;
  opens dev.idem.engine.records to
      com.fasterxml.jackson.databind;
  opens dev.idem.engine.input to
      com.fasterxml.jackson.databind;
  opens dev.idem.engine.run to
      com.fasterxml.jackson.databind;
  opens dev.idem.engine.state to
      com.fasterxml.jackson.databind;
  opens dev.idem.engine.job to
      com.fasterxml.jackson.databind;
  opens dev.idem.engine.corpus to
      com.fasterxml.jackson.databind;
  opens dev.idem.engine.partition to
      com.fasterxml.jackson.databind;
}
