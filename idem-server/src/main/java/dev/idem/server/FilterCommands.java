package dev.idem.server;

import dev.idem.core.filter.FilterSnapshot;
import dev.idem.core.filter.SnapshotException;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * The RedisBloom commands: BF.* on {@link BloomEntry}, CF.* on {@link CuckooEntry}, with
 * RedisBloom's argument forms, defaults (BF: rate 0.01, capacity 100, expansion 2; CF: capacity
 * 1024, bucket size 2, 20 iterations, expansion 1), reply shapes in RESP2 and RESP3, and error
 * texts.
 *
 * <p>Why it is long: one short method per RedisBloom command (twenty BF.* and CF.* commands), each
 * with RedisBloom's argument forms, reply shapes and error texts; they share the argument parsing
 * kept here, and apart they would repeat it.
 */
final class FilterCommands {

  static final double BF_DEFAULT_RATE = 0.01;
  static final long BF_DEFAULT_CAPACITY = 100;
  static final int BF_DEFAULT_EXPANSION = 2;
  static final long CF_DEFAULT_CAPACITY = 1024;
  static final int CF_DEFAULT_BUCKET = 2;
  static final int CF_DEFAULT_ITERATIONS = 20;
  static final int CF_DEFAULT_EXPANSION = 1;

  /** The largest capacity of one filter: far past RedisBloom's 2^30, bounded by memory. */
  static final long MAX_CAPACITY = 1L << 40;

  /** The largest chunk of a BF.SCANDUMP reply, as RedisBloom's. */
  static final int MAX_CHUNK = 16 << 20;

  private static final long DUMP_MAGIC = 0x4944454d42463031L; // "IDEMBF01"
  private static final int DUMP_HEADER = 8 + 8 + 8 + 4 + 8 + 8 + 4;

  private final Keyspace keys;
  private final ServerStats stats;

  /** BF.LOADCHUNK dumps being loaded, by key: the header, then the snapshot's bytes. */
  private final Map<Keyspace.Name, Load> loads = new HashMap<>();

  private record Load(double rate, long capacity, int expansion, long items, byte[] bytes) {}

  FilterCommands(Keyspace keys, ServerStats stats) {
    this.keys = keys;
    this.stats = stats;
  }

  void run(String name, byte[][] args, Reply r) {
    switch (name) {
      case "bf.reserve" -> bfReserve(args, r);
      case "bf.add" -> bfAdd(args, 2, false, r, true, BF_DEFAULT_RATE, BF_DEFAULT_CAPACITY, 2);
      case "bf.madd" -> bfAdd(args, 2, true, r, true, BF_DEFAULT_RATE, BF_DEFAULT_CAPACITY, 2);
      case "bf.insert" -> bfInsert(args, r);
      case "bf.exists", "bf.mexists" -> bfExists(args, name.equals("bf.mexists"), r);
      case "bf.info" -> bfInfo(args, r);
      case "bf.card" -> {
        BloomEntry b = keys.get(args[1], BloomEntry.class);
        r.integer(b == null ? 0 : b.items());
      }
      case "bf.scandump" -> bfScanDump(args, r);
      case "bf.loadchunk" -> bfLoadChunk(args, r);
      case "cf.reserve" -> cfReserve(args, r);
      case "cf.add", "cf.addnx" -> cfInsert(args, 2, name.endsWith("nx"), false, true, 0, r);
      case "cf.insert", "cf.insertnx" -> cfInsertCommand(args, name.endsWith("nx"), r);
      case "cf.exists", "cf.mexists" -> cfExists(args, name.equals("cf.mexists"), r);
      case "cf.count" -> {
        CuckooEntry c = keys.get(args[1], CuckooEntry.class);
        r.integer(c == null ? 0 : c.count(args[2]));
      }
      case "cf.del" -> {
        CuckooEntry c = keys.get(args[1], CuckooEntry.class);
        if (c == null) {
          throw new CommandException("Not found");
        }
        r.bool(c.delete(args[2]));
      }
      case "cf.info" -> cfInfo(args, r);
      default -> throw new CommandException("ERR unknown command '" + name + "'");
    }
  }

  // ---- BF

  private static int argIndex(byte[][] args, String word, int from) {
    for (int i = from; i < args.length; i++) {
      if (Commands.lower(args[i]).equals(word)) {
        return i;
      }
    }
    return -1;
  }

