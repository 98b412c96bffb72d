package dev.idem.server;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Splits an inline request into arguments the way Redis's {@code sdssplitargs} does: blanks
 * separate, double quotes allow {@code \n}, {@code \t}, {@code \xHH} and the like, single quotes
 * take everything but {@code \'} literally, and a closing quote must be followed by a blank.
 */
final class InlineSplitter {

  private InlineSplitter() {}

  /** The arguments, or {@code null} for unbalanced quotes. */
  static byte[][] split(byte[] line) {
    List<byte[]> args = new ArrayList<>();
    int i = 0;
    int n = line.length;
    while (true) {
      while (i < n && isSpace(line[i])) {
        i++;
      }
      if (i >= n) {
        return args.toArray(new byte[0][]);
      }
      ByteArrayOutputStream cur = new ByteArrayOutputStream();
      boolean inDouble = false;
      boolean inSingle = false;
      boolean done = false;
      while (!done) {
        if (inDouble) {
          if (i >= n) {
            return null;
          }
          byte c = line[i];
          if (c == '\\'
              && i + 3 < n
              && line[i + 1] == 'x'
              && isHex(line[i + 2])
              && isHex(line[i + 3])) {
            cur.write(hex(line[i + 2]) * 16 + hex(line[i + 3]));
            i += 3;
          } else if (c == '\\' && i + 1 < n) {
            i++;
            byte e = line[i];
            cur.write(
                switch (e) {
                  case 'n' -> '\n';
                  case 'r' -> '\r';
                  case 't' -> '\t';
                  case 'b' -> '\b';
                  case 'a' -> 7;
                  default -> e;
                });
          } else if (c == '"') {
            if (i + 1 < n && !isSpace(line[i + 1])) {
              return null;
            }
            done = true;
          } else {
            cur.write(c);
          }
        } else if (inSingle) {
          if (i >= n) {
            return null;
          }
          byte c = line[i];
          if (c == '\\' && i + 1 < n && line[i + 1] == '\'') {
            i++;
            cur.write('\'');
          } else if (c == '\'') {
            if (i + 1 < n && !isSpace(line[i + 1])) {
              return null;
            }
            done = true;
          } else {
            cur.write(c);
          }
        } else {
          if (i >= n) {
            break;
          }
          byte c = line[i];
          if (isSpace(c)) {
            done = true;
          } else if (c == '"') {
            inDouble = true;
          } else if (c == '\'') {
            inSingle = true;
          } else {
            cur.write(c);
          }
        }
        if (i < n) {
          i++;
        }
      }
      args.add(cur.toByteArray());
    }
  }

  private static boolean isSpace(byte c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0x0b || c == '\f';
  }

  private static boolean isHex(byte c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  }

  private static int hex(byte c) {
    return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
  }
}
