/**
 * "Seen in the last W of event time": {@code WindowedDeduplicator} keeps the open windows' keys in
 * time buckets, with the arithmetic of idem-core's {@code WindowRule} (docs/WINDOWS.md). Depends on
 * idem-core and {@code dev.idem.engine}.
 */
package dev.idem.engine.window;
