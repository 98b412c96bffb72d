/**
 * The {@code idem} command (picocli): parses options into the engine's specs, translates its
 * outcomes into exit statuses and one-line messages, and draws progress and summaries. Depends on
 * every engine package; nothing depends on it.
 */
package dev.idem.cli;
