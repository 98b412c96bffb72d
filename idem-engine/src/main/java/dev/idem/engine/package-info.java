/**
 * The library: {@code Idem} and {@code Deduplicator} (a filter in front of an exact tier), with
 * what every job shares ({@code Verdict}, {@code JobException}, the modes and counts). The
 * sub-packages follow a record's way: {@code records} (in and out), {@code state} (what a
 * checkpoint writes), {@code job} (the resumable dedup job), and beside it {@code sort}, {@code
 * shard}, {@code store}, {@code window} and {@code plan}. See docs/DESIGN.md, section 1.
 */
package dev.idem.engine;
