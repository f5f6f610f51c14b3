/*
 * YCSB's CoreWorkload with the paper's key shape: every key is 16 bytes, "user"
 * followed by 12 hex digits. CoreWorkload names record n "user" + the decimal FNV
 * hash of n, 5 to 23 bytes long; here n goes through mix48, a bijection of 48-bit
 * integers, instead, so distinct records keep distinct keys and records inserted one
 * after another land far apart in key order, as with CoreWorkload's hash. With
 * insertorder=ordered, n is used as it is. Everything else (operation mix, request
 * and scan-length distributions, fields, insert sequence, measurements) is
 * CoreWorkload's own code.
 *
 * Threads: like CoreWorkload, one instance serves every client thread; buildKeyName
 * is a pure function.
 */
package org.teksdb.ycsb;

import java.util.Properties;

import site.ycsb.Client;
import site.ycsb.WorkloadException;
import site.ycsb.workloads.CoreWorkload;

public class FixedKeyWorkload extends CoreWorkload {
  private static final int KEY_BITS = 48;
  private static final long KEY_MASK = (1L << KEY_BITS) - 1;
  private static final String ZEROS = "000000000000";  // KEY_BITS / 4 digits

  @Override
  public void init(Properties p) throws WorkloadException {
    super.init(p);
    // Record numbers run from insertstart up to recordcount plus the run's inserts.
    final long highest = Long.parseLong(p.getProperty(INSERT_START_PROPERTY, "0"))
        + Long.parseLong(p.getProperty(Client.RECORD_COUNT_PROPERTY, "0"))
        + Long.parseLong(p.getProperty(Client.OPERATION_COUNT_PROPERTY, "0"));
    if (highest > KEY_MASK) {
      throw new WorkloadException("FixedKeyWorkload: record numbers reach " + highest
          + ", beyond the 2^48 that 16-byte keys can name");
    }
  }

  @Override
  protected String buildKeyName(long keynum) {
    final String digits = Long.toHexString(orderedinserts ? keynum : mix48(keynum));
    return "user" + ZEROS.substring(digits.length()) + digits;
  }

  /**
   * A bijection of [0, 2^48): multiplications by odd constants and xor-shifts are
   * each invertible modulo 2^48, so no two record numbers share a key.
   */
  static long mix48(long n) {
    long x = n & KEY_MASK;
    x = (x * 0x9E3779B97F4BL) & KEY_MASK;
    x ^= x >>> 24;
    x = (x * 0xC2B2AE3D27D5L) & KEY_MASK;
    x ^= x >>> 23;
    return x;
  }
}
