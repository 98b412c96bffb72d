package dev.idem.core.filter;

import java.util.List;

/** The classic Bloom filter against the contract, its rate measured at two sizes and rates. */
class BloomFilterTest extends MembershipFilterContract {

  @Override
  MembershipFilter create(long n, double p) {
    return BloomFilter.create(n, p);
  }

  @Override
  List<RateCase> rateCases() {
    return List.of(new RateCase(200_000, 0.01, 3), new RateCase(300_000, 0.001, 4));
  }
}
