// Writes targets/mips/tests/data/java17-float-vectors.txt: what JDK 17's Double.toString and
// Float.toString print for seeded random bit patterns and for edge cases (subnormals, powers of
// ten and of two with their neighbours, floats at and above 2^63). MARS prints floats with these
// methods, and JDK 19 changed Double.toString, so the file must come from a JDK 17:
//
//     java scripts/gen-java-float-vectors.java targets/mips/tests/data/java17-float-vectors.txt
//
// One value per line: the bits in lowercase hex (16 digits for a double, 8 for a float), a
// space, the JDK's text. targets/mips/tests/java_float_vectors.rs checks every line.

import java.io.*;
import java.nio.charset.StandardCharsets;
import java.util.*;

public class GenJavaFloatVectors {
    static PrintWriter out;
    // Each bit pattern is written once.
    static Set<Long> seenDoubles = new HashSet<>();
    static Set<Integer> seenFloats = new HashSet<>();

    static boolean d(double v) {
        if (!seenDoubles.add(Double.doubleToRawLongBits(v))) return false;
        out.printf("%016x %s\n", Double.doubleToRawLongBits(v), Double.toString(v));
        return true;
    }

    static boolean f(float v) {
        if (!seenFloats.add(Float.floatToRawIntBits(v))) return false;
        out.printf("%08x %s\n", Float.floatToRawIntBits(v), Float.toString(v));
        return true;
    }

    static void dAround(double v) {
        d(v);
        d(Math.nextUp(v));
        d(Math.nextDown(v));
    }

    static void fAround(float v) {
        f(v);
        f(Math.nextUp(v));
        f(Math.nextDown(v));
    }

    public static void main(String[] args) throws IOException {
        if (!System.getProperty("java.specification.version").equals("17")) {
            throw new IllegalStateException("run this with a JDK 17, not "
                    + System.getProperty("java.version"));
        }
        String path = args.length > 0 ? args[0] : "java17-float-vectors.txt";
        out = new PrintWriter(new BufferedWriter(new OutputStreamWriter(
                new FileOutputStream(path), StandardCharsets.US_ASCII)));
        Random random = new Random(17_2026L);

        // Edge cases: zeros, infinities, NaN, extremes, subnormals.
        double[] ds = {0.0, -0.0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.NaN,
            Double.MIN_VALUE, Double.MIN_NORMAL, Double.MAX_VALUE, 1.0, 0.1, 0.5, 1e7, 1e-3};
        for (double v : ds) dAround(v);
        for (long m = 1; m < 512; m++) d(Double.longBitsToDouble(m));
        for (long m = 1; m < 512; m++) d(Double.longBitsToDouble(0x000fffffffffffffL - m + 1));
        for (int k = 0; k < 1000; k++) {
            d(Double.longBitsToDouble(random.nextLong() & 0x000fffffffffffffL));
        }
        float[] fs = {0f, -0f, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.NaN,
            Float.MIN_VALUE, Float.MIN_NORMAL, Float.MAX_VALUE, 1f, 0.1f, 0.5f, 1e7f, 1e-3f};
        for (float v : fs) fAround(v);
        for (int m = 1; m < 512; m++) f(Float.intBitsToFloat(m));
        for (int m = 1; m < 512; m++) f(Float.intBitsToFloat(0x007fffff - m + 1));
        for (int k = 0; k < 1000; k++) f(Float.intBitsToFloat(random.nextInt() & 0x007fffff));

        // Powers of ten and of two, with their neighbours.
        for (int e = -325; e <= 308; e++) dAround(Double.parseDouble("1e" + e));
        for (int e = -46; e <= 38; e++) fAround(Float.parseFloat("1e" + e));
        for (int e = -1074; e <= 1023; e++) dAround(Math.scalb(1.0, e));
        for (int e = -149; e <= 127; e++) fAround(Math.scalb(1.0f, e));
        // Integers and decimals with few digits, where the switch to E notation happens.
        for (int i = 1; i <= 1000; i++) {
            d(i); d(i / 1000.0); d(i * 1e5); f(i); f(i / 1000f); f(i * 1e5f);
        }
        // Floats at and above 2^63 (a long no longer holds their integer part).
        for (int e = 60; e <= 127; e++) {
            for (int k = 0; k < 100; k++) {
                int bits = ((e + 127) << 23) | (random.nextInt() & 0x007fffff);
                f(Float.intBitsToFloat(bits));
            }
        }
        // Doubles in the same place and where 17 digits are needed.
        for (int e = 50; e <= 100; e++) {
            for (int k = 0; k < 100; k++) {
                long bits = ((long) (e + 1023) << 52) | (random.nextLong() & 0x000fffffffffffffL);
                d(Double.longBitsToDouble(bits));
            }
        }

        // Random bit patterns: every exponent equally likely.
        for (int k = 0; k < 100_000; ) if (d(Double.longBitsToDouble(random.nextLong()))) k++;
        for (int k = 0; k < 100_000; ) if (f(Float.intBitsToFloat(random.nextInt()))) k++;
        // Random values of ordinary size, as programs print them.
        for (int k = 0; k < 5_000; k++) d((random.nextDouble() - 0.5) * Math.pow(10, random.nextInt(40) - 20));
        for (int k = 0; k < 5_000; k++) f((float) ((random.nextDouble() - 0.5) * Math.pow(10, random.nextInt(20) - 10)));
        out.close();
        if (out.checkError()) throw new IOException("writing " + path + " failed");
    }
}
