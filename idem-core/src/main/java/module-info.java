/**
 * idem's core: keys as 128-bit fingerprints ({@code Fingerprinter}), membership filters and the
 * exact fingerprint set with their sizing and one snapshot format ({@code dev.idem.core.filter}),
 * the window arithmetic ({@code dev.idem.core.window}) and the contract of a shared seen-set
 * ({@code dev.idem.core.shared}). Every package is API: the filters are used on their own.
 */
module dev.idem.core {
  requires com.dynatrace.hash4j;

  exports dev.idem.core;
  exports dev.idem.core.filter;
  exports dev.idem.core.shared;
  exports dev.idem.core.window;
}
