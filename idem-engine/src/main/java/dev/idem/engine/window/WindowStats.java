package dev.idem.engine.window;

/**
 * What a {@link WindowedDeduplicator} has seen and holds.
 *
 * @param events events checked
 * @param kept events kept
 * @param duplicates events dropped as duplicates inside their window
 * @param late events older than the watermark allowed
 * @param held fingerprints held now (the keys of the open windows)
 * @param peakHeld the most fingerprints ever held at once
 * @param openBuckets time buckets (windows) open now
 * @param watermark the watermark now ({@link Long#MIN_VALUE} before the first event)
 */
public record WindowStats(
    long events,
    long kept,
    long duplicates,
    long late,
    long held,
    long peakHeld,
    int openBuckets,
    long watermark) {}
