/**
 * Many workers, one exact result: the consistent-hash ring and a worker's share of it ({@code
 * ConsistentHashRing}, {@code ShardSpec}), {@code SplitJob} (records to their owner's shard file,
 * as its {@code SplitSpec} says) and {@code ReshardJob} (finished states onto a new ring). Depends
 * on {@code records}, {@code state} and {@code store} (docs/SCALING.md).
 */
package dev.idem.engine.shard;