  private static Double parseDouble(byte[] b) {
    try {
      double d = Double.parseDouble(Commands.text(b));
      return Double.isNaN(d) ? null : d;
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static Long parseLong(byte[] b) {
    try {
      return Long.parseLong(Commands.text(b));
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private void bfReserve(byte[][] args, Reply r) {
    if (args.length > 7) {
      throw new CommandException("ERR wrong number of arguments for 'BF.RESERVE' command");
    }
    Double rate = parseDouble(args[2]);
    if (rate == null) {
      throw new CommandException("ERR bad error rate");
    }
    if (!(rate > 0 && rate < 1)) {
      throw new CommandException("ERR error rate must be in the range (0.000000, 1.000000)");
    }
    Long capacity = parseLong(args[3]);
    if (capacity == null) {
      throw new CommandException("ERR bad capacity");
    }
    if (capacity < 1 || capacity > MAX_CAPACITY) {
      throw new CommandException("ERR capacity must be in the range [1, " + MAX_CAPACITY + "]");
    }
    boolean nonScaling = argIndex(args, "nonscaling", 4) >= 0;
    int expansion = BF_DEFAULT_EXPANSION;
    int at = argIndex(args, "expansion", 4);
    if (at + 1 == args.length) {
      throw new CommandException("ERR no expansion");
    }
    if (at >= 0) {
      Long e = parseLong(args[at + 1]);
      if (e == null) {
        throw new CommandException("ERR bad expansion");
      }
      if (e == 0) {
        nonScaling = true;
      } else if (nonScaling) {
        throw new CommandException("Nonscaling filters cannot expand");
      }
      if (e < 0 || e > BloomEntry.MAX_EXPANSION) {
        throw new CommandException(
            "ERR expansion must be in the range [0, " + BloomEntry.MAX_EXPANSION + "]");
      }
      expansion = (int) (long) e;
    }
    for (int i = 4; i < args.length; i++) {
      String w = Commands.lower(args[i]);
      if (w.equals("expansion")) {
        i++;
      } else if (!w.equals("nonscaling")) {
        throw new CommandException("ERR unknown argument '" + Commands.text(args[i]) + "'");
      }
    }
    if (keys.get(args[1]) != null) {
      keys.get(args[1], BloomEntry.class); // WRONGTYPE when of another type
      throw new CommandException("ERR item exists");
    }
    keys.createBloom(args[1], Math.min(rate, 0.25), capacity, nonScaling ? 0 : expansion);
    r.ok();
  }

  /** BF.ADD, BF.MADD, BF.INSERT: adds items from {@code args[from]} on. */
  private void bfAdd(
      byte[][] args,
      int from,
      boolean multi,
      Reply r,
      boolean create,
      double rate,
      long capacity,
      int expansion) {
    BloomEntry b = keys.get(args[1], BloomEntry.class);
    if (b == null) {
      if (!create) {
        throw new CommandException("ERR not found");
      }
      b = keys.createBloom(args[1], rate, capacity, expansion);
    }
    // RedisBloom stops at a full NONSCALING filter: the reply ends with that error
    int[] results = new int[args.length - from];
    int n = 0;
    while (n < results.length) {
      if (b.growsOnNextItem()) {
        keys.reserveMemory(b.memoryBytes() * Math.max(1, b.expansion));
      }
      results[n] = b.add(args[from + n]);
      stats.filterAdds++;
      if (results[n++] == -2) {
        break;
      }
    }
    if (multi) {
      r.array(n);
    }
    for (int i = 0; i < n; i++) {
      if (results[i] == -2) {
        r.error("ERR non scaling filter is full");
      } else {
        r.bool(results[i] == 1);
      }
    }
  }

  private void bfInsert(byte[][] args, Reply r) {
    double rate = BF_DEFAULT_RATE;
    long capacity = BF_DEFAULT_CAPACITY;
    int expansion = BF_DEFAULT_EXPANSION;
    boolean create = true;
    boolean nonScaling = false;
    int items = -1;
    int at = 2;
    while (at < args.length && items < 0) {
      String w = Commands.lower(args[at]);
      switch (w) {
        case "items" -> items = ++at;
        case "error" -> {
          if (++at == args.length) {
            throw arity("BF.INSERT");
          }
          Double d = parseDouble(args[at++]);
          if (d == null || !(d > 0 && d < 1)) {
            throw new CommandException("Bad error rate");
          }
          rate = Math.min(d, 0.25);
        }
        case "expansion" -> {
          if (++at == args.length) {
            throw arity("BF.INSERT");
          }
          Long e = parseLong(args[at++]);
          if (e == null || e < 0 || e > BloomEntry.MAX_EXPANSION) {
            throw new CommandException("Bad expansion");
          }
          expansion = (int) (long) e;
        }
        case "capacity" -> {
          if (++at == args.length) {
            throw arity("BF.INSERT");
          }
          Long c = parseLong(args[at++]);
          if (c == null || c < 1 || c > MAX_CAPACITY) {
            throw new CommandException("Bad capacity");
          }
          capacity = c;
        }
        case "nocreate" -> {
          create = false;
          at++;
        }
        case "nonscaling" -> {
          nonScaling = true;
          at++;
        }
        default -> throw new CommandException("Unknown argument received");
      }
    }
    if (items < 0 || items == args.length) {
      throw arity("BF.INSERT");
    }
    bfAdd(args, items, true, r, create, rate, capacity, nonScaling ? 0 : expansion);
  }

  private void bfExists(byte[][] args, boolean multi, Reply r) {
    BloomEntry b = keys.get(args[1], BloomEntry.class);
    if (multi) {
      r.array(args.length - 2);
    }
    for (int i = 2; i < args.length; i++) {
      stats.filterChecks++;
      r.bool(b != null && b.exists(args[i]));
    }
  }

  private void bfInfo(byte[][] args, Reply r) {
    if (args.length > 3) {
      throw arity("BF.INFO");
    }
    BloomEntry b = keys.get(args[1], BloomEntry.class);
    if (b == null) {
      throw new CommandException("ERR not found");
    }
    String[] names = {
      "Capacity", "Size", "Number of filters", "Number of items inserted", "Expansion rate"
    };
    Long[] values = {
      b.capacity(),
      b.memoryBytes(),
      (long) b.layers(),
      b.items(),
      b.expansion == 0 ? null : (long) b.expansion
    };
    if (args.length == 3) {
      String which = Commands.lower(args[2]);
      int i =
          switch (which) {
            case "capacity" -> 0;
            case "size" -> 1;
            case "filters" -> 2;
            case "items" -> 3;
            case "expansion" -> 4;
            default -> throw new CommandException("Invalid information value");
          };
      if (r.resp3()) {
        r.map(1);
        r.simple(names[i]);
      } else {
        r.array(1); // RESP2: RedisBloom answers an array of the value alone
      }
      value(values[i], r);
      return;
    }
    r.map(names.length);
    for (int i = 0; i < names.length; i++) {
      r.simple(names[i]);
      value(values[i], r);
    }
  }

  private static void value(Long v, Reply r) {
    if (v == null) {
      r.nil();
    } else {
      r.integer(v);
    }
  }

  /** BF.SCANDUMP: iterator 0 gives the header, then chunks of the snapshot taken then. */
  private void bfScanDump(byte[][] args, Reply r) {
    BloomEntry b = keys.get(args[1], BloomEntry.class);
    if (b == null) {
      throw new CommandException("ERR not found");
    }
    Long iter = parseLong(args[2]);
    if (iter == null || iter < 0) {
      throw new CommandException("Second argument must be numeric");
    }
    if (iter == 0) {
      byte[] bytes;
      try {
        bytes = FilterSnapshot.toBytes(b.filter, dev.idem.core.Fingerprinter.xxh3());
      } catch (IllegalArgumentException e) {
        throw new CommandException("ERR filter too large to dump: " + e.getMessage());
      }
      b.dump = bytes;
      ByteBuffer h =
          ByteBuffer.allocate(DUMP_HEADER)
              .putLong(DUMP_MAGIC)
              .putDouble(b.errorRate)
              .putLong(b.initialCapacity)
              .putInt(b.expansion)
              .putLong(b.items())
              .putLong(bytes.length);
      CRC32C crc = new CRC32C();
      crc.update(h.array(), 0, DUMP_HEADER - 4);
      h.putInt((int) crc.getValue());
      r.array(2);
      r.integer(1);
      r.bulk(h.array());
      return;
    }
    byte[] dump = b.dump;
    if (dump == null) {
      throw new CommandException("ERR no dump in progress: start with BF.SCANDUMP key 0");
    }
    long offset = iter - 1;
    r.array(2);
    if (offset >= dump.length) {
      b.dump = null;
      r.integer(0);
      r.bulk(new byte[0]);
      return;
    }
    int n = (int) Math.min(MAX_CHUNK, dump.length - offset);
    r.integer(iter + n);
    r.bulk(dump, (int) offset, n);
  }

  private void bfLoadChunk(byte[][] args, Reply r) {
    Long iter = parseLong(args[2]);
    if (iter == null) {
      throw new CommandException("ERR Second argument must be numeric");
    }
    Keyspace.Name name = new Keyspace.Name(args[1]);
    byte[] data = args[3];
    if (iter == 1) {
      if (keys.get(args[1]) != null) {
        keys.get(args[1], BloomEntry.class);
        throw new CommandException("ERR item exists");
      }
      ByteBuffer h = ByteBuffer.wrap(data);
      CRC32C crc = new CRC32C();
      crc.update(data, 0, Math.max(0, Math.min(data.length, DUMP_HEADER) - 4));
      if (data.length != DUMP_HEADER
          || h.getLong() != DUMP_MAGIC
          || h.getInt(DUMP_HEADER - 4) != (int) crc.getValue()) {
        throw new CommandException("ERR received bad data: not the header of a BF.SCANDUMP");
      }
      double rate = h.getDouble();
      long capacity = h.getLong();
      int expansion = h.getInt();
      long items = h.getLong();
      long length = h.getLong();
      if (length <= 0 || length > Integer.MAX_VALUE - 8) {
        throw new CommandException("ERR received bad data: bad dump length");
      }
      keys.reserveMemory(length);
      loads.put(name, new Load(rate, capacity, expansion, items, new byte[(int) length]));
      r.ok();
      return;
    }
    Load load = loads.get(name);
    if (load == null) {
      throw new CommandException("ERR not found");
    }
    long offset = iter - data.length - 1;
    if (offset < 0 || offset + data.length > load.bytes().length) {
      loads.remove(name);
      throw new CommandException("ERR received bad data: chunk out of place");
    }
    System.arraycopy(data, 0, load.bytes(), (int) offset, data.length);
    if (offset + data.length == load.bytes().length) {
      loads.remove(name);
      FilterSnapshot s;
      try {
        s = FilterSnapshot.fromBytes(load.bytes());
      } catch (SnapshotException e) {
        throw new CommandException("ERR received bad data: " + e.getMessage());
      }
      keys.putBloom(
          args[1], load.rate(), load.capacity(), load.expansion(), s.filter(), load.items());
    }
    r.ok();
  }

  // ---- CF

  private void cfReserve(byte[][] args, Reply r) {
    if (args.length % 2 == 0) {
      throw arity("CF.RESERVE");
    }
    Long capacity = parseLong(args[2]);
    if (capacity == null) {
      throw new CommandException("Bad capacity");
    }
    long iterations = CF_DEFAULT_ITERATIONS;
    long bucket = CF_DEFAULT_BUCKET;
    long expansion = CF_DEFAULT_EXPANSION;
    for (int i = 3; i + 1 < args.length; i += 2) {
      String w = Commands.lower(args[i]);
      Long v = parseLong(args[i + 1]);
      switch (w) {
        case "maxiterations" -> {
          if (v == null) {
            throw new CommandException("Couldn't parse MAXITERATIONS");
          }
          if (v < 1 || v > 65535) {
            throw new CommandException("MAXITERATIONS: value must be in the range [1, 65535]");
          }
          iterations = v;
        }
        case "bucketsize" -> {
          if (v == null) {
            throw new CommandException("Couldn't parse BUCKETSIZE");
          }
          if (v < 1 || v > 255) {
            throw new CommandException("BUCKETSIZE: value must be in the range [1, 255]");
          }
          bucket = v;
        }
        case "expansion" -> {
          if (v == null) {
            throw new CommandException("Couldn't parse EXPANSION");
          }
          if (v < 0 || v > 32768) {
            throw new CommandException("EXPANSION: value must be in the range [0, 32768]");
          }
          expansion = v;
        }
        default -> throw new CommandException("Unknown argument received");
      }
    }
    if (bucket * 2 > capacity || capacity > MAX_CAPACITY) {
      throw new CommandException(
          "Capacity must be in the range [2 * BUCKETSIZE, " + MAX_CAPACITY + "]");
    }
    if (keys.get(args[1]) != null) {
      keys.get(args[1], CuckooEntry.class);
      throw new CommandException("ERR item exists");
    }
    keys.createCuckoo(args[1], capacity, (int) bucket, (int) iterations, (int) expansion);
    r.ok();
  }

  private void cfInsertCommand(byte[][] args, boolean nx, Reply r) {
    long capacity = CF_DEFAULT_CAPACITY;
    boolean create = true;
    int items = -1;
    int at = 2;
    while (at < args.length && items < 0) {
      String w = Commands.lower(args[at]);
      switch (w) {
        case "capacity" -> {
          if (++at == args.length) {
            throw arity(nx ? "CF.INSERTNX" : "CF.INSERT");
          }
          Long c = parseLong(args[at++]);
          if (c == null) {
            throw new CommandException("Bad capacity");
          }
          if (c < 2L * CF_DEFAULT_BUCKET || c > MAX_CAPACITY) {
            throw new CommandException(
                "Capacity must be in the range [cf-bucket-size * 2, " + MAX_CAPACITY + "]");
          }
          capacity = c;
        }
        case "items" -> items = ++at;
        case "nocreate" -> {
          create = false;
          at++;
        }
        default -> throw new CommandException("Unknown argument received");
      }
    }
    if (items < 0 || items == args.length) {
      throw arity(nx ? "CF.INSERTNX" : "CF.INSERT");
    }
    cfInsert(args, items, nx, true, create, capacity, r);
  }

  private void cfInsert(
      byte[][] args, int from, boolean nx, boolean multi, boolean create, long capacity, Reply r) {
    CuckooEntry c = keys.get(args[1], CuckooEntry.class);
    if (c == null) {
      if (!create) {
        throw new CommandException("ERR not found");
      }
      c =
          keys.createCuckoo(
              args[1],
              capacity > 0 ? capacity : CF_DEFAULT_CAPACITY,
              CF_DEFAULT_BUCKET,
              CF_DEFAULT_ITERATIONS,
              CF_DEFAULT_EXPANSION);
    }
    if (c.atMaxLayers()) {
      throw new CommandException("Maximum expansions reached");
    }
    // RedisBloom: booleans in RESP3, except CF.INSERTNX's integers
    boolean bools = r.resp3() && (!nx || !multi);
    if (multi) {
      r.array(args.length - from);
    }
    for (int i = from; i < args.length; i++) {
      stats.filterAdds++;
      CuckooEntry.Insert result = c.add(args[i], nx);
      switch (result) {
        case INSERTED, EXISTS -> {
          boolean inserted = result == CuckooEntry.Insert.INSERTED;
          if (bools) {
            r.bool(inserted);
          } else {
            r.integer(inserted ? 1 : 0);
          }
        }
        case NO_SPACE -> {
          if (!multi) {
            throw new CommandException("Filter is full");
          }
          if (r.resp3() && !nx) {
            r.bool(false);
          } else {
            r.integer(-1);
          }
        }
      }
    }
  }

  private void cfExists(byte[][] args, boolean multi, Reply r) {
    CuckooEntry c = keys.get(args[1], CuckooEntry.class);
    if (multi) {
      r.array(args.length - 2);
    }
    for (int i = 2; i < args.length; i++) {
      stats.filterChecks++;
      r.bool(c != null && c.exists(args[i]));
    }
  }

  private void cfInfo(byte[][] args, Reply r) {
    CuckooEntry c = keys.get(args[1], CuckooEntry.class);
    if (c == null) {
      throw new CommandException("ERR not found");
    }
    Map<String, Long> m = new java.util.LinkedHashMap<>();
    m.put("Size", c.memoryBytes());
    m.put("Number of buckets", c.buckets());
    m.put("Number of filters", (long) c.layers.size());
    m.put("Number of items inserted", c.items());
    m.put("Number of items deleted", c.deletes());
    m.put("Bucket size", (long) c.bucketSize);
    m.put("Expansion rate", (long) c.expansion);
    m.put("Max iterations", (long) c.maxIterations);
    r.map(m.size());
    m.forEach(
        (k, v) -> {
          r.simple(k);
          r.integer(v);
        });
  }

  private static CommandException arity(String name) {
    return new CommandException("ERR wrong number of arguments for '" + name + "' command");
  }
}
