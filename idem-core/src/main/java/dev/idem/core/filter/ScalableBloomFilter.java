package dev.idem.core.filter;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * A Bloom filter that grows: a list of {@link BlockedBloomFilter} layers, queried all, inserted
 * into the newest (Almeida, Baquero, Preguiça, Hutchison 2007). Two ways to add layers:
 *
 * <ul>
 *   <li><b>Growth</b> (default): when the newest layer holds its capacity, a new one is added with
 *       capacity × {@code growth} (2) and error × {@code tightening} (0.8). Layer {@code i} has
 *       error {@code p·(1 - r)·r^i}, so the compound rate stays at most {@code p} however many
 *       layers come (the series sums to {@code p}).
 *   <li><b>Slices</b> (for unbounded streams: e.g. a new layer every 24 h or 50 M keys): a new
 *       layer every {@code N} keys or every duration {@code T} (and earlier if it fills). With
 *       {@code maxLayers} set, the oldest layer is dropped when one more would exceed it: an
 *       approximate "seen in the last {@code maxLayers} slices" filter whose layers each get error
 *       {@code p / maxLayers}. Without it, slices tighten like growth layers. Dropping is never
 *       silent: it is counted ({@link #droppedLayers()}) and reported to the {@code onLayerDropped}
 *       listener.
 * </ul>
 *
 * <p>With slices, a key put again goes into the newest layer too, so "seen in the last L slices"
 * counts from its last sighting.
 *
 * <p>Thread-safe: queries read an immutable array of layers without locking; puts take a lock.
 *
 * <p>Why it is long: its two ways of adding layers, the lock-free reads of the layer array, the
 * dropping of old slices and the snapshot of every layer all change the same private list of
 * layers.
 */
public final class ScalableBloomFilter implements MembershipFilter, SnapshotSupport {

  /** How new layers are triggered. */
  public enum Mode {
    /** When the newest layer is full; capacities grow geometrically. */
    GROWTH,
    /** Every {@code sliceKeys} keys. */
    KEY_SLICES,
    /** Every {@code sliceDuration}, or when the newest layer is full. */
    TIME_SLICES
  }

  /** A layer that was dropped, as reported to the listener. */
  public record DroppedLayer(int layersLeft, long keys, long createdMillis, long droppedMillis) {}

  /**
   * A layer and the salt that decorrelates it from the others: every layer sees the key's
   * fingerprint remixed with its own salt (layer 0: unchanged). Without it all layers would put a
   * key in the same relative block and the same in-block bits, so their false positives would
   * coincide, and the compound rate {@code 1 - Π(1 - p_i)} would overstate the truth.
   */
  private record Layer(BlockedBloomFilter filter, long createdMillis, long salt) {
    boolean mightContain(long hi, long lo) {
      return salt == 0
          ? filter.mightContain(hi, lo)
          : filter.mightContain(remix(hi ^ salt), remix(lo ^ salt));
    }

    boolean put(long hi, long lo) {
      return salt == 0 ? filter.put(hi, lo) : filter.put(remix(hi ^ salt), remix(lo ^ salt));
    }

    long touch(long hi, long lo) {
      return salt == 0 ? filter.touch(hi, lo) : filter.touch(remix(hi ^ salt), remix(lo ^ salt));
    }
  }

  /** The salt of the layer created as number {@code index}. */
  private static long salt(long index) {
    return index * 0x9E3779B97F4A7C15L;
  }

  /** MurmurHash3's 64-bit finaliser: a bijection that spreads every input bit over the output. */
  private static long remix(long x) {
    x ^= x >>> 33;
    x *= 0xFF51AFD7ED558CCDL;
    x ^= x >>> 33;
    x *= 0xC4CEB9FE1A85EC53L;
    return x ^ (x >>> 33);
  }

  private final Mode mode;
  private final long initialCapacity;
  private final double fpp;
  private final double growth;
  private final double tightening;
  private final long sliceKeys;
  private final long sliceMillis;
  private final int maxLayers;
  private final LongSupplier clock;
  private long prefetchSink; // keeps the JIT from dropping prefetch's reads
  private final Consumer<DroppedLayer> onLayerDropped;
  private volatile Layer[] layers;

  /** Layers ever created, dropped ones included: the index that sets a new layer's error. */
  private long layersCreated;

  private long droppedLayers;
  private long droppedKeys;

  private ScalableBloomFilter(
      Builder b, Layer[] layers, long layersCreated, long droppedLayers, long droppedKeys) {
    this.mode = b.mode;
    this.initialCapacity = b.initialCapacity;
    this.fpp = b.fpp;
    this.growth = b.growth;
    this.tightening = b.tightening;
    this.sliceKeys = b.sliceKeys;
    this.sliceMillis = b.sliceMillis;
    this.maxLayers = b.maxLayers;
    this.clock = b.clock;
    this.onLayerDropped = b.onLayerDropped;
    this.layers = layers;
    this.layersCreated = layersCreated;
    this.droppedLayers = droppedLayers;
    this.droppedKeys = droppedKeys;
  }

  /** A builder; only {@link Builder#initialCapacity} is required. */
  public static Builder builder() {
    return new Builder();
  }

  /** Configures a {@link ScalableBloomFilter}. */
  public static final class Builder {
    private Mode mode = Mode.GROWTH;
    private long initialCapacity;
    private double fpp = 0.001;
    private double growth = 2;
    private double tightening = 0.8;
    private long sliceKeys;
    private long sliceMillis;
    private int maxLayers;
    private LongSupplier clock = System::currentTimeMillis;
    private Consumer<DroppedLayer> onLayerDropped = d -> {};

    private Builder() {}

    /** Keys the first layer holds (for time slices: the keys expected per slice). */
    public Builder initialCapacity(long keys) {
      FilterMath.checkKeys(keys);
      this.initialCapacity = keys;
      return this;
    }

    /** The bound on the compound false-positive rate of all layers (default 0.001). */
    public Builder falsePositiveRate(double p) {
      FilterMath.checkFpp(p);
      this.fpp = p;
      return this;
    }

    /** Capacity factor from one growth layer to the next (default 2, at least 1). */
    public Builder growth(double factor) {
      if (!(factor >= 1 && factor <= 16)) {
        throw new IllegalArgumentException("growth must be between 1 and 16, got " + factor);
      }
      this.growth = factor;
      return this;
    }

    /** Error factor from one layer to the next, in (0, 1) (default 0.8). */
    public Builder tightening(double ratio) {
      if (!(ratio > 0 && ratio < 1)) {
        throw new IllegalArgumentException(
            "tightening must be between 0 and 1 (exclusive), got " + ratio + "; 0.8 is usual");
      }
      this.tightening = ratio;
      return this;
    }

    /** A new layer every {@code keys} keys (each layer sized for that many). */
    public Builder sliceEvery(long keys) {
      FilterMath.checkKeys(keys);
      this.mode = Mode.KEY_SLICES;
      this.sliceKeys = keys;
      return this;
    }

    /** A new layer every {@code duration} of the clock (or sooner, when one fills). */
    public Builder sliceEvery(Duration duration) {
      if (duration.isNegative() || duration.isZero()) {
        throw new IllegalArgumentException("slice duration must be positive, got " + duration);
      }
      this.mode = Mode.TIME_SLICES;
      this.sliceMillis = duration.toMillis();
      return this;
    }

    /** Keep at most this many layers, dropping the oldest (0, the default, keeps all). */
    public Builder maxLayers(int layers) {
      if (layers < 0) {
        throw new IllegalArgumentException("maxLayers must be >= 0, got " + layers);
      }
      this.maxLayers = layers;
      return this;
    }

    /** The clock for time slices, in milliseconds (default: the system clock). */
    public Builder clock(LongSupplier millis) {
      this.clock = millis;
      return this;
    }

    /** Called, under the filter's lock, each time a layer is dropped. */
    public Builder onLayerDropped(Consumer<DroppedLayer> listener) {
      this.onLayerDropped = listener;
      return this;
    }

    /**
     * The bits of all layers once {@code keys} keys are in a growing filter of these settings
     * (layers are added until their capacities add up to at least {@code keys}).
     */
    public long bitSizeFor(long keys) {
      if (initialCapacity == 0 || mode != Mode.GROWTH) {
        throw new IllegalArgumentException("bitSizeFor needs growth layers and initialCapacity");
      }
      long bits = 0;
      long held = 0;
      for (long i = 0; held < Math.max(1, keys); i++) {
        long capacity = layerCapacity(mode, initialCapacity, growth, i);
        bits += FilterMath.blockedLayout(capacity, layerFpp(mode, 0, fpp, tightening, i)).bitSize();
        held += capacity;
      }
      return bits;
    }

    /**
     * The filter, with its first layer.
     *
     * @throws IllegalArgumentException when the initial capacity is missing, or max layers is set
     *     without slices (growth layers are never dropped)
     */
    public ScalableBloomFilter build() {
      if (initialCapacity == 0 && mode != Mode.KEY_SLICES) {
        throw new IllegalArgumentException("set initialCapacity (keys in the first layer)");
      }
      if (mode == Mode.KEY_SLICES) {
        initialCapacity = sliceKeys;
      }
      if (maxLayers > 0 && mode == Mode.GROWTH) {
        throw new IllegalArgumentException(
            "maxLayers needs slices (sliceEvery): dropping growth layers would forget keys "
                + "without a time bound");
      }
      ScalableBloomFilter f = new ScalableBloomFilter(this, new Layer[0], 0, 0, 0);
      f.addLayer();
      return f;
    }
  }

  /** Capacity of the layer created as number {@code index} (0-based, dropped ones counted). */
  private long layerCapacity(long index) {
    return layerCapacity(mode, initialCapacity, growth, index);
  }

  private static long layerCapacity(Mode mode, long initialCapacity, double growth, long index) {
    if (mode != Mode.GROWTH) {
      return initialCapacity;
    }
    return (long) Math.min(Long.MAX_VALUE / 2, initialCapacity * Math.pow(growth, index));
  }

  /** Error of the layer created as number {@code index}; the errors sum to at most fpp. */
  private double layerFpp(long index) {
    return layerFpp(mode, maxLayers, fpp, tightening, index);
  }

  private static double layerFpp(
      Mode mode, int maxLayers, double fpp, double tightening, long index) {
    if (mode != Mode.GROWTH && maxLayers > 0) {
      return fpp / maxLayers;
    }
    return Math.max(Double.MIN_NORMAL, fpp * (1 - tightening) * Math.pow(tightening, index));
  }

  private void addLayer() {
    long index = layersCreated;
    BlockedBloomFilter filter = BlockedBloomFilter.create(layerCapacity(index), layerFpp(index));
    Layer[] current = layers;
    Layer[] next = Arrays.copyOf(current, current.length + 1);
    next[current.length] = new Layer(filter, clock.getAsLong(), salt(index));
    if (maxLayers > 0 && next.length > maxLayers) {
      Layer oldest = next[0];
      next = Arrays.copyOfRange(next, 1, next.length);
      droppedLayers++;
      droppedKeys += oldest.filter.approximateCount();
      layers = next;
      onLayerDropped.accept(
          new DroppedLayer(
              next.length,
              oldest.filter.approximateCount(),
              oldest.createdMillis,
              clock.getAsLong()));
    } else {
      layers = next;
    }
    layersCreated++;
  }

  private boolean newestIsDone(Layer newest) {
    BlockedBloomFilter f = newest.filter;
    if (f.approximateCount() >= f.capacity()) {
      return true;
    }
    return mode == Mode.TIME_SLICES && clock.getAsLong() - newest.createdMillis >= sliceMillis;
  }

  /**
   * Touches every layer, newest first: a key not seen before, most keys of a dedup stream, is
   * looked up in all of them, and a layer left out cost one cache miss per key after another.
   */
  @Override
  public void prefetch(long[] fingerprints, int from, int to) {
    Layer[] ls = layers;
    long sink = 0;
    for (int l = ls.length - 1; l >= 0; l--) {
      Layer layer = ls[l];
      for (int i = from; i < to; i++) {
        sink ^= layer.touch(fingerprints[2 * i], fingerprints[2 * i + 1]);
      }
    }
    prefetchSink = sink;
  }

  @Override
  public boolean mightContain(long hi, long lo) {
    Layer[] ls = layers;
    for (int i = ls.length - 1; i >= 0; i--) { // newest first: recent keys repeat most
      if (ls[i].mightContain(hi, lo)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Adds the key; true when no layer answered "maybe" before. With growth layers a key some layer
   * already answers for is not added again (it would only use capacity). With slices it is added to
   * the newest layer unless that one already has it: a key seen again stays remembered for the
   * slices after its last sighting, and a false positive in an old layer cannot make a new key
   * expire with that layer.
   */
  @Override
  public synchronized boolean put(long hi, long lo) {
    boolean seen = mightContain(hi, lo);
    if (seen && mode == Mode.GROWTH) {
      return false;
    }
    Layer[] ls = layers;
    if (newestIsDone(ls[ls.length - 1])) {
      addLayer();
      ls = layers;
    }
    Layer newest = ls[ls.length - 1];
    if (seen && newest.mightContain(hi, lo)) {
      return false;
    }
    newest.put(hi, lo);
    return !seen;
  }

  /**
   * Share of bits set over all layers, from a full scan: the measured fill, beside the rate {@link
   * #expectedFpp} works out from the keys counted.
   */
  public double fillRatio() {
    double set = 0;
    long bits = 0;
    for (Layer l : layers) {
      set += l.filter.fillRatio() * l.filter.bitSize();
      bits += l.filter.bitSize();
    }
    return bits == 0 ? 0 : set / bits;
  }

  /** Layers now held. */
  public int layerCount() {
    return layers.length;
  }

  /** Layers dropped so far (slices with {@code maxLayers} only). */
  public synchronized long droppedLayers() {
    return droppedLayers;
  }

  /** Keys that were in dropped layers and are forgotten. */
  public synchronized long droppedKeys() {
    return droppedKeys;
  }

  /** How layers are added. */
  public Mode mode() {
    return mode;
  }

  /** The bound on the compound false-positive rate. */
  public double falsePositiveRateBound() {
    return fpp;
  }

  /** {@code 1 - Π (1 - rate of layer i)}: a fresh key is reported if any layer reports it. */
  @Override
  public double expectedFpp() {
    double none = 1;
    for (Layer l : layers) {
      none *= 1 - l.filter.expectedFpp();
    }
    return 1 - none;
  }

  @Override
  public long approximateCount() {
    long n = 0;
    for (Layer l : layers) {
      n += l.filter.approximateCount();
    }
    return n;
  }

  @Override
  public long bitSize() {
    long bits = 0;
    for (Layer l : layers) {
      bits += l.filter.bitSize();
    }
    return bits;
  }

  /** Capacity of the layers held now. */
  @Override
  public long capacity() {
    long c = 0;
    for (Layer l : layers) {
      c += l.filter.capacity();
    }
    return c;
  }

  @Override
  public FilterType type() {
    return FilterType.SCALABLE;
  }

  @Override
  public synchronized Map<String, Object> layout() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("mode", mode.name().toLowerCase(java.util.Locale.ROOT));
    m.put("fpp_bound", fpp);
    m.put("layers", layers.length);
    m.put("initial_capacity", initialCapacity);
    if (mode == Mode.GROWTH) {
      m.put("growth", growth);
    }
    if (mode != Mode.GROWTH && maxLayers > 0) {
      m.put("max_layers", maxLayers);
    } else {
      m.put("tightening", tightening);
    }
    if (mode == Mode.KEY_SLICES) {
      m.put("slice_keys", sliceKeys);
    }
    if (mode == Mode.TIME_SLICES) {
      m.put("slice_millis", sliceMillis);
    }
    m.put("dropped_layers", droppedLayers);
    m.put("dropped_keys", droppedKeys);
    return m;
  }

  /*
   * Parameter block: mode u32 (0 growth, 1 key slices, 2 time slices), max layers u32, initial
   * capacity u64, fpp f64, growth f64, tightening f64, slice keys u64, slice millis u64, layers
   * created u64, dropped layers u64, dropped keys u64, layer count u32, reserved u32; then per
   * layer (oldest first): capacity u64, fpp f64, bit size u64, hash count u32, reserved u32,
   * count u64, created millis u64. Payload: each layer's bit array, oldest first. Layer j of L
   * was created as number layersCreated - L + j, which fixes its salt.
   */
  @Override
  public synchronized void writeParameters(ByteBuffer out) {
    Layer[] ls = layers;
    out.putInt(mode.ordinal())
        .putInt(maxLayers)
        .putLong(initialCapacity)
        .putDouble(fpp)
        .putDouble(growth)
        .putDouble(tightening)
        .putLong(sliceKeys)
        .putLong(sliceMillis)
        .putLong(layersCreated)
        .putLong(droppedLayers)
        .putLong(droppedKeys)
        .putInt(ls.length)
        .putInt(0);
    for (Layer l : ls) {
      BlockedBloomFilter f = l.filter;
      out.putLong(f.capacity())
          .putDouble(f.targetFpp())
          .putLong(f.bitSize())
          .putInt(f.hashCount())
          .putInt(0)
          .putLong(f.approximateCount())
          .putLong(l.createdMillis);
    }
  }

  @Override
  public List<BitArray> payload() {
    List<BitArray> arrays = new ArrayList<>();
    for (Layer l : layers) {
      arrays.add(l.filter.bits);
    }
    return arrays;
  }

  static ScalableBloomFilter restore(ByteBuffer p, long count, Payload payload) throws IOException {
    int modeOrdinal = p.getInt();
    int maxLayers = p.getInt();
    if (modeOrdinal < 0 || modeOrdinal >= Mode.values().length || maxLayers < 0) {
      throw new IllegalArgumentException("mode=" + modeOrdinal + ", max layers=" + maxLayers);
    }
    Builder b = builder();
    b.mode = Mode.values()[modeOrdinal];
    b.maxLayers = maxLayers;
    b.initialCapacity = p.getLong();
    b.fpp = p.getDouble();
    b.growth = p.getDouble();
    b.tightening = p.getDouble();
    b.sliceKeys = p.getLong();
    b.sliceMillis = p.getLong();
    long layersCreated = p.getLong();
    long droppedLayers = p.getLong();
    long droppedKeys = p.getLong();
    int layerCount = p.getInt();
    int reserved = p.getInt();
    AbstractBloomFilter.checkParameters(b.initialCapacity, b.fpp);
    if (!(b.growth >= 1 && b.growth <= 16)
        || !(b.tightening > 0 && b.tightening < 1)
        || b.sliceKeys < 0
        || b.sliceMillis < 0
        || layerCount < 1
        || reserved != 0
        || layersCreated < layerCount
        || droppedLayers < 0
        || droppedKeys < 0) {
      throw new IllegalArgumentException(
          "growth="
              + b.growth
              + ", tightening="
              + b.tightening
              + ", layers="
              + layerCount
              + "/"
              + layersCreated);
    }
    Layer[] layers = new Layer[layerCount];
    long[] counts = new long[layerCount];
    long[] created = new long[layerCount];
    long[][] shapes = new long[layerCount][];
    for (int i = 0; i < layerCount; i++) {
      long capacity = p.getLong();
      double layerFpp = p.getDouble();
      long bitSize = p.getLong();
      int k = p.getInt();
      int layerReserved = p.getInt();
      counts[i] = p.getLong();
      created[i] = p.getLong();
      AbstractBloomFilter.checkParameters(capacity, layerFpp);
      if (bitSize < 512
          || bitSize > FilterMath.MAX_BITS
          || k < 1
          || layerReserved != 0
          || counts[i] < 0) {
        throw new IllegalArgumentException("layer " + i + ": bits=" + bitSize + ", k=" + k);
      }
      shapes[i] = new long[] {capacity, Double.doubleToRawLongBits(layerFpp), bitSize, k};
    }
    long total = 0;
    for (int i = 0; i < layerCount; i++) {
      long[] s = shapes[i];
      BitArray bits = payload.next(s[2] >>> 6);
      layers[i] =
          new Layer(
              new BlockedBloomFilter(
                  s[0], Double.longBitsToDouble(s[1]), s[2], (int) s[3], bits, counts[i]),
              created[i],
              salt(layersCreated - layerCount + i));
      total += counts[i];
    }
    if (total != count) {
      throw new IllegalArgumentException(
          "layer counts add up to " + total + ", the header says " + count);
    }
    return new ScalableBloomFilter(b, layers, layersCreated, droppedLayers, droppedKeys);
  }
}
