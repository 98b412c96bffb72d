package dev.idem.core.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.Fingerprint;
import dev.idem.core.Fingerprinter;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/** The byte form and the union of blocked filters, used by the Flink operator's state. */
class BlockedFilterBytesTest {

  private static final Fingerprinter FP = Fingerprinter.xxh3();

  private static BlockedBloomFilter filled(String prefix, int keys) {
    BlockedBloomFilter f = BlockedBloomFilter.create(10_000, 0.01);
    for (int i = 0; i < keys; i++) {
      f.put(FP.fingerprint(prefix + i));
    }
    return f;
  }

  @Test
  void bytesRoundTripKeepsEveryBitAndParameter() {
    BlockedBloomFilter original = filled("k", 5000);
    BlockedBloomFilter copy = BlockedBloomFilter.fromBytes(original.toBytes());
    assertThat(copy.bitSize()).isEqualTo(original.bitSize());
    assertThat(copy.hashCount()).isEqualTo(original.hashCount());
    assertThat(copy.capacity()).isEqualTo(original.capacity());
    assertThat(copy.targetFpp()).isEqualTo(original.targetFpp());
    assertThat(copy.approximateCount()).isEqualTo(original.approximateCount());
    for (long w = 0; w < original.bits.wordCount(); w++) {
      assertThat(copy.bits.word(w)).isEqualTo(original.bits.word(w));
    }
    assertThat(copy.toBytes()).isEqualTo(original.toBytes());
  }

  @Test
  void damagedBytesAreRefusedWithTheFault() {
    byte[] good = filled("k", 100).toBytes();
    byte[] flipped = good.clone();
    flipped[100] ^= 1;
    assertThatThrownBy(() -> BlockedBloomFilter.fromBytes(flipped))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("checksum");
    assertThatThrownBy(() -> BlockedBloomFilter.fromBytes(Arrays.copyOf(good, 20)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("too short");
    assertThatThrownBy(() -> BlockedBloomFilter.fromBytes(Arrays.copyOf(good, good.length - 8)))
        .isInstanceOf(IllegalArgumentException.class);
    byte[] otherMagic = good.clone();
    otherMagic[0] = 'X';
    assertThatThrownBy(() -> BlockedBloomFilter.fromBytes(otherMagic))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("magic");
  }

  @Test
  void otherVersionsAndParametersThatDisagreeAreRefusedEvenWithAGoodChecksum() {
    byte[] good = filled("k", 100).toBytes();
    byte[] newer = good.clone();
    ByteBuffer.wrap(newer).putInt(4, 2);
    assertThatThrownBy(() -> BlockedBloomFilter.fromBytes(resealed(newer)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("version 2");
    byte[] partBlock = good.clone();
    ByteBuffer b = ByteBuffer.wrap(partBlock);
    b.putLong(24, b.getLong(24) - 64); // no longer whole 512-bit blocks
    assertThatThrownBy(() -> BlockedBloomFilter.fromBytes(resealed(partBlock)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("do not match");
    byte[] noHashes = good.clone();
    ByteBuffer.wrap(noHashes).putInt(32, 0);
    assertThatThrownBy(() -> BlockedBloomFilter.fromBytes(resealed(noHashes)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("k=0");
  }

  /** The bytes with their trailing CRC32C recomputed, so only the change under test is wrong. */
  private static byte[] resealed(byte[] bytes) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, bytes.length - 4);
    ByteBuffer.wrap(bytes).putInt(bytes.length - 4, (int) crc.getValue());
    return bytes;
  }

  @Test
  void unionHoldsTheKeysOfBothFilters() {
    BlockedBloomFilter a = filled("a", 3000);
    BlockedBloomFilter b = filled("b", 3000);
    long countA = a.approximateCount();
    a.unionWith(b);
    for (int i = 0; i < 3000; i++) {
      Fingerprint fa = FP.fingerprint("a" + i);
      Fingerprint fb = FP.fingerprint("b" + i);
      assertThat(a.mightContain(fa) && a.mightContain(fb)).as("key %d", i).isTrue();
    }
    assertThat(a.approximateCount()).isEqualTo(countA + b.approximateCount());
    // the union's bits are exactly the OR of both
    BlockedBloomFilter a2 = filled("a", 3000);
    for (long w = 0; w < a.bits.wordCount(); w++) {
      assertThat(a.bits.word(w)).isEqualTo(a2.bits.word(w) | b.bits.word(w));
    }
  }

  @Test
  void unionOfDifferentLayoutsIsRefusedSayingWhatToDo() {
    BlockedBloomFilter a = BlockedBloomFilter.create(10_000, 0.01);
    BlockedBloomFilter b = BlockedBloomFilter.create(20_000, 0.01);
    assertThat(a.hasSameLayout(b)).isFalse();
    assertThatThrownBy(() -> a.unionWith(b)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("same expected keys and rate");
  }
}
