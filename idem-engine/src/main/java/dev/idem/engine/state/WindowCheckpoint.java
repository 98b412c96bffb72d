package dev.idem.engine.state;

import dev.idem.engine.window.WindowStats;

/**
 * A windowed job's part of a checkpoint: the event-time clock and counts (the kept keys of the open
 * windows are in the state store's {@code windows} column family).
 *
 * @param maxEventTime the largest event time seen
 * @param stats the window counts so far
 * @param lateFile the side output of late events, or {@code null}
 * @param lateBytes its length
 */
public record WindowCheckpoint(
    long maxEventTime, WindowStats stats, String lateFile, long lateBytes) {}
