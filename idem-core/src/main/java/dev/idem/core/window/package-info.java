/**
 * The arithmetic of windowed dedup on event times ({@code WindowRule}, {@code WindowKind}), shared
 * by the engine's {@code WindowedDeduplicator} and the Flink operator. Depends on nothing.
 */
package dev.idem.core.window;
