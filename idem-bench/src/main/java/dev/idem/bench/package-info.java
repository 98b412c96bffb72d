/**
 * Benchmarks: JMH for structures and end-to-end harnesses run side by side with their anchors (GNU
 * sort, mawk, DuckDB, Guava, fastutil, FastFilter); results and commands in docs/BENCHMARKS.md.
 * Anchor libraries live here only.
 */
package dev.idem.bench;
