package dev.idem.cli;

import picocli.CommandLine.ITypeConverter;

/**
 * {@code --rocksdb-cache SIZE|auto}. The block cache lives outside the heap, so "auto" sizes it
 * from the one memory setting a JVM user already gives, {@code -Xmx}: a quarter of it.
 */
final class CacheSizeConverter implements ITypeConverter<Long> {

  /** What "auto" converts to until {@link #resolve} replaces it. */
  static final long AUTO = 0;

  static final long MIN_AUTO_BYTES = 64L << 20;

  @Override
  public Long convert(String value) {
    return value.strip().equalsIgnoreCase("auto") ? AUTO : new SizeConverter().convert(value);
  }

  /** The cache in bytes for a converted option value. */
  static long resolve(long converted) {
    return converted != AUTO
        ? converted
        : Math.max(MIN_AUTO_BYTES, Runtime.getRuntime().maxMemory() / 4);
  }
}
