/**
 * {@code IdemDedup}: exact, approximate and windowed dedup as a Flink operator, with the filter in
 * operator state (snapshot bytes of idem-core) in front of keyed state (docs/FLINK.md). Depends on
 * idem-core and Flink.
 */
package dev.idem.flink;
