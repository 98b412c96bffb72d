package dev.idem.cli;

import java.time.Duration;
import java.util.List;

/**
 * {@code --checkpoint-every N|DURATION}, given up to twice: a job checkpoints after so many records
 * (documents) or so much time, whichever comes first; the last value of each kind given counts.
 *
 * @param count records (documents) between checkpoints
 * @param interval the longest time between checkpoints
 */
record CheckpointEvery(long count, Duration interval) {

  /** What a job checkpoints after when {@code --checkpoint-every} is not given. */
  static final CheckpointEvery DEFAULT = new CheckpointEvery(100_000, Duration.ofSeconds(10));

  /** The option's values, as given: a count ({@code 50000}, {@code 1m}, {@code 1e6}) or a time. */
  static CheckpointEvery parse(List<String> values) {
    long count = DEFAULT.count;
    Duration interval = DEFAULT.interval;
    for (String value : values) {
      if (value.matches("[0-9_,]+[kKmMgG]?|[0-9.]+[eE][0-9]+")) {
        count = new CountConverter().convert(value);
      } else {
        interval = new DurationConverter().convert(value);
      }
    }
    return new CheckpointEvery(count, interval);
  }
}
