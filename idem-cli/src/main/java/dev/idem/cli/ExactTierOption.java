package dev.idem.cli;

import dev.idem.core.shared.SharedSeenSet;
import dev.idem.engine.job.ExactTierChoice;
import dev.idem.redis.RedisSeenSet;
import java.util.Iterator;
import java.util.List;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code dedup --exact-store}: a local exact tier, or a seen-set shared with other workers, which
 * replaces it.
 *
 * @param local where the local tier lives ({@code AUTO} when shared: there is none)
 * @param shared the shared seen-set, or null
 */
record ExactTierOption(ExactTierChoice local, SharedSeenSet.Opener shared) {

  /** {@code auto}, {@code memory}, {@code rocksdb}, {@code partitioned} or {@code redis://...}. */
  static final class Converter implements ITypeConverter<ExactTierOption>, Iterable<String> {

    /** The words for shell completion; a Redis URL is completed to its scheme. */
    @Override
    public Iterator<String> iterator() {
      return List.of("auto", "memory", "rocksdb", "partitioned", "redis://").iterator();
    }

    @Override
    public ExactTierOption convert(String value) {
      if (value.startsWith("redis:")) {
        try {
          return new ExactTierOption(ExactTierChoice.AUTO, RedisSeenSet.opener(value));
        } catch (IllegalArgumentException e) {
          throw new TypeConversionException(e.getMessage());
        }
      }
      for (ExactTierChoice c : ExactTierChoice.values()) {
        if (c.name().equalsIgnoreCase(value.strip())) {
          return new ExactTierOption(c, null);
        }
      }
      throw new TypeConversionException(
          "'"
              + value
              + "' is not auto, memory, rocksdb, partitioned or "
              + "redis://HOST[:PORT][/DB][?prefix=P&ttl=T]");
    }
  }
}
