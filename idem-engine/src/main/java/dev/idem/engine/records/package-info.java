/**
 * A record's way in and out: naming and opening inputs ({@code InputFile}, {@code Inputs}), reading
 * lines and records in batches on a reading thread ({@code RecordSource}, {@code RecordBatch}),
 * extracting keys, checking what a job read of its inputs, and writing outputs that are locked,
 * checksummed and never an input ({@code OutputFile}, {@code OutputGuard}). Depends on idem-core
 * and {@code dev.idem.engine} only: no job, state or store.
 */
package dev.idem.engine.records;
